package tools

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Path aliases accepted by every tool.
const (
	AliasProject = "@project"
	AliasPkg     = "@pkg"
	AliasState   = "@state"
	// AliasSkill is the folder of a skill active in the conversation,
	// @skill/<name>/… (read-only; see Roots.Skills).
	AliasSkill = "@skill"
)

// ToolResultsAlias is the alias form of the folder where large tool outputs are saved. It
// resolves to Roots.ToolResults in every mode, whether or not a run (Roots.State) exists.
const ToolResultsAlias = AliasState + "/" + toolResultsRel

const toolResultsRel = "logs/tool-results"

// MaxPathLen is the longest path, in bytes, a tool accepts.
const MaxPathLen = 1024

// maxPercentRounds bounds how many times a path is percent-decoded when looking for hidden
// traversal ("%252e%252e" needs two rounds).
const maxPercentRounds = 4

// Roots are the host folders behind the aliases. Empty means "not available here".
type Roots struct {
	// Project is the project folder (@project, read/write).
	Project string
	// Package is the installed package folder of the active package (@pkg, read-only).
	Package string
	// State is the run's state folder (@state, read/write except @state/logs/).
	State string
	// ToolResults is the project data dir's logs/tool-results folder. The tools see only
	// the current conversation's part of it: @state/logs/tool-results/<Conversation>/...
	// (read-only); other conversations' outputs are not found.
	ToolResults string
	// Conversation is the conversation the tools work for (see ToolResults). Without it
	// @state/logs/tool-results is not available.
	Conversation string
	// Deny lists host files and folders no tool may read, list, search or write, whatever
	// the project folder is: the runtime home and its parts (settings, packages, every
	// project's data), so that a project that contains the home (a project opened at ~)
	// cannot reach them. Listings and searches leave them out. A root that lies strictly
	// inside a denied folder (@pkg and @state live in the home) is a window into it: its
	// own tree stays reachable through its alias.
	Deny []string
	// ReadOnly lists host files tools may read but never write (the project's
	// .crewagent.json, whose projectId ties the project to its data).
	ReadOnly []string
	// Skills finds the folder of a skill active in a conversation, which
	// tools read (never write) as @skill/<name>/…; ok is false when the
	// skill is not active there. Asked at every @skill path, so a skill
	// activated during a send is readable at once. nil: no skills.
	Skills func(conversationID, name string) (dir string, ok bool)
}

// Access is what a tool wants to do with a path.
type Access int

// Access kinds.
const (
	AccessRead Access = iota
	AccessWrite
)

// Resolved is a path that passed the sandbox.
type Resolved struct {
	// Base is the alias form of the root the path resolved in: @project, @pkg, @state or
	// @state/logs/tool-results.
	Base string
	// Rel is the cleaned, slash-separated path below Base ("" for Base itself).
	Rel string
	// Host is the absolute host path with symlinks resolved. Never show it to the model.
	Host string
	// Root is the real path of the root folder.
	Root string
	// ReadOnly is true when writes are refused under this root/subtree.
	ReadOnly bool
	// Exists is true when the whole path exists.
	Exists bool

	// hostRel is Host relative to Root ("." for the root itself): every file operation
	// opens Root with os.OpenRoot and works on hostRel beneath it, so a folder swapped
	// for a symbolic link after Resolve can never lead outside the root.
	hostRel string
}

// Display is the alias form of the path, safe to show to the model.
func (r Resolved) Display() string { return joinDisplay(r.Base, r.Rel) }

// ProjectRel is the project-relative path for @project paths ("" otherwise).
func (r Resolved) ProjectRel() string {
	if r.Base != AliasProject {
		return ""
	}
	return r.Rel
}

func joinDisplay(base, rel string) string {
	if rel == "" {
		return base
	}
	return base + "/" + rel
}

// Sandbox maps alias paths to host paths and refuses anything that could leave the roots.
// It holds no mutable state and is safe for concurrent use.
type Sandbox struct {
	roots    Roots
	deny     []string // real paths of Roots.Deny
	readOnly []string // real paths of Roots.ReadOnly
}

// NewSandbox returns a sandbox over roots. Relative roots are made absolute.
func NewSandbox(roots Roots) *Sandbox {
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return filepath.Clean(p)
	}
	s := &Sandbox{roots: Roots{
		Project:      abs(roots.Project),
		Package:      abs(roots.Package),
		State:        abs(roots.State),
		ToolResults:  abs(roots.ToolResults),
		Conversation: roots.Conversation,
		Skills:       roots.Skills,
	}}
	for _, p := range roots.Deny {
		if p = abs(p); p != "" {
			s.roots.Deny = append(s.roots.Deny, p)
			s.deny = append(s.deny, realOrClean(p))
		}
	}
	for _, p := range roots.ReadOnly {
		if p = abs(p); p != "" {
			s.roots.ReadOnly = append(s.roots.ReadOnly, p)
			s.readOnly = append(s.readOnly, realOrClean(p))
		}
	}
	return s
}

// realOrClean is p with its symbolic links resolved (those of its longest existing part).
func realOrClean(p string) string {
	if r, _, err := realpathPrefix(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// denied reports whether the real path host, reached under the real root root, lies in a
// denied area that root is not a window into.
func (s *Sandbox) denied(root, host string) bool {
	for _, d := range s.deny {
		if within(d, host) && !(root != d && within(d, root)) {
			return true
		}
	}
	return false
}

// deniedText is the refusal of a path in the runtime's own data.
func deniedError(display string) *ToolError {
	return violation("runtime_data", "%s belongs to the runtime's own data (settings, packages, conversations) and is not available to tools", display).
		withDetail("path", display)
}

// Roots returns the (absolute) roots of the sandbox.
func (s *Sandbox) Roots() Roots { return s.roots }

func violation(reason, format string, args ...any) *ToolError {
	return errf(CodeSandboxViolation, format, args...).withDetail("reason", reason)
}

// Resolve checks p and maps it to a host path. Every refusal caused by the shape of the path
// or by a symlink leaving its root is E_SANDBOX_VIOLATION; a write under a read-only root is
// E_SANDBOX_VIOLATION with details.reason "read_only"; an alias without a root is ENOENT with
// details.reason "alias_unavailable".
func (s *Sandbox) Resolve(p string, access Access) (Resolved, *ToolError) {
	alias, rest, terr := splitAlias(p)
	if terr != nil {
		return Resolved{}, terr
	}
	rel := strings.Trim(path.Clean("/"+rest), "/")

	var r Resolved
	var root string
	switch alias {
	case AliasProject:
		r.Base, root = AliasProject, s.roots.Project
	case AliasPkg:
		r.Base, root, r.ReadOnly = AliasPkg, s.roots.Package, true
	case AliasState:
		if rel == toolResultsRel || strings.HasPrefix(rel, toolResultsRel+"/") {
			rel = strings.TrimPrefix(strings.TrimPrefix(rel, toolResultsRel), "/")
			conv := s.roots.Conversation
			if s.roots.ToolResults == "" || conv == "" {
				return Resolved{}, unavailable(ToolResultsAlias)
			}
			// Only the conversation's own folder: @state/logs/tool-results and
			// @state/logs/tool-results/<conversation> both name it.
			first, rest, _ := strings.Cut(rel, "/")
			switch {
			case rel == "":
			case first == conv:
				rel = rest
			default:
				return Resolved{}, errf(CodeNotFound, "%s/%s does not exist: only this conversation's outputs are under %s/%s",
					ToolResultsAlias, first, ToolResultsAlias, conv).withDetail("path", ToolResultsAlias+"/"+rel)
			}
			r.Base, root, r.ReadOnly = ToolResultsAlias+"/"+conv, filepath.Join(s.roots.ToolResults, conv), true
		} else {
			r.Base, root = AliasState, s.roots.State
			r.ReadOnly = rel == "logs" || strings.HasPrefix(rel, "logs/")
		}
	case AliasSkill:
		name, rest, _ := strings.Cut(rel, "/")
		if name == "" {
			return Resolved{}, violation("no_skill", "name the skill: %s/<skill>/<path>", AliasSkill)
		}
		var (
			dir    string
			active bool
		)
		if s.roots.Skills != nil && s.roots.Conversation != "" {
			dir, active = s.roots.Skills(s.roots.Conversation, name)
		}
		if !active || dir == "" {
			return Resolved{}, errf(CodeNotFound, "%s/%s is not available: the skill %q is not active in this conversation (activate it with skill.activate first)", AliasSkill, name, name).
				withDetail("reason", "alias_unavailable").withDetail("alias", AliasSkill+"/"+name)
		}
		r.Base, root, r.ReadOnly, rel = AliasSkill+"/"+name, dir, true, rest
	}
	r.Rel = rel
	if root == "" {
		return Resolved{}, unavailable(r.Base)
	}
	if access == AccessWrite && r.ReadOnly {
		return Resolved{}, violation("read_only", "%s is read-only", r.Display()).
			withDetail("path", r.Display())
	}

	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Resolved{}, errf(CodeNotFound, "%s does not exist", r.Base).withDetail("path", r.Display())
		}
		return Resolved{}, errf(CodeInternal, "cannot open %s: %s", r.Base, osErrText(err))
	}
	if r.Base != alias && alias == AliasState { // a conversation's folder of tool outputs
		// It is a folder of the tool-results root, never a link out of it.
		if parent, err := filepath.EvalSymlinks(s.roots.ToolResults); err != nil || rootReal != filepath.Join(parent, s.roots.Conversation) {
			return Resolved{}, violation("symlink_escape", "%s leaves %s through a symbolic link", r.Display(), ToolResultsAlias)
		}
	}
	r.Root = rootReal
	candidate := filepath.Join(rootReal, filepath.FromSlash(rel))
	host, exists, rerr := realpathPrefix(candidate)
	if rerr != nil {
		switch {
		case errors.Is(rerr, errDanglingLink):
			return Resolved{}, violation("dangling_symlink",
				"%s goes through a symbolic link whose target does not exist", r.Display())
		case errors.Is(rerr, syscall.ELOOP):
			return Resolved{}, violation("symlink_loop", "%s goes through a symbolic link loop", r.Display())
		case errors.Is(rerr, fs.ErrPermission):
			return Resolved{}, errf(CodeInternal, "%s: permission denied", r.Display())
		default:
			// filepath.EvalSymlinks reports link chains that are too long (loops) with a
			// plain error; anything unresolvable fails closed.
			return Resolved{}, violation("symlink_unresolvable", "cannot resolve the symbolic links of %s", r.Display())
		}
	}
	if !within(rootReal, host) {
		return Resolved{}, violation("symlink_escape", "%s leaves %s through a symbolic link", r.Display(), r.Base)
	}
	if s.denied(rootReal, host) {
		return Resolved{}, deniedError(r.Display())
	}
	if access == AccessWrite && slices.Contains(s.readOnly, host) {
		return Resolved{}, violation("protected", "%s is managed by the runtime and cannot be written by tools", r.Display()).
			withDetail("path", r.Display())
	}
	r.Host, r.Exists = host, exists
	r.hostRel, err = filepath.Rel(rootReal, host)
	if err != nil {
		return Resolved{}, violation("symlink_unresolvable", "cannot resolve %s", r.Display())
	}
	return r, nil
}

func unavailable(base string) *ToolError {
	var msg string
	switch base {
	case AliasPkg:
		msg = "@pkg is not available here: no package is active in this conversation"
	case AliasState:
		msg = "@state is not available here: there is no active run (only " + ToolResultsAlias + "/... can be read)"
	case ToolResultsAlias:
		msg = ToolResultsAlias + " is not available here"
	default:
		msg = base + " is not available here"
	}
	return errf(CodeNotFound, "%s", msg).withDetail("reason", "alias_unavailable").withDetail("alias", base)
}

// splitAlias runs the lexical checks and splits p into its alias and the rest after "alias/".
func splitAlias(p string) (alias, rest string, _ *ToolError) {
	if p == "" {
		return "", "", violation("empty", "empty path: paths start with @project/, @pkg/ or @state/")
	}
	if len(p) > MaxPathLen {
		return "", "", violation("too_long", "path is longer than %d bytes", MaxPathLen)
	}
	if terr := checkText(p); terr != nil {
		return "", "", terr
	}
	cur := p
	for i := 0; i < maxPercentRounds && strings.IndexByte(cur, '%') >= 0; i++ {
		next := percentDecode(cur)
		if next == cur {
			break
		}
		if terr := checkText(next); terr != nil {
			terr.Message = "percent-encoded path: " + terr.Message
			return "", "", terr
		}
		cur = next
	}
	for _, a := range [...]string{AliasProject, AliasPkg, AliasState, AliasSkill} {
		if p == a {
			return a, "", nil
		}
		if strings.HasPrefix(p, a+"/") {
			return a, p[len(a)+1:], nil
		}
	}
	if strings.HasPrefix(p, "/") {
		return "", "", violation("absolute", "absolute paths are not allowed: paths start with @project/, @pkg/ or @state/")
	}
	return "", "", violation("no_alias", "path must start with @project/, @pkg/ or @state/")
}

// checkText refuses characters and segments that could change how the path is split or
// resolved on some platform, before or after Unicode compatibility normalisation.
func checkText(s string) *ToolError {
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w <= 1:
			return violation("invalid_utf8", "path is not valid UTF-8")
		case r == 0:
			return violation("nul", "path contains a NUL byte")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return violation("control_char", "path contains a control character")
		case r == '\\':
			return violation("backslash", `path contains "\": use "/" as the separator`)
		case r == ':':
			return violation("colon", `path contains ":" (drive letters and streams are not allowed)`)
		case isSlashLike(r):
			return violation("lookalike", "path contains a character that looks like a path separator (U+%04X)", r)
		case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			return violation("format_char", "path contains an invisible formatting character (U+%04X)", r)
		}
	}
	if terr := checkSegments(s); terr != nil {
		return terr
	}
	if n := norm.NFKC.String(s); n != s {
		if strings.Count(n, "/") != strings.Count(s, "/") || strings.ContainsAny(n, `\:`) {
			return violation("lookalike", "path contains characters that normalise to a separator")
		}
		if terr := checkSegments(n); terr != nil {
			terr.Details["reason"] = "lookalike"
			terr.Message = "path contains characters that normalise to " + terr.Message
			return terr
		}
	}
	return nil
}

// checkSegments refuses ".." and any segment made only of dots and spaces other than "."
// (Windows trims trailing dots and spaces, so "..." or ". ." may act as "..").
func checkSegments(s string) *ToolError {
	for _, seg := range strings.Split(s, "/") {
		if seg == ".." {
			return violation("dotdot", `".." segments are not allowed`)
		}
		if len(seg) > 1 && strings.Trim(seg, ". ") == "" {
			return violation("dotdot", `a segment made only of dots and spaces ("%s") is not allowed`, seg)
		}
	}
	return nil
}

func isSlashLike(r rune) bool {
	switch r {
	case '\u2044', // fraction slash
		'\u2215', // division slash
		'\u2216', // set minus
		'\u2571', // box drawings light diagonal
		'\u29F5', // reverse solidus operator
		'\u29F8', // big solidus
		'\u29F9', // big reverse solidus
		'\uFE68', // small reverse solidus
		'\uFF0F', // fullwidth solidus
		'\uFF3C', // fullwidth reverse solidus
		'\u1735', // philippine single punctuation
		'\u2CFA', // coptic old nubian (slash-like)
		'\u3033': // vertical kana repeat mark upper half
		return true
	}
	return false
}

// percentDecode decodes %XX escapes once; malformed escapes stay as they are.
func percentDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

var errDanglingLink = errors.New("dangling symbolic link")

// realpathPrefix resolves symlinks in the longest existing prefix of p and appends the
// missing tail unchanged. exists reports whether p exists as a whole. A symlink whose target
// is missing is refused: the tail below it could not be checked.
func realpathPrefix(p string) (resolved string, exists bool, err error) {
	cur := p
	var tail []string
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if len(tail) == 0 {
				return r, true, nil
			}
			parts := make([]string, 0, len(tail)+1)
			parts = append(parts, r)
			for i := len(tail) - 1; i >= 0; i-- {
				parts = append(parts, tail[i])
			}
			return filepath.Join(parts...), false, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", false, err
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", false, errDanglingLink
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", false, err
		}
		tail = append(tail, filepath.Base(cur))
		cur = parent
	}
}

// within reports whether p is root or below it. Both are clean absolute paths.
func within(root, p string) bool {
	if p == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// osErrText describes an OS error without the host path it may carry.
func osErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Op + ": " + le.Err.Error()
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Syscall + ": " + se.Err.Error()
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return "I/O error"
}
