package app

import (
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/sandbox"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// A project's choices about commands, and how they run (backend/sandbox).
type (
	ShellChoice = sandbox.Choice
	ShellStatus = sandbox.Status
)

// ShellChoiceFile is the project's choices about commands, in its data folder.
const ShellChoiceFile = sandbox.ChoiceFile

// ShellChoice reads the project's choices about commands (the defaults when none were
// made).
func (ws *Workspace) ShellChoice() (ShellChoice, error) {
	return sandbox.ReadChoice(ws.project.DataDir)
}

// SetRunWithoutSandbox records the user's choice to run the project's commands without a
// sandbox where bubblewrap cannot start (on), or never (off).
func (ws *Workspace) SetRunWithoutSandbox(on bool) error {
	return sandbox.SetRunWithoutSandbox(ws.project.DataDir, on)
}

// ShellStatus says whether the project's commands run in the sandbox, and the project's
// choice where they cannot.
func (ws *Workspace) ShellStatus() ShellStatus { return sandbox.StatusOf(ws.project.DataDir) }

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
