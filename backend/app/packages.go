package app

import (
	"errors"
	"path/filepath"
	"strings"

	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/tools"
	"crewagent/backend/workflow"
)

// defaultTitle is the title of a conversation without a user message yet.
const defaultTitle = convlog.DefaultTitle

// ---- which package ----

// ChoosePackage picks the package of a new run (packages.Manager.Choose, the
// bundled demo as the runtime provides it: Runtime.Demo). A project without
// an active package is bound to the chosen one.
func (ws *Workspace) ChoosePackage(explicit, workflowID string) (string, error) {
	active := ws.activePackageID()
	id, err := ws.rt.packages.Choose(explicit, active, workflowID, ws.rt.Demo)
	if err != nil {
		return "", err
	}
	if active == "" {
		if err := ws.setActivePackage(id); err != nil {
			return "", err
		}
	}
	return id, nil
}

// BindDefaultPackage binds a project that has no active package to the one
// ChoosePackage would choose for it, when there is one (the window does it
// when a project opens). A project keeps the package it names, installed or
// not.
func (ws *Workspace) BindDefaultPackage() {
	if ws.activePackageID() != "" {
		return
	}
	if ws.rt.opts.Demo == DemoAtStartup {
		_, _ = ws.rt.demo.Result() // its outcome counts among the installed packages
	}
	id, err := ws.rt.packages.Default("", ws.rt.Demo)
	if err != nil {
		return
	}
	ws.mu.Lock()
	named := ws.project.ActivePackageID != ""
	ws.mu.Unlock()
	if named {
		return
	}
	if err := ws.setActivePackage(id); err != nil {
		ws.rt.log.Warn("binding the default package to the project", "project", ws.project.Root, "error", err)
	}
}

// SetActivePackage binds the project to an installed package (written to its
// .crewagent.json). Agent mode and new runs use it at once.
func (ws *Workspace) SetActivePackage(packageID string) error {
	if _, err := ws.rt.packages.Get(packageID); err != nil {
		return err
	}
	if err := ws.setActivePackage(packageID); err != nil {
		return err
	}
	ws.skills.Refresh() // the package's skills/ folder
	return nil
}

func (ws *Workspace) setActivePackage(id string) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return project.SetActivePackage(ws.project, id)
}

// clearActivePackage leaves the project without a package when it was id
// (the package was removed).
func (ws *Workspace) clearActivePackage(id string) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.project.ActivePackageID != id {
		return nil
	}
	return project.SetActivePackage(ws.project, "")
}

// packageRoot is the folder of the active package, the @pkg of tools ("" when
// the project has none or it cannot be loaded).
func (ws *Workspace) packageRoot() string {
	id := ws.activePackageID()
	if id == "" {
		return ""
	}
	pkg, err := ws.rt.packages.Load(id)
	if err != nil {
		return ""
	}
	return pkg.Root
}

// toolHost builds the tool host of one send: the project, the conversation's
// own tool results and the active package as @pkg (an agent's own package
// when it comes from one), in every mode.
func (ws *Workspace) toolHost(scope engine.ToolScope) (engine.ToolHost, error) {
	scope = ws.coord.WithinReach(scope)
	r := ws.roots
	r.Conversation = scope.ConversationID
	r.Package = ws.packageRoot()
	if scope.Agent != nil && scope.Agent.PackageRoot != "" {
		r.Package = scope.Agent.PackageRoot
	}
	cfg := tools.Config{Roots: r, Policy: scope.Policy, Allow: scope.Allow}
	cfg.Policy.Shell, cfg.Shell = ws.shellFor(scope, ws.rt.Effective().Tools.Shell)
	cfg.OnToolOutput = ws.liveOutput(scope.ConversationID)
	ts := tools.Scope{ConversationID: scope.ConversationID, Mode: scope.Mode, Policy: cfg.Policy, MCPAllowlist: scope.MCPServers}
	if scope.Agent != nil {
		ts.AgentID = scope.Agent.ID
	}
	cfg.Providers = ws.provide(ts)
	if ws.checkpoints != nil {
		cfg.Changes = changeRecorder{ws}
	}
	return tools.NewHost(cfg), nil
}

// ToolRoots returns the folders the tools of a send in this project see
// (the active package is read now).
func (ws *Workspace) ToolRoots() tools.Roots {
	r := ws.roots
	r.Package = ws.packageRoot()
	return r
}

// ---- agents ----

// agents resolves agent ids through the project's active package, or through
// every installed package when the project has none.
func (ws *Workspace) agents() workflow.PackageAgents {
	return workflow.PackageAgents{Packages: ws.rt.packages, Active: ws.activePackageID}
}

// AgentInfo is one agent, for the agent picker.
type AgentInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Icon        string `json:"icon"`
	Description string `json:"description"`
}

// AgentList is what the agent picker shows.
type AgentList struct {
	// PackageID is the project's active package ("" when it has none: the
	// agents are then those of every installed package).
	PackageID string      `json:"packageId"`
	Agents    []AgentInfo `json:"agents"`
	// Problem says why there are no agents when a package cannot be loaded
	// ("" otherwise).
	Problem string `json:"problem,omitempty"`
}

// ListAgents returns the agents Agent mode can speak as: those the engine
// resolves (the active package's, or every installed package's). A package
// that cannot be loaded is reported in Problem rather than as an error, so
// the chat works.
func (ws *Workspace) ListAgents() AgentList {
	out := AgentList{PackageID: ws.activePackageID(), Agents: []AgentInfo{}}
	pkgs, err := ws.agents().Load()
	if err != nil {
		if out.PackageID != "" {
			out.Problem = "The project's package " + out.PackageID + " cannot be loaded: " + err.Error()
		} else {
			out.Problem = "The installed packages cannot be loaded: " + err.Error()
		}
		return out
	}
	for _, pkg := range pkgs {
		out.Agents = append(out.Agents, agentInfos(pkg)...)
	}
	return out
}

func agentInfos(pkg *packages.Package) []AgentInfo {
	out := make([]AgentInfo, 0, len(pkg.Agents))
	for _, ag := range pkg.Agents {
		name := ag.Metadata.Name
		if name == "" {
			name = ag.ID
		}
		out = append(out, AgentInfo{ID: ag.ID, Name: name, Title: ag.Metadata.Title, Icon: ag.Metadata.Icon, Description: ag.Metadata.Description})
	}
	return out
}

// ---- the package views ----

// WorkflowInfo is one workflow of the active package, for the run picker.
type WorkflowInfo struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
	// Nodes is the number of nodes of its graph.
	Nodes int `json:"nodes"`
}

// ActivePackageView is the project's package with what Run and Agent modes
// offer.
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

// ActivePackage describes the project's active package: its workflows
// (entry workflow first) and agents. A package that cannot be loaded is
// reported in Problem rather than as an error.
func (ws *Workspace) ActivePackage() ActivePackageView {
	out := ActivePackageView{PackageID: ws.activePackageID(), Workflows: []WorkflowInfo{}, Agents: []AgentInfo{}}
	if out.PackageID == "" {
		out.Problem = "This project has no active package: choose one in Settings → Packages."
		return out
	}
	pkg, err := ws.rt.packages.Load(out.PackageID)
	if err != nil {
		out.Problem = "The project's package " + out.PackageID + " cannot be loaded: " + err.Error()
		return out
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
	return out
}

// PackagesView is the package list of the settings screen.
type PackagesView struct {
	Packages []packages.Installed `json:"packages"`
	// ActivePackageID is the open project's package ("" without a project).
	ActivePackageID string `json:"activePackageId"`
	// DemoError says why the bundled demo package could not be installed.
	DemoError string `json:"demoError,omitempty"`
	// DemoInstalled: a package with the bundled demo's name is installed
	// (when not, InstallDemo puts it back).
	DemoInstalled bool `json:"demoInstalled"`
	// DemoName is the bmad.json name of the bundled demo package.
	DemoName string `json:"demoName"`
}

// ListPackages lists the installed packages, oldest first; activeID is the
// open project's package.
func (rt *Runtime) ListPackages(activeID string) (PackagesView, error) {
	out := PackagesView{Packages: []packages.Installed{}, ActivePackageID: activeID, DemoName: packages.DemoName}
	if rt.opts.Demo == DemoAtStartup {
		if _, err := rt.demo.Result(); err != nil && !errors.Is(err, packages.ErrDemoNotStarted) && !errors.Is(err, packages.ErrDemoRemoved) {
			out.DemoError = "The bundled demo package could not be installed: " + err.Error()
		}
	}
	list, err := rt.packages.List()
	if err != nil {
		return out, err
	}
	for _, p := range list {
		out.Packages = append(out.Packages, nonNilInstalled(p))
		out.DemoInstalled = out.DemoInstalled || p.Name == packages.DemoName
	}
	return out, nil
}

// InstallDemo installs the bundled demo package again (after the user
// removed it) and returns it.
func (rt *Runtime) InstallDemo() (packages.Installed, error) {
	inst, err := rt.packages.InstallDemo()
	if err != nil {
		return packages.Installed{}, err
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
// every problem found when the package is invalid (nothing is installed then),
// or the installed package of the same id and version that it would replace.
type PackageImport struct {
	OK       bool                `json:"ok"`
	Package  *packages.Installed `json:"package,omitempty"`
	Problems []packages.Problem  `json:"problems"`
	// Warnings are problems that did not stop the installation (or were found
	// beside the problems that did).
	Warnings []packages.Problem `json:"warnings"`
	// Exists is the installed package with the same id and version: the
	// import did nothing, and installs only when asked again with replace.
	Exists *packages.Installed `json:"exists,omitempty"`
	// File is the imported file or folder.
	File string `json:"file"`
}

// ImportPackage validates the .bmad/.zip file (or package folder) at the
// absolute path and installs it. An invalid package is not an error of the
// call: the result lists every problem (file, JSON pointer, message). A
// package whose id and version are installed already is not an error either:
// the result names the installed one (Exists) and nothing changes unless
// replace is true. A path that cannot be read fails with PKG_OPEN.
func (rt *Runtime) ImportPackage(path string, replace bool) (PackageImport, error) {
	path = strings.TrimSpace(path)
	out := PackageImport{File: path, Problems: []packages.Problem{}, Warnings: []packages.Problem{}}
	if path == "" {
		return out, errs.New(errs.PackageOpen, "no package file given: choose a .bmad or .zip file")
	}
	if !filepath.IsAbs(path) {
		return out, errs.New(errs.PackageOpen, "give the full path of the package file ("+path+" is relative)")
	}
	var opts []packages.ImportOption
	if replace {
		opts = append(opts, packages.Replace())
	}
	inst, err := rt.packages.Import(path, opts...)
	if err != nil {
		if problems := packages.ProblemsOf(err); problems != nil {
			out.Problems = append(out.Problems, problems...)
			out.Warnings = append(out.Warnings, packages.WarningsOf(err)...)
			return out, nil
		}
		if existing, ok := packages.ExistingOf(err); ok {
			p := nonNilInstalled(existing)
			out.Exists = &p
			return out, nil
		}
		if errs.CodeOf(err) == "" {
			return out, errs.Wrap(errs.PackageOpen, err, err.Error())
		}
		return out, err
	}
	p := nonNilInstalled(*inst)
	out.OK, out.Package = true, &p
	out.Warnings = append(out.Warnings, inst.Warnings...)
	return out, nil
}
