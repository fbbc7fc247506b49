package projectmcp

import (
	"strings"

	"crewagent/backend/errs"
	"crewagent/backend/mcp"
	"crewagent/backend/settings"
)

// The edits of the settings' servers (the mcpServers table of
// settings.json): they need no project; the open one applies them when it
// reloads.

// Invalid is E_MCP_CONFIG_INVALID listing problems (also in its details).
func Invalid(problems []mcp.Problem) error {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.String()
	}
	e := errs.New(errs.MCPConfigInvalid, "the MCP server cannot be saved: "+strings.Join(msgs, "; "))
	e.Details = map[string]any{"problems": problems}
	return e
}

// Find returns the server called name.
func Find(servers []mcp.ServerConfig, name string) (mcp.ServerConfig, bool) {
	for _, s := range servers {
		if s.Name == name {
			return s, true
		}
	}
	return mcp.ServerConfig{}, false
}

// SaveServer adds cfg to the settings' mcpServers (previous "") or replaces
// the one called previous (renaming it when the name changed). Values still
// masked keep what is stored. Problems fail with E_MCP_CONFIG_INVALID, each
// listed.
func SaveServer(st *settings.Store, previous string, cfg mcp.ServerConfig) error {
	servers, _, err := mcp.SettingsServers(st)
	if err != nil {
		return err
	}
	if cfg.Name != previous {
		if _, taken := Find(servers, cfg.Name); taken {
			return Invalid([]mcp.Problem{{Server: cfg.Name, Message: "exists already: choose another name, or edit that server"}})
		}
	}
	if previous != "" {
		old, ok := Find(servers, previous)
		if !ok {
			return errs.Errorf(errs.MCPServerNotFound, "there is no MCP server %q in the settings", previous)
		}
		cfg = mcp.MergeSecrets(cfg, old)
		if cfg.URL != "" && cfg.Type == "" {
			cfg.Type = old.Type // the form does not show the transport a url entry names
		}
	}
	if problems, err := mcp.SaveServer(st, cfg); err != nil {
		if len(problems) > 0 {
			return Invalid(problems)
		}
		return err
	}
	if previous != "" && previous != cfg.Name {
		if _, err := mcp.RemoveServer(st, previous); err != nil {
			return err
		}
	}
	return nil
}

// RemoveServer deletes a server from the settings' mcpServers.
func RemoveServer(st *settings.Store, name string) error {
	found, err := mcp.RemoveServer(st, name)
	if err != nil {
		return err
	}
	if !found {
		return errs.Errorf(errs.MCPServerNotFound, "there is no MCP server %q in the settings", name)
	}
	return nil
}

// SetEnabled turns a settings server on or off (its "disabled").
func SetEnabled(st *settings.Store, name string, enabled bool) error {
	servers, _, err := mcp.SettingsServers(st)
	if err != nil {
		return err
	}
	cfg, ok := Find(servers, name)
	if !ok {
		return errs.Errorf(errs.MCPServerNotFound, "there is no MCP server %q in the settings", name)
	}
	cfg.Disabled = !enabled
	if problems, err := mcp.SaveServer(st, cfg); err != nil {
		if len(problems) > 0 {
			return Invalid(problems)
		}
		return err
	}
	return nil
}

// ImportResult is the outcome of ImportBlock.
type ImportResult struct {
	// Added and Replaced name the servers saved.
	Added    []string `json:"added"`
	Replaced []string `json:"replaced"`
	// Problems are the entries left out, and why.
	Problems []mcp.Problem `json:"problems"`
}

// ImportBlock saves the servers of a pasted block to the settings (a server
// of the same name is replaced); entries with problems are left out and
// reported. A block without any usable server fails with
// E_MCP_CONFIG_INVALID before the settings are loaded.
func ImportBlock(load func() (*settings.Store, error), text string) (ImportResult, error) {
	out := ImportResult{Added: []string{}, Replaced: []string{}, Problems: []mcp.Problem{}}
	servers, problems := mcp.ParseBlock(text, mcp.SourceSettings)
	out.Problems = append(out.Problems, problems...)
	if len(servers) == 0 {
		if len(problems) == 0 {
			problems = []mcp.Problem{{Message: "the block names no server"}}
		}
		return out, Invalid(problems)
	}
	st, err := load()
	if err != nil {
		return out, err
	}
	existing, _, err := mcp.SettingsServers(st)
	if err != nil {
		return out, err
	}
	for _, c := range servers {
		_, replaced := Find(existing, c.Name)
		ps, err := mcp.SaveServer(st, c)
		if err != nil {
			if len(ps) == 0 {
				return out, err
			}
			out.Problems = append(out.Problems, ps...)
			continue
		}
		if replaced {
			out.Replaced = append(out.Replaced, c.Name)
		} else {
			out.Added = append(out.Added, c.Name)
		}
	}
	return out, nil
}
