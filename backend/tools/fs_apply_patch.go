package tools

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"crewagent/backend/conversation"
)

// OperationUpdateFrontmatter is the only fs.apply_patch operation.
const OperationUpdateFrontmatter = "updateFrontmatter"

// maxFrontmatterEcho caps the frontmatter text echoed back after a patch.
const maxFrontmatterEcho = 8 * 1024

// FSApplyPatchParams are the arguments of fs.apply_patch.
type FSApplyPatchParams struct {
	Path          string          `json:"path"`
	Operation     string          `json:"operation"`
	Update        json.RawMessage `json:"update"`
	IfMatchSha256 string          `json:"ifMatchSha256,omitempty"`
}

const fsApplyPatchDescription = "Update the YAML frontmatter of a markdown file without touching " +
	"its body, e.g. @state/workflow.md. operation is \"updateFrontmatter\"; update maps each " +
	"top-level key to one of {\"set\": value}, {\"append\": [values]} (add to a list), " +
	"{\"merge\": {...}} (merge into an object), {\"unset\": true} (remove the key) or " +
	"{\"unset\": [\"name\", ...]} (remove those keys from an object). For \"variables\", set adds or " +
	"replaces the keys it names and keeps the others; remove a variable with " +
	"{\"variables\": {\"unset\": [\"name\"]}}. Example: {\"stepsCompleted\": {\"append\": [\"step-1\"]}, " +
	"\"currentNodeId\": {\"set\": \"step-2\"}, \"variables\": {\"set\": {\"choice\": \"b\"}}}."

const fsApplyPatchSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Markdown file to patch, e.g. \"@state/workflow.md\"."},
    "operation": {"type": "string", "enum": ["updateFrontmatter"]},
    "update": {
      "type": "object",
      "description": "Top-level frontmatter key -> exactly one of set, append, merge, unset.",
      "additionalProperties": {
        "type": "object",
        "properties": {
          "set": {"description": "New value of the key."},
          "append": {"type": "array", "description": "Values to add at the end of the list."},
          "merge": {"type": "object", "description": "Keys to merge into the object (nested objects merge)."},
          "unset": {
            "description": "true removes the key; a list of names removes those keys from an object (e.g. variables).",
            "anyOf": [{"type": "boolean", "const": true}, {"type": "array", "items": {"type": "string"}}]
          }
        },
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": false
      }
    },
    "ifMatchSha256": {"type": "string", "description": "Only patch if the current file has this sha256."}
  },
  "required": ["path", "operation", "update"],
  "additionalProperties": false
}`

// mergeSetKeys are the keys whose "set" of an object merges into the existing object: the
// workflow's decision variables, set a few at a time by successive steps.
var mergeSetKeys = map[string]bool{"variables": true}

type fsApplyPatchResult struct {
	Path        string   `json:"path"`
	Sha256      string   `json:"sha256"`
	UpdatedKeys []string `json:"updatedKeys"`
	Frontmatter string   `json:"frontmatter,omitempty"`
}

func fsApplyPatchTool() toolSpec {
	return toolSpec{name: conversation.ToolFSApplyPatch, family: "fs", description: fsApplyPatchDescription, schema: fsApplyPatchSchema, run: runFSApplyPatch}
}

func runFSApplyPatch(ctx context.Context, h *Host, raw json.RawMessage) Result {
	var p FSApplyPatchParams
	if terr := decodePathArgs(raw, &p, &p.Path); terr != nil {
		return failure(terr)
	}
	if p.Operation != OperationUpdateFrontmatter {
		return failure(errf(CodeBadArguments, `unknown operation %q: the only operation is "updateFrontmatter"`, p.Operation))
	}
	var keys []string
	var written []byte
	r, _, terr := h.writeFile(ctx, conversation.ToolFSApplyPatch, p.Path, p.IfMatchSha256, func(old []byte) ([]byte, *ToolError) {
		if !SplitFrontmatter(old).Found && !isMarkdownName(p.Path) {
			return nil, errf(CodeBadArguments, "%s has no YAML frontmatter", p.Path)
		}
		out, k, terr := updateFrontmatter(old, p.Update, mergeSetKeys)
		keys, written = k, out
		return out, terr
	}, true)
	if terr != nil {
		return failure(terr)
	}
	res := fsApplyPatchResult{Path: r.Display(), Sha256: sha256Hex(written), UpdatedKeys: keys}
	if y := SplitFrontmatter(written).YAML; len(y) <= maxFrontmatterEcho {
		res.Frontmatter = string(y)
	}
	return success(res)
}

func isMarkdownName(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown":
		return true
	}
	return false
}
