package app

import (
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
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
	cfg.Policy.Shell, cfg.Shell = scope.Shell(ws.rt.Effective().Tools.Shell, ws.runWithoutSandbox)
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

// What the window and the command line show of the packages.
type (
	AgentInfo         = packages.AgentView
	AgentList         = packages.AgentList
	WorkflowInfo      = packages.WorkflowView
	ActivePackageView = packages.ActiveView
	PackagesView      = packages.ListView
	PackageImport     = packages.ImportView
)

// ListAgents returns the agents Agent mode can speak as
// (workflow.PackageAgents.List).
func (ws *Workspace) ListAgents() AgentList { return ws.agents().List() }

// ActivePackage describes the project's active package: its workflows
// (entry workflow first) and agents (packages.Manager.Active).
func (ws *Workspace) ActivePackage() ActivePackageView {
	return ws.rt.packages.Active(ws.activePackageID())
}

// ListPackages lists the installed packages, oldest first; activeID is the
// open project's package. DemoError says why the bundled demo could not be
// installed in the background.
func (rt *Runtime) ListPackages(activeID string) (PackagesView, error) {
	var demoErr string
	if rt.opts.Demo == DemoAtStartup { // its outcome counts among the installed packages
		demoErr = rt.demo.Problem()
	}
	out, err := rt.packages.ListView(activeID)
	out.DemoError = demoErr
	return out, err
}

// InstallDemo installs the bundled demo package again (after the user
// removed it) and returns it.
func (rt *Runtime) InstallDemo() (packages.Installed, error) {
	inst, err := rt.packages.InstallDemo()
	if err != nil {
		return packages.Installed{}, err
	}
	return packages.NonNil(*inst), nil
}

// ImportPackage validates the .bmad/.zip file (or package folder) at the
// absolute path and installs it (packages.Manager.ImportView).
func (rt *Runtime) ImportPackage(path string, replace bool) (PackageImport, error) {
	return rt.packages.ImportView(path, replace)
}
