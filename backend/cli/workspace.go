package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/project"
	"crewagent/backend/settings"
)

// runtime returns the runtime of --home (made on first use).
func (e *env) runtime() (*app.Runtime, error) {
	if e.rt != nil {
		return e.rt, nil
	}
	home, err := project.ResolveHome(e.args.get("home"))
	if err != nil {
		return nil, err
	}
	var em events.Emitter = events.Nop{}
	if e.printer != nil {
		em = e.printer
	}
	pr := &prompter{e: e, next: em}
	opts := app.Options{Emitter: pr, Logger: e.log, Demo: app.DemoOnDemand}
	if stdinIsTerminal(e.stdin) {
		// Someone can answer what MCP servers ask during a call; otherwise they are not
		// told they may ask.
		opts.MCP.Elicit = pr.elicit
	}
	e.rt = app.New(home, opts)
	return e.rt, nil
}

// workspace opens the project of --project (default: the current folder)
// through the composition root, as the command's access says, on first use.
// A settings.json that is not valid fails only the commands that talk to the
// LLM; the others warn once and go on with the default settings (and the
// environment's overrides). Any other settings error fails the command.
func (e *env) workspace() (*app.Workspace, error) {
	if e.ws != nil {
		return e.ws, nil
	}
	rt, err := e.runtime()
	if err != nil {
		return nil, err
	}
	root := e.args.get("project")
	if root == "" {
		if root, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("cannot read the current directory: %v", err)
		}
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	p, err := project.Open(rt.Home(), root)
	if err != nil {
		return nil, err
	}
	if st, err := rt.Settings(); err != nil {
		if e.cmd.usesLLM || errs.CodeOf(err) != settings.CodeCorrupt {
			return nil, err
		}
		fmt.Fprintf(e.stderr, "crewagent: warning: %s; using the default settings\n", oneLine(err.Error()))
	} else {
		for _, w := range st.Effective().Warnings() {
			fmt.Fprintf(e.stderr, "crewagent: warning: settings (%s): %s %s\n", settings.Path(rt.Home()), w.Field, oneLine(w.Message))
		}
	}
	ws, err := rt.OpenProject(p, app.OpenOptions{ReadOnly: e.cmd.access != Write})
	if err != nil {
		return nil, err
	}
	e.ws = ws
	return ws, nil
}

// close closes what the command opened.
func (e *env) close() {
	if e.ws != nil {
		_ = e.ws.Close()
	}
	if e.rt != nil {
		e.rt.Shutdown()
	}
}

// requireLLM fails when no LLM is configured, saying where to set one.
func (e *env) requireLLM() error {
	if err := e.rt.Effective().RequireLLM(); err != nil {
		return fmt.Errorf("no LLM is configured: set CREWAGENT_LLM_BASE_URL and CREWAGENT_LLM_MODEL, or llm.baseUrl and llm.model in %s", settings.Path(e.rt.Home()))
	}
	return nil
}
