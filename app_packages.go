package main

import (
	"errors"
	"path/filepath"
	"strings"
	"time"

	"crewagent/backend/packages"
	"crewagent/backend/project"
)

// demoWait bounds how long opening a project or listing packages waits for
// the bundled package's installation started at startup (it takes well under
// a second; a stuck disk must not hang the window).
const demoWait = 20 * time.Second

// demoInstall is the installation of the bundled demo package, run once per
// App start. done is closed when it has finished.
type demoInstall struct {
	done      chan struct{}
	installed *packages.Installed
	err       error
}

// installDemo installs the bundled demo package unless a package of its name
// is installed (packages.Manager.EnsureDemo), in the background. Calling it
// again does nothing.
func (a *App) installDemo() {
	a.demoMu.Lock()
	defer a.demoMu.Unlock()
	if a.demo != nil {
		return
	}
	d := &demoInstall{done: make(chan struct{})}
	a.demo = d
	go func() {
		defer close(d.done)
		d.installed, d.err = a.packages.EnsureDemo()
		if d.err != nil {
			a.log.Warn("installing the bundled demo package", "error", d.err)
		}
	}()
}

// waitDemoInstall blocks until the installation started by startup, if any,
// has finished, so nothing writes into the home after shutdown returns.
func (a *App) waitDemoInstall() {
	a.demoMu.Lock()
	d := a.demo
	a.demoMu.Unlock()
	if d != nil {
		<-d.done
	}
}

// errDemoNotStarted: no installation of the demo was started (the App was
// not started as a window, as in tests).
var errDemoNotStarted = errors.New("the bundled demo package is not installed by this process")

// demoResult waits for the demo installation and returns its outcome.
func (a *App) demoResult() (*packages.Installed, error) {
	a.demoMu.Lock()
	d := a.demo
	a.demoMu.Unlock()
	if d == nil {
		return nil, errDemoNotStarted
	}
	select {
	case <-d.done:
		return d.installed, d.err
	case <-time.After(demoWait):
		return nil, errors.New("the bundled demo package is still being installed; try again in a moment")
	}
}

// bindDemoPackage makes the bundled demo the active package of an opened
// project that has none, once startup has installed it. A project keeps the
// package it names, installed or not. p may be the open workspace's project:
// it is changed under the App's lock.
func (a *App) bindDemoPackage(p *project.Project) {
	a.mu.Lock()
	named := p.ActivePackageID != ""
	a.mu.Unlock()
	if named {
		return
	}
	inst, err := a.demoResult()
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if p.ActivePackageID != "" {
		return
	}
	if err := project.SetActivePackage(p, inst.ID); err != nil {
		a.log.Warn("binding the demo package to the project", "project", p.Root, "error", err)
	}
}

// PackagesView is the package list of the settings screen.
type PackagesView struct {
	Packages []packages.Installed `json:"packages"`
	// ActivePackageID is the open project's package ("" without a project).
	ActivePackageID string `json:"activePackageId"`
	// DemoError says why the bundled demo package could not be installed.
	DemoError string `json:"demoError,omitempty"`
	// DemoInstalled: a package with the bundled demo's name is installed
	// (when not, InstallDemoPackage puts it back).
	DemoInstalled bool `json:"demoInstalled"`
	// DemoName is the bmad.json name of the bundled demo package.
	DemoName string `json:"demoName"`
}

// ListPackages lists the installed packages, oldest first, with the open
// project's active package.
func (a *App) ListPackages() (PackagesView, error) {
	out := PackagesView{Packages: []packages.Installed{}, ActivePackageID: a.activePackageID(), DemoName: packages.DemoName}
	if _, err := a.demoResult(); err != nil && !errors.Is(err, errDemoNotStarted) && !errors.Is(err, packages.ErrDemoRemoved) {
		out.DemoError = "The bundled demo package could not be installed: " + err.Error()
	}
	list, err := a.packages.List()
	if err != nil {
		return out, toAppError(err)
	}
	for _, p := range list {
		out.Packages = append(out.Packages, nonNilInstalled(p))
		out.DemoInstalled = out.DemoInstalled || p.Name == packages.DemoName
	}
	return out, nil
}

// RemovePackage uninstalls a package. When it is the open project's active
// package the project is left with none (other projects that name it report
// it as missing when opened). Refused while a reply or run turn is being
// generated in the open project. Returns the open project afterwards (null
// when none is open).
func (a *App) RemovePackage(packageID string) (*ProjectInfo, error) {
	a.mu.Lock()
	ws := a.ws
	a.mu.Unlock()
	if ws != nil && len(ws.chat.active()) > 0 {
		return nil, &AppError{Code: CodeBusy, Message: "a reply is being generated in this project; stop it or let it finish before removing a package"}
	}
	if err := a.packages.Remove(packageID); err != nil {
		return nil, toAppError(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ws == nil {
		return nil, nil
	}
	if a.ws.project.ActivePackageID == packageID {
		if err := project.SetActivePackage(a.ws.project, ""); err != nil {
			return nil, toAppError(err)
		}
	}
	info := projectInfo(a.ws.project)
	return &info, nil
}

// InstallDemoPackage installs the bundled demo package again (after the user
// removed it) and returns it.
func (a *App) InstallDemoPackage() (packages.Installed, error) {
	inst, err := a.packages.InstallDemo()
	if err != nil {
		return packages.Installed{}, toAppError(err)
	}
	return nonNilInstalled(*inst), nil
}

func nonNilInstalled(p packages.Installed) packages.Installed {
	if p.Workflows == nil {
		p.Workflows = []packages.WorkflowInfo{}
	}
	if p.Agents == nil {
		p.Agents = []packages.AgentInfo{}
	}
	return p
}

// PackageImport is the outcome of ImportPackage: the installed package, or
// every problem found when the package is invalid (nothing is installed then).
type PackageImport struct {
	OK       bool                `json:"ok"`
	Package  *packages.Installed `json:"package,omitempty"`
	Problems []packages.Problem  `json:"problems"`
	// Warnings are problems that did not stop the installation.
	Warnings []packages.Problem `json:"warnings"`
	// File is the imported file or folder.
	File string `json:"file"`
}

// ImportPackage validates the .bmad/.zip file (or package folder) at path and
// installs it. An invalid package is not an error of the call: the result
// lists every problem (file, JSON pointer, message). A path that cannot be
// read fails with PKG_OPEN.
func (a *App) ImportPackage(path string) (PackageImport, error) {
	path = strings.TrimSpace(path)
	out := PackageImport{File: path, Problems: []packages.Problem{}, Warnings: []packages.Problem{}}
	if path == "" {
		return out, &AppError{Code: CodePackageOpen, Message: "no package file given: choose a .bmad or .zip file"}
	}
	if !filepath.IsAbs(path) {
		return out, &AppError{Code: CodePackageOpen, Message: "give the full path of the package file (" + path + " is relative)"}
	}
	inst, err := a.packages.Import(path)
	if err != nil {
		var ve *packages.ValidationError
		if errors.As(err, &ve) {
			out.Problems = append(out.Problems, ve.Problems...)
			return out, nil
		}
		if packages.Code(err) == "" {
			return out, &AppError{Code: CodePackageOpen, Message: err.Error()}
		}
		return out, toAppError(err)
	}
	p := nonNilInstalled(*inst)
	out.OK, out.Package = true, &p
	out.Warnings = append(out.Warnings, inst.Warnings...)
	return out, nil
}

// ChoosePackageFile shows the native file picker for .bmad and .zip
// packages; "" means the user cancelled.
func (a *App) ChoosePackageFile() (string, error) {
	path, err := a.dialogs.ChooseFile("Choose a package file", "", []FileFilter{
		{Name: "Packages (*.bmad, *.zip)", Pattern: "*.bmad;*.zip"},
		{Name: "All files", Pattern: "*"},
	})
	return path, toAppError(err)
}

// SetActivePackage binds the open project to an installed package (written
// to the project's .crewagent.json). Agent mode and new runs use it at once.
func (a *App) SetActivePackage(packageID string) (ProjectInfo, error) {
	if _, err := a.workspace(); err != nil {
		return ProjectInfo{}, err
	}
	if _, err := a.packages.Get(packageID); err != nil {
		return ProjectInfo{}, toAppError(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ws == nil {
		return ProjectInfo{}, &AppError{Code: CodeNoProject, Message: "no project is open; open or create a project first"}
	}
	if err := project.SetActivePackage(a.ws.project, packageID); err != nil {
		return ProjectInfo{}, toAppError(err)
	}
	return projectInfo(a.ws.project), nil
}

// WorkflowInfo is one workflow of the active package, for the run picker.
type WorkflowInfo struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
	// Nodes is the number of nodes of its graph.
	Nodes int `json:"nodes"`
}

// ActivePackageView is the open project's package with what Run and Agent
// modes offer.
type ActivePackageView struct {
	PackageID   string         `json:"packageId"`
	Name        string         `json:"name"`
	Version     string         `json:"version"`
	Description string         `json:"description"`
	Workflows   []WorkflowInfo `json:"workflows"`
	Agents      []AgentInfo    `json:"agents"`
	// Problem says why the package offers nothing: none is active, or it
	// cannot be loaded.
	Problem string `json:"problem,omitempty"`
}

// ActivePackage describes the open project's active package: its workflows
// (entry workflow first) and agents. A package that cannot be loaded is
// reported in Problem rather than as an error.
func (a *App) ActivePackage() (ActivePackageView, error) {
	if _, err := a.workspace(); err != nil {
		return ActivePackageView{}, err
	}
	out := ActivePackageView{PackageID: a.activePackageID(), Workflows: []WorkflowInfo{}, Agents: []AgentInfo{}}
	if out.PackageID == "" {
		out.Problem = "This project has no active package: choose one in Settings → Packages."
		return out, nil
	}
	pkg, err := a.packages.Load(out.PackageID)
	if err != nil {
		out.Problem = "The project's package " + out.PackageID + " cannot be loaded: " + err.Error()
		return out, nil
	}
	m := pkg.Manifest
	out.Name, out.Version, out.Description = m.Name, m.Version, m.Description
	for _, wf := range pkg.Workflows {
		info := WorkflowInfo{ID: wf.ID, DisplayName: wf.DisplayName, Description: wf.Description, Default: wf.Default}
		if info.DisplayName == "" {
			info.DisplayName = wf.ID
		}
		if wf.Graph != nil {
			info.Nodes = len(wf.Graph.Nodes)
		}
		if info.Default {
			out.Workflows = append([]WorkflowInfo{info}, out.Workflows...)
		} else {
			out.Workflows = append(out.Workflows, info)
		}
	}
	out.Agents = agentInfos(pkg)
	return out, nil
}
