package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tool names on the wire. The model sees each MCP tool as mcp__<server>__<tool>, where
// <server> and <tool> are the names with every character outside [A-Za-z0-9_-] replaced by
// "_". Server names are restricted (CheckServerName) so that the first "__" after the prefix
// always ends the server part; tool names are not, and a tool whose wire form would collide
// with another tool of the same server, or make the whole name longer than MaxWireNameLen,
// gets a short hash suffix instead.
const (
	// WirePrefix starts the wire name of every MCP tool.
	WirePrefix = "mcp__"
	// wireSep separates the server and the tool in a wire name.
	wireSep = "__"
	// MaxWireNameLen is the longest tool name the OpenAI API accepts.
	MaxWireNameLen = 64
	// MaxServerNameLen bounds server names so that tool names keep some room.
	MaxServerNameLen = 32
)

// wireSafe replaces every character outside [A-Za-z0-9_-] with "_".
func wireSafe(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < utf8.RuneSelf && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ServerWireName is the server part of its tools' wire names.
func ServerWireName(name string) string { return wireSafe(name) }

// CheckServerName says whether name can name a server: 1 to MaxServerNameLen characters,
// no control characters, and a wire form (ServerWireName) with no "__" and not ending in
// "_", so that wire names split back unambiguously. "github", "my-server" and "files.local"
// are fine; "a..b" and "tools " are not.
func CheckServerName(name string) error {
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return errors.New("a server needs a name")
	case n > MaxServerNameLen:
		return fmt.Errorf("the name is longer than %d characters", MaxServerNameLen)
	}
	if !utf8.ValidString(name) {
		return errors.New("the name is not valid UTF-8")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return errors.New("the name contains a control character")
		}
	}
	w := ServerWireName(name)
	if strings.Contains(w, wireSep) || strings.HasSuffix(w, "_") {
		return fmt.Errorf("the name becomes %q in tool names (characters other than letters, digits, '-' and '_' become '_'); it must not contain \"__\" there or end with '_'", w)
	}
	return nil
}

// WireName is the wire name of a tool of a server: mcp__<server>__<tool>, with both parts
// made wire-safe. It does not shorten: a Manager's tool list gives the names actually used
// (see Tool.WireName).
func WireName(server, tool string) string {
	return WirePrefix + ServerWireName(server) + wireSep + wireSafe(tool)
}

// IsWireName reports whether name is the wire name of an MCP tool (it has the prefix).
func IsWireName(name string) bool { return strings.HasPrefix(name, WirePrefix) }

// SplitWireName splits mcp__<server>__<tool> into the server's wire name and the tool part.
// ok is false when name is not of that form.
func SplitWireName(name string) (serverWire, toolWire string, ok bool) {
	rest, found := strings.CutPrefix(name, WirePrefix)
	if !found {
		return "", "", false
	}
	serverWire, toolWire, found = strings.Cut(rest, wireSep)
	if !found || serverWire == "" || toolWire == "" {
		return "", "", false
	}
	return serverWire, toolWire, true
}

// toolWireNames gives each tool of one server its wire name: WireName when it is unique
// and short enough, else a shortened form ending in "_" + 8 hex digits of the tool name's
// hash. The result is in the order of tools; names are unique.
func toolWireNames(server string, tools []string) []string {
	prefix := WirePrefix + ServerWireName(server) + wireSep
	out := make([]string, len(tools))
	used := map[string]bool{}
	for i, t := range tools {
		w := prefix + wireSafe(t)
		if len(w) > MaxWireNameLen || used[w] {
			sum := sha256.Sum256([]byte(t))
			suffix := "_" + hex.EncodeToString(sum[:4])
			keep := MaxWireNameLen - len(prefix) - len(suffix)
			part := wireSafe(t)
			if keep < 1 {
				keep = 1
			}
			if len(part) > keep {
				part = part[:keep]
			}
			w = prefix + part + suffix
			for n := 2; used[w]; n++ { // a hash clash on top of a name clash: count up
				w = fmt.Sprintf("%s%s_%d", prefix, part, n)
			}
		}
		used[w] = true
		out[i] = w
	}
	return out
}
