package projectmcp_test

import (
	"context"
	"testing"
	"time"

	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/projectmcp"
)

// Answers the window gives: the three actions are taken, anything else is refused, a
// form no longer waiting is said so, and a call that ends while its form waits cancels
// it (and takes it off the window).
func TestElicitationsAnswers(t *testing.T) {
	rec := &events.Recorder{}
	el := projectmcp.NewElicitations(rec)
	for _, tc := range []struct {
		action  string
		content map[string]any
		want    mcp.ElicitResponse
	}{
		{"accept", map[string]any{"n": 1.0}, mcp.ElicitResponse{Action: "accept", Content: map[string]any{"n": 1.0}}},
		{"decline", map[string]any{"n": 1.0}, mcp.ElicitResponse{Action: "decline"}},
		{"cancel", nil, mcp.ElicitResponse{Action: "cancel"}},
	} {
		got := make(chan mcp.ElicitResponse, 1)
		go func() {
			r, _ := el.Ask(context.Background(), mcp.ElicitRequest{Server: "s", Mode: "form", Message: "?"})
			got <- r
		}()
		testkit.Until(t, 5*time.Second, "the request", func() bool { return len(el.Pending()) == 1 })
		id := el.Pending()[0].ID
		if err := el.Answer(id, "maybe", nil); err == nil {
			t.Fatal("an unknown action was taken")
		}
		if err := el.Answer(id, tc.action, tc.content); err != nil {
			t.Fatal(err)
		}
		if r := <-got; r.Action != tc.want.Action || len(r.Content) != len(tc.want.Content) {
			t.Fatalf("%s: %+v", tc.action, r)
		}
		if err := el.Answer(id, "accept", nil); err == nil {
			t.Fatal("a form answered twice")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan mcp.ElicitResponse, 1)
	go func() {
		r, _ := el.Ask(ctx, mcp.ElicitRequest{Server: "s", Message: "?"})
		got <- r
	}()
	testkit.Until(t, 5*time.Second, "the request", func() bool { return len(el.Pending()) == 1 })
	cancel()
	if r := <-got; r.Action != "cancel" || len(el.Pending()) != 0 {
		t.Fatalf("%+v, pending %d", r, len(el.Pending()))
	}
	if n, d := len(rec.Named(events.MCPElicitation)), len(rec.Named(events.MCPElicitationDone)); n != 4 || d != 4 {
		t.Fatalf("%d requests, %d done", n, d)
	}
	if _, err := el.Ask(context.Background(), mcp.ElicitRequest{Mode: "url", URL: "https://example.com"}); err == nil {
		t.Fatal("a url request was taken")
	}
}
