package tools

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"crewagent/backend/conversation"
)

// StateFileName is the run state file under @state that the StateGuard protects.
const StateFileName = "workflow.md"

// FSWriteParams are the arguments of fs.write.
type FSWriteParams struct {
	Path          string  `json:"path"`
	Content       *string `json:"content"`
	IfMatchSha256 string  `json:"ifMatchSha256,omitempty"`
}

const fsWriteDescription = "Create or replace a file with the given content (atomic; parent " +
	"folders are created). Pass ifMatchSha256 (the sha256 from fs.read) to replace a file only " +
	"if it has not changed since you read it. @pkg/ and @state/logs/ are read-only."

const fsWriteSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to write, e.g. \"@project/artifacts/brief.md\"."},
    "content": {"type": "string", "description": "The complete new content of the file."},
    "ifMatchSha256": {"type": "string", "description": "Only write if the current file has this sha256."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`

type fsWriteResult struct {
	Path         string `json:"path"`
	BytesWritten int    `json:"bytesWritten"`
	Sha256       string `json:"sha256"`
	Created      bool   `json:"created"`
}

func fsWriteTool() toolSpec {
	return toolSpec{name: conversation.ToolFSWrite, family: "fs", description: fsWriteDescription, schema: fsWriteSchema, run: runFSWrite}
}

func runFSWrite(ctx context.Context, h *Host, raw json.RawMessage) Result {
	var p FSWriteParams
	if terr := decodePathArgs(raw, &p, &p.Path); terr != nil {
		return failure(terr)
	}
	if p.Content == nil {
		return failure(errf(CodeBadArguments, `"content" is required (use "" for an empty file)`))
	}
	content := []byte(*p.Content)
	if terr := h.checkWriteSize(len(content)); terr != nil {
		return failure(terr) // before anything else: the size is known
	}
	r, created, terr := h.writeFile(ctx, conversation.ToolFSWrite, p.Path, p.IfMatchSha256, func([]byte) ([]byte, *ToolError) { return content, nil }, false)
	if terr != nil {
		return failure(terr)
	}
	if created {
		if terr := h.artifactCreated(r); terr != nil {
			return failure(terr)
		}
	}
	return success(fsWriteResult{Path: r.Display(), BytesWritten: len(content), Sha256: sha256Hex(content), Created: created})
}

// writeFile is the shared write path of fs.write and fs.apply_patch: sandbox (write access),
// precondition, content transform, size limit, state guard, parent folders, atomic write.
// With mustExist the file has to exist already.
func (h *Host) writeFile(ctx context.Context, tool, alias, ifMatch string, produce func(old []byte) ([]byte, *ToolError), mustExist bool) (Resolved, bool, *ToolError) {
	r, terr := h.sandbox.Resolve(alias, AccessWrite)
	if terr != nil {
		return r, false, terr
	}
	h.writeMu.Lock()
	defer h.writeMu.Unlock()

	var old []byte
	perm := fs.FileMode(0o644)
	exists := false
	if fi, terr := h.statIn(r); terr == nil {
		if fi.IsDir() {
			return r, false, errf(CodeBadArguments, "%s is a folder", r.Display())
		}
		if !fi.Mode().IsRegular() {
			return r, false, errf(CodeBadArguments, "%s is not a regular file", r.Display())
		}
		f, fi, terr := h.openIn(r)
		if terr != nil {
			return r, false, terr
		}
		var err error
		old, err = io.ReadAll(f)
		f.Close()
		if err != nil {
			return r, false, fileError(r, err)
		}
		perm, exists = fi.Mode().Perm(), true
	} else if terr.Code != CodeNotFound {
		return r, false, terr
	}
	if !exists && mustExist {
		return r, false, errf(CodeNotFound, "%s does not exist", r.Display()).withDetail("path", r.Display())
	}
	if ifMatch != "" {
		if !exists {
			return r, false, errf(CodePreconditionFailed, "%s does not exist, so it cannot match ifMatchSha256", r.Display())
		}
		if actual := sha256Hex(old); normalizeSha(ifMatch) != actual {
			return r, false, errf(CodePreconditionFailed, "%s has changed since it was read (sha256 differs): read it again", r.Display()).
				withDetail("expectedSha256", normalizeSha(ifMatch)).withDetail("actualSha256", actual)
		}
	}
	content, terr := produce(old)
	if terr != nil {
		return r, false, terr
	}
	if terr := h.checkWriteSize(len(content)); terr != nil {
		return r, false, terr
	}
	if h.cfg.StateGuard != nil && h.isStateFile(r) {
		if err := h.cfg.StateGuard.ValidateStateWrite(old, content); err != nil {
			return r, false, guardError(err)
		}
	}
	done, terr := h.beginChange(ctx, tool, r)
	if terr != nil {
		return r, false, terr
	}
	if terr := h.writeIn(r, content, perm); terr != nil {
		done()
		return r, false, terr
	}
	if terr := done(); terr != nil {
		return r, false, terr
	}
	return r, !exists, nil
}

// checkWriteSize refuses content over the write limit.
func (h *Host) checkWriteSize(n int) *ToolError {
	if limit := h.policy.FS.MaxWriteBytes; int64(n) > limit {
		return errf(CodeWriteLimit, "content is %d bytes, over the write limit of %d bytes", n, limit).
			withDetail("maxWriteBytes", limit).withDetail("size", n)
	}
	return nil
}

// isStateFile reports whether r is the run state file @state/workflow.md (also when reached
// through a symlink inside @state).
func (h *Host) isStateFile(r Resolved) bool {
	return r.Base == AliasState && r.Host == filepath.Join(r.Root, StateFileName)
}

func guardError(err error) *ToolError {
	if te, ok := AsToolError(err); ok {
		out := *te
		if out.Code == "" {
			out.Code = CodeSchemaValidation
		}
		return &out
	}
	return errf(CodeSchemaValidation, "%s: %s", "@state/"+StateFileName+" rejected", err.Error())
}

// artifactCreated reports a new file under @project/<artifactsDir>/; a failure to record it
// is the call's failure.
func (h *Host) artifactCreated(r Resolved) *ToolError {
	if h.cfg.OnArtifactWritten == nil || r.Base != AliasProject || !strings.HasPrefix(r.Rel, h.artifactsDir+"/") {
		return nil
	}
	if err := h.cfg.OnArtifactWritten(r.Rel); err != nil {
		return errf(CodeInternal, "%s", err.Error())
	}
	return nil
}
