package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"sync/atomic"
)

// maxEventBytes bounds one SSE event (a tool call's arguments can be large, but not this).
const maxEventBytes = 16 << 20

var errEventTooLarge = errors.New("server-sent event larger than 16 MiB")

// sseReader normalises a server-sent-event body into the form go-openai's stream reader
// handles best: one "data: <payload>\n" line per event and nothing else. It drops comments
// (": ping") and other fields (event:, id:, retry:), accepts LF, CRLF and CR line ends, joins
// the data lines of one event, splits two complete JSON payloads that a server sent without
// the blank line between them, and records whether the stream ended with [DONE].
//
// go-openai alone would count every comment towards its empty-message limit and keep it in
// its error accumulator, where it breaks the decoding of a later in-stream error.
type sseReader struct {
	src  *bufio.Reader
	body io.Closer

	out     []byte // normalised bytes not yet read
	data    []byte // payload of the event being read
	hasData bool
	err     error // terminal error, returned once out is drained
	done    atomic.Bool
	// cached is the newest cached-prompt-token count a payload reported, +1 (0: none).
	cached atomic.Int64
}

// cachedTokens returns the cached prompt tokens the stream reported, if any.
func (r *sseReader) cachedTokens() (int, bool) {
	n := r.cached.Load()
	return int(n - 1), n > 0
}

func newSSEReader(body io.ReadCloser) *sseReader {
	return &sseReader{src: bufio.NewReaderSize(body, 32<<10), body: body}
}

// sawDone reports whether a "[DONE]" event went through.
func (r *sseReader) sawDone() bool { return r.done.Load() }

func (r *sseReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.step()
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

func (r *sseReader) Close() error { return r.body.Close() }

// step reads one line and turns it into output, or records the terminal error.
func (r *sseReader) step() {
	line, err := r.readLine()
	if err != nil && !errors.Is(err, io.EOF) {
		// A read error leaves an incomplete line behind: drop it, keep what was complete.
		r.err = err
		return
	}
	if len(line) > 0 || err == nil {
		// A lone CR also ends a line (SSE allows CR, LF and CRLF). Servers that end lines
		// with CR only are read correctly but delivered late, at the next LF or the end.
		for {
			before, after, found := bytes.Cut(line, []byte{'\r'})
			r.line(before)
			if !found {
				break
			}
			line = after
		}
	}
	if err != nil {
		r.dispatch() // lenient: an event not closed by a blank line at the end still counts
		r.err = err
	}
}

// readLine returns the next line without its LF or CRLF end; at the end of the body it
// returns the unterminated rest with io.EOF.
func (r *sseReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.src.ReadSlice('\n')
		if len(line)+len(chunk)+len(r.data) > maxEventBytes {
			return nil, errEventTooLarge
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
		}
		return line, err
	}
}

func (r *sseReader) line(line []byte) {
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 {
		r.dispatch()
		return
	}
	if line[0] == ':' {
		return // comment
	}
	field, value, found := bytes.Cut(line, []byte{':'})
	if !found {
		return // a field without value: nothing we use
	}
	if string(field) != "data" {
		return // event:, id:, retry: and unknown fields
	}
	value = bytes.TrimPrefix(value, []byte{' '})
	if r.hasData {
		if completePayload(r.data) {
			r.dispatch() // two events without the blank line between them
		} else {
			// A payload continued on another data line. The joiner must not be a newline:
			// go-openai reads line by line; in JSON a space is equivalent.
			r.data = append(r.data, ' ')
		}
	}
	r.data = append(r.data, value...)
	r.hasData = true
}

// reasoningKey matches the "reasoning" member servers other than DeepSeek use for the
// model's thinking (OpenRouter, Ollama, recent vLLM).
var reasoningKey = regexp.MustCompile(`"reasoning"(\s*):`)

// reasoningAsContent renames a "reasoning" member to "reasoning_content", the name
// go-openai decodes, when the payload has no reasoning_content of its own. Outside of a
// member name the sequence cannot occur: a quote inside a JSON string is escaped.
func reasoningAsContent(p []byte) []byte {
	if !bytes.Contains(p, []byte(`"reasoning"`)) || bytes.Contains(p, []byte(`"reasoning_content"`)) {
		return p
	}
	return reasoningKey.ReplaceAll(p, []byte(`"reasoning_content"$1:`))
}

func completePayload(b []byte) bool {
	t := bytes.TrimSpace(b)
	return string(t) == "[DONE]" || (len(t) > 0 && json.Valid(t))
}

func (r *sseReader) dispatch() {
	if !r.hasData {
		return
	}
	payload := bytes.TrimSpace(r.data)
	r.data = r.data[:0]
	r.hasData = false
	if len(payload) == 0 {
		return
	}
	if string(payload) == "[DONE]" {
		r.done.Store(true)
	}
	isErr := false
	if p, ok := errorPayload(payload); ok {
		payload, isErr = p, true
	} else {
		if n, ok := cachedTokensOf(payload); ok {
			r.cached.Store(int64(n) + 1)
		}
		payload = reasoningAsContent(payload)
	}
	r.out = append(r.out, "data: "...)
	r.out = append(r.out, payload...)
	r.out = append(r.out, '\n')
	if isErr && r.err == nil {
		// go-openai reports an error event only once it reads past it; end the stream here
		// so a server that keeps the connection open cannot turn it into a timeout.
		r.err = io.EOF
	}
}

// errorPayload recognises an error event and rewrites it as {"error":{"message":...}}, the
// only shape go-openai decodes: {"error":{...}} with any spacing or without a message,
// {"error":"text"}, and {"object":"error","message":...} (vLLM).
func errorPayload(p []byte) ([]byte, bool) {
	if len(p) == 0 || p[0] != '{' || !bytes.Contains(p, []byte(`"error"`)) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil {
		return nil, false
	}
	var obj map[string]json.RawMessage
	inner, hasErr := m["error"]
	switch {
	case hasErr && len(inner) > 0 && string(inner) != "null":
		var text string
		if json.Unmarshal(inner, &text) == nil {
			obj = map[string]json.RawMessage{}
			obj["message"], _ = json.Marshal(text)
		} else if json.Unmarshal(inner, &obj) != nil || obj == nil {
			return nil, false
		}
	case string(m["object"]) == `"error"`:
		obj = m
	default:
		return nil, false
	}
	var msg string
	if json.Unmarshal(obj["message"], &msg) != nil {
		var buf bytes.Buffer
		_ = json.Compact(&buf, p)
		obj["message"], _ = json.Marshal(buf.String())
	}
	b, err := json.Marshal(map[string]map[string]json.RawMessage{"error": obj})
	if err != nil {
		return nil, false
	}
	return b, true
}
