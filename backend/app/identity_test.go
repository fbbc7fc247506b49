package app_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/mcp"
	"crewagent/backend/project"
)

// copyTree copies a folder's files the way a copy or a clone of a project does.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// identityProject is an approved project with a conversation: its .mcp.json server and
// its .crewagent/permissions.json approved by the user.
type identityProject struct {
	home, root string
	id         string
	convID     string
}

func newIdentityProject(t *testing.T) *identityProject {
	t.Helper()
	t.Setenv("CREWAGENT_HOME", "")
	p := &identityProject{home: t.TempDir(), root: filepath.Join(t.TempDir(), "book")}
	testkit.WriteFile(t, filepath.Join(p.root, "notes.md"), "# Notes\n")
	testkit.WriteFile(t, filepath.Join(p.root, mcp.ProjectFileName), `{"mcpServers":{"tidy":{"command":"python3","args":["-m","tidy"]}}}`)
	testkit.WriteFile(t, filepath.Join(p.root, ".crewagent", "permissions.json"), `{"allow":["fs.write(notes.md)"]}`)
	ws := p.open(t, project.MovedAsk)
	info := ws.Info()
	p.root, p.id = info.Root, info.ID
	meta, err := ws.CreateConversation("plan the book")
	if err != nil {
		t.Fatal(err)
	}
	p.convID = meta.ID
	if err := ws.ApproveMCPServer("tidy"); err != nil {
		t.Fatal(err)
	}
	if err := ws.ApproveProjectRules(); err != nil {
		t.Fatal(err)
	}
	p.check(t, ws, true, true)
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *identityProject) openAt(t *testing.T, root string, moved project.Moved) (*app.Workspace, error) {
	t.Helper()
	ws, err := app.Open(p.home, root, app.Options{}, app.OpenOptions{Moved: moved})
	if err == nil {
		t.Cleanup(func() { ws.Close() })
	}
	return ws, err
}

func (p *identityProject) open(t *testing.T, moved project.Moved) *app.Workspace {
	t.Helper()
	ws, err := p.openAt(t, p.root, moved)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// check says whether the workspace has the project's conversation and whether its MCP
// server and its rules file are approved.
func (p *identityProject) check(t *testing.T, ws *app.Workspace, conversations, approved bool) {
	t.Helper()
	list, err := ws.ListConversations()
	if err != nil {
		t.Fatal(err)
	}
	has := false
	for _, c := range list {
		has = has || c.ID == p.convID
	}
	if has != conversations || (!conversations && len(list) != 0) {
		t.Fatalf("%s: conversations %d (the project's: %v), want the project's: %v", ws.Info().Root, len(list), has, conversations)
	}
	var state mcp.State
	for _, s := range ws.MCPView(context.Background(), false).Servers {
		if s.Name == "tidy" {
			state = s.State
		}
	}
	if pending := state == mcp.StatePendingApproval; state == "" || pending == approved {
		t.Fatalf("%s: the MCP server is %q, want approved %v", ws.Info().Root, state, approved)
	}
	if r := ws.ApprovalRules(); !r.Exists || r.Approved != approved {
		t.Fatalf("%s: permissions.json %+v, want approved %v", ws.Info().Root, r, approved)
	}
}

// A copy of an approved project, files and all, opens as a new project: none of the
// original's conversations, its MCP server and its rules file to approve again. A moved
// project asks whether it keeps its conversations; yes keeps them (what the folder's
// files may do is approved again: the approvals are for the folder they were given in),
// no makes it a new project.
func TestProjectIdentityFollowsTheFolder(t *testing.T) {
	tests := []struct {
		name string
		// elsewhere makes the folder to open from the original (closed)
		elsewhere func(t *testing.T, p *identityProject) string
		moved     project.Moved
		wantCode  string
		sameID    bool
		notice    string
	}{
		{name: "copied", elsewhere: func(t *testing.T, p *identityProject) string {
			to := filepath.Join(t.TempDir(), "book-copy")
			copyTree(t, p.root, to)
			return to
		}, notice: "is a copy of project"},
		{name: "moved, not answered", elsewhere: rename, wantCode: errs.ProjectMoved},
		{name: "moved, conversations kept", elsewhere: rename, moved: project.MovedKeep, sameID: true, notice: "its conversations came along"},
		{name: "moved, a new project", elsewhere: rename, moved: project.MovedNew, notice: "is a new project"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newIdentityProject(t)
			to := tc.elsewhere(t, p)
			ws, err := p.openAt(t, to, tc.moved)
			if tc.wantCode != "" {
				if errs.CodeOf(err) != tc.wantCode || !strings.Contains(err.Error(), "moved from "+p.root+" — use its conversations?") {
					t.Fatalf("err %v, want %s with the question", err, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			info := ws.Project()
			if (info.ID == p.id) != tc.sameID || !strings.Contains(info.Notice, tc.notice) {
				t.Fatalf("opened %s as %s (was %s), notice %q", to, info.ID, p.id, info.Notice)
			}
			p.check(t, ws, tc.sameID, false)
			if _, err := os.Stat(p.root); err == nil {
				// the original is untouched: its conversations and approvals are where they were
				p.check(t, p.open(t, project.MovedAsk), true, true)
			}
		})
	}
}

// rename moves the project folder to another name and returns it.
func rename(t *testing.T, p *identityProject) string {
	t.Helper()
	to := filepath.Join(filepath.Dir(p.root), "book-renamed")
	if err := os.Rename(p.root, to); err != nil {
		t.Fatal(err)
	}
	return to
}
