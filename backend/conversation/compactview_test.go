package conversation

import (
	"encoding/json"
	"reflect"
	"testing"
)

func pinEvt(id, event, ref string) *Entry {
	return &Entry{Type: TypeEvt, ID: id, Event: event, RefMsgID: ref, Data: json.RawMessage(`{"role":"user"}`)}
}

func TestPinsAndCompactionsInViews(t *testing.T) {
	data := `{"from":"u1","to":"a2","summary":"s1","strategy":"key-messages","count":4,"compactedTotal":4,"keptFrom":"u3",
		"reason":"manual","focus":" the budget ","tokensBefore":5200,"tokensAfter":2100,"target":3000,
		"pinned":[{"id":"u1","role":"user","kind":"pin","text":"Budget is 4711 EUR"},{"id":"r9","role":"system","kind":"record","text":"ARTIFACT_SAVED @project/a.md"},
		{"id":"t1","role":"tool","tool":"fs.read","kind":"pin","text":"{\"ok\":true}"}]}`
	entries := []*Entry{
		msg("u1", RoleUser, "Budget is 4711 EUR"),
		msg("a1", RoleAssistant, "Noted."),
		msg("u2", RoleUser, "Pin and unpin me"),
		msg("a2", RoleAssistant, "Sure."),
		pinEvt("p1", "pin", "u1"),
		pinEvt("p2", "pin", "u2"),
		pinEvt("p3", "unpin", "u2"),
		pinEvt("p4", "pin", "gone"), // a message not read
		{Type: TypeEvt, ID: "c1", Event: EventCompaction, Data: json.RawMessage(data)},
		msg("s1", RoleSystem, "CONVERSATION_SUMMARY\nDigest of the earlier messages (4 messages so far).\n\n- #u1 user: Budget is 4711 EUR"),
		{Type: TypeEvt, ID: "c2", Event: EventCompaction, Data: json.RawMessage(`{"count":2,"strategy":"llm-summary","summary":"elsewhere","pinned":[]}`)},
		{Type: TypeEvt, ID: "c3", Event: EventCompaction},
		msg("u3", RoleUser, "What was the budget?"),
	}
	views := Views(entries)
	byID := map[string]View{}
	for _, v := range views {
		byID[v.ID] = v.View
	}
	for id, want := range map[string]bool{"u1": true, "a1": false, "u2": false, "a2": false, "u3": false} {
		if byID[id].Pinned != want {
			t.Errorf("%s pinned = %v, want %v", id, byID[id].Pinned, want)
		}
	}
	want := &CompactionView{Count: 4, Manual: true, Focus: "the budget", TokensBefore: 5200, TokensAfter: 2100,
		Method:  "the key lines kept, without calling the model",
		Summary: "Digest of the earlier messages (4 messages so far).\n\n- #u1 user: Budget is 4711 EUR",
		Pinned: []PinnedView{{ID: "u1", Who: "You", Text: "Budget is 4711 EUR"}, {ID: "r9", Who: "Run record", Text: "Saved the file a.md"},
			{ID: "t1", Who: "Result of fs.read", Text: `{"ok":true}`}}}
	if got := byID["c1"].Compaction; !reflect.DeepEqual(got, want) {
		t.Fatalf("compaction view\n%+v\nwant\n%+v", got, want)
	}
	if got := byID["c2"].Compaction; got == nil || got.Count != 2 || got.Summary != "" || got.Method != "summarised by the model" || got.Manual {
		t.Fatalf("second compaction: %+v", got)
	}
	if got := byID["c3"].Compaction; got == nil || got.Count != 0 || got.Pinned == nil {
		t.Fatalf("a compaction without data: %+v", got)
	}
	// the screen's form of the summary, when the caller has one
	views = ViewsWith(entries, ViewOptions{Summary: func(string) string { return "for the screen" }})
	for _, v := range views {
		if v.ID == "c1" && v.View.Compaction.Summary != "for the screen" {
			t.Fatalf("summary hook not used: %q", v.View.Compaction.Summary)
		}
	}
}

func TestWithoutMarker(t *testing.T) {
	tests := map[string]string{
		"CONVERSATION_SUMMARY\nDigest\n- a": "Digest\n- a",
		"  SUMMARY\n\nText":                 "Text",
		"CONVERSATION_SUMMARY of things":    "CONVERSATION_SUMMARY of things",
		"Plain text":                        "Plain text",
	}
	for in, want := range tests {
		if got := withoutMarker(in); got != want {
			t.Errorf("withoutMarker(%q) = %q, want %q", in, got, want)
		}
	}
}
