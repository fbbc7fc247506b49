package desktop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/errs"
	"crewagent/backend/project"
)

// The window's flow for a project folder that was renamed: Open asks (E_PROJECT_MOVED,
// the question in words), OpenMoved answers; a copy opens as a new project with a notice.
func TestWindowOpensMovedAndCopiedProjects(t *testing.T) {
	for _, keep := range []bool{true, false} {
		ta, _ := newTestApp(t)
		parent, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(parent, "novel")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		info, err := ta.Projects.Open(root)
		if err != nil || info.Notice != "" {
			t.Fatalf("open: %+v %v", info, err)
		}
		conv, err := ta.Conversations.Create("chapter one")
		if err != nil {
			t.Fatal(err)
		}
		// a copy, opened while the original is open
		copied := filepath.Join(parent, "novel-copy")
		if err := os.Mkdir(copied, 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(project.MetaPath(root))
		if err := os.WriteFile(project.MetaPath(copied), data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ta.Projects.Open(copied)
		if err != nil || c.ID == info.ID || !strings.Contains(c.Notice, "is a copy of project") {
			t.Fatalf("copy: %+v %v", c, err)
		}
		if list, err := ta.Conversations.List(); err != nil || len(list) != 0 {
			t.Fatalf("the copy lists %+v %v", list, err)
		}
		if err := ta.Projects.Close(); err != nil {
			t.Fatal(err)
		}

		moved := filepath.Join(parent, "novel-renamed")
		if err := os.Rename(root, moved); err != nil {
			t.Fatal(err)
		}
		_, err = ta.Projects.Open(moved)
		if codeOfErr(t, err) != errs.ProjectMoved || !strings.Contains(err.Error(), `project "novel" moved from `+root+" — use its conversations?") {
			t.Fatalf("open moved: %v", err)
		}
		if cur, _ := ta.Projects.Current(); cur != nil {
			t.Fatalf("a project is open while the question waits: %+v", cur)
		}
		m, err := ta.Projects.OpenMoved(moved, keep)
		if err != nil || (m.ID == info.ID) != keep || m.Notice == "" {
			t.Fatalf("open moved, keep %v: %+v %v", keep, m, err)
		}
		list, err := ta.Conversations.List()
		if err != nil || (len(list) == 1 && list[0].ID == conv.ID) != keep || (!keep && len(list) != 0) {
			t.Fatalf("keep %v: conversations %+v %v", keep, list, err)
		}
		if cur, _ := ta.Projects.Current(); cur == nil || cur.Notice != "" {
			t.Fatalf("the notice is said once: %+v", cur)
		}
		// the recent list names the moved folder, and the old path only when the project stayed there
		recent, err := ta.Projects.Recent()
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, r := range recent {
			listed[r.Root] = true
		}
		if !listed[moved] || listed[root] == keep {
			t.Fatalf("keep %v: recent %+v", keep, recent)
		}
		ta.shutdown(context.Background())
	}
}
