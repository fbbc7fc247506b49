package main

import (
	"crewagent/backend/packages"
)

// AgentInfo is one agent of the active package, for the agent picker.
type AgentInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Icon        string `json:"icon"`
	Description string `json:"description"`
}

// AgentList is what the agent picker shows.
type AgentList struct {
	PackageID string      `json:"packageId"`
	Agents    []AgentInfo `json:"agents"`
	// Problem says why there are no agents when the project names a package
	// that cannot be loaded ("" otherwise).
	Problem string `json:"problem,omitempty"`
}

// ListAgents returns the agents of the open project's active package. A
// project without an active package has none; a package that cannot be
// loaded is reported in Problem rather than as an error, so the chat works.
func (a *App) ListAgents() (AgentList, error) {
	if _, err := a.workspace(); err != nil {
		return AgentList{}, err
	}
	out := AgentList{PackageID: a.activePackageID(), Agents: []AgentInfo{}}
	if out.PackageID == "" {
		return out, nil
	}
	pkg, err := a.packages.Load(out.PackageID)
	if err != nil {
		out.Problem = "The project's package " + out.PackageID + " cannot be loaded: " + err.Error()
		return out, nil
	}
	out.Agents = agentInfos(pkg)
	return out, nil
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
