package watcher

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
)

const debounce = 40 * time.Millisecond

type recorder struct{ ch chan Change }

func newRecorder() *recorder { return &recorder{ch: make(chan Change, 100)} }

func (r *recorder) fn(c Change) { r.ch <- c }

// expect waits for exactly the given changes (in any order), then for
// silence over a few debounce periods.
func (r *recorder) expect(t *testing.T, want ...Change) {
	t.Helper()
	left := map[Change]int{}
	for _, c := range want {
		left[c]++
	}
	deadline := time.After(3 * time.Second)
	for n := 0; n < len(want); n++ {
		select {
		case c := <-r.ch:
			if left[c] == 0 {
				t.Fatalf("unexpected change %+v (want %+v)", c, want)
			}
			left[c]--
		case <-deadline:
			t.Fatalf("timed out; still waiting for %+v", left)
		}
	}
	r.quiet(t)
}

func (r *recorder) quiet(t *testing.T) {
	t.Helper()
	select {
	case c := <-r.ch:
		t.Fatalf("unexpected change %+v", c)
	case <-time.After(6 * debounce):
	}
}

func start(t *testing.T, dir string, opts Options) *recorder {
	t.Helper()
	r := newRecorder()
	opts.Debounce = debounce
	opts.Logger = slog.New(slog.DiscardHandler)
	w, err := New(dir, r.fn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return r
}

func write(t *testing.T, path, data string, appendTo bool) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(data)
	f.Close()
}

const (
	idA = "3f2b8c1e-5d4a-4b7e-9c2f-1a6e8d0b7c45"
	idB = "0b6c1f3a-9d2e-4c5b-8a7f-6e5d4c3b2a10"
)

func TestExternalChanges(t *testing.T) {
	dir := t.TempDir()
	conv := filepath.Join(dir, "conversations")
	os.MkdirAll(filepath.Join(conv, idB), 0o755)
	write(t, filepath.Join(conv, idB, "messages.jsonl"), "", false)
	write(t, filepath.Join(conv, "index.json"), `[{"id":"`+idB+`","title":"B"}]`, false)
	r := start(t, dir, Options{})

	// a new conversation folder with its log
	write(t, filepath.Join(conv, idA, "messages.jsonl"), `{"type":"msg","id":"m1","role":"user","content":"hi"}`+"\n", false)
	r.expect(t, Change{idA, Created})

	// a burst of appends is one change
	for i := range 20 {
		write(t, filepath.Join(conv, idA, "messages.jsonl"), `{"type":"msg","id":"m`+string(rune('a'+i))+`","role":"user"}`+"\n", true)
		time.Sleep(time.Millisecond)
	}
	r.expect(t, Change{idA, Updated})

	// an index change reports the records that changed
	write(t, filepath.Join(conv, "index.json"), "[\n  {\"id\": \""+idB+"\", \"title\": \"B\"}\n]", false)
	r.quiet(t) // same record, other formatting
	write(t, filepath.Join(conv, "index.json"), `[{"id":"`+idB+`","title":"Renamed"}]`, false)
	r.expect(t, Change{idB, Updated})

	// temp and trash names are not conversations
	write(t, filepath.Join(conv, idA, ".messages.jsonl.tmp"), "x", false)
	os.MkdirAll(filepath.Join(conv, ".trash-x"), 0o755)
	r.quiet(t)

	os.RemoveAll(filepath.Join(conv, idA))
	r.expect(t, Change{idA, Deleted})
	os.Rename(filepath.Join(conv, idB), filepath.Join(conv, ".trash-"+idB))
	r.expect(t, Change{idB, Deleted})
}

func TestConversationsFolderAppearsLater(t *testing.T) {
	dir := t.TempDir()
	r := start(t, dir, Options{})
	os.MkdirAll(filepath.Join(dir, "conversations", idA), 0o755)
	write(t, filepath.Join(dir, "conversations", idA, "messages.jsonl"), "{}\n", false)
	r.expect(t, Change{idA, Created})
	write(t, filepath.Join(dir, "conversations", idA, "messages.jsonl"), "{}\n", true)
	r.expect(t, Change{idA, Updated})
}

// TestIgnoresTheStoresOwnWrites runs a real store next to the watcher: its
// own operations are not reported, another writer's are.
func TestIgnoresTheStoresOwnWrites(t *testing.T) {
	dir := t.TempDir()
	s, err := convlog.Open(dir, convlog.Options{IndexFlushDelay: 10 * time.Millisecond, LargeOutputThreshold: 10, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keep, _ := s.Create("", "")
	r := start(t, dir, Options{Ignore: s.IsOwnWrite})

	m, _ := s.Create("", "")
	for i := range 5 {
		if err := s.Append(m.ID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(strings.Repeat("x", i*10))}); err != nil {
			t.Fatal(err)
		}
	}
	s.Rename(m.ID, "Mine")
	s.Checkpoint(m.ID, "cp")
	f, err := s.Fork(m.ID, convlog.ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.MarkCompacted(m.ID, nil, nil)
	s.Delete(f.ID)
	r.quiet(t)
	time.Sleep(50 * time.Millisecond) // past the delayed index write
	r.quiet(t)

	// another program appends to a log and edits the index
	write(t, filepath.Join(dir, "conversations", keep.ID, "messages.jsonl"), `{"type":"msg","id":"ext","role":"user","content":"hi"}`+"\n", true)
	r.expect(t, Change{keep.ID, Updated})
	data, _ := os.ReadFile(filepath.Join(dir, "conversations", "index.json"))
	var recs []map[string]any
	json.Unmarshal(data, &recs)
	for _, rec := range recs {
		if rec["id"] == m.ID {
			rec["title"] = "edited elsewhere"
		}
	}
	data, _ = json.Marshal(recs)
	write(t, filepath.Join(dir, "conversations", "index.json"), string(data), false)
	r.expect(t, Change{m.ID, Updated})
	// and removes a folder
	os.RemoveAll(filepath.Join(dir, "conversations", m.ID))
	r.expect(t, Change{m.ID, Deleted})
}

func TestCloseStopsCallbacks(t *testing.T) {
	dir := t.TempDir()
	calls := make(chan Change, 10)
	w, err := New(dir, func(c Change) { calls <- c }, Options{Debounce: debounce})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "conversations", idA, "messages.jsonl"), "{}\n", false)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	time.Sleep(4 * debounce)
	select {
	case c := <-calls:
		t.Errorf("callback after Close: %+v", c)
	default:
	}
	if _, err := New(filepath.Join(dir, "missing"), func(Change) {}, Options{}); err == nil {
		t.Error("New on a missing directory succeeded")
	}
}
