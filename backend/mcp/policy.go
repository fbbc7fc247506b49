package mcp

// Narrow returns the servers of base that every limit allows, in the order of base. A nil
// limit allows everything (not given: inherit); a non-nil limit allows only the servers it
// names, so an empty one allows none. Names match by their wire form (ServerWireName), the
// form that is unique among the servers of a project.
//
// The effective servers of a conversation are
//
//	Narrow(runnable, settingsAllowed, agentAllowed, childAllowlist)
//
// where runnable are the enabled (and, for project servers, approved) servers, and each
// later list can only take servers away: settings enable, an agent's
// tools.mcp.allowedServers and a child conversation's mcp_allowlist only narrow. MCP as a
// whole is off when settings or the agent turn it off; callers check that first.
func Narrow(base []string, limits ...[]string) []string {
	out := make([]string, 0, len(base))
outer:
	for _, s := range base {
		w := ServerWireName(s)
		for _, lim := range limits {
			if lim == nil {
				continue
			}
			found := false
			for _, a := range lim {
				if ServerWireName(a) == w {
					found = true
					break
				}
			}
			if !found {
				continue outer
			}
		}
		out = append(out, s)
	}
	return out
}

// FilterTools returns the tools whose server is one of servers (matched like Narrow).
func FilterTools(tools []Tool, servers []string) []Tool {
	allowed := make(map[string]bool, len(servers))
	for _, s := range servers {
		allowed[ServerWireName(s)] = true
	}
	var out []Tool
	for _, t := range tools {
		if allowed[ServerWireName(t.Server)] {
			out = append(out, t)
		}
	}
	return out
}

// ToolAllowed reports whether the wire name of a tool belongs to one of servers.
func ToolAllowed(wireName string, servers []string) bool {
	sw, _, ok := SplitWireName(wireName)
	if !ok {
		return false
	}
	for _, s := range servers {
		if ServerWireName(s) == sw {
			return true
		}
	}
	return false
}
