package app

// The window's MCP page: the settings' servers can be edited with or without
// a project; statuses, project servers, approvals, restarts and logs need
// the open project. Every change is applied to the open project at once
// (its watcher would see it a moment later anyway).

// MCPView lists the open project's servers, or the settings' servers when
// no project is open.
func (s *Session) MCPView() MCPView {
	if ws, err := s.Current(); err == nil {
		return ws.MCPView(s.rt.lifetime, false)
	}
	return s.rt.MCPView()
}

// afterMCPChange applies a changed configuration to the open project and
// returns the page.
func (s *Session) afterMCPChange(err error) (MCPView, error) {
	if ws, cerr := s.Current(); cerr == nil {
		ws.ReloadMCP()
	}
	return s.MCPView(), err
}

// SaveMCPServer adds or replaces a settings server (see Runtime.SaveMCPServer).
func (s *Session) SaveMCPServer(previous string, spec MCPServerSpec) (MCPView, error) {
	return s.afterMCPChange(s.rt.SaveMCPServer(previous, spec))
}

// RemoveMCPServer deletes a settings server; a running one is stopped.
func (s *Session) RemoveMCPServer(name string) (MCPView, error) {
	return s.afterMCPChange(s.rt.RemoveMCPServer(name))
}

// SetMCPServerEnabled turns a settings server on or off.
func (s *Session) SetMCPServerEnabled(name string, enabled bool) (MCPView, error) {
	return s.afterMCPChange(s.rt.SetMCPServerEnabled(name, enabled))
}

// ImportMCPBlock saves the servers of a pasted configuration block.
func (s *Session) ImportMCPBlock(text string) (MCPImport, error) {
	res, err := s.rt.ImportMCPBlock(text)
	_, _ = s.afterMCPChange(nil)
	return res, err
}

// SetMCPOptions saves the MCP switches of the settings.
func (s *Session) SetMCPOptions(o MCPOptions) (MCPView, error) {
	return s.afterMCPChange(s.rt.SetMCPOptions(o))
}

// ApproveMCPServer approves a server of the open project's .mcp.json.
func (s *Session) ApproveMCPServer(name string) (MCPView, error) {
	ws, err := s.Current()
	if err != nil {
		return s.MCPView(), err
	}
	err = ws.ApproveMCPServer(name)
	return s.MCPView(), err
}

// RevokeMCPServer withdraws the approval of a project server and stops it.
func (s *Session) RevokeMCPServer(name string) (MCPView, error) {
	ws, err := s.Current()
	if err != nil {
		return s.MCPView(), err
	}
	err = ws.RevokeMCPServer(name)
	return s.MCPView(), err
}

// RestartMCPServer starts a server of the open project again and returns
// once it is ready or has failed.
func (s *Session) RestartMCPServer(name string) (MCPView, error) {
	ws, err := s.Current()
	if err != nil {
		return s.MCPView(), err
	}
	err = ws.RestartMCPServer(s.rt.lifetime, name)
	return s.MCPView(), err
}

// MCPLog returns the end of a server's stderr log in the open project.
func (s *Session) MCPLog(name string) (string, error) {
	ws, err := s.Current()
	if err != nil {
		return "", err
	}
	return ws.MCPLog(name, 0)
}
