package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"crewagent/backend/fsx"
	"crewagent/backend/project"
)

// ProjectRulesFile is the project's rules file, relative to its root.
const ProjectRulesFile = ".crewagent/permissions.json"

// StateFileName is the user's approvals state of one project, in its data
// folder (<home>/projects/<projectId>/approvals.json).
const StateFileName = "approvals.json"

// ProjectRules are the rules of a project's .crewagent/permissions.json.
type ProjectRules struct {
	Rules
	// Hash is the SHA-256 of the file's bytes ("" when there is none): the
	// approval of the file is for this content.
	Hash string
	// Root is the canonical path of the project folder the file was read
	// from: the approval of the file is for this folder too, so that it does
	// not travel with a copy or a clone of the project.
	Root string
	// Problems lists the rules that do not parse.
	Problems []string
}

// LoadProjectRules reads <root>/.crewagent/permissions.json (none: empty rules).
// A damaged file is an error: the caller then refuses what it would have
// decided (a file meant to narrow must not silently do nothing).
func LoadProjectRules(root string) (ProjectRules, error) {
	canon := canonicalRoot(root)
	data, err := os.ReadFile(filepath.Join(canon, filepath.FromSlash(ProjectRulesFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return ProjectRules{Root: canon}, nil
	}
	if err != nil {
		return ProjectRules{Root: canon}, fmt.Errorf("cannot read %s: %w", ProjectRulesFile, err)
	}
	sum := sha256.Sum256(data)
	out := ProjectRules{Hash: hex.EncodeToString(sum[:]), Root: canon}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(data, &out.Rules); err != nil {
		return out, fmt.Errorf("%s is not valid JSON (%v): fix it; until then writes and commands are refused", ProjectRulesFile, err)
	}
	out.Problems = out.Check()
	return out, nil
}

// State is what the user chose for one project: its default approval mode,
// the rules "always allow in this project" wrote, and the approval of the
// project's rules file.
type State struct {
	// Mode is the project's default mode ("" = the settings' or ask).
	Mode Mode `json:"mode,omitempty"`
	// Allow are the user's allow rules for this project.
	Allow []string `json:"allow,omitempty"`
	// RulesApproved is the hash of the .crewagent/permissions.json the user
	// approved; its allow rules count while the file keeps that content, in
	// the folder RulesApprovedIn (its canonical path) only.
	RulesApproved   string    `json:"rulesApproved,omitempty"`
	RulesApprovedIn string    `json:"rulesApprovedIn,omitempty"`
	ApprovedAt      time.Time `json:"approvedAt,omitzero"`
}

// Approves reports whether the user approved the rules file pr as it is, in
// the folder it was read from. An approval recorded without its folder
// (before approvals named one) counts for none: the user approves again.
func (st State) Approves(pr ProjectRules) bool {
	return pr.Hash != "" && pr.Hash == st.RulesApproved && pr.Root != "" && pr.Root == st.RulesApprovedIn
}

// Store keeps a project's State in the runtime home. It reads the file on
// every query and writes it under a lock, so the window and a command run
// beside it agree.
type Store struct {
	path string
}

// NewStore returns the approvals state of a project.
func NewStore(home, projectID string) *Store {
	return &Store{path: filepath.Join(project.DataDir(home, projectID), StateFileName)}
}

// Path returns the state file.
func (s *Store) Path() string { return s.path }

// Load reads the state (none: zero). A damaged file reads as zero with an error.
func (s *Store) Load() (State, error) {
	var st State
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(bytes.TrimSpace(data)) == 0) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("cannot read the approvals of this project %s: %w", s.path, err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, fmt.Errorf("the approvals file %s is damaged (%v): the project's grants are ignored until it is fixed or removed", s.path, err)
	}
	return st, nil
}

// Update changes the state under the file's lock.
func (s *Store) Update(fn func(*State)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	unlock, err := fsx.Lock(s.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	st, err := s.Load()
	if err != nil {
		return err
	}
	fn(&st)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFile(s.path, append(data, '\n'), 0o600)
}

// SetMode sets the project's default mode ("" clears it).
func (s *Store) SetMode(m Mode) error { return s.Update(func(st *State) { st.Mode = m }) }

// Grant adds an allow rule for the project.
func (s *Store) Grant(rule string) error {
	if _, err := ParseRule(rule); err != nil {
		return err
	}
	return s.Update(func(st *State) {
		if !slices.Contains(st.Allow, rule) {
			st.Allow = append(st.Allow, rule)
		}
	})
}

// ApproveRules records that the user approved the project's rules file pr:
// its content in its folder.
func (s *Store) ApproveRules(pr ProjectRules) error {
	if pr.Hash == "" || pr.Root == "" {
		return fmt.Errorf("no %s to approve", ProjectRulesFile)
	}
	return s.Update(func(st *State) {
		st.RulesApproved, st.RulesApprovedIn, st.ApprovedAt = pr.Hash, pr.Root, time.Now().UTC()
	})
}

// canonicalRoot is the project folder's absolute path with its links resolved
// (as far as that works).
func canonicalRoot(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return filepath.Clean(root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
