package packages

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"crewagent/backend/errs"
)

// Paths inside the demo package.
const (
	demoGraph    = "workflows/write-brief/workflow.graph.json"
	demoWorkflow = "workflows/write-brief/workflow.md"
	demoStep     = "workflows/write-brief/steps/capture-idea.md"
	demoDecision = "workflows/write-brief/steps/check-clarity.md"
)

// fileMap is a package held in memory: slash path -> content.
type fileMap map[string][]byte

func readTree(t *testing.T, fsys fs.FS) fileMap {
	t.Helper()
	files := fileMap{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		files[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func demoFileMap(t *testing.T) fileMap { return readTree(t, DemoFS()) }

func (f fileMap) clone() fileMap {
	out := fileMap{}
	for k, v := range f {
		out[k] = append([]byte(nil), v...)
	}
	return out
}

func (f fileMap) names() []string {
	var names []string
	for k := range f {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// writeZip writes files into a zip archive at path, prefixing every name with prefix.
func (f fileMap) writeZip(t *testing.T, path, prefix string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range f.names() {
		w, err := zw.Create(prefix + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f fileMap) writeDir(t *testing.T, dir string) {
	t.Helper()
	for name, b := range f {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// patchJSON decodes a JSON file, lets fn change it and encodes it back.
func (f fileMap) patchJSON(t *testing.T, name string, fn func(m map[string]any)) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(f[name], &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fn(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	f[name] = b
}

// patchFrontmatter decodes the frontmatter of a markdown file, lets fn change it and writes
// it back with the same body.
func (f fileMap) patchFrontmatter(t *testing.T, name string, fn func(m map[string]any)) {
	t.Helper()
	fm, body, err := ParseFrontmatter(f[name])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fn(fm)
	y, err := yaml.Marshal(fm)
	if err != nil {
		t.Fatal(err)
	}
	f[name] = []byte("---\n" + string(y) + "---\n" + string(body))
}

// replace substitutes text in a file and fails when old is absent.
func (f fileMap) replace(t *testing.T, name, old, new string) {
	t.Helper()
	s := string(f[name])
	if !strings.Contains(s, old) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	f[name] = []byte(strings.Replace(s, old, new, 1))
}

// obj and arr navigate decoded JSON in patch functions.
func obj(v any, keys ...any) map[string]any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v.(map[string]any)
}

func arr(v any, keys ...any) []any {
	last := keys[len(keys)-1].(string)
	return obj(v, keys[:len(keys)-1]...)[last].([]any)
}

// validationProblems returns the problems of a validation error, failing otherwise.
func validationProblems(t *testing.T, err error) []Problem {
	t.Helper()
	var ve *Error
	if !errors.As(err, &ve) {
		t.Fatalf("want an *Error, got %T: %v", err, err)
	}
	if !errors.Is(err, ErrInvalid) || errs.CodeOf(err) != CodeInvalid {
		t.Fatalf("validation error does not carry ErrInvalid/%s", CodeInvalid)
	}
	problems := ProblemsOf(err)
	if len(problems) == 0 {
		t.Fatal("validation error without problems")
	}
	return problems
}

// wantProblem fails unless a problem has exactly file, exactly pointer and a message
// containing msg.
func wantProblem(t *testing.T, probs []Problem, file, pointer, msg string) {
	t.Helper()
	for _, p := range probs {
		if p.File == file && p.Pointer == pointer && strings.Contains(p.Message, msg) {
			return
		}
	}
	var sb strings.Builder
	for _, p := range probs {
		sb.WriteString("\n  " + p.File + " | " + p.Pointer + " | " + p.Message)
	}
	t.Fatalf("no problem {file %q, pointer %q, message containing %q}; got:%s", file, pointer, msg, sb.String())
}

// assertPristine checks that a home where every import failed holds no package, no
// temporary folder and no registry.
func assertPristine(t *testing.T, home string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, packagesDirName))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in packages/: %s", e.Name())
	}
	if _, err := os.Stat(filepath.Join(home, registryFileName)); !os.IsNotExist(err) {
		t.Errorf("packages.json exists after failed imports (err=%v)", err)
	}
}

// packageDirs lists the entries of <home>/packages.
func packageDirs(t *testing.T, home string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, packagesDirName))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// newHome returns a runtime home that is removed after the test even though installed
// packages are read-only.
func newHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Cleanup(func() {
		os.Chmod(home, 0o755)
		removeAllForce(home)
	})
	return home
}

// hasHeading reports whether a markdown body has a level-2 heading with the given text
// (case-insensitive), outside fenced code blocks.
func hasHeading(body, title string) bool {
	return slices.ContainsFunc(headings(body), func(h string) bool { return strings.EqualFold(h, title) })
}

// WithClock sets the clock used for installedAt.
func WithClock(now func() time.Time) Option { return func(m *Manager) { m.now = now } }

// WithLimits replaces DefaultLimits.
func WithLimits(l Limits) Option { return func(m *Manager) { m.limits = l } }
