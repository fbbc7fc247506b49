package desktop

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
)

// startedTestProject is openTestProject with the startup work of the window
// (the demo installation) done before the project opens.
func startedTestProject(t *testing.T, settingsJSON string) *testWorkspace {
	t.Helper()
	w := openTestProject(t, settingsJSON)
	must(t, w.app.Projects.Close())
	w.app.startup(context.Background())
	info, err := w.app.Projects.Open(w.root)
	if err != nil {
		t.Fatalf("OpenProject: %v", err)
	}
	w.info = info
	return w
}

func readProjectMeta(t *testing.T, root string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, project.MetaFileName))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	must(t, json.Unmarshal(data, &m))
	return m
}

// writePackage writes the files of fsys as a .bmad archive in a temp folder.
func writePackage(t *testing.T, name string, fsys fs.FS) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	must(t, packages.WriteArchive(f, fsys))
	must(t, f.Close())
	return path
}

// renamedDemo is the demo package under another name.
func renamedDemo(t *testing.T, name string) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(packages.DemoFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(packages.DemoFS(), p)
		if err != nil {
			return err
		}
		if p == "bmad.json" {
			data = []byte(strings.Replace(string(data), `"name": "crewagent-demo"`, `"name": "`+name+`"`, 1))
		}
		out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDemoInstalledAtStartupAndBoundToNewProjects(t *testing.T) {
	w := startedTestProject(t, "")
	view, err := w.app.Packages.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Packages) != 1 || view.Packages[0].Name != packages.DemoName || view.DemoError != "" {
		t.Fatalf("ListPackages = %+v", view)
	}
	demo := view.Packages[0]
	if demo.Version == "" || len(demo.Workflows) != 1 || demo.Workflows[0].ID != "write-brief" || len(demo.Agents) != 2 {
		t.Fatalf("demo record %+v", demo)
	}
	if w.info.ActivePackageID != demo.ID || view.ActivePackageID != demo.ID {
		t.Fatalf("the project was not bound to the demo: info %+v, view %+v", w.info, view)
	}
	if got := readProjectMeta(t, w.root)["activePackageId"]; got != demo.ID {
		t.Fatalf(".crewagent.json activePackageId = %v", got)
	}
	agents, err := w.app.Chat.Agents()
	if err != nil || len(agents.Agents) != 2 || agents.Agents[0].ID != "analyst" || agents.Agents[1].ID != "writer" {
		t.Fatalf("ListAgents = %+v, %v", agents, err)
	}
	// Agent mode speaks as the demo's analyst, with her critical actions
	conv, err := w.app.Conversations.Create("")
	must(t, err)
	pv, err := w.app.Chat.Preview(conv.ID, "agent", "analyst")
	if err != nil {
		t.Fatal(err)
	}
	if text := previewText(pv); !strings.Contains(text, "Critical actions (always follow):\n- Read @state/workflow.md before acting") ||
		!strings.Contains(text, "- Write notes only under @project/artifacts/.") {
		t.Fatalf("the analyst's critical actions are not in the agent-mode system prompt:\n%s", text)
	}

	// a second start keeps the one installation
	again := NewApp(w.home, fakeDialogs{}, nil)
	t.Cleanup(func() { again.shutdown(context.Background()) })
	again.startup(context.Background())
	if v, _ := again.Packages.List(); len(v.Packages) != 1 || v.Packages[0].ID != demo.ID {
		t.Fatalf("after a second start: %+v", v.Packages)
	}

	// a project that names a package keeps it, installed or not
	other := t.TempDir()
	p, err := project.Open(w.home, other)
	must(t, err)
	must(t, project.SetActivePackage(p, "missing@1.0.0"))
	info, err := w.app.Projects.Open(other)
	if err != nil || info.ActivePackageID != "missing@1.0.0" {
		t.Fatalf("OpenProject = %+v, %v", info, err)
	}
	ap, err := w.app.Packages.Active()
	if err != nil || !strings.Contains(ap.Problem, "missing@1.0.0") || len(ap.Workflows) != 0 {
		t.Fatalf("ActivePackage of a missing package = %+v, %v", ap, err)
	}
}

func TestDemoInstallFailureIsReportedAndDoesNotBlock(t *testing.T) {
	w := openTestProject(t, "")
	must(t, w.app.Projects.Close())
	// packages/ cannot be created: a file is in the way
	must(t, os.WriteFile(filepath.Join(w.home, "packages"), []byte("not a folder"), 0o644))
	w.app.startup(context.Background())
	info, err := w.app.Projects.Open(w.root)
	if err != nil || info.ActivePackageID != "" {
		t.Fatalf("OpenProject = %+v, %v", info, err)
	}
	view, err := w.app.Packages.List()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(view.DemoError, "demo package could not be installed") || len(view.Packages) != 0 {
		t.Fatalf("ListPackages = %+v", view)
	}
	ap, err := w.app.Packages.Active()
	if err != nil || ap.PackageID != "" || !strings.Contains(ap.Problem, "no active package") {
		t.Fatalf("ActivePackage = %+v, %v", ap, err)
	}
}

func TestImportPackage(t *testing.T) {
	w := startedTestProject(t, "")
	a := w.app

	good := writePackage(t, "notes.bmad", renamedDemo(t, "notes-pack"))
	res, err := a.Packages.Import(good)
	if err != nil || !res.OK || res.Package == nil || res.Package.Name != "notes-pack" || len(res.Problems) != 0 || res.File != good {
		t.Fatalf("ImportPackage(good) = %+v, %v", res, err)
	}
	view, _ := a.Packages.List()
	if len(view.Packages) != 2 || view.Packages[1].ID != res.Package.ID {
		t.Fatalf("after import: %+v", view.Packages)
	}

	broken := fstest.MapFS{
		"bmad.json":   {Data: []byte(`{"schemaVersion": "1.1", "name": "Broken Pack", "version": "one", "entry": {"workflow": "workflow.md", "graph": "workflow.graph.json", "agents": "agents.json"}}`)},
		"agents.json": {Data: []byte(`{"schemaVersion": "1.1", "agents": []}`)},
	}
	bad := writePackage(t, "broken.bmad", broken)
	notZip := filepath.Join(t.TempDir(), "plain.zip")
	must(t, os.WriteFile(notZip, []byte("this is not a zip archive"), 0o644))

	tests := []struct {
		name      string
		path      string
		wantFiles []string // files named by the problems (at least these)
		wantCode  string   // a failed call instead of a report
	}{
		{"invalid package", bad, []string{"bmad.json", "agents.json"}, ""},
		{"not an archive", notZip, []string{"plain.zip"}, ""},
		{"missing file", filepath.Join(t.TempDir(), "nope.bmad"), nil, errs.PackageOpen},
		{"relative path", "broken.bmad", nil, errs.PackageOpen},
		{"empty path", "  ", nil, errs.PackageOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := a.Packages.Import(tt.path)
			if tt.wantCode != "" {
				if codeOfErr(t, err) != tt.wantCode {
					t.Fatalf("ImportPackage: %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil || res.OK || res.Package != nil || len(res.Problems) == 0 {
				t.Fatalf("ImportPackage = %+v, %v", res, err)
			}
			var files []string
			for _, p := range res.Problems {
				if p.Message == "" {
					t.Fatalf("a problem without a message: %+v", p)
				}
				files = append(files, p.File)
			}
			for _, f := range tt.wantFiles {
				if !slices.Contains(files, f) {
					t.Fatalf("no problem names %s: %+v", f, res.Problems)
				}
			}
		})
	}
	if view, _ := a.Packages.List(); len(view.Packages) != 2 {
		t.Fatalf("a failed import installed something: %+v", view.Packages)
	}

	// The same id and version again: nothing happens until the user confirms the
	// replacement, which ImportReplacing then makes.
	again, err := a.Packages.Import(good)
	if err != nil || again.OK || again.Exists == nil || again.Exists.ID != res.Package.ID || len(again.Problems) != 0 {
		t.Fatalf("import of an installed package = %+v, %v", again, err)
	}
	replaced, err := a.Packages.ImportReplacing(good)
	if err != nil || !replaced.OK || replaced.Exists != nil || replaced.Package.ID != res.Package.ID {
		t.Fatalf("ImportReplacing = %+v, %v", replaced, err)
	}
	if view, _ := a.Packages.List(); len(view.Packages) != 2 {
		t.Fatalf("after the replacement: %+v", view.Packages)
	}
}

func TestChoosePackageFile(t *testing.T) {
	var filters []FileFilter
	a := NewApp(t.TempDir(), fakeDialogs{file: "/some/pack.bmad", filters: &filters}, nil)
	path, err := a.Packages.ChooseFile()
	if err != nil || path != "/some/pack.bmad" {
		t.Fatalf("ChoosePackageFile = %q, %v", path, err)
	}
	if len(filters) == 0 || !strings.Contains(filters[0].Pattern, "*.bmad") || !strings.Contains(filters[0].Pattern, "*.zip") {
		t.Fatalf("filters %+v", filters)
	}
	a = NewApp(t.TempDir(), fakeDialogs{err: errs.New(errs.Dialog, "no display")}, nil)
	if _, err := a.Packages.ChooseFile(); codeOfErr(t, err) != errs.Dialog {
		t.Fatalf("a failing dialog: %v", err)
	}
}

func TestSetActivePackage(t *testing.T) {
	w := startedTestProject(t, "")
	a := w.app
	demoID := w.info.ActivePackageID
	res, err := a.Packages.Import(writePackage(t, "solo.bmad", renamedDemo(t, "solo-pack")))
	if err != nil || !res.OK {
		t.Fatalf("import: %+v, %v", res, err)
	}
	info, err := a.Packages.SetActive(res.Package.ID)
	if err != nil || info.ActivePackageID != res.Package.ID {
		t.Fatalf("SetActivePackage = %+v, %v", info, err)
	}
	if cur, _ := a.Projects.Current(); cur.ActivePackageID != res.Package.ID {
		t.Fatalf("CurrentProject = %+v", cur)
	}
	if got := readProjectMeta(t, w.root)["activePackageId"]; got != res.Package.ID {
		t.Fatalf(".crewagent.json activePackageId = %v", got)
	}
	ap, err := a.Packages.Active()
	if err != nil || ap.PackageID != res.Package.ID || ap.Name != "solo-pack" || len(ap.Workflows) != 1 || !ap.Workflows[0].Default ||
		ap.Workflows[0].DisplayName != "Write a project brief" || ap.Workflows[0].Nodes != 5 || len(ap.Agents) != 2 || ap.Problem != "" {
		t.Fatalf("ActivePackage = %+v, %v", ap, err)
	}
	if agents, _ := a.Chat.Agents(); agents.PackageID != res.Package.ID {
		t.Fatalf("ListAgents follows the change: %+v", agents)
	}
	if _, err := a.Packages.SetActive("nope@1.0.0"); codeOfErr(t, err) != packages.CodeNotFound {
		t.Fatalf("unknown package: %v", err)
	}
	if cur, _ := a.Projects.Current(); cur.ActivePackageID != res.Package.ID {
		t.Fatal("a refused change changed the project")
	}
	_, err = a.Packages.SetActive(demoID)
	must(t, err)
	must(t, a.Projects.Close())
	if _, err := a.Packages.SetActive(demoID); codeOfErr(t, err) != errs.NoProject {
		t.Fatalf("without a project: %v", err)
	}
}

// A zip entry that is not a package at all still gets a report, not a crash.
func TestImportPackageReportsArchiveProblems(t *testing.T) {
	w := startedTestProject(t, "")
	path := filepath.Join(t.TempDir(), "evil.zip")
	f, err := os.Create(path)
	must(t, err)
	zw := zip.NewWriter(f)
	ew, err := zw.Create("../outside.txt")
	must(t, err)
	_, _ = ew.Write([]byte("x"))
	must(t, zw.Close())
	must(t, f.Close())
	res, err := w.app.Packages.Import(path)
	if err != nil || res.OK || len(res.Problems) == 0 {
		t.Fatalf("ImportPackage = %+v, %v", res, err)
	}
}

// A project refused because another process holds it is not bound to the
// demo behind that process's back.
func TestLockedProjectIsNotBound(t *testing.T) {
	holder := openTestProject(t, "") // no startup: its project has no package
	other := NewApp(holder.home, fakeDialogs{}, nil)
	t.Cleanup(func() { other.shutdown(context.Background()) })
	other.startup(context.Background())
	if _, err := other.Projects.Open(holder.root); codeOfErr(t, err) != errs.ProjectLocked {
		t.Fatalf("OpenProject of a held project: %v", err)
	}
	if got, ok := readProjectMeta(t, holder.root)["activePackageId"]; ok && got != "" {
		t.Fatalf("the held project was bound to %v", got)
	}
}

func TestRemovePackage(t *testing.T) {
	srv := newFakeLLM(t)
	w := startedTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	demo := w.info.ActivePackageID
	if demo == "" {
		t.Fatal("the project was not bound to the demo")
	}
	if _, err := a.Packages.Remove("nope@1.0.0"); codeOfErr(t, err) != packages.CodeNotFound {
		t.Fatalf("RemovePackage of an unknown package: %v", err)
	}

	// refused while a reply is being generated
	srv.Enqueue(fakellm.Response{Text: "slow", Stall: fakellm.StallForever})
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "hello"}))
	testkit.Wait(t, "the reply to start", func() bool { s, _ := a.Chat.Streaming(); return len(s) == 1 })
	if _, err := a.Packages.Remove(demo); codeOfErr(t, err) != errs.Busy {
		t.Fatalf("RemovePackage while streaming: %v", err)
	}
	if _, err := a.Chat.Stop(m.ID); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, w.rec, m.ID)

	// the active package: the project is left with none
	info, err := a.Packages.Remove(demo)
	if err != nil || info == nil || info.ActivePackageID != "" {
		t.Fatalf("RemovePackage = %+v, %v", info, err)
	}
	if got := readProjectMeta(t, w.root)["activePackageId"]; got != "" {
		t.Fatalf(".crewagent.json activePackageId = %v", got)
	}
	view, err := a.Packages.List()
	if err != nil || len(view.Packages) != 0 || view.DemoInstalled || view.DemoError != "" || view.ActivePackageID != "" || view.DemoName != packages.DemoName {
		t.Fatalf("ListPackages after removal = %+v, %v", view, err)
	}
	if ap, _ := a.Packages.Active(); !strings.Contains(ap.Problem, "no active package") {
		t.Fatalf("ActivePackage = %+v", ap)
	}

	// the next start does not bring the demo back
	must(t, a.Projects.Close())
	again := NewApp(w.home, fakeDialogs{}, nil)
	t.Cleanup(func() { again.shutdown(context.Background()) })
	again.startup(context.Background())
	info2, err := again.Projects.Open(w.root)
	if err != nil || info2.ActivePackageID != "" {
		t.Fatalf("OpenProject after a restart = %+v, %v", info2, err)
	}
	if v, _ := again.Packages.List(); len(v.Packages) != 0 || v.DemoError != "" {
		t.Fatalf("after a restart: %+v", v)
	}

	// until the user installs it again
	inst, err := again.Packages.InstallDemo()
	if err != nil || inst.ID != demo || len(inst.Workflows) == 0 {
		t.Fatalf("InstallDemoPackage = %+v, %v", inst, err)
	}
	if v, _ := again.Packages.List(); len(v.Packages) != 1 || !v.DemoInstalled {
		t.Fatalf("after InstallDemoPackage: %+v", v)
	}
	// removing a package that is not the active one leaves the binding alone
	_, err = again.Packages.SetActive(demo)
	must(t, err)
	other := filepath.Join(t.TempDir(), "other")
	must(t, os.CopyFS(other, packages.DemoFS()))
	b, err := os.ReadFile(filepath.Join(other, "bmad.json"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(other, "bmad.json"), []byte(strings.Replace(string(b), `"crewagent-demo"`, `"other-pkg"`, 1)), 0o644))
	imp, err := again.Packages.Import(other)
	if err != nil || !imp.OK {
		t.Fatalf("ImportPackage = %+v, %v", imp, err)
	}
	info3, err := again.Packages.Remove(imp.Package.ID)
	if err != nil || info3.ActivePackageID != demo {
		t.Fatalf("RemovePackage of another package = %+v, %v", info3, err)
	}
}
