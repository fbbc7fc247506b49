package engine

import (
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// Shell is whether a send of the scope is offered shell.run, and how its commands run:
// settings tools.shell (agent mode, and plain chat only when inChat is on), narrowed by the
// agent's own tools block; runWithoutSandbox reads the project's choice where bubblewrap
// cannot start (only when the shell is offered).
func (scope ToolScope) Shell(st settings.ShellTools, runWithoutSandbox func() bool) (tools.ShellPolicy, tools.ShellConfig) {
	on := st.Enabled && (scope.Mode == conversation.ModeAgent || (scope.Mode == conversation.ModeChat && st.InChat))
	// (Run mode: the workflow service builds its own hosts, with tools.shell.enabled.)
	if a := scope.Agent; a != nil && a.Tools != nil && a.Tools.Shell != nil && a.Tools.Shell.Enabled != nil && !*a.Tools.Shell.Enabled {
		on = false
	}
	if !on {
		return tools.ShellPolicy{}, tools.ShellConfig{}
	}
	cfg := tools.ShellConfig{
		Timeout:           time.Duration(st.TimeoutSeconds) * time.Second,
		RunWithoutSandbox: runWithoutSandbox(),
	}
	if st.AllowNetwork {
		cfg.Network = func(string) bool { return true }
	}
	return tools.ShellPolicy{Enabled: true}, cfg
}
