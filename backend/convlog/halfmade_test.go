package convlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

// What crashes at each step of creating a conversation or a fork leave on disk: nothing of
// it shows after the next open, and the leftovers are gone.
func TestHalfMadeConversationsDoNotShow(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{Logger: discard})
	kept := mustCreate(t, s) // an empty conversation the user made: it stays
	full, err := s.CreateWith("", "", msg(conversation.RoleUser, "a whole conversation"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	conv := conversationsDir(dir)
	// 1. a fork killed while writing its log: a folder with only the temporary log
	forkTmp := uuid.NewString()
	testkit.WriteFile(t, filepath.Join(conv, forkTmp, "."+LogFile+".tmp"), `{"type":"evt","id":"x","event":"fork_origin","data":{}}`+"\n")
	// 2. a creation killed after its (empty) log, before the index: no record, no entry
	unborn := uuid.NewString()
	testkit.WriteFile(t, filepath.Join(conv, unborn, LogFile), "")
	// 3. the staging folder of an interrupted creation or fork
	testkit.WriteFile(t, filepath.Join(conv, stagingPrefix+uuid.NewString(), LogFile), `{"type":"msg","id":"y","role":"user","content":"half"}`+"\n")
	// 4. an interrupted index write, and an interrupted migration's temporary log
	testkit.WriteFile(t, filepath.Join(conv, "."+IndexFile+".tmp"), "[")
	testkit.WriteFile(t, filepath.Join(conv, full.ID, "."+LogFile+".tmp"), "{")
	// 5. the tool results copied for a fork that never appeared
	testkit.WriteFile(t, filepath.Join(toolResultsDir(dir, forkTmp), "m.json"), "{}")

	s = openDir(t, dir, Options{Logger: discard})
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range list {
		got = append(got, m.ID)
	}
	if len(list) != 2 || !strings.Contains(strings.Join(got, " "), kept) || !strings.Contains(strings.Join(got, " "), full.ID) {
		t.Fatalf("conversations after the crash: %v (want %s and %s)", got, kept, full.ID)
	}
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		name := d.Name()
		if strings.HasPrefix(name, stagingPrefix) || strings.HasPrefix(name, trashPrefix) || isTempName(name) ||
			strings.Contains(p, forkTmp) || strings.Contains(p, unborn) {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Fatalf("leftovers: %v", left)
	}
	if entries, _ := s.Load(full.ID); len(entries) != 1 || entries[0].Text() != "a whole conversation" {
		t.Fatalf("the whole conversation: %+v", entries)
	}
}

// A read-only store leaves an unborn conversation out and touches nothing.
func TestReadOnlyStoreHidesUnbornConversations(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{Logger: discard})
	s.Close()
	unborn := uuid.NewString()
	testkit.WriteFile(t, filepath.Join(conversationsDir(dir), unborn, LogFile), "")
	ro, err := OpenReadOnly(dir, Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if list, _ := ro.List(); len(list) != 0 {
		t.Fatalf("listed %+v", list)
	}
	if _, err := os.Stat(filepath.Join(conversationsDir(dir), unborn)); err != nil {
		t.Fatal("a read-only store removed a folder")
	}
}

func TestCreateWithFirstEntries(t *testing.T) {
	s, dir, _ := openTest(t, Options{Counter: &lenCounter{}, LargeOutputThreshold: 10})
	m, err := s.CreateWith("", conversation.ActiveAgent, msg(conversation.RoleUser, "plan the launch\nsecond line"),
		&conversation.Entry{Role: conversation.RoleTool, ToolCallID: "c", Content: conversation.Str(strings.Repeat("big output ", 10))})
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "plan the launch" || m.MessageCount != 2 || m.ActiveType != conversation.ActiveAgent || m.LogSize == 0 {
		t.Fatalf("record %+v", m)
	}
	entries, err := s.Load(m.ID)
	if err != nil || len(entries) != 2 || entries[0].Tokens == 0 || entries[1].FullOutputPath == "" {
		t.Fatalf("entries %+v %v", entries, err)
	}
	if _, err := os.Stat(toolResultPath(dir, m.ID, entries[1].ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWith("", "nope", msg(conversation.RoleUser, "x")); err == nil {
		t.Fatal("bad active type accepted")
	}
	if _, err := s.CreateWith("", "", &conversation.Entry{Role: "robot"}); err == nil {
		t.Fatal("bad entry accepted")
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Fatalf("a failed creation left %d conversations", len(list))
	}
}

// A log saved by an editor as "UTF-8 with BOM" keeps its first entry, in every way of
// reading it, and takes appends.
func TestByteOrderMarkAtTheStartOfTheLog(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{Logger: discard})
	m, err := s.CreateWith("", "", msg(conversation.RoleUser, "first message"), msg(conversation.RoleAssistant, "first answer"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	path := logPath(dir, m.ID)
	data := readFile(t, path)
	if err := os.WriteFile(path, append([]byte("\uFEFF"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(indexPath(dir)) // the index is rebuilt from the log too

	s = openDir(t, dir, Options{Logger: discard})
	all, err := s.Load(m.ID)
	if err != nil || len(all) != 2 || all[0].Text() != "first message" {
		t.Fatalf("Load: %+v %v", all, err)
	}
	tail, err := s.LoadTail(m.ID, 5)
	if err != nil || len(tail) != 2 || tail[0].Text() != "first message" {
		t.Fatalf("LoadTail: %+v %v", tail, err)
	}
	got, err := s.Get(m.ID)
	if err != nil || got.Title != "first message" || got.MessageCount != 2 {
		t.Fatalf("record %+v %v", got, err)
	}
	if err := s.Update(m.ID, &conversation.Entry{ID: all[0].ID, Role: conversation.RoleUser, Content: conversation.Str("edited")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(m.ID, msg(conversation.RoleUser, "second")); err != nil {
		t.Fatal(err)
	}
	if all, _ := s.Load(m.ID); len(all) != 3 || all[0].Text() != "edited" {
		t.Fatalf("after writes: %v", texts(all))
	}
}

func TestLegacyLogWithByteOrderMark(t *testing.T) {
	entries, err := parseLegacy([]byte("\uFEFF"+`[{"id":"m1","role":"user","content":"from the old format"}]`), func(badLine) {})
	if err != nil || len(entries) != 1 || entries[0].Text() != "from the old format" {
		t.Fatalf("%+v %v", entries, err)
	}
}
