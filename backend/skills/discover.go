package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Discovery limits.
const (
	// MaxSkillsPerLocation is the most skill folders read from one location;
	// the rest are reported and ignored.
	MaxSkillsPerLocation = 1000
	// MaxFiles is the most supporting files listed per skill.
	MaxFiles = 200
	// maxFileDepth is how deep supporting files are listed.
	maxFileDepth = 8
	// maxWalkEntries bounds the entries visited while listing one skill's files.
	maxWalkEntries = 5000
)

// SkillFile is the name of a skill's main file.
const SkillFile = "SKILL.md"

// Invalid is a skill folder (or a location) that could not be used.
type Invalid struct {
	// Name is the folder name ("" for a problem of the location itself).
	Name   string `json:"name"`
	Source Source `json:"source"`
	// Dir is the skill folder (or the location's folder); Path its
	// SKILL.md when there is one.
	Dir      string    `json:"dir"`
	Path     string    `json:"path,omitempty"`
	Problems []Problem `json:"problems"`
}

// Shadowed is a usable skill hidden by another of the same name that takes
// precedence.
type Shadowed struct {
	Skill
	// By is the SKILL.md of the skill that wins, BySource its source.
	By       string `json:"by"`
	BySource Source `json:"bySource"`
}

// Catalog is the result of one discovery: the usable skills (one per name),
// the shadowed ones and the invalid folders. A Catalog is immutable and safe
// for concurrent use.
type Catalog struct {
	locations []Location
	skills    []Skill // sorted by name
	byName    map[string]int
	shadowed  []Shadowed
	invalid   []Invalid

	countMu sync.Mutex
	counts  map[countKey]int // registry line token counts, per model

	termsOnce sync.Once
	terms     map[string]map[string]int // ranking terms by skill name
}

type countKey struct{ model, text string }

// Discover scans the locations (in precedence order, as DefaultLocations
// returns them) and returns what it found. It never fails: unreadable
// folders and invalid skills are reported in Invalid. A location listed
// twice (the same folder through two paths) is scanned once.
func Discover(locs []Location) *Catalog {
	c := &Catalog{locations: slices.Clone(locs), byName: map[string]int{}}
	seen := map[string]bool{}
	for i, loc := range locs {
		key := folderKey(loc.Dir)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		c.scan(i, loc)
	}
	sort.Slice(c.skills, func(i, j int) bool { return c.skills[i].Name < c.skills[j].Name })
	for i, s := range c.skills {
		c.byName[s.Name] = i
	}
	return c
}

// folderKey identifies a folder: its real path when it exists, else its
// absolute path.
func folderKey(dir string) string {
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

func (c *Catalog) scan(prec int, loc Location) {
	des, err := os.ReadDir(loc.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		msg := "cannot read the folder: " + osErrText(err)
		if isNotDir(loc.Dir) {
			msg = "is not a folder"
		}
		c.invalid = append(c.invalid, Invalid{Source: loc.Source, Dir: loc.Dir, Problems: []Problem{{File: loc.Dir, Severity: SeverityError, Message: msg}}})
		return
	}
	n := 0
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		dir := filepath.Join(loc.Dir, name)
		if !de.IsDir() {
			if de.Type()&fs.ModeSymlink == 0 {
				continue // README.md and other files beside the skills
			}
			fi, err := os.Stat(dir)
			if err != nil {
				c.invalid = append(c.invalid, Invalid{Name: name, Source: loc.Source, Dir: dir, Problems: []Problem{{File: dir, Severity: SeverityError, Message: "a symbolic link whose target cannot be read: " + osErrText(err)}}})
				continue
			}
			if !fi.IsDir() {
				continue
			}
		}
		if n == MaxSkillsPerLocation {
			c.invalid = append(c.invalid, Invalid{Source: loc.Source, Dir: loc.Dir, Problems: []Problem{{File: loc.Dir, Severity: SeverityError,
				Message: fmt.Sprintf("holds more than %d skill folders; %s and the folders after it are ignored", MaxSkillsPerLocation, name)}}})
			break
		}
		n++
		sk, inv := readSkill(loc.Source, prec, dir, name)
		if inv != nil {
			c.invalid = append(c.invalid, *inv)
			continue
		}
		c.add(sk)
	}
}

// add records a usable skill, or shadows it when a skill of its name was
// found first.
func (c *Catalog) add(sk Skill) {
	for i := range c.skills {
		if c.skills[i].Name == sk.Name {
			w := c.skills[i]
			c.shadowed = append(c.shadowed, Shadowed{Skill: sk, By: w.Path, BySource: w.Source})
			return
		}
	}
	c.skills = append(c.skills, sk)
}

func isNotDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// readSkill reads one skill folder.
func readSkill(src Source, prec int, dir, folder string) (Skill, *Invalid) {
	inv := &Invalid{Name: folder, Source: src, Dir: dir}
	bad := func(file, format string, args ...any) (Skill, *Invalid) {
		inv.Problems = append(inv.Problems, Problem{File: file, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
		return Skill{}, inv
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return bad(dir, "cannot resolve the folder: %s", osErrText(err))
	}
	file, warn := findSkillFile(dir)
	if file == "" {
		return bad(dir, "the folder has no %s", SkillFile)
	}
	path := filepath.Join(dir, file)
	inv.Path = path
	realFile, err := filepath.EvalSymlinks(path)
	if err != nil {
		return bad(path, "cannot read %s: %s", file, osErrText(err))
	}
	if !within(realDir, realFile) {
		return bad(path, "%s is a symbolic link that leaves the skill folder", file)
	}
	f, err := os.Open(realFile)
	if err != nil {
		return bad(path, "cannot read %s: %s", file, osErrText(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return bad(path, "cannot read %s: %s", file, osErrText(err))
	}
	if !fi.Mode().IsRegular() {
		return bad(path, "%s is not a regular file", file)
	}
	if fi.Size() > MaxFileBytes {
		return bad(path, "%s is %d KiB, larger than the %d KiB limit", file, fi.Size()>>10, MaxFileBytes>>10)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return bad(path, "cannot read %s: %s", file, osErrText(err))
	}
	p := Parse(data, folder)
	if warn != "" {
		p.warn("%s", warn)
	}
	for i := range p.Problems {
		p.Problems[i].File = path
	}
	if !p.Usable() {
		inv.Problems = p.Problems
		return Skill{}, inv
	}
	sk := Skill{
		Name: p.Name, Description: p.Description, WhenToUse: p.WhenToUse,
		Source: src, Precedence: prec, Dir: dir, Path: path,
		License: p.License, Compatibility: p.Compatibility, Metadata: p.Metadata,
		AllowedTools: p.AllowedTools, AllowedToolsSet: p.AllowedToolsSet,
		DisableModelInvocation: p.DisableModelInvocation, UserInvocable: p.UserInvocable,
		Size: fi.Size(), ModTime: fi.ModTime(), Problems: p.Problems,
	}
	files, more, probs := listFiles(dir, realDir, file)
	sk.Files, sk.MoreFiles = files, more
	sk.Problems = append(sk.Problems, probs...)
	if t := sk.Tools(); len(t.Unavailable) > 0 || len(t.Unknown) > 0 || len(t.Notes) > 0 {
		for _, u := range t.Unavailable {
			sk.Problems = append(sk.Problems, Problem{File: path, Severity: SeverityWarning, Message: "allowed-tools: " + u + " is not available here (no such tool); it grants nothing"})
		}
		for _, u := range t.Unknown {
			sk.Problems = append(sk.Problems, Problem{File: path, Severity: SeverityWarning, Message: "allowed-tools: " + u + " is not a known tool; it is kept as written (a tool of that name may appear later)"})
		}
		for _, n := range t.Notes {
			sk.Problems = append(sk.Problems, Problem{File: path, Severity: SeverityWarning, Message: "allowed-tools: " + n})
		}
	}
	return sk, nil
}

// findSkillFile returns the name of the folder's SKILL.md: exactly
// "SKILL.md", or another spelling of it (with a warning).
func findSkillFile(dir string) (name, warn string) {
	if fi, err := os.Lstat(filepath.Join(dir, SkillFile)); err == nil && !fi.IsDir() {
		return SkillFile, ""
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return "", ""
	}
	for _, de := range des {
		if strings.EqualFold(de.Name(), SkillFile) && !de.IsDir() {
			return de.Name(), fmt.Sprintf("the file is named %s; other agents only read %s", de.Name(), SkillFile)
		}
	}
	return "", ""
}

// listFiles lists a skill's supporting files (slash-separated, relative to
// the skill folder, hidden ones and SKILL.md left out) without following
// symbolic links out of the folder: a link to a file inside is listed, a
// link that leaves the folder is reported and not listed, a link to a
// folder is not entered.
func listFiles(dir, realDir, skillFile string) (files []string, more int, probs []Problem) {
	visited := 0
	filepath.WalkDir(realDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == realDir {
				return err
			}
			return nil
		}
		if p == realDir {
			return nil
		}
		visited++
		if visited > maxWalkEntries {
			more++
			return fs.SkipAll
		}
		rel, rerr := filepath.Rel(realDir, p)
		if rerr != nil {
			return nil
		}
		slash := filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") || (rel == skillFile) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(slash, "/") >= maxFileDepth-1 {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !within(realDir, target) {
				probs = append(probs, Problem{File: filepath.Join(dir, rel), Severity: SeverityWarning,
					Message: slash + " is a symbolic link that leaves the skill folder (or is broken); it is not listed and cannot be read"})
				return nil
			}
			if fi, err := os.Stat(target); err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		if len(files) >= MaxFiles {
			more++
			return nil
		}
		files = append(files, slash)
		return nil
	})
	return files, more, probs
}

// within reports whether p is root or below it (both clean absolute paths).
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
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// Locations returns the locations the catalog was discovered from.
func (c *Catalog) Locations() []Location {
	if c == nil {
		return nil
	}
	return slices.Clone(c.locations)
}

// Skills returns the usable skills, one per name, sorted by name.
func (c *Catalog) Skills() []Skill {
	if c == nil {
		return nil
	}
	return append([]Skill(nil), c.skills...)
}

// Get returns the usable skill called name.
func (c *Catalog) Get(name string) (Skill, bool) {
	if c == nil {
		return Skill{}, false
	}
	i, ok := c.byName[name]
	if !ok {
		return Skill{}, false
	}
	return c.skills[i], true
}

// Shadowed returns the usable skills hidden by a skill of the same name
// with higher precedence, in discovery order.
func (c *Catalog) Shadowed() []Shadowed {
	if c == nil {
		return nil
	}
	return append([]Shadowed(nil), c.shadowed...)
}

// Invalid returns the folders that could not be used, in discovery order.
func (c *Catalog) Invalid() []Invalid {
	if c == nil {
		return nil
	}
	return append([]Invalid(nil), c.invalid...)
}

// Listing statuses.
const (
	StatusAvailable = "available"
	StatusShadowed  = "shadowed"
	StatusInvalid   = "invalid"
)

// ListItem is one row of `crewagent skills list` (and of Settings → Skills).
type ListItem struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      Source `json:"source"`
	// Path is the SKILL.md (or the folder when there is none).
	Path string `json:"path"`
	// Problems are never null: [] when there is none.
	Problems []Problem `json:"problems"`
	// Status is available, shadowed or invalid.
	Status string `json:"status"`
	// ShadowedBy is the SKILL.md of the skill that wins over this one.
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// UserOnly is set for disable-model-invocation skills.
	UserOnly bool `json:"userOnly,omitempty"`
	// ModelOnly is set for skills that ask not to be offered to the user
	// (user-invocable: false): pickers leave them out.
	ModelOnly bool `json:"modelOnly,omitempty"`
	// AllowedTools are the tool names the skill narrows to while active
	// (absent when it does not narrow).
	AllowedTools []string `json:"allowedTools,omitempty"`
	Files        int      `json:"files"`
}

// List returns every skill found — available, shadowed and invalid — sorted
// by name, then precedence (the one that wins first), JSON-ready.
func (c *Catalog) List() []ListItem {
	items := []ListItem{}
	if c == nil {
		return items
	}
	item := func(s Skill, status string) ListItem {
		it := ListItem{Name: s.Name, Description: s.Description, Source: s.Source, Path: s.Path,
			Problems: append([]Problem{}, s.Problems...), Status: status, UserOnly: s.DisableModelInvocation,
			ModelOnly: !s.UserInvocable, Files: len(s.Files) + s.MoreFiles}
		if t := s.Tools(); t.Declared {
			it.AllowedTools = t.Tools
		}
		return it
	}
	var order []int
	for _, s := range c.skills {
		items = append(items, item(s, StatusAvailable))
		order = append(order, s.Precedence)
	}
	for _, s := range c.shadowed {
		it := item(s.Skill, StatusShadowed)
		it.ShadowedBy = s.By
		items = append(items, it)
		order = append(order, s.Precedence)
	}
	for _, inv := range c.invalid {
		path := inv.Path
		if path == "" {
			path = inv.Dir
		}
		items = append(items, ListItem{Name: inv.Name, Source: inv.Source, Path: path,
			Problems: append([]Problem{}, inv.Problems...), Status: StatusInvalid})
		order = append(order, c.precedenceOf(inv.Source))
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := items[idx[a]], items[idx[b]]
		if ia.Name != ib.Name {
			return ia.Name < ib.Name
		}
		return order[idx[a]] < order[idx[b]]
	})
	out := make([]ListItem, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out
}

func (c *Catalog) precedenceOf(src Source) int {
	for i, l := range c.locations {
		if l.Source == src {
			return i
		}
	}
	return len(c.locations)
}
