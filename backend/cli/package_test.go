package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/packages"
)

// demoFolder writes the bundled demo package as a folder, after edit changes its files.
func demoFolder(t *testing.T, edit func(files map[string]string)) string {
	t.Helper()
	files := map[string]string{}
	err := fs.WalkDir(packages.DemoFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(packages.DemoFS(), p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(files)
	}
	dir := filepath.Join(t.TempDir(), "my package")
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const cliDemoStep = "workflows/write-brief/steps/capture-idea.md"

// package import: a package without Goal sections installs, each warning on its own line with
// its file; importing it again is refused in words unless --replace; an invalid package is
// reported one problem per line with its file and JSON pointer, warnings marked as such.
func TestPackageImportReport(t *testing.T) {
	r := newRunEnv(t)
	noGoal := demoFolder(t, func(f map[string]string) {
		f[cliDemoStep] = strings.Replace(f[cliDemoStep], "## Goal", "## Aim", 1)
	})
	res := r.run(t, "package", "import", noGoal)
	if res.code != 0 || !strings.HasPrefix(res.stdout, "installed crewagent-demo@1.0.0\t") {
		t.Fatalf("import: %+v", res)
	}
	wantLines(t, res.stderr,
		"warning: "+cliDemoStep+`: no "## Goal" section (the step is given to the model as written)`,
		"warning: "+cliDemoStep+`: unknown section "## Aim" (known: Goal, Instructions, Completion; it is given to the model as written)`)

	res = r.run(t, "package", "import", noGoal)
	oneLineErr(t, res, 1, `package "crewagent-demo" 1.0.0 is installed already with the id crewagent-demo@1.0.0; it was not replaced; to replace it, run: crewagent package import '`+noGoal+`' --replace`)

	res = r.run(t, "package", "import", noGoal, "--replace", "--json")
	var inst packages.Installed
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &inst) != nil || inst.ID != "crewagent-demo@1.0.0" || len(inst.Warnings) != 2 {
		t.Fatalf("--replace: %+v", res)
	}

	broken := demoFolder(t, func(f map[string]string) {
		f[cliDemoStep] = strings.Replace(f[cliDemoStep], "## Goal", "## Aim", 1)
		f[cliDemoStep] = strings.Replace(f[cliDemoStep], "to: check-clarity", "to: nowhere", 1)
		delete(f, "workflows/write-brief/steps/end.md")
	})
	res = r.run(t, "package", "import", broken)
	if res.code != 1 {
		t.Fatalf("broken: %+v", res)
	}
	wantLines(t, res.stderr,
		"error: workflows/write-brief/workflow.graph.json at /nodes/4/file: step file \"workflows/write-brief/steps/end.md\" does not exist in the package",
		"error: "+cliDemoStep+" at /transitions/0/to: unknown node \"nowhere\"",
		"warning: "+cliDemoStep+`: no "## Goal" section (the step is given to the model as written)`,
		"crewagent: "+broken+" is not a valid package (2 problems, listed above); nothing was installed")

	res = r.run(t, "package", "import", broken, "--json")
	var report struct {
		OK       bool
		Problems []packages.Problem
		Warnings []packages.Problem
	}
	if res.code != 1 || json.Unmarshal([]byte(res.stdout), &report) != nil || report.OK || len(report.Problems) != 2 || len(report.Warnings) != 2 ||
		report.Problems[1].Pointer != "/transitions/0/to" || !strings.Contains(res.stderr, "(2 problems, listed on stdout)") {
		t.Fatalf("--json: %+v", res)
	}
}

// wantLines fails unless every want is a whole line of out.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	lines := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		lines[l] = true
	}
	for _, w := range want {
		if !lines[w] {
			t.Errorf("no line %q in:\n%s", w, out)
		}
	}
}
