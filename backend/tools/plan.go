package tools

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"crewagent/backend/conversation"
)

// Plan says what a call would do, worked out without doing it: for the
// approval a call may need first. Paths are alias paths as the sandbox
// resolves them (no ".." left), so that rules match the file the call
// really changes.
type Plan struct {
	// Paths are the files a file tool works on.
	Paths []string
	// Changes are the files a write would change, with their content before
	// and after.
	Changes []FileChange
	// Command and Cwd are a command tool's line and working folder; Network
	// is set when it asks for the network.
	Command string
	Cwd     string
	Network bool
	// Problem says why the call cannot be planned (bad arguments, a path the
	// sandbox refuses): the call would fail on its own, with this error.
	Problem string
}

// FileChange is one file a write would change.
type FileChange struct {
	Path    string
	Existed bool
	Old     []byte
	New     []byte
}

// Plan works out what the call of tool name with argsJSON would do. Tools it
// knows nothing about get an empty plan.
func (h *Host) Plan(name, argsJSON string) Plan {
	raw := json.RawMessage(argsJSON)
	if strings.TrimSpace(argsJSON) == "" {
		raw = json.RawMessage("{}")
	}
	switch canonicalName(name) {
	case conversation.ToolFSWrite:
		var p FSWriteParams
		if terr := decodePathArgs(raw, &p, &p.Path); terr != nil {
			return Plan{Problem: terr.Message}
		}
		return h.planChange(p.Path, func(old []byte) ([]byte, *ToolError) {
			if p.Content == nil {
				return nil, errf(CodeBadArguments, `"content" is required`)
			}
			return []byte(*p.Content), nil
		})
	case conversation.ToolFSApplyPatch:
		var p FSApplyPatchParams
		if terr := decodePathArgs(raw, &p, &p.Path); terr != nil {
			return Plan{Problem: terr.Message}
		}
		return h.planChange(p.Path, func(old []byte) ([]byte, *ToolError) {
			out, _, terr := updateFrontmatter(old, p.Update, mergeSetKeys)
			return out, terr
		})
	case conversation.ToolShellRun:
		var p struct {
			Command string `json:"command"`
			Cwd     string `json:"cwd"`
			Network bool   `json:"network"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return Plan{Problem: "the arguments are not a JSON object: " + err.Error()}
		}
		cwd := p.Cwd
		if cwd == "" {
			cwd = AliasProject
		}
		if r, terr := h.sandbox.Resolve(cwd, AccessWrite); terr == nil {
			cwd = r.Display()
		}
		return Plan{Command: p.Command, Cwd: cwd, Network: p.Network}
	}
	// Other file tools (deletes, renames): the paths they name.
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return Plan{}
	}
	var out Plan
	for _, k := range []string{"path", "from", "to", "source", "destination", "target"} {
		if s, ok := args[k].(string); ok && s != "" {
			if r, terr := h.sandbox.Resolve(s, AccessWrite); terr == nil {
				out.Paths = append(out.Paths, r.Display())
			} else {
				out.Paths = append(out.Paths, s)
			}
		}
	}
	return out
}

// planChange resolves a write's path and works out the content it would leave.
func (h *Host) planChange(alias string, produce func(old []byte) ([]byte, *ToolError)) Plan {
	r, terr := h.sandbox.Resolve(alias, AccessWrite)
	if terr != nil {
		return Plan{Paths: []string{alias}, Problem: terr.Message}
	}
	out := Plan{Paths: []string{r.Display()}}
	var old []byte
	existed := false
	if fi, terr := h.statIn(r); terr == nil && fi.Mode().IsRegular() {
		f, _, terr := h.openIn(r)
		if terr != nil {
			out.Problem = terr.Message
			return out
		}
		old, _ = io.ReadAll(io.LimitReader(f, max(h.policy.FS.MaxWriteBytes, DefaultMaxWriteBytes)+1))
		f.Close()
		existed = true
	} else if terr == nil {
		out.Problem = fmt.Sprintf("%s is not a regular file", r.Display())
		return out
	}
	next, terr := produce(old)
	if terr != nil {
		out.Problem = terr.Message
		return out
	}
	out.Changes = []FileChange{{Path: r.Display(), Existed: existed, Old: old, New: next}}
	return out
}

// canonicalName returns the dotted name of a built-in tool given in its wire form.
func canonicalName(name string) string {
	for _, n := range []string{conversation.ToolFSWrite, conversation.ToolFSApplyPatch, conversation.ToolShellRun} {
		if name == n || name == wireName(n) {
			return n
		}
	}
	return name
}

func wireName(n string) string { return strings.ReplaceAll(n, ".", "_") }
