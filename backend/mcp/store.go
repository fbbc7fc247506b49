package mcp

import (
	"encoding/json"
	"errors"

	"crewagent/backend/errs"
	"crewagent/backend/settings"
)

// SettingsServers returns the servers of the settings' mcpServers table and the problems of
// the entries that were left out.
func SettingsServers(st *settings.Store) ([]ServerConfig, []Problem, error) {
	raw, err := st.MCPServers()
	if err != nil {
		return nil, nil, err
	}
	servers, problems := ParseServers(raw, SourceSettings)
	return servers, problems, nil
}

// SaveServer adds cfg to the settings' mcpServers table or replaces the entry of the same
// name. Values the UI still shows masked (it edits Status.Config, the redacted form) keep
// the stored value (MergeSecrets). A configuration with problems, or whose name has the
// tool-name form of another settings server, is refused with the problems listed.
func SaveServer(st *settings.Store, cfg ServerConfig) ([]Problem, error) {
	existing, _, err := SettingsServers(st)
	if err != nil {
		return nil, err
	}
	for _, s := range existing {
		if s.Name == cfg.Name {
			cfg = MergeSecrets(cfg, s)
			continue
		}
		if ServerWireName(s.Name) == ServerWireName(cfg.Name) {
			return []Problem{problem(cfg.Name, "", "mcp.sameWireNameChoose", errs.Params{"wire": ServerWireName(cfg.Name), "other": s.Name})}, errInvalidServer
		}
	}
	if ps := cfg.Validate(); len(ps) > 0 {
		return ps, errInvalidServer
	}
	entry, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return nil, st.SetMCPServer(cfg.Name, entry)
}

var errInvalidServer = errors.New("the MCP server configuration has problems")

// RemoveServer deletes a server from the settings' mcpServers table; it reports whether
// there was one of that name.
func RemoveServer(st *settings.Store, name string) (bool, error) {
	return st.RemoveMCPServer(name)
}
