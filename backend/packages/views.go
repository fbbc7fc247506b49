package packages

import (
	"path/filepath"
	"strings"

	"crewagent/backend/errs"
)

// What the window and the command line show of the installed packages.

// AgentView is one agent, for the agent picker.
type AgentView struct {
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
	Agents    []AgentView `json:"agents"`
	// Problem says why there are no agents when a package cannot be loaded
	// ("" otherwise).
	Problem string `json:"problem,omitempty"`
}

// AgentViews are the agents of a package, for the agent picker.
func AgentViews(pkg *Package) []AgentView {
	out := make([]AgentView, 0, len(pkg.Agents))
	for _, ag := range pkg.Agents {
		name := ag.Metadata.Name
		if name == "" {
			name = ag.ID
		}
		out = append(out, AgentView{ID: ag.ID, Name: name, Title: ag.Metadata.Title, Icon: ag.Metadata.Icon, Description: ag.Metadata.Description})
	}
	return out
}

// WorkflowView is one workflow of the active package, for the run picker.
type WorkflowView struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
	// Nodes is the number of nodes of its graph.
	Nodes int `json:"nodes"`
}

// ActiveView is the project's package with what Run and Agent modes offer.
type ActiveView struct {
	PackageID   string         `json:"packageId"`
	Name        string         `json:"name"`
	Version     string         `json:"version"`
	Description string         `json:"description"`
	Workflows   []WorkflowView `json:"workflows"`
	Agents      []AgentView    `json:"agents"`
	// Problem says why the package offers nothing: none is active, or it
	// cannot be loaded.
	Problem string `json:"problem,omitempty"`
}

// Active describes the project's active package id: its workflows (entry
// workflow first) and agents. A package that cannot be loaded is reported
// in Problem rather than as an error.
func (m *Manager) Active(id string) ActiveView {
	out := ActiveView{PackageID: id, Workflows: []WorkflowView{}, Agents: []AgentView{}}
	if id == "" {
		out.Problem = "This project has no active package: choose one in Settings → Packages."
		return out
	}
	pkg, err := m.Load(id)
	if err != nil {
		out.Problem = "The project's package " + id + " cannot be loaded: " + err.Error()
		return out
	}
	mf := pkg.Manifest
	out.Name, out.Version, out.Description = mf.Name, mf.Version, mf.Description
	for _, wf := range pkg.Workflows {
		info := WorkflowView{ID: wf.ID, DisplayName: wf.DisplayName, Description: wf.Description, Default: wf.Default}
		if info.DisplayName == "" {
			info.DisplayName = wf.ID
		}
		if wf.Graph != nil {
			info.Nodes = len(wf.Graph.Nodes)
		}
		if info.Default {
			out.Workflows = append([]WorkflowView{info}, out.Workflows...)
		} else {
			out.Workflows = append(out.Workflows, info)
		}
	}
	out.Agents = AgentViews(pkg)
	return out
}

// ListView is the package list of the settings screen.
type ListView struct {
	Packages []Installed `json:"packages"`
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

// ListView lists the installed packages, oldest first; activeID is the
// open project's package.
func (m *Manager) ListView(activeID string) (ListView, error) {
	out := ListView{Packages: []Installed{}, ActivePackageID: activeID, DemoName: DemoName}
	list, err := m.List()
	if err != nil {
		return out, err
	}
	for _, p := range list {
		out.Packages = append(out.Packages, NonNil(p))
		out.DemoInstalled = out.DemoInstalled || p.Name == DemoName
	}
	return out, nil
}

// NonNil is p with empty lists instead of none.
func NonNil(p Installed) Installed {
	if p.Workflows == nil {
		p.Workflows = []WorkflowInfo{}
	}
	if p.Agents == nil {
		p.Agents = []AgentInfo{}
	}
	return p
}

// ImportView is the outcome of ImportView: the installed package, or every
// problem found when the package is invalid (nothing is installed then), or
// the installed package of the same id and version that it would replace.
type ImportView struct {
	OK       bool       `json:"ok"`
	Package  *Installed `json:"package,omitempty"`
	Problems []Problem  `json:"problems"`
	// Warnings are problems that did not stop the installation (or were found
	// beside the problems that did).
	Warnings []Problem `json:"warnings"`
	// Exists is the installed package with the same id and version: the
	// import did nothing, and installs only when asked again with replace.
	Exists *Installed `json:"exists,omitempty"`
	// File is the imported file or folder.
	File string `json:"file"`
}

// ImportView validates the .bmad/.zip file (or package folder) at the
// absolute path and installs it. An invalid package is not an error of the
// call: the result lists every problem (file, JSON pointer, message). A
// package whose id and version are installed already is not an error either:
// the result names the installed one (Exists) and nothing changes unless
// replace is true. A path that cannot be read fails with PKG_OPEN.
func (m *Manager) ImportView(path string, replace bool) (ImportView, error) {
	path = strings.TrimSpace(path)
	out := ImportView{File: path, Problems: []Problem{}, Warnings: []Problem{}}
	if path == "" {
		return out, errs.Msg(errs.PackageOpen, "pkg.noFile", nil)
	}
	if !filepath.IsAbs(path) {
		return out, errs.Msg(errs.PackageOpen, "pkg.relativePath", errs.Params{"path": path})
	}
	var opts []ImportOption
	if replace {
		opts = append(opts, Replace())
	}
	inst, err := m.Import(path, opts...)
	if err != nil {
		if problems := ProblemsOf(err); problems != nil {
			out.Problems = append(out.Problems, problems...)
			out.Warnings = append(out.Warnings, WarningsOf(err)...)
			return out, nil
		}
		if existing, ok := ExistingOf(err); ok {
			p := NonNil(existing)
			out.Exists = &p
			return out, nil
		}
		if errs.CodeOf(err) == "" {
			return out, errs.Wrap(errs.PackageOpen, err, err.Error())
		}
		return out, err
	}
	p := NonNil(*inst)
	out.OK, out.Package = true, &p
	out.Warnings = append(out.Warnings, inst.Warnings...)
	return out, nil
}
