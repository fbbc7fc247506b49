package app

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/fsx"
	"crewagent/backend/sandbox"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// ShellChoiceFile is the project's choices about commands (shell.run), in its data folder
// (<home>/projects/<projectId>/commands.json): the user's, never the project folder's, so
// a cloned repository cannot make its commands run unsandboxed.
const ShellChoiceFile = "commands.json"

// ShellChoice is the content of ShellChoiceFile.
type ShellChoice struct {
	// RunWithoutSandbox runs the project's commands without a sandbox where bubblewrap
	// cannot start: they can then read and write every file the user can, reach the
	// network, and see the runtime's own files (settings and keys included).
	RunWithoutSandbox bool `json:"runWithoutSandbox"`
}

// ShellStatus says how the project's commands run.
type ShellStatus struct {
	// Sandboxed is true when bubblewrap can start here.
	Sandboxed bool `json:"sandboxed"`
	// Problem says in words why it cannot ("" when it can).
	Problem string `json:"problem,omitempty"`
	ShellChoice
}

// shellChoicePath is the project's ShellChoiceFile (the data folder never changes: no lock).
func (ws *Workspace) shellChoicePath() string {
	return filepath.Join(ws.project.DataDir, ShellChoiceFile)
}

// ShellChoice reads the project's choices about commands (the defaults when none were
// made).
func (ws *Workspace) ShellChoice() (ShellChoice, error) {
	var c ShellChoice
	b, err := os.ReadFile(ws.shellChoicePath())
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, errs.Wrap(errs.Internal, err, "cannot read the project's command settings")
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return ShellChoice{}, errs.Wrap(errs.Internal, err, "the project's command settings ("+ShellChoiceFile+") are not valid JSON")
	}
	return c, nil
}

// SetRunWithoutSandbox records the user's choice to run the project's commands without a
// sandbox where bubblewrap cannot start (on), or never (off).
func (ws *Workspace) SetRunWithoutSandbox(on bool) error {
	c, err := ws.ShellChoice()
	if err != nil {
		c = ShellChoice{}
	}
	c.RunWithoutSandbox = on
	b, _ := json.MarshalIndent(c, "", "  ")
	if err := fsx.WriteFile(ws.shellChoicePath(), append(b, '\n'), 0o600); err != nil {
		return errs.Wrap(errs.Internal, err, "cannot save the project's command settings")
	}
	return nil
}

// ShellStatus says whether the project's commands run in the sandbox, and the project's
// choice where they cannot.
func (ws *Workspace) ShellStatus() ShellStatus {
	c, _ := ws.ShellChoice()
	st := ShellStatus{Sandboxed: true, ShellChoice: c}
	if err := sandbox.Check(""); err != nil {
		st.Sandboxed, st.Problem = false, err.Error()
	}
	return st
}

// shellFor is whether a send of scope is offered shell.run, and how its commands run:
// settings tools.shell (agent mode, and plain chat only when inChat is on), narrowed by the
// agent's own tools block.
func (ws *Workspace) shellFor(scope engine.ToolScope, st settings.ShellTools) (tools.ShellPolicy, tools.ShellConfig) {
	on := st.Enabled && (scope.Mode == conversation.ModeAgent || (scope.Mode == conversation.ModeChat && st.InChat))
	// (Run mode: the workflow service builds its own hosts, with tools.shell.enabled.)
	if a := scope.Agent; a != nil && a.Tools != nil && a.Tools.Shell != nil && a.Tools.Shell.Enabled != nil && !*a.Tools.Shell.Enabled {
		on = false
	}
	if !on {
		return tools.ShellPolicy{}, tools.ShellConfig{}
	}
	choice, _ := ws.ShellChoice()
	cfg := tools.ShellConfig{
		Timeout:           time.Duration(st.TimeoutSeconds) * time.Second,
		RunWithoutSandbox: choice.RunWithoutSandbox,
	}
	if st.AllowNetwork {
		cfg.Network = func(string) bool { return true }
	}
	return tools.ShellPolicy{Enabled: true}, cfg
}

// liveOutput passes the output of the running commands of conversation convID on to the
// window (tool:output events, coalesced and bounded).
func (ws *Workspace) liveOutput(convID string) func(tools.ToolOutput) {
	return func(o tools.ToolOutput) {
		if o.Done {
			ws.output.Done(convID, o.Tool, o.ToolCallID)
			return
		}
		ws.output.Add(convID, o.Tool, o.ToolCallID, o.Data)
	}
}
