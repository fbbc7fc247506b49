package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"crewagent/backend/fsx"
)

// MCPServersKey is the top-level key of settings.json that holds the MCP server table,
// {name: {command, args, env, cwd} | {url, headers}, disabled?} (the Claude Desktop shape).
// The table is not part of Settings: it holds secrets (env, headers) that must not travel
// with the settings shown in the UI. Package mcp parses it; this file reads and edits it
// in place, keeping the rest of the file, its 0600 mode and the atomic write.
const MCPServersKey = "mcpServers"

// ReadMCPServers returns the raw mcpServers value of <home>/settings.json, or nil when the
// file or the key is missing.
func ReadMCPServers(home string) (json.RawMessage, error) {
	path := Path(home)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: fmt.Sprintf("cannot read settings file %s: %v", path, err), Cause: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &Error{Code: CodeCorrupt, Cause: err,
			Message: fmt.Sprintf("settings file %s is not valid: %s; fix or delete it", path, describeJSONError(data, err))}
	}
	v, ok := doc[MCPServersKey]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	return v, nil
}

// MCPServers returns the raw mcpServers value of the settings file (nil when there is none).
func (st *Store) MCPServers() (json.RawMessage, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return ReadMCPServers(st.home)
}

// SetMCPServer stores entry (a JSON object) as mcpServers[name], replacing an entry of that
// name. The rest of the file is kept as it is.
func (st *Store) SetMCPServer(name string, entry json.RawMessage) error {
	if strings.TrimSpace(name) == "" {
		return withProblems(&Error{Code: CodeInvalid, Message: "invalid settings: mcpServers: a server needs a name"}, []Problem{{Field: MCPServersKey, Message: "a server needs a name"}})
	}
	var obj map[string]any
	if err := unmarshalNumbers(entry, &obj); err != nil || obj == nil {
		return withProblems(&Error{Code: CodeInvalid, Message: fmt.Sprintf("invalid settings: mcpServers.%s must be a JSON object", name)}, []Problem{{Field: MCPServersKey + "." + name, Message: "must be a JSON object"}})
	}
	return st.editMCPServers(func(table map[string]any) bool {
		table[name] = obj
		return true
	})
}

// RemoveMCPServer deletes mcpServers[name]; it reports whether there was such an entry.
func (st *Store) RemoveMCPServer(name string) (bool, error) {
	found := false
	err := st.editMCPServers(func(table map[string]any) bool {
		_, found = table[name]
		delete(table, name)
		return found
	})
	return found, err
}

// editMCPServers applies change to the mcpServers table of the file and writes the file
// when change reports a change.
func (st *Store) editMCPServers(change func(table map[string]any) bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	path := Path(st.home)
	ioErr := func(err error) error {
		return &Error{Code: CodeIO, Message: fmt.Sprintf("cannot write settings file %s: %v", path, err), Cause: err}
	}
	var doc map[string]any
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && len(bytes.TrimSpace(data)) == 0):
		// No file yet: start from the current settings, so the new file states every value.
		raw, err := json.Marshal(st.file)
		if err != nil {
			return ioErr(err)
		}
		if err := unmarshalNumbers(raw, &doc); err != nil {
			return ioErr(err)
		}
	case err != nil:
		return &Error{Code: CodeIO, Message: fmt.Sprintf("cannot read settings file %s: %v", path, err), Cause: err}
	default:
		if err := unmarshalNumbers(data, &doc); err != nil || doc == nil {
			if err == nil {
				err = errors.New("not a JSON object")
			}
			return &Error{Code: CodeCorrupt, Cause: err,
				Message: fmt.Sprintf("settings file %s is not valid: %s; fix or delete it", path, describeJSONError(data, err))}
		}
	}
	table, _ := doc[MCPServersKey].(map[string]any)
	if table == nil {
		if v, present := doc[MCPServersKey]; present && v != nil {
			return &Error{Code: CodeCorrupt, Message: fmt.Sprintf("settings file %s: %s is not a JSON object; fix or remove it", path, MCPServersKey)}
		}
		table = map[string]any{}
	}
	if !change(table) {
		return nil
	}
	doc[MCPServersKey] = table
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return ioErr(err)
	}
	if err := os.MkdirAll(st.home, 0o700); err != nil {
		return ioErr(err)
	}
	if err := fsx.WriteFileTemp(path, buf.Bytes(), 0o600, ".settings-*.tmp"); err != nil {
		return ioErr(err)
	}
	return nil
}
