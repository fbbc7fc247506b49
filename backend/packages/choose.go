package packages

import (
	"errors"
	"slices"
	"sync"
	"time"

	"crewagent/backend/errs"
)

// ---- which package ----

// Choose picks the package of a new run, the one rule for the window and
// the command line: the explicit one; else the project's active package;
// else Default. demo provides the bundled demo package when none is
// installed.
func (m *Manager) Choose(explicit, active, workflowID string, demo func() (*Installed, error)) (string, error) {
	switch {
	case explicit != "":
		if _, err := m.Get(explicit); err != nil {
			return "", err
		}
		return explicit, nil
	case active != "":
		if _, err := m.Get(active); err != nil {
			return "", errs.MsgWrap(errs.NoPackage, err, "pkg.activeMissing", errs.Params{"id": active})
		}
		return active, nil
	}
	return m.Default(workflowID, demo)
}

// Default is the package of a project without one: among the installed
// packages (those that have the workflow, when one is named), the only
// one, or the bundled demo when it is one of several; else, with none
// installed, the bundled demo as demo provides it.
func (m *Manager) Default(workflowID string, demo func() (*Installed, error)) (string, error) {
	list, err := m.List()
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		inst, err := demo()
		switch {
		case errors.Is(err, ErrDemoRemoved):
			return "", errs.MsgWrap(errs.NoPackage, err, "pkg.noneDemoRemoved", nil)
		case errors.Is(err, ErrDemoNotStarted):
			return "", errs.Msg(errs.NoPackage, "pkg.noActive", nil)
		case err != nil:
			return "", err
		}
		if _, err := m.Get(inst.ID); err != nil {
			return "", errs.MsgWrap(errs.NoPackage, err, "pkg.none", nil)
		}
		return inst.ID, nil
	}
	candidates := list
	if workflowID != "" {
		candidates = slices.DeleteFunc(slices.Clone(list), func(p Installed) bool {
			return !slices.ContainsFunc(p.Workflows, func(wf WorkflowInfo) bool { return wf.ID == workflowID })
		})
		if len(list) == 1 && len(candidates) == 0 {
			candidates = list // the run reports the unknown workflow with the ones there are
		}
	}
	switch {
	case len(candidates) == 1:
		return candidates[0].ID, nil
	case len(candidates) > 1:
		if i := slices.IndexFunc(candidates, func(p Installed) bool { return p.Name == DemoName }); i >= 0 {
			return candidates[i].ID, nil
		}
	}
	return "", errs.Msg(errs.NoPackage, "pkg.ambiguous", errs.Params{"n": len(candidates), "workflow": workflowID})
}

// ---- the bundled demo, installed in the background ----

// demoWait bounds how long a caller waits for the background installation
// (it takes well under a second; a stuck disk must not hang the window).
const demoWait = 20 * time.Second

// ErrDemoNotStarted: no installation of the demo was started (a
// BackgroundDemo never started, as in tests).
var ErrDemoNotStarted = errors.New("the bundled demo package is not installed by this process")

// BackgroundDemo installs the bundled demo package in the background once
// (the window), and gives its outcome to those who need a package.
type BackgroundDemo struct {
	m *Manager
	// onError is told why the installation failed.
	onError func(error)

	mu sync.Mutex
	d  *demoInstall
}

// demoInstall is the background installation of the bundled demo package.
type demoInstall struct {
	done      chan struct{}
	installed *Installed
	err       error
}

// NewBackgroundDemo returns the background installation of m's demo
// (nothing starts before Start).
func NewBackgroundDemo(m *Manager, onError func(error)) *BackgroundDemo {
	return &BackgroundDemo{m: m, onError: onError}
}

// Start installs the bundled demo package in the background unless a
// package of its name is installed (Manager.EnsureDemo). Calling it again
// does nothing.
func (b *BackgroundDemo) Start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.d != nil {
		return
	}
	d := &demoInstall{done: make(chan struct{})}
	b.d = d
	go func() {
		defer close(d.done)
		d.installed, d.err = b.m.EnsureDemo()
		if d.err != nil {
			b.onError(d.err)
		}
	}()
}

// Wait waits for the installation, when one was started.
func (b *BackgroundDemo) Wait() {
	b.mu.Lock()
	d := b.d
	b.mu.Unlock()
	if d != nil {
		<-d.done
	}
}

// Result waits for the installation (a while at most) and returns its
// outcome; ErrDemoNotStarted when none was started.
func (b *BackgroundDemo) Result() (*Installed, error) {
	b.mu.Lock()
	d := b.d
	b.mu.Unlock()
	if d == nil {
		return nil, ErrDemoNotStarted
	}
	select {
	case <-d.done:
		return d.installed, d.err
	case <-time.After(demoWait):
		return nil, errors.New("the bundled demo package is still being installed; try again in a moment")
	}
}

// Problem says, in words, why the bundled demo could not be installed in the
// background ("" when it was, or when none was started or it was removed).
func (b *BackgroundDemo) Problem() string {
	if _, err := b.Result(); err != nil && !errors.Is(err, ErrDemoNotStarted) && !errors.Is(err, ErrDemoRemoved) {
		return "The bundled demo package could not be installed: " + err.Error()
	}
	return ""
}
