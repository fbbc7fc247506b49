package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/llm/fakellm"
	"crewagent/backend/tokens"
	"crewagent/backend/tools"
)

// requestTokens counts a request the server received, independently of the
// engine: per message 4 + content + tool calls + ids + name, 3 for the reply,
// and the definitions of the default tools.
func requestTokens(t *testing.T, c *tokens.Counter, r fakellm.RecordedRequest, root string) int {
	t.Helper()
	const model = "fake-model"
	n := 3
	for _, m := range r.Messages {
		n += 4 + c.Count(model, m.Text()) + c.Count(model, m.ToolCallID) + c.Count(model, m.Name)
		for _, tc := range m.ToolCalls {
			n += c.Count(model, tc.Name) + c.Count(model, tc.Arguments)
		}
	}
	host := tools.NewHost(tools.Config{Roots: tools.Roots{Project: root}, Policy: tools.DefaultPolicy()})
	for _, d := range host.Tools() {
		n += 8 + c.Count(model, d.Name) + c.Count(model, d.Description) + c.Count(model, string(d.Parameters))
	}
	return n
}

// A 200-turn conversation through "chat" at a small budget: every request
// the server receives stays within the budget, and the first message's
// requirements are still in the last request.
func TestLongConversationThroughChat(t *testing.T) {
	c := newChatEnv(t)
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "6000") // the default 8192 reserve is capped at a quarter: 4500 for the request
	const limit = 4500
	c.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Text("Noted. " + strings.Repeat("Here is a longer explanation of the step we just discussed. ", 25))
	})
	r := c.run(t, "", "chat", "Build the monthly export. Requirements: totals must never exceed 4711 EUR, and the export runs at 02:30 UTC.")
	if r.code != ExitOK {
		t.Fatalf("first turn: %+v", r)
	}
	convID := strings.TrimSpace(strings.TrimPrefix(r.stderr, "conversation "))
	for turn := 1; turn < 200; turn++ {
		msg := fmt.Sprintf("Turn %d: look at the %s step again and tell me what changes; %s", turn, []string{"load", "sort", "write", "check"}[turn%4], strings.Repeat("some detail ", 15))
		if r := c.run(t, "", "chat", "--conversation", convID, msg); r.code != ExitOK {
			t.Fatalf("turn %d: %+v", turn, r)
		}
	}
	counter := tokens.New()
	reqs := c.srv.ChatRequests()
	if len(reqs) != 200 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, req := range reqs {
		if n := requestTokens(t, counter, req, c.root); n > limit {
			t.Fatalf("request %d: %d tokens, over the limit of %d", i, n, limit)
		}
	}
	last := strings.Join(texts(reqs[len(reqs)-1]), "\n")
	for _, want := range []string{"4711 EUR", "02:30 UTC"} {
		if !strings.Contains(last, want) {
			t.Fatalf("the last request lacks %q:\n%s", want, last)
		}
	}
	if !strings.Contains(last, "Turn 199") {
		t.Fatal("the newest message is missing")
	}
	r = c.run(t, "", "context", convID)
	if r.code != ExitOK || !strings.Contains(r.stdout, "compaction(s)") || strings.Contains(r.stdout, "0 compacted in 0") {
		t.Fatalf("context after compactions: %+v", r)
	}
}

func texts(r fakellm.RecordedRequest) []string {
	out := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.Role + ": " + m.Text()
	}
	return out
}

func TestCompactPinAndContextCommands(t *testing.T) {
	c := newChatEnv(t)
	c.srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Text("An answer. " + strings.Repeat("More. ", 40))
	})
	r := c.run(t, "", "chat", "The launch budget must not exceed 9999 EUR.")
	convID := strings.TrimSpace(strings.TrimPrefix(r.stderr, "conversation "))
	for i := 0; i < 4; i++ {
		c.run(t, "", "chat", "--conversation", convID, fmt.Sprintf("question %d about the launch", i))
	}
	msgs := c.messages(t, convID)
	pinID := msgs[1].ID // the first answer

	if r := c.run(t, "", "conversations", "pin", convID, pinID); r.code != ExitOK || !strings.Contains(r.stdout, "pinned "+pinID) {
		t.Fatalf("pin: %+v", r)
	}
	if r := c.run(t, "", "conversations", "pin", convID, "missing-id"); r.code != ExitError || !strings.Contains(r.stderr, "missing-id") {
		t.Fatalf("pin of a missing message: %+v", r)
	}
	r = c.run(t, "", "conversations", "compact", convID, "--focus", "launch budget", "--json")
	var out map[string]any
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("compact --json: %+v", r)
	}
	keys := []string{"conversationId", "compactedMessages", "usedTokensBefore", "usedTokensAfter", "summaryId"}
	if len(out) != len(keys) {
		t.Fatalf("compact --json has %d fields: %s", len(out), r.stdout)
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			t.Fatalf("compact --json lacks %s: %s", k, r.stdout)
		}
	}
	if out["compactedMessages"].(float64) != 8 || out["usedTokensAfter"].(float64) >= out["usedTokensBefore"].(float64) {
		t.Fatalf("compact: %s", r.stdout)
	}
	if r := c.run(t, "", "conversations", "compact", convID); r.code != ExitOK || !strings.Contains(r.stdout, "nothing to compact") {
		t.Fatalf("second compact: %+v", r)
	}
	if r := c.run(t, "", "conversations", "compact", convID, "--focus", " "); r.code != ExitError {
		t.Fatalf("empty focus: %+v", r)
	}

	r = c.run(t, "", "context", convID, "--all")
	for _, want := range []string{"1 compaction(s)", "summary ", "9999 EUR", "pinned and carried: 1", pinID + " assistant (pin, quoted in the PINNED message)", "every message:", "compacted", "(compaction "} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("context --all lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := c.run(t, "", "conversations", "unpin", convID, pinID); r.code != ExitOK || !strings.Contains(r.stdout, "unpinned") {
		t.Fatalf("unpin: %+v", r)
	}
	r = c.run(t, "", "context", convID)
	if strings.Contains(r.stdout, "pinned and carried") {
		t.Fatalf("still pinned:\n%s", r.stdout)
	}
	// the explanation reads only what a send reads; --all reads everything
	var p struct {
		Conversation struct {
			Messages, Loaded, Compacted int
			Entries                     []map[string]any
		} `json:"conversation"`
	}
	r = c.run(t, "", "context", convID, "--json")
	if json.Unmarshal([]byte(r.stdout), &p) != nil || p.Conversation.Compacted != 8 || len(p.Conversation.Entries) != 0 || p.Conversation.Loaded >= 12 {
		t.Fatalf("context --json conversation: %+v", p.Conversation)
	}
}
