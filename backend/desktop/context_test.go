package desktop

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
)

// lastUsage is the newest context:usage payload of a conversation.
func lastUsage(t *testing.T, rec *events.Recorder, id string) events.UsageEvent {
	t.Helper()
	var out *events.UsageEvent
	for _, p := range rec.Named(events.ContextUsage) {
		if u, ok := p.(events.UsageEvent); ok && u.ConversationID == id {
			out = &u
		}
	}
	if out == nil {
		t.Fatal("no context:usage event")
	}
	return *out
}

func viewsByID(t *testing.T, a *App, id string) map[string]conversation.EntryView {
	t.Helper()
	page, err := a.Conversations.Load(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]conversation.EntryView{}
	for _, v := range page.Entries {
		out[v.ID] = v
	}
	return out
}

// The window's /compact and pins: a pin shows on its message and survives
// the compaction word for word; the compaction is a card with its summary
// and the pins; after a reply and after a compaction the meter's number is
// the inspector's.
func TestCompactAndPinInTheWindow(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: "Noted, the budget stays at 4711 EUR.", Chunks: 3})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, err := a.Conversations.Create("")
	must(t, err)
	st := w.store(t)
	must(t, st.Append(m.ID, msg("u0", "user", "Plan the team offsite. The budget must never exceed 4711 EUR.")))
	for i := 1; i <= 20; i++ {
		must(t, st.Append(m.ID, msg(fmt.Sprintf("a%d", i), "assistant", fmt.Sprintf("Option %d: a venue by the lake with room for %d people.", i, 10+i)),
			msg(fmt.Sprintf("u%d", i), "user", fmt.Sprintf("What about option %d?", i+1))))
	}
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "Keep the budget in mind.", Mode: "chat"}))
	if end := waitIdle(t, w.rec, m.ID); end.Error != nil {
		t.Fatalf("the reply failed: %+v", end.Error)
	}
	sameNumber := func(when string) {
		t.Helper()
		u := lastUsage(t, w.rec, m.ID)
		p, err := a.Chat.Preview(m.ID, "", "")
		must(t, err)
		if u.UsedTokens != p.Usage.UsedTokens || u.TotalBudget != p.Usage.TotalBudget {
			t.Fatalf("%s: the meter says %d/%d, the inspector %d/%d", when, u.UsedTokens, u.TotalBudget, p.Usage.UsedTokens, p.Usage.TotalBudget)
		}
	}
	sameNumber("after a reply")

	// pins, shown on their messages
	must(t, a.Context.Pin(m.ID, "u0"))
	must(t, a.Context.Pin(m.ID, "a3"))
	must(t, a.Context.Unpin(m.ID, "a3"))
	v := viewsByID(t, a, m.ID)
	if !v["u0"].View.Pinned || v["a3"].View.Pinned || v["u1"].View.Pinned {
		t.Fatalf("pinned: u0 %v a3 %v u1 %v", v["u0"].View.Pinned, v["a3"].View.Pinned, v["u1"].View.Pinned)
	}
	if err := a.Context.Pin(m.ID, "no-such-message"); err == nil {
		t.Fatal("a pin of a missing message was accepted")
	}

	res, err := a.Context.Compact(m.ID, "the budget")
	must(t, err)
	if res.CompactedMessages < 20 || res.UsedTokensAfter >= res.UsedTokensBefore || res.SummaryID == "" {
		t.Fatalf("compaction: %+v", res)
	}
	sameNumber("after a compaction")
	var card *conversation.CompactionView
	for _, e := range viewsByID(t, a, m.ID) {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			card = e.View.Compaction
		}
	}
	if card == nil || card.Count != res.CompactedMessages || !card.Manual || card.Focus != "the budget" || card.TokensBefore == 0 {
		t.Fatalf("the compaction card: %+v", card)
	}
	if card.Summary == "" || strings.Contains(card.Summary, "CONVERSATION_SUMMARY") || strings.Contains(card.Summary, "#u0") || !strings.Contains(card.Summary, "4711 EUR") {
		t.Fatalf("the card's summary:\n%s", card.Summary)
	}
	if len(card.Pinned) != 1 || card.Pinned[0].ID != "u0" || card.Pinned[0].Who != "You" || !strings.Contains(card.Pinned[0].Text, "4711 EUR") {
		t.Fatalf("the card's pins: %+v", card.Pinned)
	}
	// the pinned message is quoted word for word in the next request
	p, err := a.Chat.Preview(m.ID, "", "")
	must(t, err)
	found := false
	for _, pm := range p.Messages {
		if pm.Content != nil && strings.Contains(*pm.Content, "Plan the team offsite. The budget must never exceed 4711 EUR.") {
			found = true
		}
	}
	if !found || len(p.Conversation.Pins) == 0 || p.Conversation.Summary == nil {
		t.Fatalf("the next request lacks the pin or the summary: pins %+v", p.Conversation.Pins)
	}
	// nothing more to compact: nothing happens
	again, err := a.Context.Compact(m.ID, "")
	must(t, err)
	if again.CompactedMessages != 0 {
		t.Fatalf("a second compaction compacted %d messages", again.CompactedMessages)
	}
}

// A compaction while a reply runs is refused with the busy code; the reply
// is not disturbed.
func TestCompactWhileAReplyRuns(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: "slow words", Chunks: 4, ChunkDelay: 300 * time.Millisecond})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "hello", Mode: "chat"}))
	testkit.Wait(t, "the reply to start", func() bool { s, _ := a.Chat.Streaming(); return len(s) == 1 })
	if _, err := a.Context.Compact(m.ID, ""); codeOfErr(t, err) != errs.Busy {
		t.Fatalf("compact during a reply: %v", err)
	}
	if end := waitIdle(t, w.rec, m.ID); end.Error != nil {
		t.Fatalf("the reply failed: %+v", end.Error)
	}
}

func TestContextMethodsNeedAnOpenProject(t *testing.T) {
	ta, _ := newTestApp(t)
	for name, call := range map[string]func() error{
		"Compact": func() error { _, err := ta.Context.Compact("x", ""); return err },
		"Pin":     func() error { return ta.Context.Pin("x", "m") },
		"Unpin":   func() error { return ta.Context.Unpin("x", "m") },
	} {
		if codeOfErr(t, call()) != errs.NoProject {
			t.Errorf("%s without a project", name)
		}
	}
}
