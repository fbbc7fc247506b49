package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// attemptInfo collects what the transport saw of one HTTP exchange (go-openai keeps the
// headers of failed responses to itself, and Retry-After lives there).
type attemptInfo struct {
	mu     sync.Mutex
	status int
	header http.Header
	sse    *sseReader
	// bodyEnded is set when a non-streamed body reached its real end, so a JSON decoder's
	// "unexpected EOF" means truncated JSON rather than a cut connection.
	bodyEnded atomic.Bool
	// extra are JSON object members ("name":value,...) added to the request body: the
	// fields go-openai does not know.
	extra []byte
	// errBody is the start of an error response's body; body a copy of a non-streamed
	// answer's body (what go-openai does not decode: other providers' usage fields).
	errBody []byte
	body    *bytes.Buffer
}

// maxErrBody bounds the copy of an error response kept for refusal checks.
const maxErrBody = 64 << 10

// errorBody returns the start of the error response's body.
func (a *attemptInfo) errorBody() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.errBody
}

// answerBody returns the copy of a non-streamed answer's body (nil when none).
func (a *attemptInfo) answerBody() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.body == nil {
		return nil
	}
	return a.body.Bytes()
}

func (a *attemptInfo) response() (int, http.Header) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status, a.header
}

func (a *attemptInfo) stream() *sseReader {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sse
}

type attemptKey struct{}

func withAttempt(ctx context.Context, a *attemptInfo) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

// transport records responses into the request's attemptInfo and normalises streamed
// bodies (see sseReader).
type transport struct {
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	info, _ := req.Context().Value(attemptKey{}).(*attemptInfo)
	if info != nil && len(info.extra) > 0 && req.Body != nil {
		var err error
		if req, err = withMembers(req, info.extra); err != nil {
			return nil, err
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if info == nil {
		return resp, nil
	}
	info.mu.Lock()
	defer info.mu.Unlock()
	info.status = resp.StatusCode
	info.header = resp.Header.Clone()
	streamed := strings.Contains(req.Header.Get("Accept"), "text/event-stream")
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
		info.errBody = head
		resp.Body = &replacedBody{Reader: io.MultiReader(bytes.NewReader(head), resp.Body), c: resp.Body}
		return resp, nil
	}
	if !streamed {
		info.body = &bytes.Buffer{}
		resp.Body = &trackedBody{ReadCloser: resp.Body, ended: &info.bodyEnded, copy: info.body}
		return resp, nil
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if strings.HasPrefix(ct, "application/json") {
		// The server ignored stream:true and answered in one JSON document.
		resp.Body = jsonAsSSE(resp.Body)
	}
	info.sse = newSSEReader(resp.Body)
	resp.Body = info.sse
	return resp, nil
}

// jsonAsSSE turns a non-streamed chat.completion (or an {"error":...} document) into the
// SSE events a stream would have carried.
func jsonAsSSE(body io.ReadCloser) io.ReadCloser {
	raw, err := io.ReadAll(io.LimitReader(body, maxEventBytes+1))
	if err != nil {
		return &errBody{err: err, c: body}
	}
	var probe struct {
		Error json.RawMessage `json:"error"`
	}
	var out bytes.Buffer
	if json.Unmarshal(raw, &probe) == nil && len(probe.Error) > 0 && string(probe.Error) != "null" {
		out.WriteString("data: ")
		compact := bytes.Buffer{}
		if json.Compact(&compact, raw) == nil {
			out.Write(compact.Bytes())
		} else {
			out.Write(raw)
		}
		out.WriteString("\n\n")
		return &replacedBody{Reader: &out, c: body}
	}
	raw = reasoningAsContent(raw)
	var full openai.ChatCompletionResponse
	if err := json.Unmarshal(raw, &full); err != nil {
		// Let the stream parser report it as malformed.
		out.WriteString("data: ")
		out.Write(bytes.ReplaceAll(raw, []byte("\n"), []byte(" ")))
		out.WriteString("\n\n")
		return &replacedBody{Reader: &out, c: body}
	}
	chunk := openai.ChatCompletionStreamResponse{ID: full.ID, Object: "chat.completion.chunk", Created: full.Created, Model: full.Model}
	for _, ch := range full.Choices {
		d := openai.ChatCompletionStreamChoiceDelta{
			Role:             ch.Message.Role,
			Content:          ch.Message.Content,
			ReasoningContent: ch.Message.ReasoningContent,
		}
		for i, tc := range ch.Message.ToolCalls {
			idx := i
			tc.Index = &idx
			d.ToolCalls = append(d.ToolCalls, tc)
		}
		chunk.Choices = append(chunk.Choices, openai.ChatCompletionStreamChoice{Index: ch.Index, Delta: d, FinishReason: ch.FinishReason})
	}
	if full.Usage.TotalTokens > 0 || full.Usage.PromptTokens > 0 {
		u := full.Usage
		if n, ok := cachedTokensOf(raw); ok {
			u.PromptTokensDetails = &openai.PromptTokensDetails{CachedTokens: n}
		}
		chunk.Usage = &u
	}
	b, _ := json.Marshal(chunk)
	out.WriteString("data: ")
	out.Write(b)
	out.WriteString("\n\ndata: [DONE]\n\n")
	return &replacedBody{Reader: &out, c: body}
}

type trackedBody struct {
	io.ReadCloser
	ended *atomic.Bool
	copy  *bytes.Buffer // the first maxEventBytes of the body
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.copy != nil && b.copy.Len()+n <= maxEventBytes {
		b.copy.Write(p[:n])
	}
	if err == io.EOF {
		b.ended.Store(true)
	}
	return n, err
}

type replacedBody struct {
	io.Reader
	c io.Closer
}

func (b *replacedBody) Close() error { return b.c.Close() }

type errBody struct {
	err error
	c   io.Closer
}

func (b *errBody) Read([]byte) (int, error) { return 0, b.err }
func (b *errBody) Close() error             { return b.c.Close() }

// withMembers returns a copy of req whose JSON object body starts with the members extra.
func withMembers(req *http.Request, extra []byte) (*http.Request, error) {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 1 && trimmed[0] == '{' {
		rest := bytes.TrimLeft(trimmed[1:], " \t\r\n")
		out := make([]byte, 0, len(body)+len(extra)+1)
		out = append(out, '{')
		out = append(out, extra...)
		if len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		body = append(out, rest...)
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r, nil
}

// newHTTPClient wraps the configured client (or builds one whose dialer applies the
// connect timeout) with the recording transport.
func newHTTPClient(cfg Config) *http.Client {
	if cfg.HTTPClient != nil {
		hc := *cfg.HTTPClient
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		hc.Transport = &transport{base: base}
		return &hc
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	t.DialContext = dialer.DialContext
	if cfg.ConnectTimeout > 0 {
		t.TLSHandshakeTimeout = cfg.ConnectTimeout
	}
	return &http.Client{Transport: &transport{base: t}}
}
