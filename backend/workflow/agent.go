package workflow

import (
	"strconv"
	"strings"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/packages"
	"crewagent/backend/tools"
)

// AgentFromPackage converts an agent of an installed package to the engine's
// agent: its persona and the tool policy its tools block brings (Agent mode,
// and each step of a run speaking as its agent).
func AgentFromPackage(pkg *packages.Package, a *packages.Agent) *engine.Agent {
	out := &engine.Agent{
		ID: a.ID,
		Persona: contextbuilder.Persona{
			ID:                 a.ID,
			Name:               a.Metadata.Name,
			Title:              a.Metadata.Title,
			Role:               a.Persona.Role,
			Identity:           a.Persona.Identity,
			CommunicationStyle: a.Persona.CommunicationStyle,
			Principles:         append([]string(nil), a.Persona.Principles...),
			CriticalActions:    append([]string(nil), a.CriticalActions...),
			SystemPrompt:       a.SystemPrompt,
		},
	}
	fsOn, mcpOn, shellOn := a.Tools.FS.Enabled, a.Tools.MCP.Enabled, a.Tools.Shell.Enabled
	out.Tools = &tools.AgentTools{
		FS:    &tools.AgentFS{Enabled: &fsOn, MaxReadBytes: a.Tools.FS.MaxReadBytes, MaxWriteBytes: a.Tools.FS.MaxWriteBytes},
		MCP:   &tools.AgentMCP{Enabled: &mcpOn, AllowedServers: a.Tools.MCP.AllowedServers},
		Shell: &tools.AgentShell{Enabled: &shellOn},
	}
	if pkg != nil {
		out.PackageID, out.PackageRoot = pkg.ID, pkg.Root
	}
	return out
}

// PackageAgents resolves agent ids through the project's active package, or
// through every installed package when the project has none (the engine's
// AgentResolver and AgentLister).
type PackageAgents struct {
	Packages *packages.Manager
	// Active returns the project's active package ("" for none).
	Active func() string
}

// Load returns the packages agents are looked up in.
func (a PackageAgents) Load() ([]*packages.Package, error) {
	var ids []string
	if id := a.Active(); id != "" {
		ids = []string{id}
	} else {
		list, err := a.Packages.List()
		if err != nil {
			return nil, err
		}
		for _, p := range list {
			ids = append(ids, p.ID)
		}
	}
	pkgs := make([]*packages.Package, 0, len(ids))
	for _, id := range ids {
		pkg, err := a.Packages.Load(id)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, pkg)
	}
	return pkgs, nil
}

// ResolveAgent implements engine.AgentResolver.
func (a PackageAgents) ResolveAgent(agentID string) (*engine.Agent, error) {
	pkgs, err := a.Load()
	if err != nil {
		return nil, err
	}
	for _, pkg := range pkgs {
		if ag := pkg.Agent(agentID); ag != nil {
			return AgentFromPackage(pkg, ag), nil
		}
	}
	where := "no installed package provides it (import one with 'crewagent package import FILE')"
	switch ids := agentIDs(pkgs); {
	case len(ids) > 0:
		where = "the agents here are " + strings.Join(ids, ", ")
	case len(pkgs) == 1 && pkgs[0].ID == a.Active():
		where = "the project's package " + strconv.Quote(pkgs[0].ID) + " has no agents"
	}
	return nil, errs.New(errs.AgentNotFound, "agent "+strconv.Quote(agentID)+" not found: "+where)
}

// AgentIDs implements engine.AgentLister.
func (a PackageAgents) AgentIDs() ([]string, error) {
	pkgs, err := a.Load()
	if err != nil {
		return nil, err
	}
	return agentIDs(pkgs), nil
}

// agentIDs lists the agents of the packages, in order.
func agentIDs(pkgs []*packages.Package) []string {
	var ids []string
	for _, pkg := range pkgs {
		for _, ag := range pkg.Agents {
			ids = append(ids, ag.ID)
		}
	}
	return ids
}

// List returns the agents Agent mode can speak as: those ResolveAgent
// resolves. A package that cannot be loaded is reported in Problem rather
// than as an error, so the chat works.
func (a PackageAgents) List() packages.AgentList {
	out := packages.AgentList{PackageID: a.Active(), Agents: []packages.AgentView{}}
	pkgs, err := a.Load()
	if err != nil {
		if out.PackageID != "" {
			out.Problem = "The project's package " + out.PackageID + " cannot be loaded: " + err.Error()
		} else {
			out.Problem = "The installed packages cannot be loaded: " + err.Error()
		}
		return out
	}
	for _, pkg := range pkgs {
		out.Agents = append(out.Agents, packages.AgentViews(pkg)...)
	}
	return out
}
