package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Server is a fake OpenAI-compatible server. It is safe for concurrent use.
type Server struct {
	ts     *httptest.Server
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	queue    []Response
	fallback func(RecordedRequest) Response
	requests []RecordedRequest
	models   []string
	apiKey   string
	strict   bool

	refuseStyle    string
	refuseFields   []string
	refuseKeywords []string
	windows        map[string]int
	textOnly       []string
	template       string
	cacheShape     string
	lastPrompt     *promptShape // the last chat request accepted, for cached prefixes

	embedFail int // embeddings requests left to fail
}

// New starts a Server on a random loopback port.
func New() *Server {
	s := newServer()
	s.ts = httptest.NewServer(s.handler())
	return s
}

// NewOnAddr starts a Server listening on addr (e.g. "127.0.0.1:0").
func NewOnAddr(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := newServer()
	s.ts = httptest.NewUnstartedServer(s.handler())
	s.ts.Listener.Close()
	s.ts.Listener = ln
	s.ts.Start()
	return s, nil
}

func newServer() *Server {
	return &Server{closed: make(chan struct{}), models: []string{"fake-model"}, strict: true}
}

// URL returns the OpenAI base URL of the server, ending in /v1.
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// Close releases stalled answers, closes client connections and stops the server.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Enqueue appends responses to the script; each request consumes one.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// Pending returns how many enqueued responses are left.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetDefault sets the responder used when the queue is empty (nil: echo the last message).
// It is called with the server's lock released and may be called concurrently.
func (s *Server) SetDefault(f func(RecordedRequest) Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = f
}

// SetModels sets the model ids listed by GET /v1/models.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), ids...)
}

// SetModelWindow makes GET /v1/models report the model's context window in tokens, as
// vLLM does (max_model_len); 0 reports none.
func (s *Server) SetModelWindow(id string, tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.windows == nil {
		s.windows = map[string]int{}
	}
	s.windows[id] = tokens
}

// RequireAPIKey makes every request without "Authorization: Bearer key" fail with 401
// ("" accepts any request).
func (s *Server) RequireAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// SetStrict turns the OpenAI request validation on (the default) or off.
func (s *Server) SetStrict(strict bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strict = strict
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

// ChatRequests returns the recorded POST /v1/chat/completions requests.
func (s *Server) ChatRequests() []RecordedRequest {
	var out []RecordedRequest
	for _, r := range s.Requests() {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.record(r, nil)
		if !s.authorized(w, r) {
			return
		}
		writeAPIError(w, http.StatusNotFound, "invalid_request_error", "unknown_url",
			fmt.Sprintf("Unknown request URL: %s %s.", r.Method, r.URL.Path))
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		s.record(r, nil)
		if !s.authorized(w, r) {
			return
		}
		s.mu.Lock()
		ids := append([]string(nil), s.models...)
		windows := maps.Clone(s.windows)
		s.mu.Unlock()
		type model struct {
			ID          string `json:"id"`
			Object      string `json:"object"`
			Created     int64  `json:"created"`
			OwnedBy     string `json:"owned_by"`
			MaxModelLen int    `json:"max_model_len,omitempty"`
		}
		list := struct {
			Object string  `json:"object"`
			Data   []model `json:"data"`
		}{Object: "list", Data: []model{}}
		for _, id := range ids {
			list.Data = append(list.Data, model{ID: id, Object: "model", Created: 1700000000, OwnedBy: "fakellm", MaxModelLen: windows[id]})
		}
		writeJSON(w, http.StatusOK, list)
	})
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("GET /_fakellm/requests", func(w http.ResponseWriter, r *http.Request) {
		reqs := s.Requests()
		if reqs == nil {
			reqs = []RecordedRequest{}
		}
		writeJSON(w, http.StatusOK, reqs)
	})
	return mux
}

func (s *Server) record(r *http.Request, body []byte) RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := RecordedRequest{
		Seq:    len(s.requests) + 1,
		Method: r.Method,
		Path:   r.URL.Path,
		Header: r.Header.Clone(),
		Body:   body,
	}
	s.requests = append(s.requests, rec)
	return rec
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	key := s.apiKey
	s.mu.Unlock()
	if key == "" || r.Header.Get("Authorization") == "Bearer "+key {
		return true
	}
	writeAPIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
		"Incorrect API key provided. You can find your API key in your account settings.")
	return false
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	rec := RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	decodeErr := decodeChat(&rec)

	s.mu.Lock()
	rec.Seq = len(s.requests) + 1
	s.requests = append(s.requests, rec)
	strict := s.strict
	s.mu.Unlock()

	// Rejected requests do not consume a scripted response.
	if !s.authorized(w, r) {
		return
	}
	if decodeErr != nil {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "", decodeErr.Error())
		return
	}
	if strict {
		if msg := validate(&rec); msg != "" {
			writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "", msg)
			return
		}
	}
	s.mu.Lock()
	status, refusal := refuseField(&rec, s.refuseStyle, s.refuseFields)
	if status == 0 {
		status, refusal = refuseTemplate(&rec, s.template)
	}
	if status == 0 {
		status, refusal = refuseImages(&rec, s.textOnly)
	}
	if status == 0 {
		if msg := refuseKeywords(&rec, s.refuseKeywords); msg != "" {
			status, refusal = http.StatusBadRequest, ErrorBody("INVALID_ARGUMENT", "", msg)
		}
	}
	if status != 0 {
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, refusal)
		return
	}
	shape := shapeOf(&rec)
	rec.CachedTokens = cachedPrefix(s.lastPrompt, shape)
	s.lastPrompt = shape
	s.requests[rec.Seq-1].CachedTokens = rec.CachedTokens
	cacheShape := s.cacheShape
	var resp Response
	fromQueue := false
	if len(s.queue) > 0 {
		resp, s.queue = s.queue[0], s.queue[1:]
		fromQueue = true
	}
	fallback := s.fallback
	s.mu.Unlock()
	if !fromQueue {
		if fallback != nil {
			resp = fallback(rec)
		} else {
			resp = Response{Echo: true}
		}
	}
	if resp.Cache == "" {
		resp.Cache = cacheShape
	}
	s.answer(w, r, &rec, resp)
}

// wait sleeps d (StallForever: until the client or the server goes away); it reports
// whether the answer may go on.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d == 0 {
		return true
	}
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closed:
		return false
	}
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, rec *RecordedRequest, resp Response) {
	if !s.wait(r, resp.Delay) {
		return
	}
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	if resp.Status >= 400 {
		body := resp.Body
		if body == "" {
			body = defaultErrorBody(resp.Status)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(resp.Status)
		_, _ = io.WriteString(w, body)
		return
	}
	if len(resp.Raw) > 0 {
		s.writeRaw(w, r, rec, resp)
		return
	}
	a := build(rec, resp)
	if !rec.Stream || resp.JSON {
		s.writeJSONAnswer(w, r, a, resp)
		return
	}
	s.writeStream(w, r, rec, a, resp)
}

func (s *Server) writeRaw(w http.ResponseWriter, r *http.Request, rec *RecordedRequest, resp Response) {
	ct := resp.ContentType
	if ct == "" {
		ct = "application/json"
		if rec.Stream {
			ct = "text/event-stream"
		}
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i, piece := range resp.Raw {
		if i > 0 && !s.wait(r, resp.ChunkDelay) {
			return
		}
		if resp.Stall != 0 && i == resp.StallAfter && !s.wait(r, resp.Stall) {
			return
		}
		if resp.Cut && i == resp.CutAfter {
			panic(http.ErrAbortHandler)
		}
		_, _ = io.WriteString(w, piece)
		if flusher != nil {
			flusher.Flush()
		}
	}
	if resp.Cut && resp.CutAfter >= len(resp.Raw) {
		panic(http.ErrAbortHandler)
	}
}

// answerPlan is a Response resolved against a request.
type answerPlan struct {
	id        string
	model     string
	text      string
	reasoning string
	calls     []ToolCall
	finish    string
	usage     Usage
}

func build(rec *RecordedRequest, resp Response) answerPlan {
	a := answerPlan{
		id:        fmt.Sprintf("chatcmpl-fake-%d", rec.Seq),
		model:     rec.Model,
		reasoning: resp.Reasoning,
	}
	if a.model == "" {
		a.model = "fake-model"
	}
	text := resp.Text
	if resp.Repeat > 1 {
		text = strings.Repeat(text, resp.Repeat)
	}
	if resp.Echo {
		text += rec.LastMessage().Text()
	}
	a.text = text
	declared := map[string]bool{}
	for _, t := range rec.Tools {
		declared[t.Name] = true
	}
	for i, c := range resp.ToolCalls {
		switch {
		case resp.CallIDs == IDsEmpty:
			c.ID = ""
		case resp.CallIDs == IDsSame && i > 0:
			c.ID = a.calls[0].ID
		case c.ID == "":
			c.ID = fmt.Sprintf("call_%d_%d", rec.Seq, i)
		}
		if !declared[c.Name] && declared[sanitize(c.Name)] {
			c.Name = sanitize(c.Name)
		}
		a.calls = append(a.calls, c)
	}
	a.finish = resp.FinishReason
	if a.finish == "" {
		a.finish = "stop"
		if len(a.calls) > 0 {
			a.finish = "tool_calls"
		}
	}
	if resp.Usage != nil {
		a.usage = *resp.Usage
	} else {
		prompt := 0
		for _, m := range rec.Messages {
			prompt += len(m.Text())/4 + 4
		}
		completion := (len(text) + len(a.reasoning)) / 4
		for _, c := range a.calls {
			completion += (len(c.Name)+len(c.Arguments))/4 + 1
		}
		a.usage = withCache(Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}, rec.CachedTokens, resp.Cache)
	}
	return a
}

// sanitize turns a tool name into the form OpenAI accepts (what clients usually send).
func sanitize(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// split cuts s into n pieces of about equal rune counts (n <= 0: one per 16 runes).
func split(s string, n int) []string {
	runes := utf8.RuneCountInString(s)
	if runes == 0 {
		return nil
	}
	if n <= 0 {
		n = (runes + 15) / 16
	}
	if n > runes {
		n = runes
	}
	out := make([]string, 0, n)
	per, extra := runes/n, runes%n
	rest := s
	for i := 0; i < n; i++ {
		size := per
		if i < extra {
			size++
		}
		cut := 0
		for j := 0; j < size; j++ {
			_, w := utf8.DecodeRuneInString(rest[cut:])
			cut += w
		}
		out = append(out, rest[:cut])
		rest = rest[cut:]
	}
	return out
}

type chunkToolCall struct {
	Index    int     `json:"index"`
	ID       string  `json:"id,omitempty"`
	Type     string  `json:"type,omitempty"`
	Function chunkFn `json:"function"`
}

type chunkFn struct {
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

type chunkDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	ToolCalls        []chunkToolCall `json:"tool_calls,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage"`
}

func (a *answerPlan) events(rec *RecordedRequest, resp Response) []chunk {
	mk := func(d chunkDelta) chunk {
		return chunk{ID: a.id, Object: "chat.completion.chunk", Created: 1700000000, Model: a.model,
			Choices: []chunkChoice{{Delta: d}}}
	}
	empty := ""
	out := []chunk{mk(chunkDelta{Role: "assistant", Content: &empty})}
	for _, piece := range split(a.reasoning, resp.Chunks) {
		if resp.ReasoningField == "reasoning" {
			out = append(out, mk(chunkDelta{Reasoning: piece}))
		} else {
			out = append(out, mk(chunkDelta{ReasoningContent: piece}))
		}
	}
	for _, piece := range split(a.text, resp.Chunks) {
		p := piece
		out = append(out, mk(chunkDelta{Content: &p}))
	}
	// per call: the opening event, then the argument pieces
	argPieces := make([][]string, len(a.calls))
	for i, c := range a.calls {
		n := c.ArgChunks
		if n <= 0 {
			n = 1
		}
		argPieces[i] = split(c.Arguments, n)
	}
	index := func(i int) int {
		if resp.OneIndex {
			return 0
		}
		return i
	}
	open := func(i int) chunk {
		e := ""
		return mk(chunkDelta{ToolCalls: []chunkToolCall{{Index: index(i), ID: a.calls[i].ID, Type: "function",
			Function: chunkFn{Name: a.calls[i].Name, Arguments: &e}}}})
	}
	arg := func(i int, p string) chunk {
		return mk(chunkDelta{ToolCalls: []chunkToolCall{{Index: index(i), Function: chunkFn{Arguments: &p}}}})
	}
	if resp.Interleave {
		for i := range a.calls {
			out = append(out, open(i))
		}
		for k := 0; ; k++ {
			sent := false
			for i := range a.calls {
				if k < len(argPieces[i]) {
					out = append(out, arg(i, argPieces[i][k]))
					sent = true
				}
			}
			if !sent {
				break
			}
		}
	} else {
		for i := range a.calls {
			out = append(out, open(i))
			for _, p := range argPieces[i] {
				out = append(out, arg(i, p))
			}
		}
	}
	fin := mk(chunkDelta{})
	reason := a.finish
	fin.Choices[0].FinishReason = &reason
	out = append(out, fin)
	if rec.IncludeUsage && !resp.OmitUsage {
		u := a.usage
		out = append(out, chunk{ID: a.id, Object: "chat.completion.chunk", Created: 1700000000,
			Model: a.model, Choices: []chunkChoice{}, Usage: &u})
	}
	return out
}

func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, rec *RecordedRequest, a answerPlan, resp Response) {
	switch resp.Fault {
	case FaultClose, FaultChunkCut:
		s.writeHijacked(w, r, rec, a, resp)
		return
	case FaultAbort:
		resp.Cut = true
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	flush()
	events := a.events(rec, resp)
	for i, ev := range events {
		if resp.Stall != 0 && i == resp.StallAfter && !s.wait(r, resp.Stall) {
			return
		}
		if resp.Cut && i == resp.CutAfter {
			panic(http.ErrAbortHandler)
		}
		if resp.Fault == FaultEnd && i == resp.CutAfter {
			return
		}
		if i > 0 && !s.wait(r, resp.ChunkDelay) {
			return
		}
		b, _ := json.Marshal(ev)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
		flush()
	}
	n := len(events)
	if resp.Stall != 0 && resp.StallAfter >= n && !s.wait(r, resp.Stall) {
		return
	}
	if resp.Cut && resp.CutAfter >= n {
		panic(http.ErrAbortHandler)
	}
	if resp.Fault == FaultEnd && resp.CutAfter >= n {
		return
	}
	if !resp.OmitDone {
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		flush()
	}
}

// writeHijacked answers a streamed request over the raw TCP connection for the faults the
// HTTP server cannot produce: a body delimited by the connection that ends with a clean
// close (FaultClose), and a chunked body cut inside a chunk (FaultChunkCut).
func (s *Server) writeHijacked(w http.ResponseWriter, r *http.Request, rec *RecordedRequest, a answerPlan, resp Response) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, bw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	chunked := resp.Fault == FaultChunkCut
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n"
	if chunked {
		head += "Transfer-Encoding: chunked\r\n"
	}
	for k, v := range resp.Headers {
		head += k + ": " + v + "\r\n"
	}
	_, _ = bw.WriteString(head + "\r\n")
	_ = bw.Flush()
	var pieces []string
	for _, ev := range a.events(rec, resp) {
		b, _ := json.Marshal(ev)
		pieces = append(pieces, "data: "+string(b)+"\n\n")
	}
	if !resp.OmitDone {
		pieces = append(pieces, "data: [DONE]\n\n")
	}
	for i, p := range pieces {
		if i > 0 && !s.wait(r, resp.ChunkDelay) {
			return
		}
		if i == resp.CutAfter {
			if chunked {
				// announce the whole event, send half of it, hang up
				fmt.Fprintf(bw, "%x\r\n%s", len(p), p[:len(p)/2])
				_ = bw.Flush()
			}
			return
		}
		if chunked {
			fmt.Fprintf(bw, "%x\r\n%s\r\n", len(p), p)
		} else {
			_, _ = bw.WriteString(p)
		}
		if bw.Flush() != nil {
			return
		}
	}
	if chunked {
		_, _ = bw.WriteString("0\r\n\r\n")
		_ = bw.Flush()
	}
}

func (s *Server) writeJSONAnswer(w http.ResponseWriter, r *http.Request, a answerPlan, resp Response) {
	if resp.Stall != 0 && !s.wait(r, resp.Stall) {
		return
	}
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	type message struct {
		Role             string  `json:"role"`
		Content          *string `json:"content"`
		ReasoningContent string  `json:"reasoning_content,omitempty"`
		Reasoning        string  `json:"reasoning,omitempty"`
		ToolCalls        []call  `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	msg := message{Role: "assistant", ReasoningContent: a.reasoning}
	if resp.ReasoningField == "reasoning" {
		msg.ReasoningContent, msg.Reasoning = "", a.reasoning
	}
	if a.text != "" || len(a.calls) == 0 {
		t := a.text
		msg.Content = &t
	}
	for _, c := range a.calls {
		msg.ToolCalls = append(msg.ToolCalls, call{ID: c.ID, Type: "function", Function: fn{Name: c.Name, Arguments: c.Arguments}})
	}
	body := struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   *Usage   `json:"usage,omitempty"`
	}{ID: a.id, Object: "chat.completion", Created: 1700000000, Model: a.model,
		Choices: []choice{{Message: msg, FinishReason: a.finish}}}
	if !resp.OmitUsage {
		u := a.usage
		body.Usage = &u
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if resp.Cut || resp.Fault != "" {
		_, _ = w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	_, _ = w.Write(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeAPIError(w http.ResponseWriter, status int, errType, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, ErrorBody(errType, code, message))
}
