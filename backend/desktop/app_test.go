package desktop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/project"
)

type fakeDialogs struct {
	dir  string
	file string
	err  error
	// filters receives the filters of each ChooseFile and SaveFile call when not nil.
	filters *[]FileFilter
	// saveDir is where SaveFile saves (under the proposed name); "" cancels.
	saveDir string
}

func (f fakeDialogs) ChooseFolder(title, defaultDir string) (string, error) { return f.dir, f.err }

func (f fakeDialogs) ChooseFile(title, defaultDir string, filters []FileFilter) (string, error) {
	if f.filters != nil {
		*f.filters = filters
	}
	return f.file, f.err
}

func (f fakeDialogs) SaveFile(title, defaultName string, filters []FileFilter) (string, error) {
	if f.filters != nil {
		*f.filters = filters
	}
	if f.saveDir == "" || f.err != nil {
		return "", f.err
	}
	return filepath.Join(f.saveDir, defaultName), nil
}

func newTestApp(t *testing.T) (*App, string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	return NewApp(home, fakeDialogs{}, &events.Recorder{}), home
}

// codeOfErr is the code the window receives for err.
func codeOfErr(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	return errs.From(err).Code
}

func TestVersionMatchesWailsJSON(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "wails.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Info struct {
			ProductVersion string `json:"productVersion"`
		} `json:"info"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	ta, _ := newTestApp(t)
	if got := ta.System.Version(); got != cfg.Info.ProductVersion {
		t.Fatalf("Version() = %q, wails.json info.productVersion = %q", got, cfg.Info.ProductVersion)
	}
}

func TestOpenProjectLifecycle(t *testing.T) {
	ta, home := newTestApp(t)
	if ta.System.HomeDir() != home {
		t.Fatalf("HomeDir() = %q, want %q", ta.System.HomeDir(), home)
	}
	recent, err := ta.Projects.Recent()
	if err != nil || recent == nil || len(recent) != 0 {
		t.Fatalf("RecentProjects() on a fresh home = %#v, %v; want an empty, non-nil list", recent, err)
	}
	if cur, err := ta.Projects.Current(); cur != nil || err != nil {
		t.Fatalf("CurrentProject() before opening = %v, %v", cur, err)
	}

	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	info, err := ta.Projects.Open(root)
	if err != nil {
		t.Fatalf("OpenProject: %v", err)
	}
	if info.Root != root || info.Name != filepath.Base(root) || info.ID == "" {
		t.Fatalf("OpenProject returned %+v", info)
	}
	if info.DataDir != project.DataDir(home, info.ID) {
		t.Fatalf("DataDir = %q, want %q", info.DataDir, project.DataDir(home, info.ID))
	}
	if _, err := os.Stat(filepath.Join(root, project.MetaFileName)); err != nil {
		t.Fatalf("identity file not written: %v", err)
	}
	cur, err := ta.Projects.Current()
	if err != nil || cur == nil || *cur != info {
		t.Fatalf("CurrentProject() = %+v, %v; want %+v", cur, err, info)
	}
	recent, err = ta.Projects.Recent()
	if err != nil || len(recent) != 1 || recent[0].Root != root || !recent[0].Exists {
		t.Fatalf("RecentProjects() after open = %+v, %v", recent, err)
	}

	// Reopening gives the same identity.
	again, err := ta.Projects.Open(root)
	if err != nil || again.ID != info.ID {
		t.Fatalf("reopen = %+v, %v; want id %s", again, err, info.ID)
	}

	if err := ta.Projects.Close(); err != nil {
		t.Fatal(err)
	}
	if cur, _ := ta.Projects.Current(); cur != nil {
		t.Fatalf("CurrentProject() after close = %+v", cur)
	}
	if err := ta.Projects.ForgetRecent(root); err != nil {
		t.Fatal(err)
	}
	if recent, _ := ta.Projects.Recent(); len(recent) != 0 {
		t.Fatalf("RecentProjects() after forget = %+v", recent)
	}
}

func TestCreateProject(t *testing.T) {
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(parent, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, parent, project string
		wantCode              string
	}{
		{"new folder", parent, "fresh", ""},
		{"name with a slash", parent, "a/b", project.CodeNameInvalid},
		{"empty name", parent, " ", project.CodeNameInvalid},
		{"existing folder", parent, "taken", project.CodeExists},
		{"missing parent", filepath.Join(parent, "nope"), "x", project.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta, _ := newTestApp(t)
			info, err := ta.Projects.Create(tt.parent, tt.project)
			if tt.wantCode != "" {
				if got := codeOfErr(t, err); got != tt.wantCode {
					t.Fatalf("code = %s, want %s (%v)", got, tt.wantCode, err)
				}
				if cur, _ := ta.Projects.Current(); cur != nil {
					t.Fatalf("a failed create made %+v current", cur)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Root != filepath.Join(parent, tt.project) {
				t.Fatalf("root = %q", info.Root)
			}
			if cur, _ := ta.Projects.Current(); cur == nil || cur.ID != info.ID {
				t.Fatalf("CurrentProject() = %+v", cur)
			}
		})
	}
}

func TestOpenProjectErrorsCarryCodes(t *testing.T) {
	ta, _ := newTestApp(t)
	missing := filepath.Join(t.TempDir(), "missing")
	_, err := ta.Projects.Open(missing)
	if got := codeOfErr(t, err); got != project.CodeNotFound {
		t.Fatalf("code = %s, want %s", got, project.CodeNotFound)
	}
	wire, ok := FormatError(err).(string)
	if !ok || !regexp.MustCompile(`^E_PROJECT_NOT_FOUND: .*missing`).MatchString(wire) {
		t.Fatalf("FormatError = %#v", FormatError(err))
	}

	file := filepath.Join(t.TempDir(), "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ta.Projects.Open(file)
	if got := codeOfErr(t, err); got != project.CodeNotDir {
		t.Fatalf("code for a file = %s, want %s", got, project.CodeNotDir)
	}
}

func TestFormatError(t *testing.T) {
	projErr := &project.Error{Code: project.CodeIO, Message: "disk full"}
	tests := []struct {
		name     string
		in       error
		wantText string
	}{
		{"project error", projErr, "E_PROJECT_IO: disk full"},
		{"wrapped project error", fmt.Errorf("saving: %w", projErr), "E_PROJECT_IO: saving: disk full"},
		{"app error kept", errs.New(errs.NoProject, "open a project first"), "E_NO_PROJECT: open a project first"},
		{"plain error", errors.New("boom"), "E_INTERNAL: boom"},
		{"a message from a template", errs.Msg(errs.ProjectNotFound, "project.notFound", errs.Params{"path": "/p"}),
			"E_PROJECT_NOT_FOUND: folder /p does not exist" + WireSeparator + `{"key":"project.notFound","params":{"path":"/p"}}`},
		{"wrapped with words: the words only", fmt.Errorf("opening: %w", errs.Msg(errs.ProjectNotFound, "project.notFound", errs.Params{"path": "/p"})),
			"E_PROJECT_NOT_FOUND: opening: folder /p does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatError(tt.in); got != tt.wantText {
				t.Fatalf("FormatError = %v, want %q", got, tt.wantText)
			}
		})
	}
}

func TestChooseFolder(t *testing.T) {
	tests := []struct {
		name     string
		dialogs  fakeDialogs
		want     string
		wantCode string
	}{
		{"chosen", fakeDialogs{dir: "/some/dir"}, "/some/dir", ""},
		{"cancelled", fakeDialogs{}, "", ""},
		{"coded failure", fakeDialogs{err: errs.New(errs.Dialog, "no display")}, "", errs.Dialog},
		{"uncoded failure", fakeDialogs{err: errors.New("gtk")}, "", errs.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := NewApp(t.TempDir(), tt.dialogs, nil)
			got, err := ta.Projects.ChooseFolder()
			if tt.wantCode != "" {
				if c := codeOfErr(t, err); c != tt.wantCode {
					t.Fatalf("code = %s, want %s", c, tt.wantCode)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ChooseFolder() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPlatformBeforeStartup(t *testing.T) {
	var p wailsPlatform
	if _, err := p.ChooseFolder("t", ""); codeOfErr(t, err) != errs.Dialog {
		t.Fatalf("ChooseFolder before startup: %v", err)
	}
	p.Emit("context:usage", nil) // dropped, must not panic
}

// The committed TypeScript bindings must declare exactly the bound methods
// of every bound struct (regenerate with `wails generate module -tags webkit2_41`).
func TestBindingsMatchBoundMethods(t *testing.T) {
	bound := boundStructs(NewApp(t.TempDir(), fakeDialogs{}, nil))
	dir := filepath.Join("..", "..", "frontend", "wailsjs", "go", "desktop")
	files, err := filepath.Glob(filepath.Join(dir, "*.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(bound) {
		t.Fatalf("%s holds %d binding files, %d structs are bound; regenerate the bindings", dir, len(files), len(bound))
	}
	for _, v := range bound {
		typ := reflect.TypeOf(v)
		data, err := os.ReadFile(filepath.Join(dir, typ.Elem().Name()+".d.ts"))
		if err != nil {
			t.Fatal(err)
		}
		var declared, methods []string
		for _, m := range regexp.MustCompile(`(?m)^export function (\w+)\(`).FindAllStringSubmatch(string(data), -1) {
			declared = append(declared, m[1])
		}
		for i := range typ.NumMethod() {
			methods = append(methods, typ.Method(i).Name)
		}
		slices.Sort(declared)
		slices.Sort(methods)
		if !slices.Equal(declared, methods) {
			t.Fatalf("%s.d.ts declares %v, %s has %v; regenerate the bindings", typ.Elem().Name(), declared, typ.Elem().Name(), methods)
		}
	}
}

// boundStructs are the structs the window binds: every exported field of App.
func boundStructs(a *App) []any {
	v := reflect.ValueOf(a).Elem()
	var out []any
	for i := range v.NumField() {
		if v.Type().Field(i).IsExported() {
			out = append(out, v.Field(i).Interface())
		}
	}
	return out
}
