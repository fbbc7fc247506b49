package app

import (
	"crewagent/backend/sandbox"
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

// runWithoutSandbox is the project's choice to run commands without a sandbox where
// bubblewrap cannot start.
func (ws *Workspace) runWithoutSandbox() bool { c, _ := ws.ShellChoice(); return c.RunWithoutSandbox }

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
