package skills

import (
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

const testDebounce = 40 * time.Millisecond

// noLeaks fails the test when goroutines of the watcher (its own, the file
// watcher it runs on or fsnotify's) are still running once the test's
// cleanups have run.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			var leaked []string
			for _, g := range strings.Split(stacks, "\n\n") {
				if strings.Contains(g, "backend/skills.(*Watcher)") || strings.Contains(g, "backend/fsx.(*Watcher)") || strings.Contains(g, "fsnotify") {
					leaked = append(leaked, g)
				}
			}
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("goroutines left after Close:\n%s", strings.Join(leaked, "\n\n"))
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

type catalogs chan *Catalog

// next waits for the next catalog that satisfies ok, skipping others.
func (c catalogs) next(t *testing.T, what string, ok func(*Catalog) bool) *Catalog {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case cat := <-c:
			if ok(cat) {
				return cat
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// quiet checks that no catalog is reported for a while.
func (c catalogs) quiet(t *testing.T) {
	t.Helper()
	select {
	case cat := <-c:
		t.Fatalf("unexpected change: %d skills", len(cat.Skills()))
	case <-time.After(8 * testDebounce):
	}
}

func watch(t *testing.T, locs []Location) (*Watcher, catalogs) {
	t.Helper()
	ch := make(catalogs, 100)
	w, err := NewWatcher(locs, func(c *Catalog) { ch <- c }, WatchOptions{Debounce: testDebounce, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, ch
}

func has(name string) func(*Catalog) bool {
	return func(c *Catalog) bool { _, ok := c.Get(name); return ok }
}

func TestWatcherAddEditRemove(t *testing.T) {
	noLeaks(t)
	dir := t.TempDir()
	writeSkill(t, dir, "first", skillText("first", "The first skill."))
	w, ch := watch(t, []Location{{Source: SourceUser, Dir: dir}})
	if _, ok := w.Catalog().Get("first"); !ok {
		t.Fatal("initial catalog")
	}

	writeSkill(t, dir, "second", skillText("second", "Added later."))
	ch.next(t, "an added skill", has("second"))

	p := writeSkill(t, dir, "second", skillText("second", "Edited description."))
	cat := ch.next(t, "an edit", func(c *Catalog) bool { s, _ := c.Get("second"); return s.Description == "Edited description." })
	if w.Catalog() != cat {
		t.Errorf("Catalog() is not the newest catalog")
	}

	// an edit that breaks the skill turns it into an invalid entry
	os.WriteFile(p, []byte("---\nname: second\n"), 0o644)
	ch.next(t, "a broken skill", func(c *Catalog) bool { return !has("second")(c) && len(c.Invalid()) == 1 })

	// a supporting file at the top of a skill folder
	os.WriteFile(filepath.Join(dir, "first", "notes.md"), []byte("x"), 0o644)
	ch.next(t, "a new supporting file", func(c *Catalog) bool { s, _ := c.Get("first"); return len(s.Files) == 1 })

	os.RemoveAll(filepath.Join(dir, "first"))
	ch.next(t, "a removed skill", func(c *Catalog) bool { return !has("first")(c) })

	// a file beside the skills changes nothing: no call
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("readme"), 0o644)
	ch.quiet(t)
}

func TestWatcherSourceCreatedLater(t *testing.T) {
	noLeaks(t)
	root := t.TempDir()
	project := filepath.Join(root, "project")
	userHome := filepath.Join(root, "home")
	os.MkdirAll(project, 0o755)
	os.MkdirAll(userHome, 0o755)
	locs := DefaultLocations(Places{Project: project, UserHome: userHome})
	w, ch := watch(t, locs)
	if len(w.Catalog().Skills()) != 0 {
		t.Fatal("no skills yet")
	}
	// .crewagent/skills/<name> appears in one go
	writeSkill(t, filepath.Join(project, ".crewagent", "skills"), "late", skillText("late", "Created after start."))
	ch.next(t, "a skill in a project folder created after start", has("late"))
	// and ~/.claude/skills, two levels down from the watched home
	writeSkill(t, filepath.Join(userHome, ".claude", "skills"), "claude-late", skillText("claude-late", "Also late."))
	cat := ch.next(t, "a skill in ~/.claude/skills created after start", has("claude-late"))
	if s, _ := cat.Get("claude-late"); s.Source != SourceClaudeUser {
		t.Errorf("source %s", s.Source)
	}
	// the same name in the project shadows it
	writeSkill(t, filepath.Join(project, ".crewagent", "skills"), "claude-late", skillText("claude-late", "Project copy."))
	ch.next(t, "a shadowing skill", func(c *Catalog) bool {
		s, _ := c.Get("claude-late")
		return s.Source == SourceProject && len(c.Shadowed()) == 1
	})
	// the whole source removed, then created again
	os.RemoveAll(filepath.Join(project, ".crewagent"))
	ch.next(t, "a removed source", func(c *Catalog) bool { return !has("late")(c) })
	writeSkill(t, filepath.Join(project, ".crewagent", "skills"), "again", skillText("again", "Back."))
	ch.next(t, "a source created again", has("again"))
	// unrelated files in the project root are ignored
	os.WriteFile(filepath.Join(project, "main.go"), []byte("package main"), 0o644)
	ch.quiet(t)
}

func TestWatcherBurst(t *testing.T) {
	noLeaks(t)
	dir := t.TempDir()
	_, ch := watch(t, []Location{{Source: SourceUser, Dir: dir}})
	for i := 0; i < 30; i++ {
		name := "s-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		writeSkill(t, dir, name, skillText(name, "Burst."))
	}
	calls := 0
	ch.next(t, "all 30 skills", func(c *Catalog) bool { calls++; return len(c.Skills()) == 30 })
	if calls > 5 {
		t.Errorf("%d calls for one burst", calls)
	}
}

func TestWatcherCloseStopsCalls(t *testing.T) {
	noLeaks(t)
	dir := t.TempDir()
	called := make(chan struct{}, 10)
	w, err := NewWatcher([]Location{{Source: SourceUser, Dir: dir}}, func(*Catalog) { called <- struct{}{} }, WatchOptions{Debounce: testDebounce})
	if err != nil {
		t.Fatal(err)
	}
	writeSkill(t, dir, "x", skillText("x", "d"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for len(called) > 0 {
		<-called
	}
	writeSkill(t, dir, "y", skillText("y", "d"))
	time.Sleep(5 * testDebounce)
	if len(called) != 0 {
		t.Errorf("onChange called after Close")
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
