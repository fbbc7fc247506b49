package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"crewagent/backend/convlog"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tokens"
)

// workspace is the opened runtime home + project + conversation store that a
// command works on.
type workspace struct {
	home     string
	project  *project.Project
	settings settings.Settings
	// settingsErr is why settings.json could not be read (the defaults are used): commands
	// that talk to the LLM refuse to run with it (requireSettings), others go on.
	settingsErr error
	counter     *tokens.Counter
	store       *convlog.Store
	pkgMgr      *packages.Manager // made on first use by packages()
}

// packages returns the runtime home's package manager.
func (w *workspace) packages() *packages.Manager {
	if w.pkgMgr == nil {
		w.pkgMgr = packages.NewManager(w.home)
	}
	return w.pkgMgr
}

func (w *workspace) close() {
	if w.store != nil {
		_ = w.store.Close()
	}
}

// openWorkspace resolves --home and --project, opens the project and its
// conversation store. write=false opens the store without the writer lock.
func (e *env) openWorkspace(write bool) (*workspace, error) {
	home, err := project.ResolveHome(e.args.get("home"))
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
	p, err := project.Open(home, root)
	if err != nil {
		return nil, err
	}
	st, warning, err := settings.LoadForReading(home)
	if err != nil {
		return nil, err
	}
	w := &workspace{home: home, project: p, settings: st.Effective(), settingsErr: warning, counter: tokens.New()}
	if warning != nil && !e.needsSettings() {
		fmt.Fprintf(e.stderr, "crewagent: warning: %s; using the default settings\n", oneLine(warning.Error()))
	}
	opts := convlog.Options{Counter: w.counter.ForModel(w.settings.LLM.Model), Logger: e.log}
	if write {
		w.store, err = convlog.Open(p.DataDir, opts)
	} else {
		w.store, err = convlog.OpenReadOnly(p.DataDir, opts)
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// needsSettings reports whether the command talks to the LLM, so it cannot run on defaults
// when settings.json is unreadable.
func (e *env) needsSettings() bool {
	switch strings.Join(e.cmd.words, " ") {
	case "chat", "run start", "run continue":
		return true
	}
	return false
}

// requireSettings fails when settings.json could not be read.
func (w *workspace) requireSettings() error {
	return w.settingsErr
}
