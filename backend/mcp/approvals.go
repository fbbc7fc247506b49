package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"crewagent/backend/fsx"
	"crewagent/backend/project"
)

// ApprovalsFileName is the approvals file in a project's data folder
// (<home>/projects/<projectId>/mcp-approvals.json).
const ApprovalsFileName = "mcp-approvals.json"

// ProjectFileName is the project's own server table, at the project root (see ProjectFiles
// for the others read beside it).
const ProjectFileName = ".mcp.json"

// projectFile names the file a project server comes from.
func (c ServerConfig) projectFile() string {
	if c.File != "" {
		return c.File
	}
	return ProjectFileName
}

// ApproveCommand is the command line that approves a project server, its name quoted for a
// shell when it needs to be.
func ApproveCommand(name string) string {
	return "crewagent mcp approve " + ShellQuote(name)
}

// ShellQuote quotes s for a POSIX shell when it holds anything but letters, digits and
// -_./:@=+, (so a name with spaces can be pasted as one argument).
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 0x7f && !unicode.IsSpace(r) || strings.ContainsRune("-_./:@=+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Approval records that the user allowed a project server to run, for the configuration
// whose Hash it holds.
type Approval struct {
	ConfigHash string    `json:"configHash"`
	ApprovedAt time.Time `json:"approvedAt"`
}

// approvalsFile is the content of mcp-approvals.json.
type approvalsFile struct {
	Servers map[string]Approval `json:"servers"`
}

// Approvals are the approved project servers of one project. The file is read on every
// query and written under a lock, so the app and a command run beside it agree. Its
// methods are safe for concurrent use.
type Approvals struct {
	path string
	now  func() time.Time
}

// NewApprovals returns the approvals of a project, kept in
// <home>/projects/<projectID>/mcp-approvals.json.
func NewApprovals(home, projectID string) *Approvals {
	return &Approvals{path: filepath.Join(project.DataDir(home, projectID), ApprovalsFileName), now: time.Now}
}

// Path returns the approvals file.
func (a *Approvals) Path() string { return a.path }

func (a *Approvals) read() (approvalsFile, error) {
	f := approvalsFile{Servers: map[string]Approval{}}
	data, err := os.ReadFile(a.path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(bytes.TrimSpace(data)) == 0) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("cannot read the MCP approvals %s: %w", a.path, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		// A damaged file approves nothing: every project server asks again.
		return approvalsFile{Servers: map[string]Approval{}}, fmt.Errorf("the MCP approvals file %s is damaged (%v); approve the project's servers again", a.path, err)
	}
	if f.Servers == nil {
		f.Servers = map[string]Approval{}
	}
	return f, nil
}

// All returns the recorded approvals by server name.
func (a *Approvals) All() (map[string]Approval, error) {
	f, err := a.read()
	return f.Servers, err
}

// IsApproved reports whether cfg (a project server) was approved with this exact
// configuration. A server from settings needs no approval and is always approved.
func (a *Approvals) IsApproved(cfg ServerConfig) (bool, error) {
	if cfg.Source != SourceProject {
		return true, nil
	}
	f, err := a.read()
	if err != nil {
		return false, err
	}
	ap, ok := f.Servers[cfg.Name]
	return ok && ap.ConfigHash == cfg.Hash(), nil
}

// Approve records the approval of cfg as it is now.
func (a *Approvals) Approve(cfg ServerConfig) error {
	return a.update(func(f *approvalsFile) {
		f.Servers[cfg.Name] = Approval{ConfigHash: cfg.Hash(), ApprovedAt: a.now().UTC()}
	})
}

// Revoke removes the approval of the named server (no error when there is none).
func (a *Approvals) Revoke(name string) error {
	return a.update(func(f *approvalsFile) { delete(f.Servers, name) })
}

func (a *Approvals) update(change func(*approvalsFile)) error {
	dir := filepath.Dir(a.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot save the MCP approvals: %w", err)
	}
	unlock, err := fsx.Lock(a.path + ".lock")
	if err != nil {
		return fmt.Errorf("cannot lock the MCP approvals: %w", err)
	}
	defer unlock()
	f, err := a.read()
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			return err
		}
		// A damaged file is replaced.
	}
	change(&f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := fsx.WriteFile(a.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("cannot save the MCP approvals: %w", err)
	}
	return nil
}

// PendingServer is a project server that may not run yet.
type PendingServer struct {
	Name string `json:"name"`
	// Changed is true when an earlier configuration of the server was approved and the
	// project's .mcp.json has changed it since.
	Changed bool `json:"changed"`
}

// Pending returns the project servers among servers that are not approved as they are,
// sorted by name. Disabled servers are left out: they would not run anyway.
func (a *Approvals) Pending(servers []ServerConfig) ([]PendingServer, error) {
	f, err := a.read()
	var out []PendingServer
	for _, s := range servers {
		if s.Source != SourceProject || s.Disabled {
			continue
		}
		ap, ok := f.Servers[s.Name]
		if ok && ap.ConfigHash == s.Hash() {
			continue
		}
		out = append(out, PendingServer{Name: s.Name, Changed: ok})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}
