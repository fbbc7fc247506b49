package convlog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

// seedStore makes three conversations (one with a checkpoint, one a fork) and closes the store.
func seedStore(t *testing.T, dir string) []conversation.ConversationMeta {
	t.Helper()
	s, err := Open(dir, Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Create("", "agent")
	s.Append(a.ID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("Write a plan"), Mode: conversation.ModeAgent}, msg(conversation.RoleAssistant, "ok"))
	s.Checkpoint(a.ID, "v1")
	s.Append(a.ID, msg(conversation.RoleUser, "more"))
	b, _ := s.Create("", "")
	s.Append(b.ID, msg(conversation.RoleUser, "Second topic"))
	f, err := s.Fork(a.ID, ForkOptions{Checkpoint: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	_ = f
	list, _ := s.List()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return list
}

func comparable(m conversation.ConversationMeta) string {
	var cps []string
	for _, c := range m.Checkpoints {
		cps = append(cps, c.Name+"@"+c.MessageID)
	}
	return strings.Join([]string{m.ID, m.Title, m.ActiveType, m.ParentID, m.ForkedFromMsgID, m.ForkedFromCheckpoint, strings.Join(cps, ","), string(rune('0' + m.MessageCount))}, "|")
}

func TestIndexRebuiltWhenMissingOrCorrupt(t *testing.T) {
	for _, damage := range []string{"missing", "corrupt", "empty"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			before := seedStore(t, dir)
			switch damage {
			case "missing":
				os.Remove(indexPath(dir))
			case "corrupt":
				testkit.WriteFile(t, indexPath(dir), `[{"id":"x", "title": `)
			case "empty":
				testkit.WriteFile(t, indexPath(dir), "")
			}
			lb := &logBuf{}
			s := openDir(t, dir, Options{Logger: lb.logger()})
			after, _ := s.List()
			if len(after) != len(before) {
				t.Fatalf("rebuilt %d records, want %d", len(after), len(before))
			}
			want := map[string]string{}
			for _, m := range before {
				want[m.ID] = comparable(m)
			}
			for _, m := range after {
				if got := comparable(m); got != want[m.ID] {
					t.Errorf("rebuilt\n %s\nwant\n %s", got, want[m.ID])
				}
				if m.CreatedAt == "" || m.LastActiveAt == "" {
					t.Errorf("times missing: %+v", m)
				}
			}
			if damage != "missing" && !strings.Contains(lb.String(), "rebuilding") {
				t.Errorf("no warning: %s", lb.String())
			}
			var recs []conversation.ConversationMeta
			if err := json.Unmarshal([]byte(readFile(t, indexPath(dir))), &recs); err != nil || len(recs) != len(before) {
				t.Errorf("index.json not rewritten: %v", err)
			}
		})
	}
}

func TestIndexStaleAfterCrashIsRecomputed(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{IndexFlushDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	id := mustCreate(t, s)
	old := readFile(t, indexPath(dir))
	time.Sleep(2 * time.Millisecond)
	s.Append(id, msg(conversation.RoleUser, "Recovered title"), msg(conversation.RoleAssistant, "b"), msg(conversation.RoleUser, "c"))
	s.Close()
	// as if the process died before the delayed index write
	testkit.WriteFile(t, indexPath(dir), old)
	past := time.Now().Add(-time.Minute)
	os.Chtimes(indexPath(dir), past, past)

	s, err = Open(dir, Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := s.Get(id)
	if m.MessageCount != 3 || m.Title != "Recovered title" || m.LastActiveAt <= m.CreatedAt {
		t.Errorf("meta after recovery = %+v", m)
	}

	// An index written after an append whose record update it missed (its
	// file is newer than the log): the recorded log size tells.
	s.UpdateMeta(id, func(m *conversation.ConversationMeta) {})
	s.Append(id, msg(conversation.RoleUser, "d"))
	s.Close()
	recs := readFile(t, indexPath(dir))
	s, _ = Open(dir, Options{Logger: discard, IndexFlushDelay: time.Hour})
	s.Append(id, msg(conversation.RoleUser, "e"), msg(conversation.RoleUser, "f"))
	s.Close()
	testkit.WriteFile(t, indexPath(dir), recs)
	future := time.Now().Add(time.Minute)
	os.Chtimes(indexPath(dir), future, future)
	s, _ = Open(dir, Options{Logger: discard})
	defer s.Close()
	if m, _ := s.Get(id); m.MessageCount != 6 {
		t.Errorf("messageCount = %d, want 6", m.MessageCount)
	}
}

func TestIndexAdoptsOrphanFoldersAndDropsBadRecords(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir, Options{Logger: discard})
	keep := mustCreate(t, s)
	s.Close()
	orphan := "0b6c1f3a-9d2e-4c5b-8a7f-6e5d4c3b2a10"
	testkit.WriteFile(t, logPath(dir, orphan), line("m1", "Adopt me please")+line("m2", "x"))
	os.MkdirAll(conversationsDir(dir)+"/not-a-uuid", 0o755)
	recs := `[{"id":"` + keep + `","title":"Keep","activeType":"chat","createdAt":"2001-01-01T00:00:00.000Z","lastActiveAt":"2001-01-01T00:00:00.000Z","messageCount":0},` +
		`{"id":"` + keep + `","title":"Dup"},{"id":"../../x","title":"Evil"},{"id":"9a9a9a9a-9d2e-4c5b-8a7f-6e5d4c3b2a10","title":"Gone"}]`
	testkit.WriteFile(t, indexPath(dir), recs)
	s = openDir(t, dir, Options{Logger: discard})
	list, _ := s.List()
	var got []string
	for _, m := range list {
		got = append(got, m.ID+"="+m.Title)
	}
	slices.Sort(got)
	want := []string{orphan + "=Adopt me please", keep + "=Keep"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	if m, _ := s.Get(orphan); m.MessageCount != 2 || m.ActiveType != conversation.ActiveChat {
		t.Errorf("adopted = %+v", m)
	}
}

// TestIndexCatchUpReadsOnlyNewLines: a record behind its log is brought up
// to date from the lines after its logSize (an update line there does not
// count as a message; a corrupt earlier line is not even read).
func TestIndexCatchUpReadsOnlyNewLines(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir, Options{Logger: discard})
	id := mustCreate(t, s)
	a := msg(conversation.RoleAssistant, "a")
	s.Append(id, a)
	s.Close()
	recs := readFile(t, indexPath(dir))
	// damage the part the record already accounts for: catch-up must not need it
	data := readFile(t, logPath(dir, id))
	testkit.WriteFile(t, logPath(dir, id), strings.Repeat("#", len(data)-1)+"\n")
	s, _ = Open(dir, Options{Logger: discard, IndexFlushDelay: time.Hour})
	s.Append(id, msg(conversation.RoleUser, "Title from the tail"))
	s.Close()
	f, _ := os.OpenFile(logPath(dir, id), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"msg","id":"` + a.ID + `","role":"assistant","content":"a2","updatedAt":"2001-01-01T00:00:00.000Z"}` + "\n")
	f.WriteString(`{"type":"evt","id":"e9","createdAt":"2001-01-01T00:00:00.000Z","event":"checkpoint","data":{"name":"late","messageId":"x"}}` + "\n")
	f.Close()
	testkit.WriteFile(t, indexPath(dir), recs)
	s, _ = Open(dir, Options{Logger: discard})
	defer s.Close()
	m, _ := s.Get(id)
	size, _ := os.Stat(logPath(dir, id))
	if m.MessageCount != 2 || m.Title != "Title from the tail" || len(m.Checkpoints) != 1 || m.LogSize != size.Size() {
		t.Errorf("caught-up record = %+v", m)
	}
}

// A conversation folder written by another program while the store is open
// shows in List and is usable through Get, Load and Append.
func TestAdoptsFoldersCreatedOutside(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	if _, err := s.Create("mine", "chat"); err != nil {
		t.Fatal(err)
	}
	id := "0b8f7c2e-3a41-4d5e-9f60-7a8b9c0d1e2f"
	if err := os.MkdirAll(filepath.Join(dir, "conversations", id), 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"msg","id":"m1","createdAt":"2026-01-02T03:04:05.000Z","role":"user","content":"written elsewhere"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "conversations", id, "messages.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got *conversation.ConversationMeta
	for i := range list {
		if list[i].ID == id {
			got = &list[i]
		}
	}
	if len(list) != 2 || got == nil || got.MessageCount != 1 || got.Title != "written elsewhere" {
		t.Fatalf("outside folder not adopted: %+v", list)
	}
	if err := s.Append(id, &conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("seen")}); err != nil {
		t.Fatal(err)
	}
	entries, err := s.Load(id)
	if err != nil || len(entries) != 2 {
		t.Fatalf("load after adopt: %v %d", err, len(entries))
	}

	// Get alone adopts too (the index record is written durably).
	id2 := "1c9e8d3f-4b52-4e6f-8a71-8b9cad1e2f30"
	if err := os.MkdirAll(filepath.Join(dir, "conversations", id2), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "conversations", id2, "messages.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Get(id2); err != nil || m.MessageCount != 1 {
		t.Fatalf("get of an outside folder: %+v %v", m, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "conversations", "index.json"))
	if err != nil || !strings.Contains(string(data), id2) {
		t.Fatalf("index.json lacks the adopted record: %v", err)
	}
	// An unknown id without a folder is still not found.
	if _, err := s.Get("2d0f9e4a-5c63-4f70-9b82-9cadbe2f3041"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
}
