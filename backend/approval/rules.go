package approval

import (
	"fmt"
	"path"
	"strings"
)

// Effect is what a rule or a decision says of a call.
type Effect string

// The effects.
const (
	Allow   Effect = "allow"
	AskUser Effect = "ask"
	Deny    Effect = "deny"
)

// Rules are lists of rule texts by effect, as they are written in the
// settings ("approvals") and in a project's .crewagent/permissions.json:
//
//	{"allow": ["shell.run(go test)", "fs.write(@project/docs/**)"],
//	 "ask":   ["mcp__github__*"],
//	 "deny":  ["shell.run(git push)"]}
//
// A rule is a tool name (dotted; "*" matches any run of characters, so
// "mcp__github__*" names every tool of one MCP server) optionally followed by
// a pattern in parentheses: a path glob for file tools (an alias path,
// "@project/docs/**"; a path without an alias is in @project; "**" matches
// any number of folders, "*" any run of characters within one name) or a
// command prefix for command tools ("go test" matches "go test ./..." but not
// "go testify"; "*" matches any run of characters, so "npm run *" matches
// every npm script).
type Rules struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Empty reports whether there is no rule.
func (r Rules) Empty() bool { return len(r.Allow)+len(r.Ask)+len(r.Deny) == 0 }

// Check parses every rule and returns the problems found, one per bad rule.
func (r Rules) Check() []string {
	var out []string
	for _, list := range [][]string{r.Allow, r.Ask, r.Deny} {
		for _, s := range list {
			if _, err := ParseRule(s); err != nil {
				out = append(out, err.Error())
			}
		}
	}
	return out
}

// Rule is one parsed rule.
type Rule struct {
	// Tool is the tool name pattern (dotted).
	Tool string
	// Pattern is the path glob or command prefix ("" matches every call of the tool).
	Pattern string
	// HasPattern is set when the rule had parentheses.
	HasPattern bool
}

// String writes the rule back in its text form.
func (r Rule) String() string {
	if !r.HasPattern {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// ParseRule reads a rule text.
func ParseRule(s string) (Rule, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Rule{}, fmt.Errorf("an approval rule is empty")
	}
	var r Rule
	if open := strings.IndexByte(t, '('); open >= 0 {
		if !strings.HasSuffix(t, ")") {
			return Rule{}, fmt.Errorf("approval rule %q: the pattern must end with ')'", s)
		}
		r.Tool, r.Pattern, r.HasPattern = strings.TrimSpace(t[:open]), strings.TrimSpace(t[open+1:len(t)-1]), true
		if r.Pattern == "" {
			return Rule{}, fmt.Errorf("approval rule %q: the pattern in parentheses is empty (leave the parentheses out to match every call)", s)
		}
	} else {
		r.Tool = t
	}
	if r.Tool == "" || strings.ContainsAny(r.Tool, " ()") {
		return Rule{}, fmt.Errorf("approval rule %q: it must start with a tool name such as fs.write or shell.run", s)
	}
	r.Tool = Canonical(r.Tool)
	if r.HasPattern && Classify(r.Tool) != KindCommand {
		p, err := cleanRulePath(r.Pattern)
		if err != nil {
			return Rule{}, fmt.Errorf("approval rule %q: %v", s, err)
		}
		r.Pattern = p
	}
	return r, nil
}

// cleanRulePath puts a path glob in its alias form and refuses one that
// leaves its root.
func cleanRulePath(p string) (string, error) {
	p = strings.ReplaceAll(p, "\\", "/")
	if !strings.HasPrefix(p, "@") {
		if strings.HasPrefix(p, "/") {
			return "", fmt.Errorf("the path %q is not inside the project: write it as @project/…", p)
		}
		p = "@project/" + p
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.TrimSpace(seg) == ".." {
			return "", fmt.Errorf("the path %q leaves its folder (..)", p)
		}
	}
	// Cleaning can leave a space at either end ("a \\" becomes "a "), which
	// the parser trims when the rule is read back: trim until both agree.
	for {
		q := strings.TrimSpace(path.Clean(p))
		if q == p {
			break
		}
		p = q
	}
	return p, nil
}

// Call is what a decision is about.
type Call struct {
	// Tool is the tool's name (dotted or wire form).
	Tool string
	// Paths are the alias paths a file tool works on (resolved: no "..").
	Paths []string
	// Command is the command line of a command tool.
	Command string
}

// match reports whether rule r covers call c.
func (r Rule) match(c Call) bool {
	if !globMatch(r.Tool, Canonical(c.Tool)) {
		return false
	}
	if !r.HasPattern {
		return true
	}
	if Classify(c.Tool) == KindCommand {
		return commandMatch(r.Pattern, c.Command)
	}
	if len(c.Paths) == 0 {
		return false
	}
	for _, p := range c.Paths {
		if !pathMatch(r.Pattern, p) {
			return false
		}
	}
	return true
}

// matchAny reports whether rule r covers any part of call c: a deny or ask
// rule that names one path of a rename, or one command of a command line
// joined with && or ;, holds the whole call.
func (r Rule) matchAny(c Call) bool {
	if !globMatch(r.Tool, Canonical(c.Tool)) {
		return false
	}
	if !r.HasPattern {
		return true
	}
	if Classify(c.Tool) == KindCommand {
		for _, part := range splitCommand(c.Command) {
			if commandMatch(r.Pattern, part) {
				return true
			}
		}
		return commandMatch(r.Pattern, c.Command)
	}
	for _, p := range c.Paths {
		if pathMatch(r.Pattern, p) {
			return true
		}
	}
	return false
}

// allows reports whether allow rule r lets call c run: every path is
// covered, and a command line is a single simple command that the prefix
// covers (no ;, &&, ||, |, $( ), backquotes, redirections or line breaks,
// through which "go test" could run anything).
func (r Rule) allows(c Call) bool {
	if Classify(c.Tool) == KindCommand && r.HasPattern && !simpleCommand(c.Command) {
		return false
	}
	return r.match(c)
}

// globMatch matches a name against a pattern where "*" is any run of
// characters (slashes included).
func globMatch(pattern, s string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == s
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, last)
}

// pathMatch matches an alias path against a glob whose "**" segments match
// any number of segments and whose other segments are path.Match patterns.
func pathMatch(pattern, p string) bool {
	return segMatch(strings.Split(pattern, "/"), strings.Split(path.Clean(p), "/"))
}

func segMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(segs); i++ {
				if segMatch(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// commandMatch matches a command line against a prefix: words of the
// prefix must be the first words of the command (spaces collapsed), and a
// "*" matches any run of characters.
func commandMatch(prefix, command string) bool {
	p := strings.Join(strings.Fields(prefix), " ")
	c := strings.Join(strings.Fields(command), " ")
	if strings.Contains(p, "*") {
		return globMatch(p, c)
	}
	return c == p || strings.HasPrefix(c, p+" ")
}

// splitCommand cuts a command line at the shell's separators (;, &&, ||, |,
// line breaks), roughly: enough to find a denied command inside a longer line.
func splitCommand(command string) []string {
	f := func(r rune) bool {
		return r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' || r == ')' || r == '`'
	}
	var out []string
	for _, part := range strings.FieldsFunc(command, f) {
		part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "$"))
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// simpleCommand reports whether a command line is one command without
// anything through which it could run others or write files.
func simpleCommand(command string) bool {
	return !strings.ContainsAny(command, ";&|`$<>\n\r")
}
