package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"crewagent/backend/frontmatter"
)

// SplitFrontmatter finds a YAML frontmatter block: the file starts (after an optional BOM) with
// a "---" line and a later line is "---" or "..." (trailing spaces allowed, "\n" or "\r\n":
// frontmatter.Strict). A block that is never closed is no frontmatter (Found is false and Body
// is the whole input).
func SplitFrontmatter(b []byte) frontmatter.Block { return frontmatter.Split(b, frontmatter.Strict) }

// Frontmatter update operations (one per key of the update object).
const (
	OpSet    = "set"
	OpAppend = "append"
	OpMerge  = "merge"
	OpUnset  = "unset"
)

// UpdateFrontmatter applies an updateFrontmatter object ({key: {set|append|merge|unset}}) to
// a markdown file and returns the new file and the keys changed, in order. The body stays
// byte-identical and existing keys keep their order (new keys are added at the end). A file
// without frontmatter gets one. Bad updates are E_BAD_ARGUMENTS; a frontmatter that is not a
// YAML mapping is E_SCHEMA_VALIDATION.
func UpdateFrontmatter(content []byte, update json.RawMessage) ([]byte, []string, *ToolError) {
	return updateFrontmatter(content, update, nil)
}

// updateFrontmatter is UpdateFrontmatter where "set" with an object on a key of mergeSet
// merges its keys into the existing object (fs.apply_patch does this for "variables", as
// the original runtime did).
func updateFrontmatter(content []byte, update json.RawMessage, mergeSet map[string]bool) ([]byte, []string, *ToolError) {
	ops, terr := parseUpdate(update)
	if terr != nil {
		return nil, nil, terr
	}
	for i := range ops {
		if ops[i].kind == OpSet && mergeSet[ops[i].key] && ops[i].value.Kind == yaml.MappingNode {
			ops[i].kind = opSetKeys
		}
	}
	fm := SplitFrontmatter(content)
	if !fm.Found {
		open := []byte("---\n")
		body := content
		if bytes.HasPrefix(body, frontmatter.BOM) {
			open = append(append([]byte{}, frontmatter.BOM...), open...)
			body = body[len(frontmatter.BOM):]
		}
		fm = frontmatter.Block{Open: open, Close: []byte("---\n"), Body: body, Found: true}
	}
	doc, terr := parseFrontmatterYAML(fm.YAML)
	if terr != nil {
		return nil, nil, terr
	}
	root := doc.Content[0]
	keys := make([]string, 0, len(ops))
	for _, op := range ops {
		if terr := applyOp(root, op); terr != nil {
			return nil, nil, terr
		}
		keys = append(keys, op.key)
	}
	out, err := encodeYAML(doc)
	if err != nil {
		return nil, nil, errf(CodeInternal, "could not encode the frontmatter: %s", err.Error())
	}
	if fm.CRLF() {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	var b bytes.Buffer
	b.Grow(len(fm.Open) + len(out) + len(fm.Close) + len(fm.Body) + 2)
	b.Write(fm.Open)
	b.Write(out)
	b.Write(fm.Close)
	b.Write(fm.Body)
	return b.Bytes(), keys, nil
}

// parseFrontmatterYAML parses the frontmatter into a document whose root is a mapping.
func parseFrontmatterYAML(src []byte) (*yaml.Node, *ToolError) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, errf(CodeSchemaValidation, "the frontmatter is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		// Empty (or comments only): start an empty mapping, keeping any comment.
		comment := doc.HeadComment
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
		doc.HeadComment = comment
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		doc.Content[0] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: root.HeadComment}
		root = doc.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, errf(CodeSchemaValidation, "the frontmatter is not a YAML mapping of keys to values")
	}
	// Decoding catches what the node tree accepts but readers refuse (duplicate keys).
	var probe any
	if err := doc.Decode(&probe); err != nil {
		return nil, errf(CodeSchemaValidation, "the frontmatter is not valid YAML: %s",
			strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "), "\n  ", "; "))
	}
	return &doc, nil
}

func encodeYAML(doc *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	if string(out) == "{}\n" {
		return nil, nil
	}
	return out, nil
}

// Internal kinds an operation becomes: "set" of an object that merges its keys, and
// "unset" of a list of key names.
const (
	opSetKeys   = "set-keys"
	opUnsetKeys = "unset-keys"
)

// frontmatterOp is one key of an update object.
type frontmatterOp struct {
	key   string
	kind  string
	value *yaml.Node // set/append (sequence)/merge (mapping)
}

// parseUpdate decodes the update object in key order.
func parseUpdate(raw json.RawMessage) ([]frontmatterOp, *ToolError) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errf(CodeBadArguments, `"update" is required, e.g. {"stepsCompleted": {"append": ["step-1"]}}`)
	}
	node, err := jsonToNode(raw)
	if err != nil {
		return nil, errf(CodeBadArguments, "invalid update: %s", err.Error())
	}
	if node.Kind != yaml.MappingNode || len(node.Content) == 0 {
		return nil, errf(CodeBadArguments, `"update" must be a non-empty object of {key: {set|append|merge|unset: ...}}`)
	}
	ops := make([]frontmatterOp, 0, len(node.Content)/2)
	for i := 0; i < len(node.Content); i += 2 {
		key, spec := node.Content[i].Value, node.Content[i+1]
		if strings.TrimSpace(key) == "" {
			return nil, errf(CodeBadArguments, "update keys must not be empty")
		}
		if spec.Kind != yaml.MappingNode || len(spec.Content) != 2 {
			return nil, errf(CodeBadArguments, `update of %q must be an object with exactly one of "set", "append", "merge" or "unset"`, key)
		}
		op := frontmatterOp{key: key, kind: spec.Content[0].Value, value: spec.Content[1]}
		switch op.kind {
		case OpSet:
		case OpAppend:
			if op.value.Kind != yaml.SequenceNode {
				return nil, errf(CodeBadArguments, `"append" for %q takes an array of values`, key)
			}
		case OpMerge:
			if op.value.Kind != yaml.MappingNode {
				return nil, errf(CodeBadArguments, `"merge" for %q takes an object`, key)
			}
		case OpUnset:
			if op.value.Kind == yaml.SequenceNode {
				for _, n := range op.value.Content {
					if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
						return nil, errf(CodeBadArguments, `"unset" for %q takes true (remove the key) or a list of key names to remove from it`, key)
					}
				}
				op.kind = opUnsetKeys
				break
			}
			if op.value.Kind != yaml.ScalarNode || op.value.Tag != "!!bool" || op.value.Value != "true" {
				return nil, errf(CodeBadArguments, `"unset" for %q takes true (remove the key) or a list of key names to remove from it`, key)
			}
		default:
			return nil, errf(CodeBadArguments, `unknown operation %q for %q: use "set", "append", "merge" or "unset"`, op.kind, key)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// mappingIndex returns the index of key's key node in m.Content, or -1.
func mappingIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

func applyOp(root *yaml.Node, op frontmatterOp) *ToolError {
	idx := mappingIndex(root, op.key)
	var cur *yaml.Node
	if idx >= 0 {
		cur = root.Content[idx+1]
	}
	switch op.kind {
	case OpUnset:
		if idx >= 0 {
			root.Content = append(root.Content[:idx], root.Content[idx+2:]...)
		}
		return nil
	case OpSet:
		setValue(root, idx, op.key, op.value)
		return nil
	case OpAppend:
		switch {
		case cur == nil || isNull(cur):
			seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: op.value.Content}
			setValue(root, idx, op.key, seq)
		case cur.Kind == yaml.SequenceNode:
			if len(cur.Content) == 0 {
				cur.Style &^= yaml.FlowStyle
			}
			cur.Content = append(cur.Content, op.value.Content...)
		default:
			return errf(CodeBadArguments, "cannot append to %q: it is %s, not a list", op.key, kindName(cur))
		}
		return nil
	case opSetKeys:
		switch {
		case cur == nil || isNull(cur):
			setValue(root, idx, op.key, op.value)
		case cur.Kind == yaml.MappingNode:
			if len(cur.Content) == 0 {
				cur.Style &^= yaml.FlowStyle
			}
			for i := 0; i+1 < len(op.value.Content); i += 2 {
				k := op.value.Content[i].Value
				setValue(cur, mappingIndex(cur, k), k, op.value.Content[i+1])
			}
		default:
			setValue(root, idx, op.key, op.value)
		}
		return nil
	case opUnsetKeys:
		if cur == nil || isNull(cur) {
			return nil
		}
		if cur.Kind != yaml.MappingNode {
			return errf(CodeBadArguments, "cannot remove keys from %q: it is %s, not an object", op.key, kindName(cur))
		}
		for _, n := range op.value.Content {
			if i := mappingIndex(cur, n.Value); i >= 0 {
				cur.Content = append(cur.Content[:i], cur.Content[i+2:]...)
			}
		}
		return nil
	case OpMerge:
		switch {
		case cur == nil || isNull(cur):
			setValue(root, idx, op.key, op.value)
		case cur.Kind == yaml.MappingNode:
			mergeMapping(cur, op.value)
		default:
			return errf(CodeBadArguments, "cannot merge into %q: it is %s, not an object", op.key, kindName(cur))
		}
		return nil
	}
	return errf(CodeBadArguments, "unknown operation %q", op.kind)
}

// setValue replaces the value at idx (keeping its comments) or appends key: v.
func setValue(m *yaml.Node, idx int, key string, v *yaml.Node) {
	if idx < 0 {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
		return
	}
	old := m.Content[idx+1]
	v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
	m.Content[idx+1] = v
}

// mergeMapping merges src into dst: nested mappings merge recursively, anything else
// replaces the existing value; new keys are added at the end.
func mergeMapping(dst, src *yaml.Node) {
	if len(dst.Content) == 0 {
		dst.Style &^= yaml.FlowStyle
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		key, val := src.Content[i].Value, src.Content[i+1]
		idx := mappingIndex(dst, key)
		if idx >= 0 && dst.Content[idx+1].Kind == yaml.MappingNode && val.Kind == yaml.MappingNode {
			mergeMapping(dst.Content[idx+1], val)
			continue
		}
		setValue(dst, idx, key, val)
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || (n.Tag == "" && (n.Value == "" || n.Value == "~" || n.Value == "null")))
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	}
	return "a scalar"
}

// jsonToNode converts JSON to a YAML node, keeping object key order (a repeated key keeps
// its first position and its last value) and exact numbers.
func jsonToNode(raw []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := decodeJSONNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("extra data after the JSON value")
	}
	return n, nil
}

const maxJSONDepth = 64

func decodeJSONNode(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeJSONNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if i := mappingIndex(m, key); i >= 0 {
					m.Content[i+1] = v
					continue
				}
				m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
			}
			_, err := dec.Token()
			return m, err
		case '[':
			s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				v, err := decodeJSONNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				s.Content = append(s.Content, v)
			}
			_, err := dec.Token()
			return s, err
		}
		return nil, fmt.Errorf("unexpected %q", t.String())
	case string:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}
		if isYAML11Bool(t) {
			// yaml.v3 writes these bare, but YAML 1.1 readers take them as booleans.
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token")
}

func isYAML11Bool(s string) bool {
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "on", "off":
		return true
	}
	return false
}
