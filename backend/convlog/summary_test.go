package convlog

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"crewagent/backend/conversation"
)

func TestIsSummaryText(t *testing.T) {
	for s, want := range map[string]bool{
		"SUMMARY: done":                 true,
		"  \n\tCONVERSATION_SUMMARY\nx": true,
		"CONVERSATION_SUMMARY":          true,
		"summary: lower case":           false,
		"The SUMMARY follows":           false,
		"":                              false,
	} {
		if conversation.IsSummaryText(s) != want {
			t.Errorf("IsSummaryText(%q) = %v", s, !want)
		}
	}
	for _, c := range []struct {
		e    conversation.Entry
		want bool
	}{
		{conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleSystem, Content: conversation.Str("SUMMARY x")}, true},
		{conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleDeveloper, Content: conversation.Str("CONVERSATION_SUMMARY\nx")}, true},
		{conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str("SUMMARY x")}, false},
		{conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleSystem, Content: conversation.Str("You are helpful.")}, false},
		{conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleSystem}, false},
		{conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventCompaction, Content: conversation.Str("SUMMARY x")}, false},
	} {
		if c.e.IsSummary() != c.want {
			t.Errorf("%+v: IsSummary = %v", c.e, !c.want)
		}
	}
}

// TestHasSummary: the index record says whether the log holds a
// summary-class message: set by Append and Update, kept by UpdateMeta,
// derived for a fork from what it copied, and recomputed from the logs when
// the index is rebuilt or caught up.
func TestHasSummary(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	has := func(s *Store, id string) bool {
		t.Helper()
		m, err := s.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		return m.HasSummary
	}
	plain, appended, updated, late := mustCreate(t, s), mustCreate(t, s), mustCreate(t, s), mustCreate(t, s)
	if err := s.Append(plain, msg(conversation.RoleSystem, "You are helpful."), msg(conversation.RoleUser, "SUMMARY of my day?"), msg(conversation.RoleAssistant, "SUMMARY: fine")); err != nil {
		t.Fatal(err)
	}
	first := msg(conversation.RoleUser, "hello")
	if err := s.Append(appended, first, msg(conversation.RoleSystem, "CONVERSATION_SUMMARY\nthe user said hello"), msg(conversation.RoleUser, "more")); err != nil {
		t.Fatal(err)
	}
	note := msg(conversation.RoleSystem, "a note")
	if err := s.Append(updated, note); err != nil {
		t.Fatal(err)
	}
	if has(s, updated) {
		t.Fatal("set before the update")
	}
	if err := s.Update(updated, &conversation.Entry{ID: note.ID, Role: conversation.RoleSystem, Content: conversation.Str("SUMMARY the note")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(late, msg(conversation.RoleUser, "hi")); err != nil {
		t.Fatal(err)
	}
	if has(s, plain) || !has(s, appended) || !has(s, updated) || has(s, late) {
		t.Fatalf("after writes: plain %v, appended %v, updated %v, late %v", has(s, plain), has(s, appended), has(s, updated), has(s, late))
	}
	if err := s.UpdateMeta(appended, func(m *conversation.ConversationMeta) { m.HasSummary = false }); err != nil {
		t.Fatal(err)
	}
	if !has(s, appended) {
		t.Fatal("UpdateMeta cleared the flag")
	}
	whole, err := s.Fork(appended, ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.Fork(appended, ForkOptions{AtMessageID: first.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !whole.HasSummary || !has(s, whole.ID) || before.HasSummary {
		t.Fatalf("forks: whole %v, before the summary %v", whole.HasSummary, before.HasSummary)
	}
	s.Close()

	// a summary appended to a log by another program: caught up on open
	f, err := os.OpenFile(logPath(dir, late), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"msg","id":"s1","createdAt":"2001-01-01T00:00:00.000Z","role":"system","content":"SUMMARY imported"}` + "\n")
	f.Close()
	want := map[string]bool{plain: false, appended: true, updated: true, late: true, whole.ID: true, before.ID: false}
	check := func(s *Store, when string) {
		t.Helper()
		for id, w := range want {
			if has(s, id) != w {
				t.Errorf("%s: %s HasSummary = %v", when, id, !w)
			}
		}
	}
	s = openDir(t, dir, Options{Logger: discard})
	check(s, "reopened")
	s.Close()
	if err := os.Remove(indexPath(dir)); err != nil {
		t.Fatal(err)
	}
	s = openDir(t, dir, Options{Logger: discard})
	check(s, "index rebuilt")
	s.Close()

	// an index.json written before records kept logSize and hasSummary, newer
	// than every log: the records are derived again once, then kept
	raw, err := os.ReadFile(indexPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	var recs []any
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(want) {
		t.Fatalf("index.json: %s", raw)
	}
	for _, r := range recs {
		delete(r.(map[string]any), "logSize")
		delete(r.(map[string]any), "hasSummary")
	}
	old, _ := json.MarshalIndent(recs, "", "  ")
	if err := os.WriteFile(indexPath(dir), old, 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(indexPath(dir), future, future); err != nil {
		t.Fatal(err)
	}
	s = openDir(t, dir, Options{Logger: discard})
	check(s, "old index")
	s.Close()
	if raw, _ := os.ReadFile(indexPath(dir)); !bytes.Contains(raw, []byte(`"hasSummary": true`)) || !bytes.Contains(raw, []byte(`"logSize"`)) {
		t.Fatalf("the derived records were not written back:\n%s", raw)
	}
}
