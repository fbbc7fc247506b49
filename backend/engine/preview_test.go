package engine

import (
	"bytes"
	"context"
	"crewagent/backend/contextbuilder"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func TestPreviewIsTheNextRequestAndWritesNothing(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(listCall("call_1"), fakellm.Text("Two files."))
	first := f.send(SendRequest{Text: "list my files"})

	before := snapshot(t, f.dataDir)
	p, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: first.ConversationID})
	if err != nil {
		t.Fatal(err)
	}
	if !sameFiles(before, snapshot(t, f.dataDir)) {
		t.Fatal("Preview wrote to the data folder")
	}
	if p.Mode != conversation.ModeChat || p.Compression != nil || len(p.ToolNames) != 6 || p.Usage.UsedTokens <= p.ToolTokens || p.Usage.Status != "normal" {
		t.Fatalf("preview: %+v", p)
	}
	if len(p.Build.Kept) != 4 || p.Build.Counts.History != 4 {
		t.Fatalf("build debug: %+v", p.Build.Counts)
	}

	// the next send sends exactly the previewed messages plus the new user message
	f.srv.Enqueue(fakellm.Text("ok"))
	f.send(SendRequest{ConversationID: first.ConversationID, Text: "thanks"})
	reqs := f.srv.ChatRequests()
	sent := reqs[len(reqs)-1].Messages
	if len(sent) != len(p.Messages)+1 {
		t.Fatalf("sent %d messages, previewed %d", len(sent), len(p.Messages))
	}
	for i, m := range p.Messages {
		s := sent[i]
		if s.Role != m.Role || s.Text() != derefStr(m.Content) || s.ToolCallID != m.ToolCallID || len(s.ToolCalls) != len(m.ToolCalls) {
			t.Fatalf("message %d: sent %+v, previewed %+v", i, s, m)
		}
		if m.Reason == "" || m.Tokens <= 0 {
			t.Fatalf("message %d without reason or tokens: %+v", i, m)
		}
	}
	if p.Messages[0].Reason != "system prompt: base rules (chat)" || p.Messages[5].Reason != "kept" {
		t.Fatalf("reasons: %q, %q", p.Messages[0].Reason, p.Messages[5].Reason)
	}
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestPreviewShowsCompression(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget = 8000
		s.Context.ReserveForResponse = 0
		s.Context.CompressionStrategy = settings.StrategyLLMSummary
	})
	convID := f.create()
	f.seed(convID, 40, 60)
	before := snapshot(t, f.dataDir)
	p, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: convID})
	if err != nil {
		t.Fatal(err)
	}
	if !sameFiles(before, snapshot(t, f.dataDir)) {
		t.Fatal("Preview wrote to the data folder")
	}
	if len(f.srv.Requests()) != 0 {
		t.Fatal("Preview called the LLM")
	}
	c := p.Compression
	if c == nil || c.Strategy != "key-messages" || c.After.UsedTokens >= c.Before.UsedTokens || len(c.Record.CompactedIDs) == 0 {
		t.Fatalf("compression: %+v", c)
	}
	if p.Usage.UsedTokens != c.After.UsedTokens || len(p.Notes) != 2 || !strings.Contains(p.Notes[1], "messages first") || c.Summary == "" {
		t.Fatalf("usage %+v notes %q", p.Usage, p.Notes)
	}
	dropped := map[string]bool{}
	for _, id := range c.Record.CompactedIDs {
		dropped[id] = true
	}
	back := 0
	for _, m := range p.Messages {
		if dropped[m.SourceID] {
			if m.Reason != contextbuilder.ReasonRefill {
				t.Fatalf("dropped message %s is in the previewed request: %s", m.SourceID, m.Reason)
			}
			back++ // the newest compacted messages that still fit
		}
	}
	if back >= len(dropped) {
		t.Fatalf("every compacted message is in the previewed request")
	}
}

func TestPreviewModes(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	f.seed(convID, 1, 5)
	if _, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: convID, Mode: "run"}); !errors.Is(err, ErrUnsupportedMode) {
		t.Fatalf("run: %v", err)
	}
	if _, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: convID, Mode: "agent"}); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("agent without agent: %v", err)
	}
	p, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: convID, Mode: "agent", AgentID: "analyst"})
	if err != nil {
		t.Fatal(err)
	}
	if p.AgentID != "analyst" || !strings.Contains(derefStr(p.Messages[2].Content), "PERSONA") {
		t.Fatalf("agent preview: %+v", p.Messages[2])
	}
}
