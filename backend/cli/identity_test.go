package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/project"
)

// listedIDs returns the conversation ids "conversations list --json" printed.
func listedIDs(t *testing.T, r runResult) []string {
	t.Helper()
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("%v: %+v", err, r)
	}
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids
}

// A copy of a project opens as a new project, with a note; a moved one asks on a
// terminal, is refused without one (naming the flags that answer), and --moved /
// --new-project answer beforehand.
func TestMovedAndCopiedProjects(t *testing.T) {
	tests := []struct {
		name     string
		copy     bool // copy the folder instead of moving it
		terminal bool
		input    string
		flags    []string
		code     int
		kept     bool     // the original's conversation is listed
		stderr   []string // what stderr says
	}{
		{name: "a copy is a new project", copy: true, stderr: []string{"note:", "is a copy of project", "without that folder's conversations"}},
		{name: "a copy stays a new project with --moved", copy: true, flags: []string{"--moved"}, stderr: []string{"is a copy of project"}},
		{name: "moved, no terminal", code: ExitError, stderr: []string{"moved from", "use its conversations?", "Nothing was changed", "--moved", "--new-project"}},
		{name: "moved, --moved", flags: []string{"--moved"}, kept: true, stderr: []string{"its conversations came along"}},
		{name: "moved, --new-project", flags: []string{"--new-project"}, stderr: []string{"is a new project"}},
		{name: "moved, both flags", flags: []string{"--moved", "--new-project"}, code: ExitError, stderr: []string{"exclude each other"}},
		{name: "moved, yes on a terminal", terminal: true, input: "y\n", kept: true, stderr: []string{"use its conversations? [y]es", "came along"}},
		{name: "moved, no on a terminal", terminal: true, input: "no\n", stderr: []string{"is a new project"}},
		{name: "moved, other words ask again", terminal: true, input: "maybe\nyes\n", kept: true, stderr: []string{"came along"}},
		{name: "moved, no answer on a terminal", terminal: true, input: "", code: ExitError, stderr: []string{"no answer: nothing was changed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.terminal {
				was := stdinIsTerminal
				stdinIsTerminal = func(io.Reader) bool { return true }
				t.Cleanup(func() { stdinIsTerminal = was })
			}
			home, root, convID, _ := fixture(t)
			before, err := os.ReadFile(project.MetaPath(root))
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(t.TempDir(), "elsewhere")
			if tc.copy {
				if err := os.Mkdir(to, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(project.MetaPath(to), before, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Rename(root, to); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"conversations", "list", "--json", "--home", home, "--project", to}, tc.flags...)
			r := run(t, tc.input, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d: %+v", r.code, tc.code, r)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			after, _ := os.ReadFile(project.MetaPath(to))
			if tc.code != ExitOK {
				if string(after) != string(before) {
					t.Fatalf("a refused open changed %s:\n%s", project.MetaPath(to), after)
				}
				return
			}
			ids := listedIDs(t, r)
			if kept := len(ids) == 1 && ids[0] == convID; kept != tc.kept || (!kept && len(ids) != 0) {
				t.Fatalf("listed %v, want the original's conversation: %v", ids, tc.kept)
			}
			if (string(after) == string(before)) != tc.kept {
				t.Fatalf("the project id in %s changed: %v", project.MetaPath(to), string(after) != string(before))
			}
			// settled: the next command asks nothing and says nothing
			again := run(t, "", "conversations", "list", "--json", "--home", home, "--project", to)
			if again.code != ExitOK || again.stderr != "" || len(listedIDs(t, again)) != len(ids) {
				t.Fatalf("reopened: %+v", again)
			}
			if tc.copy {
				orig := run(t, "", "conversations", "list", "--json", "--home", home, "--project", root)
				if ids := listedIDs(t, orig); len(ids) != 1 || ids[0] != convID || orig.stderr != "" {
					t.Fatalf("the original after its copy: %+v", orig)
				}
			}
		})
	}
}
