package llm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// recorder is a Handler that keeps every callback in order.
type recorder struct {
	events    []string // "delta:<text>", "start:<i>:<id>:<name>", "args:<i>:<frag>", "reason:<text>"
	text      strings.Builder
	args      map[int]*strings.Builder
	onDelta   func(string)
	reasoning strings.Builder
}

func newRecorder() *recorder { return &recorder{args: map[int]*strings.Builder{}} }

func (r *recorder) OnDelta(text string) {
	r.events = append(r.events, "delta:"+text)
	r.text.WriteString(text)
	if r.onDelta != nil {
		r.onDelta(text)
	}
}

func (r *recorder) OnToolCallStart(index int, id, name string) {
	r.events = append(r.events, fmt.Sprintf("start:%d:%s:%s", index, id, name))
}

func (r *recorder) OnToolCallDelta(index int, frag string) {
	r.events = append(r.events, fmt.Sprintf("args:%d:%s", index, frag))
	if r.args[index] == nil {
		r.args[index] = &strings.Builder{}
	}
	r.args[index].WriteString(frag)
}

func (r *recorder) OnReasoningDelta(text string) {
	r.events = append(r.events, "reason:"+text)
	r.reasoning.WriteString(text)
}

func (r *recorder) count(prefix string) int {
	n := 0
	for _, e := range r.events {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

// testConfig returns a config with fast retries and generous timeouts for srv.
func testConfig(srv *fakellm.Server) Config {
	return Config{
		BaseURL:           srv.URL(),
		Model:             "test-model",
		Timeout:           20 * time.Second,
		ConnectTimeout:    2 * time.Second,
		FirstTokenTimeout: 5 * time.Second,
		IdleTimeout:       5 * time.Second,
		MaxRetries:        2,
		RetryBaseDelay:    time.Millisecond,
		MaxRetryDelay:     20 * time.Millisecond,
		Endpoints:         NewEndpointMemory(""),
	}
}

func newFake(t *testing.T) *fakellm.Server {
	t.Helper()
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	return srv
}

func userReq(text string) Request {
	return Request{Messages: []Message{{Role: conversation.RoleUser, Content: conversation.Str(text)}}}
}

func wantCode(t *testing.T, err error, code string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %s, got nil", code)
	}
	e := AsError(err)
	if e.Code != code {
		t.Fatalf("want code %s, got %s (%v)", code, e.Code, err)
	}
	return e
}
