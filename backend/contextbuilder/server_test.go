package contextbuilder

import (
	"context"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
)

// send sends a built request through the LLM client to the strict fake server,
// which answers 400 like the OpenAI API on any ordering or content violation.
func send(t *testing.T, c *llm.Client, res *Result) {
	t.Helper()
	req := llm.Request{Messages: make([]llm.Message, len(res.Messages))}
	for i, m := range res.Messages {
		req.Messages[i] = llm.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name}
	}
	for _, name := range res.ToolNames {
		req.Tools = append(req.Tools, llm.Tool{Name: name})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Complete(ctx, req); err != nil {
		t.Fatalf("strict server rejected the request: %v\n%s", err, dump(res.Messages))
	}
}

func TestRequestsAcceptedByStrictServer(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.Text("ok") })
	c := llm.New(llm.Config{BaseURL: srv.URL(), Model: testModel, MaxRetries: -1})

	for _, tt := range []struct {
		log  string
		mode string
	}{
		{"conversation.jsonl", conversation.ModeChat},
		{"conversation.jsonl", conversation.ModeAgent},
		{"run.jsonl", conversation.ModeRun},
		{"summary.jsonl", conversation.ModeAgent},
	} {
		o := opts(tt.mode, storeCounts(readLog(t, filepath.Join("testdata", tt.log))))
		o.Run = fakeRun{runDirective, nodeBrief}
		send(t, c, mustBuild(t, o))
	}
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		o := randomOptions(r, randomLog(r, 1+r.Intn(80)))
		res, err := Build(o)
		if err != nil {
			t.Fatal(err)
		}
		send(t, c, res)
	}
	if got := len(srv.ChatRequests()); got != 64 {
		t.Fatalf("server saw %d requests", got)
	}
}
