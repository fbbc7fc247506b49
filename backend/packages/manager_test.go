package packages

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"crewagent/backend/errs"
)

var fixedNow = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

const demoID = "crewagent-demo@1.0.0"

func TestPackageID(t *testing.T) {
	cases := []struct{ name, version, want string }{
		{"crewagent-demo", "1.0.0", "crewagent-demo@1.0.0"},
		{"Demo Writing", "1.0.0+build.5", "demo-writing@1.0.0-build.5"},
		{"../../etc", "1.0.0", "etc@1.0.0"},
		{".hidden", "2.0.0-RC.1", "hidden@2.0.0-rc.1"},
		{"a/b\\c:d", "1.2.3", "a-b-c-d@1.2.3"},
		{"Übersicht", "1.0.0", "übersicht@1.0.0"},
		{"U\u0308bersicht", "1.0.0", "übersicht@1.0.0"}, // decomposed form: the same id
		{"需求分析 Demo", "0.1.0", "需求分析-demo@0.1.0"},
		{"数据 Demo", "0.1.0", "数据-demo@0.1.0"},
		{"Анализ требований", "1.0.0", "анализ-требований@1.0.0"},
		{"हिन्दी", "1.0.0", "हिन्दी@1.0.0"},
		{"", "", "package@0.0.0"},
		{"???", "1.0.0", "package-a03b221c@1.0.0"},
		{"🚀🚀", "1.0.0", "package-" + nameHash("🚀🚀") + "@1.0.0"},
	}
	for _, c := range cases {
		if got := PackageID(c.name, c.version); got != c.want {
			t.Errorf("PackageID(%q, %q) = %q, want %q", c.name, c.version, got, c.want)
		}
	}
	long := PackageID(string(make([]byte, 0))+"x"+string(bytesOf('a', 200)), "1.0.0")
	if len(long) > maxIDName+1+len("1.0.0") {
		t.Errorf("long name not capped: %d", len(long))
	}
	// Long names that share their beginning stay apart, and are cut between characters.
	cjk := strings.Repeat("需求分析", 10)
	a, b := PackageID(cjk+"甲", "1.0.0"), PackageID(cjk+"乙", "1.0.0")
	if a == b || !utf8.ValidString(a) || len(a) > maxIDName+1+len("1.0.0") {
		t.Errorf("long CJK names: %q and %q", a, b)
	}
}

// FuzzPackageID: any name gives a valid, bounded id without path separators, the same one
// every time.
func FuzzPackageID(f *testing.F) {
	for _, s := range []string{"需求分析 Demo", "Demo", "../..", "🚀", "a/b", strings.Repeat("é", 80)} {
		f.Add(s, "1.0.0")
	}
	f.Fuzz(func(t *testing.T, name, version string) {
		id := PackageID(name, version)
		if id != PackageID(name, version) || !utf8.ValidString(id) {
			t.Fatalf("unstable or invalid id %q", id)
		}
		n, v, ok := strings.Cut(id, "@")
		if !ok || n == "" || v == "" || len(n) > maxIDName || len(v) > maxIDVersion {
			t.Fatalf("id %q out of shape", id)
		}
		if strings.ContainsAny(id, "/\\:") || n == "." || n == ".." || !filepath.IsLocal(id) {
			t.Fatalf("id %q is not a plain folder name", id)
		}
	})
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// demoSources writes the demo in every accepted form and returns the paths.
func demoSources(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	files := demoFileMap(t)
	zipPath := filepath.Join(dir, "demo.zip")
	files.writeZip(t, zipPath, "")
	bmadPath := filepath.Join(dir, "demo.bmad")
	if err := WriteDemo(bmadPath); err != nil {
		t.Fatal(err)
	}
	wrapped := filepath.Join(dir, "wrapped.zip")
	files["__MACOSX/._bmad.json"] = []byte("junk")
	files["steps/.DS_Store"] = []byte("junk")
	delete(files, "steps/.DS_Store")
	files.writeZip(t, wrapped, "crewagent-demo/")
	folder := filepath.Join(dir, "folder")
	demoFileMap(t).writeDir(t, folder)
	return map[string]string{"zip": zipPath, "bmad": bmadPath, "folder": folder, "zip with top folder": wrapped}
}

func TestImportDemo(t *testing.T) {
	for kind, src := range demoSources(t) {
		t.Run(kind, func(t *testing.T) {
			home := newHome(t)
			m := NewManager(home, WithClock(fixedClock))
			inst, err := m.Import(src)
			if err != nil {
				t.Fatal(err)
			}
			want := Installed{
				ID:          demoID,
				Name:        DemoName,
				Version:     "1.0.0",
				Description: "Turn a rough idea into a one-page project brief, with an analyst who asks the right questions and a writer who drafts the brief.",
				InstalledAt: fixedNow,
				Path:        "packages/" + demoID,
				Workflows: []WorkflowInfo{{
					ID:          "write-brief",
					DisplayName: "Write a project brief",
					Description: "Capture a rough idea, clarify it if needed, and write a one-page project brief to artifacts/project-brief.md.",
				}},
				Agents: []AgentInfo{
					{ID: "analyst", Name: "Mara", Title: "Product Analyst", Icon: "🔍"},
					{ID: "writer", Name: "Theo", Title: "Brief Writer", Icon: "✍️"},
				},
			}
			if !reflect.DeepEqual(*inst, want) {
				t.Fatalf("installed record\n got %+v\nwant %+v", *inst, want)
			}
			if got := packageDirs(t, home); !reflect.DeepEqual(got, []string{demoID}) {
				t.Fatalf("packages/ holds %v", got)
			}
			checkRegistryGolden(t, home)
			checkReadOnly(t, filepath.Join(home, "packages", demoID))
			list, err := m.List()
			if err != nil || len(list) != 1 || list[0].ID != demoID {
				t.Fatalf("List = %v, %v", list, err)
			}
			got, err := m.Get(demoID)
			if err != nil || !reflect.DeepEqual(*got, want) {
				t.Fatalf("Get = %+v, %v", got, err)
			}
		})
	}
}

// checkRegistryGolden compares packages.json with testdata/golden/packages.json.
func checkRegistryGolden(t *testing.T, home string) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(home, registryFileName))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "golden", "packages.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("packages.json differs from %s\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
	// The shape callers rely on, independent of the golden file.
	var doc struct {
		Packages []map[string]json.RawMessage `json:"packages"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"id", "name", "version", "description", "installedAt", "path", "workflows", "agents"} {
		if _, ok := doc.Packages[0][key]; !ok {
			t.Errorf("packages.json record lacks %q", key)
		}
	}
}

func checkReadOnly(t *testing.T, root string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := installedFileMode
		if d.IsDir() {
			want = installedDirMode
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, info.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("only %d entries under %s", n, root)
	}
	if os.Geteuid() != 0 {
		if err := os.WriteFile(filepath.Join(root, "bmad.json"), []byte("{}"), 0o644); err == nil {
			t.Error("an installed file is writable")
		}
		if err := os.WriteFile(filepath.Join(root, "new.txt"), []byte("x"), 0o644); err == nil {
			t.Error("an installed folder is writable")
		}
	}
}

func TestImportSingleLayout(t *testing.T) {
	dir := t.TempDir()
	files := readTree(t, os.DirFS(filepath.Join("testdata", "single")))
	zipPath := filepath.Join(dir, "single.zip")
	files.writeZip(t, zipPath, "")
	wrapped := filepath.Join(dir, "wrapped.bmad")
	files.writeZip(t, wrapped, "single/")
	for kind, src := range map[string]string{"folder": filepath.Join("testdata", "single"), "zip": zipPath, "zip with top folder": wrapped} {
		t.Run(kind, func(t *testing.T) {
			m := NewManager(newHome(t))
			inst, err := m.Import(src)
			if err != nil {
				t.Fatal(err)
			}
			if inst.ID != "single-layout-sample@0.2.0-beta.1" {
				t.Fatalf("id %q", inst.ID)
			}
			if len(inst.Warnings) != 0 {
				t.Errorf("warnings: %v", inst.Warnings)
			}
			pkg, err := m.Load(inst.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(pkg.Workflows) != 1 {
				t.Fatalf("workflows: %+v", pkg.Workflows)
			}
			wf := pkg.DefaultWorkflow()
			if wf.ID != "say-hello" || wf.DisplayName != "Say hello" || !wf.Default {
				t.Errorf("workflow %q %q default=%v", wf.ID, wf.DisplayName, wf.Default)
			}
			if wf.Graph.Node("greet").File != "steps/greet.md" || wf.Steps["done"].Path != "steps/done.md" {
				t.Errorf("node files not package-relative: %+v", wf.Graph.Nodes)
			}
			a := pkg.Agent("greeter")
			if a == nil {
				t.Fatal("agent greeter missing")
			}
			if !a.Tools.FS.Enabled || a.Tools.MCP.Enabled || a.Tools.FS.MaxReadBytes != 0 || !a.Tools.Shell.Enabled {
				t.Errorf("default tool policy not applied: %+v", a.Tools)
			}
			if !reflect.DeepEqual(a.Persona.Principles, Principles{"Be kind.\nBe brief."}) {
				t.Errorf("principles %#v", a.Persona.Principles)
			}
		})
	}
}

func TestLoadDemo(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	if _, err := m.EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	pkg, err := m.Load(demoID)
	if err != nil {
		t.Fatal(err)
	}
	wantRoot, _ := filepath.Abs(filepath.Join(home, "packages", demoID))
	if pkg.ID != demoID || pkg.Root != wantRoot {
		t.Fatalf("ID %q Root %q", pkg.ID, pkg.Root)
	}
	if pkg.Manifest.Entry.AssetsDir != "assets/" || pkg.Manifest.Runtime == nil || pkg.Manifest.Runtime.MinRuntimeVersion != "0.1.0" {
		t.Errorf("manifest %+v", pkg.Manifest)
	}
	analyst := pkg.Agent("analyst")
	if analyst == nil || analyst.Persona.Role == "" || len(analyst.Persona.Principles) != 4 || len(analyst.CriticalActions) != 2 {
		t.Fatalf("analyst %+v", analyst)
	}
	if !reflect.DeepEqual(analyst.Tools, ToolPolicy{FS: FSPolicy{Enabled: true, MaxWriteBytes: 262144}, MCP: MCPPolicy{}, Shell: ShellPolicy{Enabled: true}}) {
		t.Errorf("analyst tools %+v", analyst.Tools)
	}
	writer := pkg.Agent("writer")
	if writer == nil || len(writer.Persona.Principles) != 1 || writer.Persona.Principles.String() == "" {
		t.Fatalf("writer principles %#v", writer)
	}
	if pkg.Agent("nobody") != nil || pkg.Workflow("nothing") != nil {
		t.Error("unknown ids found")
	}

	wf := pkg.Workflow("write-brief")
	g := wf.Graph
	if g.SchemaVersion != "1.1" || g.EntryNodeID != "capture-idea" {
		t.Errorf("graph header %q %q", g.SchemaVersion, g.EntryNodeID)
	}
	n := g.Node("draft-brief")
	if n == nil || n.Type != NodeStep || n.AgentID != "writer" || n.Title != "Draft the brief" ||
		!reflect.DeepEqual(n.Outputs, []string{"@project/artifacts/project-brief.md"}) || len(n.Inputs) != 2 {
		t.Fatalf("node %+v", n)
	}
	if _, err := os.Stat(filepath.Join(pkg.Root, filepath.FromSlash(n.File))); err != nil {
		t.Errorf("node file not found under Root: %v", err)
	}
	if g.Node("missing") != nil {
		t.Error("Node(missing) != nil")
	}
	out := g.OutgoingEdges("check-clarity")
	if len(out) != 2 || out[0].To != "clarify-idea" || out[1].To != "draft-brief" || !out[1].IsDefault ||
		out[0].ConditionText != "variables.ideaClear == false" || out[0].ConditionExpr["=="] == nil || out[0].ID != "check-to-clarify" {
		t.Fatalf("outgoing edges %+v", out)
	}
	if len(g.OutgoingEdges("end")) != 0 || !g.IsEnd("end") || g.IsEnd("draft-brief") || g.IsEnd("nope") {
		t.Error("end helpers wrong")
	}
	st := wf.Steps["check-clarity"]
	if st.Type != NodeDecision || len(st.Transitions) != 2 || st.Transitions[1].To != "draft-brief" || !st.Transitions[1].IsDefault {
		t.Errorf("step %+v", st)
	}
	if wf.State["workflowType"] != "write-brief" || wf.StateBody == "" {
		t.Errorf("state %v", wf.State)
	}
}

func TestReimportReplacesCleanly(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	dir := t.TempDir()
	files := demoFileMap(t)
	files["assets/old-only.txt"] = []byte("from the first import")
	first := filepath.Join(dir, "first.bmad")
	files.writeZip(t, first, "")
	if _, err := m.Import(first); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.bmad")
	single := readTree(t, os.DirFS(filepath.Join("testdata", "single")))
	single.writeZip(t, other, "")
	if _, err := m.Import(other); err != nil {
		t.Fatal(err)
	}

	files = demoFileMap(t)
	files.patchJSON(t, "bmad.json", func(m map[string]any) { m["description"] = "second import" })
	second := filepath.Join(dir, "second.bmad")
	files.writeZip(t, second, "")
	inst, err := m.Import(second, Replace())
	if err != nil {
		t.Fatal(err)
	}
	if inst.Description != "second import" {
		t.Fatalf("description %q", inst.Description)
	}
	list, _ := m.List()
	if len(list) != 2 || list[0].ID != demoID || list[0].Description != "second import" || list[1].ID != "single-layout-sample@0.2.0-beta.1" {
		t.Fatalf("registry after re-import: %+v", list)
	}
	root := filepath.Join(home, "packages", demoID)
	if _, err := os.Stat(filepath.Join(root, "assets", "old-only.txt")); !os.IsNotExist(err) {
		t.Errorf("file of the replaced version survived (err=%v)", err)
	}
	if got := packageDirs(t, home); !reflect.DeepEqual(got, []string{demoID, "single-layout-sample@0.2.0-beta.1"}) {
		t.Errorf("packages/ holds %v", got)
	}
	checkReadOnly(t, root)
}

func TestVersionsLiveSideBySide(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	files := demoFileMap(t)
	files.patchJSON(t, "bmad.json", func(m map[string]any) { m["version"] = "1.1.0" })
	p := filepath.Join(t.TempDir(), "v11.bmad")
	files.writeZip(t, p, "")
	if _, err := m.EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Import(p); err != nil {
		t.Fatal(err)
	}
	list, _ := m.List()
	if len(list) != 2 || list[1].ID != "crewagent-demo@1.1.0" {
		t.Fatalf("list %+v", list)
	}
	if _, err := m.Load("crewagent-demo@1.1.0"); err != nil {
		t.Fatal(err)
	}
}

// injected is the error of the failure points.
var injected = errors.New("injected failure")

// failPoints sets each failure hook of an import to return err, by stage.
func failPoints(err error) map[string]func(h *failHooks) {
	fail := func() error { return err }
	return map[string]func(h *failHooks){
		"after extract":         func(h *failHooks) { h.afterExtract = fail },
		"before install":        func(h *failHooks) { h.beforeInstall = fail },
		"before registry write": func(h *failHooks) { h.beforeRegistryWrite = fail },
	}
}

func TestFailedImportLeavesNothingBehind(t *testing.T) {
	src := filepath.Join(t.TempDir(), "demo.bmad")
	if err := WriteDemo(src); err != nil {
		t.Fatal(err)
	}
	for name, set := range failPoints(injected) {
		t.Run(name, func(t *testing.T) {
			home := newHome(t)
			m := NewManager(home)
			set(&m.hooks)
			if _, err := m.Import(src); !errors.Is(err, injected) {
				t.Fatalf("err = %v", err)
			}
			assertPristine(t, home)
		})
	}
	t.Run("registry cannot be written", func(t *testing.T) {
		home := newHome(t)
		m := NewManager(home)
		// After the registry was read, something occupies its path that a rename cannot
		// replace (a non-empty folder), so the write fails for real.
		m.hooks.beforeRegistryWrite = func() error {
			return os.MkdirAll(filepath.Join(home, registryFileName, "occupied"), 0o755)
		}
		_, err := m.Import(src)
		if errs.CodeOf(err) != CodeRegistry {
			t.Fatalf("want %s, got %v", CodeRegistry, err)
		}
		os.RemoveAll(filepath.Join(home, registryFileName))
		assertPristine(t, home)
		if leftovers, _ := filepath.Glob(filepath.Join(home, ".packages.json.*")); len(leftovers) > 0 {
			t.Errorf("temporary registry files left: %v", leftovers)
		}
	})
}

func TestFailedReimportKeepsThePreviousInstall(t *testing.T) {
	for name, set := range failPoints(injected) {
		t.Run(name, func(t *testing.T) {
			home := newHome(t)
			m := NewManager(home, WithClock(fixedClock))
			if _, err := m.EnsureDemo(); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(filepath.Join(home, registryFileName))
			files := demoFileMap(t)
			files.patchJSON(t, "bmad.json", func(m map[string]any) { m["description"] = "changed" })
			files["assets/new.txt"] = []byte("new")
			p := filepath.Join(t.TempDir(), "changed.bmad")
			files.writeZip(t, p, "")
			set(&m.hooks)
			if _, err := m.Import(p, Replace()); !errors.Is(err, injected) {
				t.Fatalf("err = %v", err)
			}
			after, _ := os.ReadFile(filepath.Join(home, registryFileName))
			if string(before) != string(after) {
				t.Errorf("registry changed:\n%s", after)
			}
			if got := packageDirs(t, home); !reflect.DeepEqual(got, []string{demoID}) {
				t.Errorf("packages/ holds %v", got)
			}
			root := filepath.Join(home, "packages", demoID)
			if _, err := os.Stat(filepath.Join(root, "assets", "new.txt")); !os.IsNotExist(err) {
				t.Error("files of the failed import are installed")
			}
			pkg, err := m.Load(demoID)
			if err != nil {
				t.Fatal(err)
			}
			if pkg.Manifest.Description == "changed" {
				t.Error("previous install was replaced")
			}
			checkReadOnly(t, root)
		})
	}
}

func TestInvalidPackageLeavesNothingBehind(t *testing.T) {
	home := newHome(t)
	files := demoFileMap(t)
	delete(files, demoStep)
	dir := t.TempDir()
	files.writeDir(t, dir)
	_, err := NewManager(home).Import(dir)
	validationProblems(t, err)
	assertPristine(t, home)
}

func TestUnusableRegistryStopsImport(t *testing.T) {
	src := filepath.Join(t.TempDir(), "demo.bmad")
	if err := WriteDemo(src); err != nil {
		t.Fatal(err)
	}
	t.Run("corrupt", func(t *testing.T) {
		home := newHome(t)
		reg := filepath.Join(home, registryFileName)
		os.WriteFile(reg, []byte("{not json"), 0o644)
		m := NewManager(home)
		_, err := m.Import(src)
		if errs.CodeOf(err) != CodeRegistry || !errors.Is(err, ErrRegistry) {
			t.Fatalf("err = %v", err)
		}
		if b, _ := os.ReadFile(reg); string(b) != "{not json" {
			t.Error("corrupt registry was overwritten")
		}
		if entries, _ := os.ReadDir(filepath.Join(home, packagesDirName)); len(entries) != 0 {
			t.Errorf("packages/ not empty: %v", entries)
		}
		if _, err := m.List(); errs.CodeOf(err) != CodeRegistry {
			t.Errorf("List err = %v", err)
		}
		if _, err := m.EnsureDemo(); errs.CodeOf(err) != CodeRegistry {
			t.Errorf("EnsureDemo err = %v", err)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		home := newHome(t)
		os.MkdirAll(filepath.Join(home, registryFileName), 0o755)
		_, err := NewManager(home).Import(src)
		if errs.CodeOf(err) != CodeRegistry {
			t.Fatalf("err = %v", err)
		}
		if entries, _ := os.ReadDir(filepath.Join(home, packagesDirName)); len(entries) != 0 {
			t.Errorf("packages/ not empty: %v", entries)
		}
	})
	t.Run("read-only home", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("permissions do not apply to root")
		}
		home := newHome(t)
		m := NewManager(home)
		if _, err := m.EnsureDemo(); err != nil {
			t.Fatal(err)
		}
		os.Chmod(home, 0o555)
		defer os.Chmod(home, 0o755)
		files := demoFileMap(t)
		files.patchJSON(t, "bmad.json", func(m map[string]any) { m["version"] = "2.0.0" })
		p := filepath.Join(t.TempDir(), "v2.bmad")
		files.writeZip(t, p, "")
		if _, err := m.Import(p); errs.CodeOf(err) != CodeRegistry {
			t.Fatalf("err = %v", err)
		}
		if got := packageDirs(t, home); !reflect.DeepEqual(got, []string{demoID}) {
			t.Errorf("packages/ holds %v", got)
		}
	})
}

func TestEnsureDemoIsIdempotent(t *testing.T) {
	home := newHome(t)
	now := fixedNow
	m := NewManager(home, WithClock(func() time.Time { return now }))
	first, err := m.EnsureDemo()
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	second, err := m.EnsureDemo()
	if err != nil {
		t.Fatal(err)
	}
	if !first.InstalledAt.Equal(second.InstalledAt) {
		t.Error("EnsureDemo reinstalled an installed demo")
	}
	if list, _ := m.List(); len(list) != 1 {
		t.Fatalf("list %+v", list)
	}
	// A newer demo version installed by the user counts as installed.
	files := demoFileMap(t)
	files.patchJSON(t, "bmad.json", func(m map[string]any) { m["version"] = "9.0.0" })
	p := filepath.Join(t.TempDir(), "v9.bmad")
	files.writeZip(t, p, "")
	if err := m.Remove(demoID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Import(p); err != nil {
		t.Fatal(err)
	}
	got, err := m.EnsureDemo()
	if err != nil || got.Version != "9.0.0" {
		t.Fatalf("EnsureDemo = %+v, %v", got, err)
	}
	// A registered demo whose folder vanished is installed again.
	if err := removeAllForce(filepath.Join(home, "packages", "crewagent-demo@9.0.0")); err != nil {
		t.Fatal(err)
	}
	got, err = m.EnsureDemo()
	if err != nil || got.ID != demoID {
		t.Fatalf("EnsureDemo after deletion = %+v, %v", got, err)
	}
	if _, err := m.Load(demoID); err != nil {
		t.Fatal(err)
	}
}

func TestNotFoundAndRemove(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	if _, err := m.Get("nope@1.0.0"); errs.CodeOf(err) != CodeNotFound || !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get err = %v", err)
	}
	if _, err := m.Load("nope@1.0.0"); errs.CodeOf(err) != CodeNotFound {
		t.Fatalf("Load err = %v", err)
	}
	if err := m.Remove("nope@1.0.0"); errs.CodeOf(err) != CodeNotFound {
		t.Fatalf("Remove err = %v", err)
	}
	if list, err := m.List(); err != nil || len(list) != 0 || list == nil {
		t.Fatalf("empty List = %#v, %v", list, err)
	}
	if _, err := m.EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(demoID); err != nil {
		t.Fatal(err)
	}
	if list, _ := m.List(); len(list) != 0 {
		t.Fatalf("list after remove %+v", list)
	}
	if got := packageDirs(t, home); len(got) != 0 {
		t.Fatalf("packages/ holds %v", got)
	}
}

// A demo package the user removed stays removed at the next start, until they install it
// again (InstallDemo, or an import of a package of that name).
func TestRemovedDemoStaysRemoved(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	if _, err := m.EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(demoID); err != nil {
		t.Fatal(err)
	}
	// a fresh manager, as at the next start
	m = NewManager(home)
	if inst, err := m.EnsureDemo(); !errors.Is(err, ErrDemoRemoved) || inst != nil {
		t.Fatalf("EnsureDemo after removal = %+v, %v", inst, err)
	}
	if list, _ := m.List(); len(list) != 0 {
		t.Fatalf("the removed demo came back: %+v", list)
	}
	inst, err := m.InstallDemo()
	if err != nil || inst.ID != demoID {
		t.Fatalf("InstallDemo = %+v, %v", inst, err)
	}
	if err := m.Remove(demoID); err != nil {
		t.Fatal(err)
	}
	// importing the demo file also clears the mark
	src := filepath.Join(t.TempDir(), "demo.bmad")
	if err := WriteDemo(src); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Import(src); err != nil {
		t.Fatal(err)
	}
	if err := removeAllForce(filepath.Join(home, packagesDirName, demoID)); err != nil {
		t.Fatal(err)
	}
	if inst, err := m.EnsureDemo(); err != nil || inst.ID != demoID {
		t.Fatalf("EnsureDemo after a re-import = %+v, %v", inst, err)
	}
	// removing another package leaves the demo alone
	files := demoFileMap(t).clone()
	files.patchJSON(t, "bmad.json", func(m map[string]any) { m["name"] = "other" })
	other := filepath.Join(t.TempDir(), "other.bmad")
	files.writeZip(t, other, "")
	if _, err := m.Import(other); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(PackageID("other", "1.0.0")); err != nil {
		t.Fatal(err)
	}
	if inst, err := NewManager(home).EnsureDemo(); err != nil || inst.ID != demoID {
		t.Fatalf("EnsureDemo after removing another package = %+v, %v", inst, err)
	}
}

func TestLoadReportsDamage(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	if _, err := m.EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	step := filepath.Join(home, "packages", demoID, filepath.FromSlash(demoStep))
	os.Chmod(filepath.Dir(step), 0o755)
	if err := os.Remove(step); err != nil {
		t.Fatal(err)
	}
	_, err := m.Load(demoID)
	wantProblem(t, validationProblems(t, err), demoGraph, "/nodes/0/file", "does not exist")

	removeAllForce(filepath.Join(home, "packages", demoID))
	if _, err := m.Load(demoID); errs.CodeOf(err) != CodeNotFound {
		t.Fatalf("missing folder: err = %v", err)
	}
}

func TestRegistryPathOutsideHomeIsRefused(t *testing.T) {
	home := newHome(t)
	reg := `{"packages":[{"id":"x@1.0.0","name":"x","version":"1.0.0","path":"../../etc","workflows":[],"agents":[]}]}`
	os.WriteFile(filepath.Join(home, registryFileName), []byte(reg), 0o644)
	m := NewManager(home)
	if _, err := m.Load("x@1.0.0"); errs.CodeOf(err) != CodeRegistry {
		t.Fatalf("err = %v", err)
	}
	if err := m.Remove("x@1.0.0"); errs.CodeOf(err) != CodeRegistry {
		t.Fatalf("err = %v", err)
	}
}

func TestSweepRemovesStaleLeftovers(t *testing.T) {
	home := newHome(t)
	pk := filepath.Join(home, packagesDirName)
	stale := filepath.Join(pk, importPrefix+"old")
	fresh := filepath.Join(pk, importPrefix+"new")
	staleAside := filepath.Join(pk, asidePrefix+demoID+"-abc")
	orphanAside := filepath.Join(pk, asidePrefix+"gone@1.0.0-abc")
	for _, d := range []string{stale, fresh, staleAside, orphanAside} {
		os.MkdirAll(filepath.Join(d, "sub"), 0o755)
		makeReadOnly(d)
	}
	old := time.Now().Add(-2 * staleAfter)
	for _, d := range []string{stale, staleAside, orphanAside} {
		os.Chtimes(d, old, old)
	}
	m := NewManager(home)
	if _, err := m.EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	// Sweeping happens before the demo folder exists, so run another import.
	if _, err := m.Import(filepath.Join("testdata", "single")); err != nil {
		t.Fatal(err)
	}
	got := packageDirs(t, home)
	want := []string{importPrefix + "new", asidePrefix + "gone@1.0.0-abc", demoID, "single-layout-sample@0.2.0-beta.1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("packages/ holds %v, want %v", got, want)
	}
}

func TestConcurrentImports(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	src := filepath.Join(t.TempDir(), "demo.bmad")
	if err := WriteDemo(src); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := m.Import(src, Replace())
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := m.List()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := packageDirs(t, home); !reflect.DeepEqual(got, []string{demoID}) {
		t.Fatalf("packages/ holds %v", got)
	}
}

func TestManifestWithoutWorkflowIndex(t *testing.T) {
	files := demoFileMap(t)
	files.patchJSON(t, "bmad.json", func(m map[string]any) { delete(m, "workflows") })
	dir := t.TempDir()
	files.writeDir(t, dir)
	m := NewManager(newHome(t))
	inst, err := m.Import(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []WorkflowInfo{{ID: "write-brief", DisplayName: "Write a project brief", Description: inst.Description}}
	if !reflect.DeepEqual(inst.Workflows, want) {
		t.Fatalf("workflows %+v", inst.Workflows)
	}
}

func TestEntryWorkflowID(t *testing.T) {
	cases := []struct {
		path  string
		state map[string]any
		want  string
	}{
		{"workflows/plan/workflow.md", nil, "plan"},
		{"workflow.md", map[string]any{"workflowType": "say-hello"}, "say-hello"},
		{"workflow.md", map[string]any{"workflowType": "Say Hello!"}, "main"},
		{"flows/x/workflow.md", nil, "main"},
	}
	for _, c := range cases {
		if got := entryWorkflowID(c.path, c.state); got != c.want {
			t.Errorf("entryWorkflowID(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestMultiWorkflowPackage(t *testing.T) {
	files := demoFileMap(t)
	for name, b := range readTree(t, os.DirFS(filepath.Join("testdata", "single"))) {
		switch name {
		case "bmad.json", "agents.json":
			continue
		}
		files["workflows/say-hello/"+name] = b
	}
	// Node files stay relative to the graph's folder ("steps/greet.md").
	files.patchJSON(t, "workflows/say-hello/workflow.graph.json", func(m map[string]any) {
		delete(obj(m, "nodes", 0), "agentId")
	})
	files.patchJSON(t, "bmad.json", func(m map[string]any) {
		m["workflows"] = append(arr(m, "workflows"), map[string]any{
			"id": "say-hello", "displayName": "Say hello",
			"workflow": "workflows/say-hello/workflow.md", "graph": "workflows/say-hello/workflow.graph.json",
		})
	})
	p := filepath.Join(t.TempDir(), "multi.bmad")
	files.writeZip(t, p, "")
	m := NewManager(newHome(t))
	inst, err := m.Import(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(inst.Workflows) != 2 || inst.Workflows[0].ID != "write-brief" || inst.Workflows[1].ID != "say-hello" {
		t.Fatalf("workflows %+v", inst.Workflows)
	}
	pkg, err := m.Load(inst.ID)
	if err != nil {
		t.Fatal(err)
	}
	hello := pkg.Workflow("say-hello")
	if hello.Default || !pkg.Workflow("write-brief").Default || pkg.DefaultWorkflow().ID != "write-brief" {
		t.Error("default workflow wrong")
	}
	if got := hello.Graph.Node("greet").File; got != "workflows/say-hello/steps/greet.md" {
		t.Errorf("node file %q", got)
	}
}

func BenchmarkValidateDemo(b *testing.B) {
	im, err := NewImporter()
	if err != nil {
		b.Fatal(err)
	}
	fsys := DemoFS()
	for b.Loop() {
		if _, _, err := im.Validate(fsys); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewImporter(b *testing.B) {
	for b.Loop() {
		if _, err := NewImporter(); err != nil {
			b.Fatal(err)
		}
	}
}
