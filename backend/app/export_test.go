package app

// Open opens the project folder root of the runtime home home with a
// runtime of its own (the command line: one project per process); Close
// ends both.
func Open(home, root string, opts Options, o OpenOptions) (*Workspace, error) {
	rt := New(home, opts)
	ws, err := rt.Open(root, o)
	if err != nil {
		rt.Shutdown()
		return nil, err
	}
	ws.own = true
	return ws, nil
}
