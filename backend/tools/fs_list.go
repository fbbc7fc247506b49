package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"sort"

	"crewagent/backend/conversation"
)

// maxListEntries caps the entries one fs.list returns.
const maxListEntries = 1000

// FSListParams are the arguments of fs.list.
type FSListParams struct {
	Path string `json:"path"`
}

const fsListDescription = "List a folder. Returns entries sorted by name, each with name, type " +
	"(file, dir, symlink, other) and size in bytes. Paths start with @project/, @pkg/ or @state/."

const fsListSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Folder to list, e.g. \"@project\" or \"@pkg/workflows\"."}
  },
  "required": ["path"],
  "additionalProperties": false
}`

// ListEntry is one entry of an fs.list result.
type ListEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

type fsListResult struct {
	Path      string      `json:"path"`
	Entries   []ListEntry `json:"entries"`
	Total     int         `json:"total"`
	Truncated bool        `json:"truncated,omitempty"`
}

func fsListTool() toolSpec {
	return toolSpec{name: conversation.ToolFSList, family: "fs", description: fsListDescription, schema: fsListSchema, run: runFSList}
}

func runFSList(_ context.Context, h *Host, raw json.RawMessage) Result {
	var p FSListParams
	if terr := decodePathArgs(raw, &p, &p.Path); terr != nil {
		return failure(terr)
	}
	r, fi, terr := h.statRead(p.Path)
	if terr != nil {
		return failure(terr)
	}
	if !fi.IsDir() {
		return failure(errf(CodeBadArguments, "%s is a file, not a folder: use fs.read", r.Display()))
	}
	dir, fi, terr := h.openIn(r)
	if terr != nil {
		return failure(terr)
	}
	defer dir.Close()
	if !fi.IsDir() {
		return failure(errf(CodeBadArguments, "%s is a file, not a folder: use fs.read", r.Display()))
	}
	des, err := dir.ReadDir(-1)
	if err != nil {
		return failure(fileError(r, err))
	}
	entries := make([]ListEntry, 0, min(len(des), maxListEntries))
	for _, de := range des {
		if h.sandbox.hidden(r, de) {
			continue
		}
		e := ListEntry{Name: de.Name(), Type: entryType(de.Type())}
		if info, err := de.Info(); err == nil && e.Type == "file" {
			e.Size = info.Size()
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	res := fsListResult{Path: r.Display(), Total: len(entries)}
	if len(entries) > maxListEntries {
		entries, res.Truncated = entries[:maxListEntries], true
	}
	res.Entries = entries
	return success(res)
}

func entryType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsRegular():
		return "file"
	}
	return "other"
}
