package convlog

import (
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/conversation"
)

func answer(text string, u conversation.Usage) *conversation.Entry {
	e := msg(conversation.RoleAssistant, text)
	e.Usage = &u
	return e
}

// The index adds up the usage recorded on messages: at once, after a restart, after
// lines another process appended, with the index rebuilt from the log, never counting an
// update line, and not into a fork.
func TestUsageTotals(t *testing.T) {
	s, dir, _ := openTest(t, Options{IndexFlushDelay: -1})
	id := mustCreate(t, s)
	u1 := conversation.Usage{PromptTokens: 1000, CompletionTokens: 10, TotalTokens: 1010}
	u2 := conversation.Usage{PromptTokens: 1100, CompletionTokens: 20, TotalTokens: 1120, CachedTokens: 990}
	first := answer("one", u1)
	if err := s.Append(id, msg(conversation.RoleUser, "q1"), first, msg(conversation.RoleUser, "q2"), answer("two", u2)); err != nil {
		t.Fatal(err)
	}
	want := func(s *Store, where string, calls, prompt, cached int, last conversation.Usage) {
		t.Helper()
		m, err := s.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		u := m.Usage
		if u == nil || u.Calls != calls || u.PromptTokens != prompt || u.CachedTokens != cached || u.Last == nil || *u.Last != last {
			t.Fatalf("%s: %+v", where, u)
		}
	}
	want(s, "after the appends", 2, 2100, 990, u2)
	if _, err := s.MarkCompacted(id, []string{first.ID}, map[string]any{"summary": ""}); err != nil {
		t.Fatal(err)
	}
	want(s, "after an update line", 2, 2100, 990, u2)
	s.Close()

	s2 := openDir(t, dir, Options{IndexFlushDelay: -1})
	want(s2, "after a restart", 2, 2100, 990, u2)
	s2.Close()

	// a line another process appended is caught up
	u3 := conversation.Usage{PromptTokens: 1200, CompletionTokens: 5, TotalTokens: 1205, CachedTokens: 1100}
	line := `{"type":"msg","id":"m-extra","createdAt":"2026-01-01T00:00:00Z","role":"assistant","content":"three","usage":{"promptTokens":1200,"completionTokens":5,"totalTokens":1205,"cachedTokens":1100}}` + "\n"
	f, err := os.OpenFile(logPath(dir, id), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s3 := openDir(t, dir, Options{IndexFlushDelay: -1})
	want(s3, "after a line appended outside", 3, 3300, 2090, u3)
	s3.Close()

	if err := os.Remove(filepath.Join(dir, "conversations", "index.json")); err != nil {
		t.Fatal(err)
	}
	s4 := openDir(t, dir, Options{IndexFlushDelay: -1})
	want(s4, "with the index rebuilt", 3, 3300, 2090, u3)

	fork, err := s4.Fork(id, ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fork.Usage != nil {
		t.Fatalf("the fork inherits the parent's usage: %+v", fork.Usage)
	}
	entries, err := s4.Load(fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Usage != nil {
			t.Fatalf("a forked entry keeps the parent's usage: %+v", e)
		}
	}
}
