package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress is one progress notification of a running call.
type Progress struct {
	// Progress grows with each notification; Total is 0 when the server does not know it.
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// String says it in a line: "3/10 copying files", "42%", "step 3".
func (p Progress) String() string {
	var s string
	switch {
	case p.Total > 0:
		s = fmt.Sprintf("%s/%s", num(p.Progress), num(p.Total))
	default:
		s = num(p.Progress)
	}
	if m := strings.TrimSpace(p.Message); m != "" {
		s += " " + oneLineOf(m)
	}
	return s
}

func num(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.2f", f)
}

func oneLineOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s, _ = cutText(s, 200)
		s += "…"
	}
	return s
}

// ElicitRequest is a server asking the user for input while it works (elicitation/create).
type ElicitRequest struct {
	Server string `json:"server"`
	// Mode is "form" (answer the fields of Schema) or "url" (open URL and come back).
	Mode    string          `json:"mode"`
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"requestedSchema,omitempty"`
	URL     string          `json:"url,omitempty"`
}

// ElicitResponse is the user's answer: Action "accept" (with Content, the fields of the
// form), "decline" or "cancel".
type ElicitResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ElicitFunc asks the user; an error answers the server with an error (for example when
// nobody can be asked).
type ElicitFunc func(ctx context.Context, req ElicitRequest) (ElicitResponse, error)

// progressSet routes the progress notifications of a connection to the calls that asked
// for them, by progress token, and knows the timers of the calls under way.
type progressSet struct {
	mu     sync.Mutex
	next   int64
	calls  map[string]func(Progress)
	timers map[string]*callTimer
}

func (p *progressSet) add(f func(Progress), t *callTimer) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	tok := fmt.Sprintf("crewagent-%d", p.next)
	if p.calls == nil {
		p.calls, p.timers = map[string]func(Progress){}, map[string]*callTimer{}
	}
	p.calls[tok], p.timers[tok] = f, t
	return tok
}

// hold stops the clock of every call under way (the user is being asked something) until
// the function it returns is called.
func (p *progressSet) hold() func() {
	p.mu.Lock()
	var held []*callTimer
	for _, t := range p.timers {
		if t.pause() {
			held = append(held, t)
		}
	}
	p.mu.Unlock()
	return func() {
		for _, t := range held {
			t.resume()
		}
	}
}

func (p *progressSet) remove(tok string) {
	p.mu.Lock()
	delete(p.calls, tok)
	delete(p.timers, tok)
	p.mu.Unlock()
}

func (p *progressSet) deliver(params *sdk.ProgressNotificationParams) {
	if params == nil {
		return
	}
	tok := fmt.Sprint(params.ProgressToken)
	p.mu.Lock()
	f := p.calls[tok]
	p.mu.Unlock()
	if f != nil {
		f(Progress{Progress: params.Progress, Total: params.Total, Message: params.Message})
	}
}

// logMessage writes a logging notification of the server to its log.
func (s *server) logMessage(params *sdk.LoggingMessageParams) {
	if params == nil || s.log == nil {
		return
	}
	var data string
	switch d := params.Data.(type) {
	case string:
		data = d
	default:
		b, _ := json.Marshal(d)
		data = string(b)
	}
	line := "[" + string(params.Level) + "]"
	if params.Logger != "" {
		line += " " + params.Logger + ":"
	}
	line += " " + strings.TrimRight(data, "\r\n") + "\n"
	_, _ = s.log.Write([]byte(s.redactor().scrub(line)))
}

// elicit answers an elicitation request of the server through Options.Elicit; an accepted
// form gets the defaults of the fields the answer leaves out. The calls under way on c do
// not time out while the user is asked.
func (s *server) elicit(ctx context.Context, c *conn, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	f := s.m.opts.Elicit
	if f == nil || req == nil || req.Params == nil {
		return nil, fmt.Errorf("this client cannot ask the user")
	}
	defer c.progress.hold()()
	p := req.Params
	r := ElicitRequest{Server: s.cfg.Name, Mode: p.Mode, Message: p.Message, URL: p.URL}
	if r.Mode == "" {
		r.Mode = "form"
	}
	if p.RequestedSchema != nil {
		if b, err := json.Marshal(p.RequestedSchema); err == nil {
			r.Schema = b
		}
	}
	ans, err := f(ctx, r)
	if err != nil {
		return nil, err
	}
	switch ans.Action {
	case "accept":
		if r.Mode == "form" {
			ans.Content = ApplyDefaults(r.Schema, ans.Content)
		}
	case "decline", "cancel":
		ans.Content = nil
	default:
		return nil, fmt.Errorf("unknown answer %q", ans.Action)
	}
	return &sdk.ElicitResult{Action: ans.Action, Content: ans.Content}, nil
}

// ApplyDefaults returns content with the default of every property of the form schema
// that content leaves out (a form shown to the user starts from those defaults).
func ApplyDefaults(schema json.RawMessage, content map[string]any) map[string]any {
	var s struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return content
	}
	out := make(map[string]any, len(content)+len(s.Properties))
	for k, v := range content {
		out[k] = v
	}
	for k, p := range s.Properties {
		if _, ok := out[k]; !ok && p.Default != nil {
			out[k] = p.Default
		}
	}
	return out
}

// callTimer is the timeout of one call: it fires after timeout without an answer, and
// every progress notification starts it again, up to max after the start (0: no cap).
type callTimer struct {
	mu       sync.Mutex
	t        *time.Timer
	timeout  time.Duration
	deadline time.Time
	fired    bool
	progress bool
	held     int // the user is being asked: the clock is stopped
}

func newCallTimer(timeout, max time.Duration, cancel context.CancelFunc) *callTimer {
	ct := &callTimer{timeout: timeout}
	if max > 0 && max > timeout {
		ct.deadline = time.Now().Add(max)
	}
	ct.t = time.AfterFunc(timeout, func() {
		ct.mu.Lock()
		ct.fired = true
		ct.mu.Unlock()
		cancel()
	})
	return ct
}

// extend starts the timeout again (a progress notification arrived).
func (ct *callTimer) extend() {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.progress = true
	if ct.fired || ct.held > 0 {
		return
	}
	d := ct.timeout
	if !ct.deadline.IsZero() {
		d = min(d, time.Until(ct.deadline))
	}
	if ct.t.Stop() {
		ct.t.Reset(max(d, 0))
	}
}

func (ct *callTimer) stop() { ct.t.Stop() }

// pause stops the clock; false when the call has already run out of time.
func (ct *callTimer) pause() bool {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.fired {
		return false
	}
	if ct.held == 0 && !ct.t.Stop() {
		return false // firing right now
	}
	ct.held++
	return true
}

// resume starts the clock again, with the whole timeout, once nobody holds it.
func (ct *callTimer) resume() {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.held--; ct.held == 0 && !ct.fired {
		d := ct.timeout
		if !ct.deadline.IsZero() {
			d = min(d, time.Until(ct.deadline))
		}
		ct.t.Reset(max(d, 0))
	}
}

// timedOut reports whether the call ran out of time, and whether it had sent progress.
func (ct *callTimer) timedOut() (bool, bool) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.fired, ct.progress
}
