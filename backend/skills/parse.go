package skills

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"crewagent/backend/frontmatter"
)

// Limits of the format and of discovery.
const (
	// MaxFileBytes is the largest SKILL.md read; a larger one is skipped.
	MaxFileBytes = 256 << 10
	// LargeBodyBytes is the body size above which a skill gets a warning:
	// while active, the body is part of every request.
	LargeBodyBytes = 48 << 10
	// MaxNameLen is the longest skill name.
	MaxNameLen = 64
	// MaxDescriptionLen is the longest description (in characters) the
	// format allows; a longer one is kept with a warning and shortened in
	// the registry.
	MaxDescriptionLen = 1024
	// MaxCompatibilityLen is the longest compatibility field the format allows.
	MaxCompatibilityLen = 500
	// maxMetadataDepth bounds the nesting of metadata values.
	maxMetadataDepth = 16
)

// Parsed is what a SKILL.md says. Parse never fails: what is wrong is in
// Problems, and the skill is usable when none of them is an error.
type Parsed struct {
	Name                   string
	Description            string
	WhenToUse              string
	License                string
	Compatibility          string
	Metadata               map[string]any
	AllowedTools           []string
	AllowedToolsSet        bool
	DisableModelInvocation bool
	UserInvocable          bool
	// Body is the markdown after the frontmatter (line ends normalised to
	// "\n", leading blank lines and trailing white space removed).
	Body string
	// Problems have an empty File; discovery fills it in.
	Problems []Problem
}

// Usable reports whether no problem is an error.
func (p *Parsed) Usable() bool {
	for _, pr := range p.Problems {
		if pr.Severity == SeverityError {
			return false
		}
	}
	return true
}

func (p *Parsed) warn(format string, args ...any) {
	p.Problems = append(p.Problems, Problem{Severity: SeverityWarning, Message: fmt.Sprintf(format, args...)})
}

func (p *Parsed) fail(format string, args ...any) {
	p.Problems = append(p.Problems, Problem{Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
}

var nameRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidName reports whether name follows the format's rule: 1 to 64
// lowercase ASCII letters, digits and hyphens, no leading, trailing or
// doubled hyphen.
func ValidName(name string) bool { return len(name) <= MaxNameLen && nameRe.MatchString(name) }

// Parse reads a SKILL.md. folder is the name of the folder holding it (the
// name a skill takes when its frontmatter has none or an invalid one; ""
// when unknown).
//
// It is lenient where skills in the wild are loose: a missing name takes the
// folder name, an invalid one the folder name (or a lowercase, hyphenated
// form of it), a name that differs from the folder is a warning, a missing
// description takes the first paragraph of the body, frontmatter that is not
// valid YAML (typically an unquoted ": " inside a description) is read line
// by line as "key: value", keys are matched ignoring case and "_"/"-", and
// "true"/"false" strings count as booleans — each with a warning. Errors
// (the skill is skipped): a file larger than MaxFileBytes, text that is not
// UTF-8 or holds NUL bytes, an unclosed frontmatter, no usable name or no
// description at all.
func Parse(data []byte, folder string) Parsed {
	p := Parsed{UserInvocable: true}
	if len(data) > MaxFileBytes {
		p.fail("SKILL.md is larger than %d KiB", MaxFileBytes>>10)
		return p
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if !utf8.Valid(data) {
		p.fail("SKILL.md is not UTF-8 text")
		return p
	}
	if bytes.IndexByte(data, 0) >= 0 {
		p.fail("SKILL.md contains NUL bytes (not a text file)")
		return p
	}
	text := normalizeLineEnds(data)
	front, body, found, err := splitFrontmatter(text)
	if err != nil {
		p.fail("%s", err.Error())
		return p
	}
	if !found {
		p.warn("SKILL.md has no frontmatter (a --- block with name and description at the top)")
	}
	p.Body = strings.TrimRight(trimLeadingBlankLines(body), " \t\n")
	fields := map[string]*yaml.Node{}
	if found {
		if fields = p.frontmatterFields(front); fields == nil {
			return p
		}
	}
	p.apply(fields)
	p.settleName(folder)
	p.settleDescription()
	if !p.Usable() {
		return p
	}
	if len(p.Body) > LargeBodyBytes {
		p.warn("the body is %d KiB: while the skill is active it is part of every request (move details to supporting files)", len(p.Body)>>10)
	} else if p.Body == "" {
		p.warn("the body is empty: activating the skill adds no instructions")
	}
	return p
}

// normalizeLineEnds turns "\r\n" (and any run of "\r" before "\n") into "\n".
func normalizeLineEnds(data []byte) string {
	if bytes.IndexByte(data, '\r') < 0 {
		return string(data)
	}
	out := make([]byte, 0, len(data))
	for _, c := range data {
		if c == '\n' {
			for len(out) > 0 && out[len(out)-1] == '\r' {
				out = out[:len(out)-1]
			}
		}
		out = append(out, c)
	}
	return string(out)
}

// splitFrontmatter splits text (line ends already "\n") around a leading
// "---" block closed by a "---" or "..." line (frontmatter.Strict).
func splitFrontmatter(text string) (front, body string, found bool, err error) {
	if strings.HasPrefix(text, "\uFEFF") {
		// Parse took the file's byte order mark away: another one is text.
		return "", text, false, nil
	}
	blk := frontmatter.Split([]byte(text), frontmatter.Strict)
	switch {
	case blk.Unclosed:
		return "", "", true, fmt.Errorf("the frontmatter starts with --- but has no closing --- line")
	case !blk.Found:
		return "", text, false, nil
	}
	return string(blk.YAML), string(blk.Body), true, nil
}

func trimLeadingBlankLines(s string) string {
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}

// frontmatterFields decodes the frontmatter into its top-level fields, keyed
// by normalised name. Invalid YAML falls back to reading "key: value" lines.
func (p *Parsed) frontmatterFields(front string) map[string]*yaml.Node {
	var doc yaml.Node
	if err := frontmatter.Unmarshal([]byte(front), &doc); err != nil {
		msg := oneLine(strings.TrimPrefix(err.Error(), "yaml: "))
		fields := looseFields(front)
		if d := fields["description"]; d == nil || d.Kind != yaml.ScalarNode || d.Value == "" {
			p.fail("the frontmatter is not valid YAML: %s", lineFromFileStart(msg))
			return nil
		}
		p.warn("the frontmatter is not valid YAML (%s); it was read line by line as key: value (quote values that contain \": \")", lineFromFileStart(msg))
		return fields
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return map[string]*yaml.Node{}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return map[string]*yaml.Node{}
	}
	if root.Kind != yaml.MappingNode {
		p.fail("the frontmatter is not a list of key: value lines")
		return nil
	}
	fields := map[string]*yaml.Node{}
	warned := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		key := normKey(k.Value)
		if _, dup := fields[key]; dup && !warned[key] {
			warned[key] = true
			p.warn("the frontmatter sets %q more than once; the last value is used", k.Value)
		}
		fields[key] = resolveAlias(root.Content[i+1])
	}
	return fields
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; i < 8 && n != nil && n.Kind == yaml.AliasNode; i++ {
		n = n.Alias
	}
	return n
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// lineFromFileStart renumbers "line N" of a YAML error (counted in the
// frontmatter) as a line of the file (the frontmatter starts on line 2).
func lineFromFileStart(msg string) string {
	return yamlLineRe.ReplaceAllStringFunc(msg, func(s string) string {
		n, _ := strconv.Atoi(s[len("line "):])
		return "line " + strconv.Itoa(n+1)
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// normKey matches keys ignoring case and "_" versus "-".
func normKey(k string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
}

var looseKeyRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)[ \t]*:(.*)$`)

// looseFields reads frontmatter that is not valid YAML as top-level
// "key: value" lines. Indented lines continue the previous value (joined
// with spaces, or as list items when they start with "- "); a value that
// opens a flow collection ("[", "{") is dropped. The result is used only
// when it holds a description.
func looseFields(front string) map[string]*yaml.Node {
	fields := map[string]*yaml.Node{}
	var cur *yaml.Node
	parts := map[*yaml.Node][]string{} // continuation lines, joined at the end
	defer func() {
		for n, ps := range parts {
			n.Value = strings.TrimSpace(n.Value + " " + strings.Join(ps, " "))
		}
	}()
	for _, line := range strings.Split(front, "\n") {
		if m := looseKeyRe.FindStringSubmatch(line); m != nil {
			v := strings.TrimSpace(m[2])
			if strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{") {
				cur = nil // a broken flow collection: not a plain value
				continue
			}
			cur = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: unquote(v)}
			if v == "|" || v == ">" || v == "|-" || v == ">-" || v == "" {
				cur.Value = ""
			}
			fields[normKey(m[1])] = cur
			continue
		}
		t := strings.TrimSpace(line)
		if cur == nil || t == "" || strings.HasPrefix(t, "#") || line == t {
			continue
		}
		if item, ok := strings.CutPrefix(t, "- "); ok && (cur.Kind == yaml.SequenceNode || (cur.Value == "" && len(parts[cur]) == 0)) {
			if cur.Kind != yaml.SequenceNode {
				cur.Kind, cur.Tag = yaml.SequenceNode, "!!seq"
			}
			cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: unquote(strings.TrimSpace(item))})
			continue
		}
		if cur.Kind == yaml.ScalarNode {
			parts[cur] = append(parts[cur], t)
		}
	}
	return fields
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// apply reads the known fields; unknown ones (Claude Code's model, context,
// hooks, argument-hint, ...) are ignored.
func (p *Parsed) apply(f map[string]*yaml.Node) {
	p.Name = p.text(f, "name")
	p.Description = oneLine(p.text(f, "description"))
	p.WhenToUse = oneLine(p.text(f, "when-to-use"))
	p.License = oneLine(p.text(f, "license"))
	p.Compatibility = oneLine(p.text(f, "compatibility"))
	if n := utf8.RuneCountInString(p.Compatibility); n > MaxCompatibilityLen {
		p.warn("compatibility is %d characters long (at most %d)", n, MaxCompatibilityLen)
	}
	if v, ok := p.boolean(f, "disable-model-invocation"); ok {
		p.DisableModelInvocation = v
	}
	if v, ok := p.boolean(f, "user-invocable"); ok {
		p.UserInvocable = v
	}
	if n := f["allowed-tools"]; n != nil && !isNull(n) {
		p.AllowedToolsSet = true
		switch n.Kind {
		case yaml.ScalarNode:
			p.AllowedTools = splitToolList(n.Value)
		case yaml.SequenceNode:
			for _, it := range n.Content {
				it = resolveAlias(it)
				if it == nil || it.Kind != yaml.ScalarNode {
					p.warn("allowed-tools: an entry is not a tool name; it is ignored")
					continue
				}
				p.AllowedTools = append(p.AllowedTools, splitToolList(it.Value)...)
			}
		default:
			p.AllowedToolsSet = false
			p.warn("allowed-tools must be a list of tool names (e.g. \"Read, Grep\" or a YAML list); it is ignored")
		}
	}
	if n := f["metadata"]; n != nil && !isNull(n) {
		if n.Kind != yaml.MappingNode {
			p.warn("metadata must be a mapping of keys to values; it is ignored")
		} else {
			var v any
			if err := n.Decode(&v); err != nil {
				p.warn("metadata cannot be read (%s); it is ignored", oneLine(err.Error()))
			} else if c, err := frontmatter.ToJSON(v, maxMetadataDepth); err != nil {
				p.warn("metadata: %s; it is ignored", err.Error())
			} else if m, ok := c.(map[string]any); ok {
				p.Metadata = m
			}
		}
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// text returns a scalar field as text ("" when absent or null); a list or
// mapping is a warning.
func (p *Parsed) text(f map[string]*yaml.Node, key string) string {
	n := f[key]
	if n == nil || isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		p.warn("%s must be text; it is ignored", key)
		return ""
	}
	return strings.TrimSpace(n.Value)
}

// boolean returns a boolean field; "true"/"false" (and yes/no) written as
// strings are accepted with a warning.
func (p *Parsed) boolean(f map[string]*yaml.Node, key string) (bool, bool) {
	n := f[key]
	if n == nil || isNull(n) {
		return false, false
	}
	if n.Kind == yaml.ScalarNode {
		if n.ShortTag() == "!!bool" {
			var b bool
			if n.Decode(&b) == nil {
				return b, true
			}
		}
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "true", "yes", "on":
			p.warn("%s should be true or false without quotes", key)
			return true, true
		case "false", "no", "off":
			p.warn("%s should be true or false without quotes", key)
			return false, true
		}
	}
	p.warn("%s must be true or false; it is ignored", key)
	return false, false
}

// settleName decides the skill's name from the frontmatter and the folder.
func (p *Parsed) settleName(folder string) {
	declared := p.Name
	switch {
	case declared != "" && ValidName(declared):
		if folder != "" && folder != declared {
			p.warn("name %q does not match the folder name %q", declared, folder)
		}
		return
	case declared == "":
		if ValidName(folder) {
			p.Name = folder
			p.warn("the frontmatter has no name; the folder name %q is used", folder)
			return
		}
	default:
		if ValidName(folder) {
			p.Name = folder
			p.warn("name %q is not a valid skill name (lowercase letters, digits and single hyphens, at most %d); the folder name %q is used", declared, MaxNameLen, folder)
			return
		}
		if s := slug(declared); ValidName(s) {
			p.Name = s
			p.warn("name %q is not a valid skill name (lowercase letters, digits and single hyphens, at most %d); %q is used", declared, MaxNameLen, s)
			return
		}
	}
	if s := slug(folder); ValidName(s) {
		p.Name = s
		p.warn("the folder name %q is not a valid skill name; %q is used", folder, s)
		return
	}
	p.Name = ""
	if declared != "" {
		p.fail("name %q is not a valid skill name (lowercase letters, digits and single hyphens, at most %d)", declared, MaxNameLen)
	} else {
		p.fail("the skill has no name (add name: to the frontmatter)")
	}
}

// slug lowercases s and turns every run of other characters into one hyphen.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < utf8.RuneSelf && (unicode.IsLower(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// settleDescription falls back to the first paragraph of the body.
func (p *Parsed) settleDescription() {
	if p.Description != "" {
		if n := utf8.RuneCountInString(p.Description); n > MaxDescriptionLen {
			p.warn("the description is %d characters long (at most %d); the list shown to the model shortens it", n, MaxDescriptionLen)
		}
		return
	}
	if para := firstParagraph(p.Body); para != "" {
		p.Description = truncateRunes(para, MaxDescriptionLen)
		p.warn("the frontmatter has no description; the first paragraph of the body is used")
		return
	}
	p.fail("the skill has no description (add description: to the frontmatter, saying what it does and when to use it)")
}

// firstParagraph returns the first paragraph of markdown that is not a
// heading, a fence, a rule or an HTML comment, on one line.
func firstParagraph(body string) string {
	var para []string
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			if len(para) > 0 {
				break
			}
			continue
		}
		if inFence {
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<!--") || strings.Trim(t, "-*_ ") == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	return oneLine(strings.Join(para, " "))
}

// truncateRunes shortens s to at most n runes, ending with "…" when cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}
