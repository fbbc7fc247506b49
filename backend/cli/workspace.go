package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/mcp/oauth"
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
	// A remote server that requires signing in opens the browser; the address is printed
	// as well, for a terminal where no browser opens.
	opts.MCP.OAuthConsent = oauth.Browser{Notify: func(u string) {
		fmt.Fprintf(e.stderr, "crewagent: sign in to the MCP server in your browser (waiting): %s\n", u)
	}}
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
	moved, err := e.movedChoice()
	if err != nil {
		return nil, err
	}
	p, err := project.OpenWith(rt.Home(), root, project.OpenOptions{Moved: moved})
	if errs.CodeOf(err) == project.CodeMoved && moved == project.MovedAsk {
		if moved, err = e.askMoved(err); err == nil {
			p, err = project.OpenWith(rt.Home(), root, project.OpenOptions{Moved: moved})
		}
	}
	if err != nil {
		return nil, err
	}
	if p.Notice != "" {
		fmt.Fprintf(e.stderr, "crewagent: note: %s\n", oneLine(p.Notice))
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

// movedChoice reads --moved / --new-project: the answer, given beforehand, to
// the question of a folder that looks like a project moved from another path.
func (e *env) movedChoice() (project.Moved, error) {
	switch keep, fresh := e.args.has("moved"), e.args.has("new-project"); {
	case keep && fresh:
		return 0, fmt.Errorf("--moved and --new-project exclude each other: choose one")
	case keep:
		return project.MovedKeep, nil
	case fresh:
		return project.MovedNew, nil
	}
	return project.MovedAsk, nil
}

// askMoved asks the question of a moved project (question, E_PROJECT_MOVED) on
// the terminal; without one it refuses, saying which flag answers it.
func (e *env) askMoved(question error) (project.Moved, error) {
	q := oneLine(question.Error())
	if !stdinIsTerminal(e.stdin) {
		return 0, errs.New(project.CodeMoved, q+" Nothing was changed: run the command again with --moved to keep its conversations in this folder, or --new-project to make this folder a new project")
	}
	for {
		fmt.Fprintf(e.stderr, "crewagent: %s [y]es, keep them here / [n]o, a new project: ", q)
		line, err := readLine(e.stdin)
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return project.MovedKeep, nil
		case "n", "no":
			return project.MovedNew, nil
		}
		if err != nil {
			fmt.Fprintln(e.stderr)
			return 0, errs.New(project.CodeMoved, "no answer: nothing was changed (--moved or --new-project answer beforehand)")
		}
	}
}

// readLine reads one line byte by byte, so that nothing after it is taken from
// r (a message read from stdin later stays there).
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(c[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
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
