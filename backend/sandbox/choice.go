package sandbox

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// ChoiceFile is a project's choices about commands (shell.run), in its data folder
// (<home>/projects/<projectId>/commands.json): the user's, never the project folder's, so
// a cloned repository cannot make its commands run unsandboxed.
const ChoiceFile = "commands.json"

// Choice is the content of ChoiceFile.
type Choice struct {
	// RunWithoutSandbox runs the project's commands without a sandbox where bubblewrap
	// cannot start: they can then read and write every file the user can, reach the
	// network, and see the runtime's own files (settings and keys included).
	RunWithoutSandbox bool `json:"runWithoutSandbox"`
}

// ReadChoice reads the choices of the project whose data folder is dataDir (the defaults
// when none were made).
func ReadChoice(dataDir string) (Choice, error) {
	var c Choice
	b, err := os.ReadFile(filepath.Join(dataDir, ChoiceFile))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, errs.Wrap(errs.Internal, err, "cannot read the project's command settings")
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return Choice{}, errs.Wrap(errs.Internal, err, "the project's command settings ("+ChoiceFile+") are not valid JSON")
	}
	return c, nil
}

// SetRunWithoutSandbox records the user's choice to run the project's commands without a
// sandbox where bubblewrap cannot start (on), or never (off).
func SetRunWithoutSandbox(dataDir string, on bool) error {
	c, err := ReadChoice(dataDir)
	if err != nil {
		c = Choice{}
	}
	c.RunWithoutSandbox = on
	b, _ := json.MarshalIndent(c, "", "  ")
	if err := fsx.WriteFile(filepath.Join(dataDir, ChoiceFile), append(b, '\n'), 0o600); err != nil {
		return errs.Wrap(errs.Internal, err, "cannot save the project's command settings")
	}
	return nil
}

// Status says how a project's commands run.
type Status struct {
	// Sandboxed is true when bubblewrap can start here.
	Sandboxed bool `json:"sandboxed"`
	// Problem says in words why it cannot ("" when it can).
	Problem string `json:"problem,omitempty"`
	Choice
}

// StatusOf says whether the commands of the project whose data folder is dataDir run in
// the sandbox, and the project's choice where they cannot.
func StatusOf(dataDir string) Status {
	c, _ := ReadChoice(dataDir)
	st := Status{Sandboxed: true, Choice: c}
	if err := Check(""); err != nil {
		st.Sandboxed, st.Problem = false, err.Error()
	}
	return st
}
