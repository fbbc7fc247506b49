package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"crewagent/backend/errs"
)

// Alias is the read-only path alias of active skills' folders:
// "@skill/<name>/<path inside the skill folder>".
const Alias = "@skill"

// AliasPrefix is Alias followed by "/".
const AliasPrefix = Alias + "/"

// maxPathLen is the longest alias path accepted, in bytes.
const maxPathLen = 1024

// maxPercentRounds bounds how many times a path is percent-decoded when
// looking for hidden traversal ("%252e%252e" needs two rounds).
const maxPercentRounds = 4

// Error codes of path resolution, the same as the tool host's.
const (
	CodeNotFound         = errs.ToolNotFound
	CodeSandboxViolation = errs.SandboxViolation
	CodeReadLimit        = errs.ReadLimit
)

// IsAlias reports whether p is an @skill path (so the tool host routes it
// here and refuses writes to it).
func IsAlias(p string) bool { return p == Alias || strings.HasPrefix(p, AliasPrefix) }

// Resolver maps @skill paths to files in the folders of the active skills.
// It holds no mutable state and is safe for concurrent use.
type Resolver struct {
	dirs map[string]string // skill name -> skill folder
	gone map[string]bool   // active skills whose folder is no longer found
}

// NewResolver returns a resolver over skill folders by skill name (the
// active skills: only they are readable).
func NewResolver(dirs map[string]string) *Resolver {
	r := &Resolver{dirs: make(map[string]string, len(dirs))}
	for name, dir := range dirs {
		if dir == "" {
			continue
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		r.dirs[name] = dir
	}
	return r
}

// Resolver returns a resolver over the folders of the skills active in st
// that this catalog still holds at the path they were activated from. An
// active skill whose SKILL.md is gone, or is now another skill of the same
// name (its folder was removed and a shadowed one took its place), has no
// files to read until it is activated again.
func (c *Catalog) Resolver(st *State) *Resolver {
	dirs := map[string]string{}
	gone := map[string]bool{}
	for _, a := range st.Active() {
		if s, ok := c.Get(a.Name); ok && (a.Path == "" || s.Path == a.Path) {
			dirs[a.Name] = s.Dir
		} else {
			gone[a.Name] = true
		}
	}
	r := NewResolver(dirs)
	r.gone = gone
	return r
}

// Resolved is an @skill path that passed the checks.
type Resolved struct {
	// Name is the skill; Rel the cleaned slash path inside its folder ("" for
	// the folder itself).
	Name string
	Rel  string
	// Host is the absolute host path with symbolic links resolved, Root the
	// real path of the skill folder. Never show them to the model.
	Host string
	Root string
	// IsDir is true for a folder.
	IsDir bool
}

// Display is the alias form of the path, safe to show to the model.
func (r Resolved) Display() string {
	if r.Rel == "" {
		return AliasPrefix + r.Name
	}
	return AliasPrefix + r.Name + "/" + r.Rel
}

// PathError is a refused @skill path (errs.Error): its code, a message that
// never contains host paths, and why in a word (ReasonOf).
type PathError = errs.Error

// DetailReason is the detail of a PathError that says why in a word
// ("not_found", "symlink_escape", …), as the tool host's refusals do.
const DetailReason = "reason"

// ReasonOf returns the reason of a refused @skill path, or "".
func ReasonOf(err error) string {
	r, _ := errs.Detail(err, DetailReason).(string)
	return r
}

// pathError builds a PathError.
func pathError(code, reason, message string) *PathError {
	return &PathError{Code: code, Message: message, Details: map[string]any{DetailReason: reason}}
}

func violation(reason, format string, args ...any) *PathError {
	return pathError(CodeSandboxViolation, reason, fmt.Sprintf(format, args...))
}

// Resolve checks an @skill path and maps it to an existing file or folder
// of an active skill. The path is read-only by nature: callers refuse
// writes to any IsAlias path. Refusals: a malformed path (no skill name,
// "..", a backslash, a colon, control or invisible characters, characters
// that look like or normalise to separators, percent-encoded traversal) or
// a symbolic link leaving the skill folder is E_SANDBOX_VIOLATION; a skill
// that is not active, or a path that does not exist, is ENOENT.
func (r *Resolver) Resolve(p string) (Resolved, error) {
	name, rel, perr := splitSkillPath(p)
	if perr != nil {
		return Resolved{}, perr
	}
	dir, ok := r.dirs[name]
	if !ok && r.gone[name] {
		return Resolved{}, pathError(CodeNotFound, "skill_missing", fmt.Sprintf("the files of skill %q are no longer available (its folder was moved or deleted)", name))
	}
	if !ok {
		return Resolved{}, pathError(CodeNotFound, "alias_unavailable", fmt.Sprintf("%s%s is not available: the skill %q is not active (activate it with %s first)", AliasPrefix, name, name, ActivateTool))
	}
	res := Resolved{Name: name, Rel: rel}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Resolved{}, pathError(CodeNotFound, "skill_missing", fmt.Sprintf("the folder of skill %q no longer exists", name))
	}
	res.Root = root
	host, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return Resolved{}, pathError(CodeNotFound, "not_found", res.Display()+" does not exist")
	case errors.Is(err, syscall.ELOOP):
		return Resolved{}, violation("symlink_loop", "%s goes through a symbolic link loop", res.Display())
	default:
		return Resolved{}, violation("symlink_unresolvable", "cannot resolve the symbolic links of %s", res.Display())
	}
	if !within(root, host) {
		return Resolved{}, violation("symlink_escape", "%s leaves the skill folder through a symbolic link", res.Display())
	}
	fi, err := os.Stat(host)
	if err != nil {
		return Resolved{}, pathError(CodeNotFound, "not_found", res.Display()+" does not exist")
	}
	res.Host, res.IsDir = host, fi.IsDir()
	return res, nil
}

// ReadFile resolves p and reads the file through an os.Root opened on the
// skill folder, so a symbolic link swapped in after the check still cannot
// lead out of it. A file larger than limit bytes (limit > 0) is E_READ_LIMIT.
func (r *Resolver) ReadFile(p string, limit int64) ([]byte, Resolved, error) {
	res, err := r.Resolve(p)
	if err != nil {
		return nil, Resolved{}, err
	}
	data, err := readResolved(res, limit)
	return data, res, err
}

// readResolved reads a resolved file through an os.Root on its skill folder.
func readResolved(res Resolved, limit int64) ([]byte, error) {
	if res.IsDir {
		return nil, pathError(CodeNotFound, "is_folder", res.Display()+" is a folder, not a file")
	}
	root, err := os.OpenRoot(res.Root)
	if err != nil {
		return nil, pathError(CodeNotFound, "skill_missing", fmt.Sprintf("the folder of skill %q cannot be opened", res.Name))
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(res.Rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, pathError(CodeNotFound, "not_found", res.Display()+" does not exist")
		}
		return nil, violation("symlink_escape", "%s cannot be opened inside the skill folder (%s)", res.Display(), osErrText(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, pathError(CodeNotFound, "not_a_file", res.Display()+" is not a regular file")
	}
	if limit > 0 && fi.Size() > limit {
		return nil, pathError(CodeReadLimit, "too_large", fmt.Sprintf("%s is %d bytes, more than %d", res.Display(), fi.Size(), limit))
	}
	var rd io.Reader = f
	if limit > 0 {
		rd = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, pathError(CodeNotFound, "read_failed", res.Display()+": "+osErrText(err))
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, pathError(CodeReadLimit, "too_large", fmt.Sprintf("%s is more than %d bytes", res.Display(), limit))
	}
	return data, nil
}

// splitSkillPath runs the lexical checks and returns the skill name and the
// cleaned path below its folder.
func splitSkillPath(p string) (name, rel string, _ *PathError) {
	if !IsAlias(p) {
		return "", "", violation("no_alias", "path must start with %s<skill>/", AliasPrefix)
	}
	if len(p) > maxPathLen {
		return "", "", violation("too_long", "path is longer than %d bytes", maxPathLen)
	}
	if perr := checkText(p); perr != nil {
		return "", "", perr
	}
	cur := p
	for i := 0; i < maxPercentRounds && strings.IndexByte(cur, '%') >= 0; i++ {
		next := percentDecode(cur)
		if next == cur {
			break
		}
		if perr := checkText(next); perr != nil {
			perr.Message = "percent-encoded path: " + perr.Message
			return "", "", perr
		}
		cur = next
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(p, Alias), "/")
	name, rel, _ = strings.Cut(rest, "/")
	if name == "" {
		return "", "", violation("no_skill", "path must name a skill: %s<skill>/...", AliasPrefix)
	}
	if !ValidName(name) {
		return "", "", pathError(CodeNotFound, "alias_unavailable", fmt.Sprintf("%q is not a skill name", name))
	}
	return name, strings.Trim(path.Clean("/"+rel), "/"), nil
}

// checkText refuses characters and segments that could change how the path
// is split or resolved on some platform, before or after Unicode
// compatibility normalisation (the rules of the tool host's sandbox).
func checkText(s string) *PathError {
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
	if perr := checkSegments(s); perr != nil {
		return perr
	}
	if n := norm.NFKC.String(s); n != s {
		if strings.Count(n, "/") != strings.Count(s, "/") || strings.ContainsAny(n, `\:`) {
			return violation("lookalike", "path contains characters that normalise to a separator")
		}
		if perr := checkSegments(n); perr != nil {
			perr.Details[DetailReason] = "lookalike"
			perr.Message = "path contains characters that normalise to " + perr.Message
			return perr
		}
	}
	return nil
}

// checkSegments refuses ".." and any segment made only of dots and spaces
// other than "." (Windows trims trailing dots and spaces).
func checkSegments(s string) *PathError {
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
	case '\u2044', '\u2215', '\u2216', '\u2571', '\u29F5', '\u29F8', '\u29F9',
		'\uFE68', '\uFF0F', '\uFF3C', '\u1735', '\u2CFA', '\u3033':
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
