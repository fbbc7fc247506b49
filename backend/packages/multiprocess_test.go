package packages

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

const (
	childHomeEnv = "CREWAGENT_TEST_PACKAGES_HOME"
	childSrcEnv  = "CREWAGENT_TEST_PACKAGES_SRC"
)

// TestImportChild is the child process of TestImportsFromManyProcesses: it imports the
// package named by the environment into the home named by it.
func TestImportChild(t *testing.T) {
	home, src := os.Getenv(childHomeEnv), os.Getenv(childSrcEnv)
	if home == "" || src == "" {
		t.Skip("run by TestImportsFromManyProcesses")
	}
	if _, err := NewManager(home).Import(src); err != nil {
		t.Fatal(err)
	}
}

// Processes importing different packages into one home at the same moment (the app and a
// headless command, say) each keep their record: packages.json is never rewritten from a
// stale read.
func TestImportsFromManyProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	home := newHome(t)
	const n = 6
	var want []string
	cmds := make([]*exec.Cmd, n)
	outs := make([][]byte, n)
	for i := range n {
		files := demoFileMap(t).clone()
		name := fmt.Sprintf("parallel-%d", i)
		files.patchJSON(t, "bmad.json", func(m map[string]any) { m["name"] = name })
		src := filepath.Join(t.TempDir(), name+".bmad")
		files.writeZip(t, src, "")
		want = append(want, PackageID(name, "1.0.0"))
		cmd := exec.Command(os.Args[0], "-test.run=^TestImportChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childHomeEnv+"="+home, childSrcEnv+"="+src)
		cmds[i] = cmd
	}
	done := make(chan int, n)
	for i, cmd := range cmds {
		go func() {
			outs[i], _ = cmd.CombinedOutput()
			done <- i
		}()
	}
	for range n {
		i := <-done
		if !cmds[i].ProcessState.Success() {
			t.Fatalf("child %d failed:\n%s", i, outs[i])
		}
	}
	list, err := NewManager(home).List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range list {
		got = append(got, p.ID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("packages.json lists %v, want %v", got, want)
	}
	dirs := packageDirs(t, home)
	slices.Sort(dirs)
	if !slices.Equal(dirs, want) {
		t.Fatalf("packages/ holds %v, want %v", dirs, want)
	}
}
