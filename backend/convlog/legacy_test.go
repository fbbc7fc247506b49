package convlog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

const legacyID = "3f2b8c1e-5d4a-4b7e-9c2f-1a6e8d0b7c45"

// legacyDir copies testdata/legacy (an old-format data directory) to a temp dir.
func legacyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/legacy")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLegacyLoads(t *testing.T) {
	dir := legacyDir(t)
	s := openDir(t, dir, Options{Logger: discard})
	list, _ := s.List()
	if len(list) != 1 {
		t.Fatalf("List = %+v", list)
	}
	m := list[0]
	if m.ID != legacyID || m.Title != "Q3 deck" || m.ActiveType != conversation.ActiveAgent || m.SelectedAgentID != "pm" || m.MessageCount != 6 {
		t.Errorf("meta = %+v", m)
	}
	got, err := s.Load(legacyID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{"msg-1", "msg-2", "msg-3", "msg-4", "msg-5", "msg-6"}) {
		t.Fatalf("Load = %v", ids(got))
	}
	for _, e := range got {
		if e.Type != conversation.TypeMsg || !e.InContext() || e.IncludeInContext != nil || e.ToolCalls != nil || e.ToolCallID != "" {
			t.Errorf("defaults of %s: %+v", e.ID, e)
		}
	}
	if e := got[3]; e.PartType != conversation.PartToolResult || e.ToolName != "fs.read" || e.DurationMs != 132 || !e.IsCollapsed ||
		e.Text() != `{"ok":true,"content":"region,revenue\nEU,12"}` {
		t.Errorf("tool result part = %+v", e)
	}
	if string(got[4].Widget) != `{"type": "selection", "options": ["Corporate", "Minimal"]}` {
		t.Errorf("widget = %s", got[4].Widget)
	}
	if got[5].CreatedAt != "2025-12-01T09:00:06.000Z" {
		t.Errorf("epoch createdAt = %q", got[5].CreatedAt)
	}
	tail, _ := s.LoadTail(legacyID, 2)
	if !slices.Equal(ids(tail), []string{"msg-5", "msg-6"}) {
		t.Errorf("LoadTail = %v", ids(tail))
	}
	since, _ := s.LoadSinceCompaction(legacyID)
	if len(since) != 6 {
		t.Errorf("LoadSinceCompaction = %v", ids(since))
	}
	// reading does not migrate
	if pathExists(logPath(dir, legacyID)) {
		t.Error("a read created messages.jsonl")
	}
}

func TestLegacyMigratesOnFirstWrite(t *testing.T) {
	dir := legacyDir(t)
	orig := readFile(t, legacyPath(dir, legacyID))
	c := &lenCounter{}
	s := openDir(t, dir, Options{Counter: c, Logger: discard})
	// a fork reads the legacy parent without migrating it
	f, err := s.Fork(legacyID, ForkOptions{AtMessageID: "msg-2"})
	if err != nil {
		t.Fatal(err)
	}
	if fe, _ := s.Load(f.ID); len(fe) != 3 || fe[2].ID != "msg-2" {
		t.Errorf("fork of legacy = %v", ids(fe))
	}
	if pathExists(logPath(dir, legacyID)) {
		t.Error("fork migrated the parent")
	}
	n := msg(conversation.RoleUser, "Use Minimal")
	if err := s.Append(legacyID, n); err != nil {
		t.Fatal(err)
	}
	if pathExists(legacyPath(dir, legacyID)) {
		t.Error("messages.json still present")
	}
	if got := readFile(t, filepath.Join(convDir(dir, legacyID), MigratedFile)); got != orig {
		t.Error("messages.json.migrated differs from the original")
	}
	ls := lines(readFile(t, logPath(dir, legacyID)))
	if len(ls) != 7 || !strings.Contains(ls[0], `"type":"msg","id":"msg-1"`) || !strings.Contains(ls[0], `"content":"Create a deck about the Q3 results <draft>"`) {
		t.Errorf("migrated log:\n%s", strings.Join(ls, "\n"))
	}
	if c.Calls() != 7 {
		t.Errorf("tokens counted %d times, want 7 (6 migrated + 1 new)", c.Calls())
	}
	got, _ := s.Load(legacyID)
	if len(got) != 7 || got[6].ID != n.ID || got[3].DurationMs != 132 || got[0].Tokens == 0 {
		t.Errorf("Load after migration = %v", ids(got))
	}
	if m, _ := s.Get(legacyID); m.MessageCount != 7 || m.Title != "Q3 deck" {
		t.Errorf("meta = %+v", m)
	}
}

func TestLegacyInterruptedMigration(t *testing.T) {
	dir := legacyDir(t)
	// the log was written and renamed, the legacy file not yet renamed
	testkit.WriteFile(t, logPath(dir, legacyID), line("msg-1", "from the log")+line("msg-2", "b"))
	s := openDir(t, dir, Options{Logger: discard})
	got, _ := s.Load(legacyID)
	if !slices.Equal(ids(got), []string{"msg-1", "msg-2"}) || got[0].Text() != "from the log" {
		t.Errorf("log must win over messages.json: %v", texts(got))
	}
	if err := s.Append(legacyID, msg(conversation.RoleUser, "c")); err != nil {
		t.Fatal(err)
	}
	if pathExists(legacyPath(dir, legacyID)) || !pathExists(filepath.Join(convDir(dir, legacyID), MigratedFile)) {
		t.Error("migration not finished by the next write")
	}
	if got, _ := s.Load(legacyID); len(got) != 3 {
		t.Errorf("Load = %v", ids(got))
	}
}

func TestParseLegacyDamaged(t *testing.T) {
	var bad []badLine
	report := func(b badLine) { bad = append(bad, b) }
	got, err := parseLegacy([]byte(`[{"id":"a","role":"user","content":"x"},{"role":"user","content":null},{"id":"c","role":"user","content":[1]},{"id":"d","role":5},{"id":"e","role":"user","cont`), report)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{"a", "legacy-2", "c"}) || got[1].Content != nil || got[2].Text() != "[1]" {
		t.Errorf("salvaged = %v %q", ids(got), texts(got))
	}
	if len(bad) != 2 || bad[0].torn || !bad[1].torn {
		t.Errorf("reported = %+v", bad)
	}
	for _, in := range []string{``, `{}`, `"x"`} {
		if _, err := parseLegacy([]byte(in), report); err == nil {
			t.Errorf("parseLegacy(%q) accepted", in)
		}
	}
}
