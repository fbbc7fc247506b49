package main

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

	"crewagent/backend/events"
	"crewagent/backend/project"
)

type fakeDialogs struct {
	dir  string
	file string
	err  error
	// filters receives the filters of each ChooseFile call when not nil.
	filters *[]FileFilter
}

func (f fakeDialogs) ChooseFolder(title, defaultDir string) (string, error) { return f.dir, f.err }

func (f fakeDialogs) ChooseFile(title, defaultDir string, filters []FileFilter) (string, error) {
	if f.filters != nil {
		*f.filters = filters
	}
	return f.file, f.err
}

func newTestApp(t *testing.T) (*App, string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	return NewApp(home, fakeDialogs{}, &events.Recorder{}), home
}

func codeOfErr(t *testing.T, err error) string {
	t.Helper()
	var ae *AppError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *AppError", err, err)
	}
	return ae.Code
}

func TestVersionMatchesWailsJSON(t *testing.T) {
	data, err := os.ReadFile("wails.json")
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
	app, _ := newTestApp(t)
	if got := app.Version(); got != cfg.Info.ProductVersion {
		t.Fatalf("Version() = %q, wails.json info.productVersion = %q", got, cfg.Info.ProductVersion)
	}
}

func TestOpenProjectLifecycle(t *testing.T) {
	app, home := newTestApp(t)
	if app.HomeDir() != home {
		t.Fatalf("HomeDir() = %q, want %q", app.HomeDir(), home)
	}
	recent, err := app.RecentProjects()
	if err != nil || recent == nil || len(recent) != 0 {
		t.Fatalf("RecentProjects() on a fresh home = %#v, %v; want an empty, non-nil list", recent, err)
	}
	if cur, err := app.CurrentProject(); cur != nil || err != nil {
		t.Fatalf("CurrentProject() before opening = %v, %v", cur, err)
	}

	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	info, err := app.OpenProject(root)
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
	cur, err := app.CurrentProject()
	if err != nil || cur == nil || *cur != info {
		t.Fatalf("CurrentProject() = %+v, %v; want %+v", cur, err, info)
	}
	recent, err = app.RecentProjects()
	if err != nil || len(recent) != 1 || recent[0].Root != root || !recent[0].Exists {
		t.Fatalf("RecentProjects() after open = %+v, %v", recent, err)
	}

	// Reopening gives the same identity.
	again, err := app.OpenProject(root)
	if err != nil || again.ID != info.ID {
		t.Fatalf("reopen = %+v, %v; want id %s", again, err, info.ID)
	}

	if err := app.CloseProject(); err != nil {
		t.Fatal(err)
	}
	if cur, _ := app.CurrentProject(); cur != nil {
		t.Fatalf("CurrentProject() after close = %+v", cur)
	}
	if err := app.ForgetRecent(root); err != nil {
		t.Fatal(err)
	}
	if recent, _ := app.RecentProjects(); len(recent) != 0 {
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
			app, _ := newTestApp(t)
			info, err := app.CreateProject(tt.parent, tt.project)
			if tt.wantCode != "" {
				if got := codeOfErr(t, err); got != tt.wantCode {
					t.Fatalf("code = %s, want %s (%v)", got, tt.wantCode, err)
				}
				if cur, _ := app.CurrentProject(); cur != nil {
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
			if cur, _ := app.CurrentProject(); cur == nil || cur.ID != info.ID {
				t.Fatalf("CurrentProject() = %+v", cur)
			}
		})
	}
}

func TestOpenProjectErrorsCarryCodes(t *testing.T) {
	app, _ := newTestApp(t)
	missing := filepath.Join(t.TempDir(), "missing")
	_, err := app.OpenProject(missing)
	if got := codeOfErr(t, err); got != project.CodeNotFound {
		t.Fatalf("code = %s, want %s", got, project.CodeNotFound)
	}
	wire, ok := formatError(err).(string)
	if !ok || !regexp.MustCompile(`^E_PROJECT_NOT_FOUND: .*missing`).MatchString(wire) {
		t.Fatalf("formatError = %#v", formatError(err))
	}

	file := filepath.Join(t.TempDir(), "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = app.OpenProject(file)
	if got := codeOfErr(t, err); got != project.CodeNotDir {
		t.Fatalf("code for a file = %s, want %s", got, project.CodeNotDir)
	}
}

func TestToAppError(t *testing.T) {
	projErr := &project.Error{Code: project.CodeIO, Message: "disk full"}
	tests := []struct {
		name     string
		in       error
		wantCode string
		wantText string
	}{
		{"project error", projErr, project.CodeIO, "E_PROJECT_IO: disk full"},
		{"wrapped project error", fmt.Errorf("saving: %w", projErr), project.CodeIO, "E_PROJECT_IO: saving: disk full"},
		{"app error kept", &AppError{Code: CodeNoProject, Message: "open a project first"}, CodeNoProject, "E_NO_PROJECT: open a project first"},
		{"plain error", errors.New("boom"), CodeInternal, "E_INTERNAL: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toAppError(tt.in)
			if c := codeOfErr(t, got); c != tt.wantCode {
				t.Fatalf("code = %s, want %s", c, tt.wantCode)
			}
			if got.Error() != tt.wantText || formatError(tt.in) != tt.wantText {
				t.Fatalf("text = %q / %v, want %q", got.Error(), formatError(tt.in), tt.wantText)
			}
		})
	}
	if toAppError(nil) != nil {
		t.Fatal("toAppError(nil) != nil")
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
		{"coded failure", fakeDialogs{err: &AppError{Code: CodeDialog, Message: "no display"}}, "", CodeDialog},
		{"uncoded failure", fakeDialogs{err: errors.New("gtk")}, "", CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := NewApp(t.TempDir(), tt.dialogs, nil)
			got, err := app.ChooseFolder()
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
	if _, err := p.ChooseFolder("t", ""); codeOfErr(t, err) != CodeDialog {
		t.Fatalf("ChooseFolder before startup: %v", err)
	}
	p.Emit("context:usage", nil) // dropped, must not panic
}

// The committed TypeScript bindings must declare exactly the bound methods
// (regenerate with `wails generate module -tags webkit2_41`).
func TestBindingsMatchBoundMethods(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("frontend", "wailsjs", "go", "main", "App.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, m := range regexp.MustCompile(`(?m)^export function (\w+)\(`).FindAllStringSubmatch(string(data), -1) {
		declared = append(declared, m[1])
	}
	var bound []string
	typ := reflect.TypeOf(&App{})
	for i := range typ.NumMethod() {
		bound = append(bound, typ.Method(i).Name)
	}
	slices.Sort(declared)
	slices.Sort(bound)
	if !slices.Equal(declared, bound) {
		t.Fatalf("frontend/wailsjs/go/main/App.d.ts declares %v, App has %v; regenerate the bindings", declared, bound)
	}
}
