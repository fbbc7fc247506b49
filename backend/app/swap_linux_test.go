package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/project"
)

// exchange swaps two directory entries in one step (renameat2
// RENAME_EXCHANGE): the name read through is always one of the two.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// swapping exchanges folder with a symbolic link to outside, over and over,
// until the test ends; it returns how many swaps happened so far.
func swapping(t *testing.T, folder, outside string) func() int64 {
	t.Helper()
	link := folder + ".link"
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if exchange(folder, link) == nil {
				swaps.Add(1)
			}
		}
	}()
	t.Cleanup(func() { stop.Store(true); wg.Wait() })
	return swaps.Load
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The window reads artifacts and saved tool outputs through the sandbox
// beneath its root: a folder on the way swapped for a symbolic link to an
// outside folder while it reads never lets it read outside.
func TestReadsBeneathTheRootWhileFoldersAreSwapped(t *testing.T) {
	home, root, outside := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("CREWAGENT_HOME", "")
	rt := app.New(home, app.Options{})
	ws, err := rt.Open(root, app.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close(); rt.Shutdown() })
	p, err := project.Open(home, root)
	if err != nil {
		t.Fatal(err)
	}

	const convID, msgID = "0f8fad5b-d9cb-469f-a165-70867728950e", "m1"
	secret := func(name string) string { return "OUTSIDE-SECRET " + name }
	writeTestFile(t, filepath.Join(root, "artifacts", "notes.md"), "# inside\n")
	writeTestFile(t, filepath.Join(outside, "notes.md"), secret("notes.md"))
	inside, _ := json.Marshal(conversation.ToolResultFile{ConversationID: convID, MessageID: msgID, Content: "inside output"})
	evil, _ := json.Marshal(conversation.ToolResultFile{ConversationID: convID, MessageID: msgID, Content: secret("tool output")})
	results := filepath.Join(p.DataDir, "logs", "tool-results", convID)
	writeTestFile(t, filepath.Join(results, msgID+".json"), string(inside))
	writeTestFile(t, filepath.Join(outside, msgID+".json"), string(evil))

	tests := []struct {
		name   string
		folder string
		read   func() (string, error)
	}{
		{"artifact", filepath.Join(root, "artifacts"), func() (string, error) {
			v, err := ws.ReadArtifact("artifacts/notes.md")
			return v.Content, err
		}},
		{"tool output", results, func() (string, error) {
			v, err := ws.ReadToolResult(convID, msgID)
			return v.Content, err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			swaps := swapping(t, tt.folder, outside)
			var reads, ok, escapes int
			for deadline := time.Now().Add(1500 * time.Millisecond); time.Now().Before(deadline) || swaps() < 100; reads++ {
				text, err := tt.read()
				if strings.Contains(text, "OUTSIDE-SECRET") {
					escapes++
				}
				if err == nil {
					ok++
				}
			}
			if escapes > 0 {
				t.Fatalf("%d of %d reads returned the outside file", escapes, reads)
			}
			if ok == 0 {
				t.Fatalf("none of %d reads succeeded: the test did not read the inside file either", reads)
			}
			t.Logf("%d reads (%d succeeded) during %d swaps, none outside", reads, ok, swaps())
		})
	}
}
