package contextbuilder

import (
	"encoding/json"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

// Stored counts made with another encoding, or implausible for the size of
// the entry, are counted again.
func TestEntryTokensEncodingAndPlausibility(t *testing.T) {
	text := strings.Repeat("Ein längerer Satz über die Quartalszahlen und ihre Rundung. ", 40)
	e := conversation.Entry{Type: conversation.TypeMsg, ID: "a", Role: conversation.RoleUser, Content: &text}
	o200 := counter.CountMessage("gpt-4o", &e)
	cl100 := counter.CountMessage("gpt-4", &e)
	if o200 == cl100 {
		t.Fatal("the test text counts the same in both encodings")
	}
	e.Tokens, e.TokenEncoding = o200, counter.EncodingFor("gpt-4o")
	if got := EntryTokens(counter, "gpt-4o", &e); got != o200 {
		t.Errorf("same encoding: %d, want the stored %d", got, o200)
	}
	if got := EntryTokens(counter, "gpt-4", &e); got != cl100 {
		t.Errorf("other encoding: %d, want the recount %d", got, cl100)
	}
	e.TokenEncoding = "" // older logs: the count is trusted
	if got := EntryTokens(counter, "gpt-4", &e); got != o200 {
		t.Errorf("unknown encoding: %d, want %d", got, o200)
	}
	big := strings.Repeat("x1 y2 z3 ", 12000) // ~100 KB
	huge := conversation.Entry{Type: conversation.TypeMsg, ID: "b", Role: conversation.RoleTool, Content: &big, Tokens: 1, TokenEncoding: "o200k_base"}
	if got := EntryTokens(counter, "gpt-4o", &huge); got < 10000 {
		t.Errorf(`"tokens":1 on 100 KB believed: %d`, got)
	}
	huge.Tokens = 1_000_000
	if got := EntryTokens(counter, "gpt-4o", &huge); got > len(big) {
		t.Errorf("a count above the size believed: %d", got)
	}
}

// Pins: the compaction event's carried messages plus the pin and unpin
// events after it; a compacted pin is quoted in the PINNED system message
// after the summary, one still in the history stays where it is.
func TestPinsFromTheLog(t *testing.T) {
	var l logBuilder
	carried, _ := json.Marshal(conversation.CompactionData{Pinned: []conversation.Carried{
		{ID: "old1", Role: "user", Kind: conversation.CarriedPin, Text: "Never ship on Fridays."},
		{ID: "old2", Role: "assistant", Kind: conversation.CarriedRecord, Text: "ARTIFACT_SAVED @project/artifacts/brief.md"},
		{ID: "old3", Role: "user", Kind: conversation.CarriedPin, Text: "Use the blue theme."},
	}})
	l.add(conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventCompaction, Data: carried})
	sum := l.system("CONVERSATION_SUMMARY\nearlier")
	u1 := l.user("keep this one too")
	l.add(conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventPin, RefMsgID: u1.ID, Data: json.RawMessage(`{"role":"user","text":"keep this one too"}`)})
	l.add(conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventUnpin, RefMsgID: "old3", Data: json.RawMessage(`{}`)})
	l.add(conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventUnpin, RefMsgID: "old2", Data: json.RawMessage(`{}`)}) // records cannot be unpinned
	l.assistant("answer")
	l.user("next")
	res := mustBuild(t, opts(conversation.ModeChat, l.entries))
	var kinds []Kind
	for _, m := range res.Messages {
		kinds = append(kinds, m.Kind)
	}
	// system x3, summary, pinned, history...
	if kinds[3] != KindSummary || res.Messages[3].SourceID != sum.ID || kinds[4] != KindPinned {
		t.Fatalf("kinds %v", kinds)
	}
	pinned := res.Messages[4].Text()
	if !strings.HasPrefix(pinned, PinnedPrefix) || !strings.Contains(pinned, "Never ship on Fridays.") || !strings.Contains(pinned, "ARTIFACT_SAVED") ||
		strings.Contains(pinned, "blue theme") || strings.Contains(pinned, "keep this one too") {
		t.Fatalf("pinned message:\n%s", pinned)
	}
	if len(res.Pins) != 3 || res.Compaction == nil || res.Debug.Counts.Pinned != 3 {
		t.Fatalf("pins %+v", res.Pins)
	}
	for _, p := range res.Pins {
		if (p.ID == u1.ID) != p.InHistory {
			t.Fatalf("pin %s in history: %v", p.ID, p.InHistory)
		}
	}
	if r := reasonOf(res.Debug.Kept, u1.ID); r != "kept: pinned" {
		t.Errorf("pinned message reason %q", r)
	}
}

// Recalled messages enter as one RECALLED_CONTEXT user message right before
// the run blocks and the newest user message, within the recall budget;
// those already in the request are skipped.
func TestRecallBlock(t *testing.T) {
	var l logBuilder
	in := l.user("an old question still in the history")
	l.assistant("an answer")
	newest := l.user("what was the retention window?")
	o := opts(conversation.ModeRun, l.entries)
	o.Run = fakeRun{"RUN_DIRECTIVE\n- x", "NODE_BRIEF\n- y"}
	o.Recall = []RecallItem{
		{ID: "gone1", Role: "tool", Tool: "fs.read", Text: "retention_window: 417", Score: 0.9, Why: "words retention, window"},
		{ID: in.ID, Role: "user", Text: in.Text(), Score: 0.5},
		{ID: "gone2", Role: "user", Text: strings.Repeat("a long unrelated text ", 400), Score: 0.4},
		{ID: "gone3", Role: "assistant", Text: "the window was agreed with ops", Score: 0.3},
	}
	o.RecallBudget = 200
	res := mustBuild(t, o)
	n := len(res.Messages)
	rec, inj1, inj2, last := res.Messages[n-4], res.Messages[n-3], res.Messages[n-2], res.Messages[n-1]
	if rec.Kind != KindRecall || rec.Role != conversation.RoleUser || inj1.Kind != KindInjection || inj2.Kind != KindInjection || last.SourceID != newest.ID {
		t.Fatalf("order:\n%s", dump(res.Messages))
	}
	text := rec.Text()
	if !strings.HasPrefix(text, RecallPrefix) || !strings.Contains(text, "[#gone1 tool fs.read] retention_window: 417") ||
		!strings.Contains(text, "#gone3") || strings.Contains(text, "long unrelated") || strings.Contains(text, "old question") {
		t.Fatalf("recall message:\n%s", text)
	}
	if rec.Tokens > 200 || res.Debug.RecallTokens != rec.Tokens || len(res.Debug.Recalled) != 2 || res.Debug.Counts.Recalled != 2 {
		t.Fatalf("recall accounting: %+v", res.Debug)
	}
	// no room, no recall; no user message, no recall
	o.RecallBudget = 10
	if res := mustBuild(t, o); res.Debug.RecallTokens != 0 {
		t.Fatal("recall over its budget")
	}
	o.RecallBudget = 200
	o.History = l.entries[1:2]
	if res := mustBuild(t, o); res.Debug.RecallTokens != 0 {
		t.Fatal("recall without a user message")
	}
}

// A run turn started without input: its entries are the current turn, and
// the run blocks go before them, not after its tool results.
func TestTurnStartWithoutUserMessage(t *testing.T) {
	var l logBuilder
	l.assistant("an earlier run answer")
	call := l.calls("c1")
	l.result("c1", "result")
	o := opts(conversation.ModeRun, l.entries)
	o.Run = fakeRun{"RUN_DIRECTIVE\n- x"}
	o.TurnStart = call.ID
	res := mustBuild(t, o)
	n := len(res.Messages)
	if res.Messages[n-3].Kind != KindInjection || res.Messages[n-2].SourceID != call.ID || res.Messages[n-1].Role != conversation.RoleTool {
		t.Fatalf("order:\n%s", dump(res.Messages))
	}
	for _, s := range res.Spans {
		if s.SourceIDs[0] == call.ID && s.Part != PartAfter {
			t.Fatalf("the turn's unit is %q, want after", s.Part)
		}
	}
}

func TestCollapsedUIEventsLeftOut(t *testing.T) {
	var l logBuilder
	l.user("make a deck")
	start := l.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("fs.read @project/q3.csv"), PartType: conversation.PartToolStart, IsCollapsed: true})
	result := l.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(`{"ok":true}`), PartType: conversation.PartToolResult, IsCollapsed: true})
	real := l.calls("c1") // a protocol tool call with partType tool_start stays
	real.PartType = conversation.PartToolStart
	l.result("c1", "data")
	l.user("next")
	o := opts(conversation.ModeChat, l.entries)
	res := mustBuild(t, o)
	for _, id := range []string{start.ID, result.ID} {
		if r := reasonOf(res.Debug.Dropped, id); !strings.Contains(r, "includeCollapsedUiEventsInContext") {
			t.Errorf("%s: %q", id, r)
		}
	}
	if reasonOf(res.Debug.Kept, real.ID) == "" {
		t.Error("a real tool call was left out")
	}
	o.IncludeCollapsedUIEvents = true
	res = mustBuild(t, o)
	if reasonOf(res.Debug.Kept, start.ID) == "" || reasonOf(res.Debug.Kept, result.ID) == "" {
		t.Error("the setting does not bring them back")
	}
}

// A recalled message whose figures are all in the request already is left
// out: a newer message repeats or corrects them, and quoting it after the
// correction would state the stale value last.
func TestRecallLeavesOutWhatTheRequestSays(t *testing.T) {
	var l logBuilder
	l.user("ops bumped the settlement timeout: forget 18862 ms, it's 67412 ms now")
	l.assistant("noted")
	l.user("continue")
	o := opts(conversation.ModeChat, l.entries)
	o.Recall = []RecallItem{
		{ID: "old1", Role: "user", Text: "the settlement job times out after 18862 ms", Score: 0.9},
		{ID: "old2", Role: "user", Text: "the bank allows 4120 requests a minute", Score: 0.8},
		{ID: "old3", Role: "user", Text: "the settlement job is owned by payments", Score: 0.7},
	}
	o.RecallBudget = 300
	if got := recalledIDs(mustBuild(t, o)); got != "old2,old3" {
		t.Fatalf("recalled %s, want old2 and old3 (old1's figure is in the request)", got)
	}
}

// A recalled message every word of which the request already has (every
// pair of Chinese characters, in Chinese) adds nothing and is left out; one
// with a word the request lacks is quoted.
func TestRecallLeavesOutWhatTheRequestHasInWords(t *testing.T) {
	var l logBuilder
	l.user("is the ledger handling in the audit worth cleaning up now or later?")
	l.assistant("later; 仓库的盘点周期先不动")
	l.user("what about the ledger?")
	o := opts(conversation.ModeChat, l.entries)
	o.Recall = []RecallItem{
		{ID: "same", Role: "user", Text: "is the audit handling in the ledger worth cleaning up now or later?", Score: 0.9},
		{ID: "new", Role: "user", Text: "the ledger handling is owned by payments", Score: 0.8},
		{ID: "zhsame", Role: "user", Text: "盘点周期先不动", Score: 0.7},
		{ID: "zhnew", Role: "user", Text: "盘点周期改成每季度一次", Score: 0.6},
	}
	o.RecallBudget = 300
	if got := recalledIDs(mustBuild(t, o)); got != "new,zhnew" {
		t.Fatalf("recalled %s, want new and zhnew", got)
	}
}
