package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/internal/testkit"
)

func requireBwrap(t *testing.T) {
	t.Helper()
	if err := Check(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the command sandbox must work in CI: %v", err)
		}
		t.Skipf("bubblewrap cannot start here (%v)", err)
	}
}

// marked lists the live host processes whose command line contains marker.
func marked(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestHelperRunsACommand is not a test of its own: TestCommandsDieWithTheApp starts the
// test binary on it, as the app that runs a command and then dies.
func TestHelperRunsACommand(t *testing.T) {
	cmd := os.Getenv("CREWAGENT_SANDBOX_HELPER_COMMAND")
	if cmd == "" {
		t.Skip("only run by TestCommandsDieWithTheApp")
	}
	_, _ = Run(context.Background(), Spec{Command: cmd, Project: os.Getenv("CREWAGENT_SANDBOX_HELPER_PROJECT"), Env: []string{"PATH=/usr/bin:/bin"}})
}

// When the app is killed (a crash, SIGKILL), the commands it ran die with it, children
// included.
func TestCommandsDieWithTheApp(t *testing.T) {
	requireBwrap(t)
	marker := fmt.Sprintf("2000.%d3", os.Getpid())
	tmp := t.TempDir()
	app := exec.Command(os.Args[0], "-test.run=^TestHelperRunsACommand$")
	app.Env = append(os.Environ(),
		"CREWAGENT_SANDBOX_HELPER_COMMAND=sleep "+marker+" & (sleep "+marker+" &); wait",
		"CREWAGENT_SANDBOX_HELPER_PROJECT="+t.TempDir(), "TMPDIR="+tmp)
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = app.Process.Kill(); _ = app.Wait() }()
	testkit.Until(t, 10*time.Second, "the command's processes", func() bool { return len(marked(marker)) >= 2 })
	if err := app.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = app.Wait()
	testkit.Until(t, 5*time.Second, "the command's processes to die with the app", func() bool { return len(marked(marker)) == 0 })
	testkit.Until(t, 5*time.Second, "the sandbox's info file to be removed", func() bool {
		left, _ := filepath.Glob(filepath.Join(tmp, "crewagent-sandbox-*"))
		return len(left) == 0
	})
}

// A command that ends leaves nothing behind: what it sent to the background, even in a
// session of its own, is killed with it.
func TestNothingOutlivesACommand(t *testing.T) {
	requireBwrap(t)
	for i, unsandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("unsandboxed=%v", unsandboxed), func(t *testing.T) {
			marker := fmt.Sprintf("2000.%d%d5", os.Getpid(), i)
			var out bytes.Buffer
			start := time.Now()
			oc, err := Run(context.Background(), Spec{
				Command:     "sleep " + marker + " & nohup sleep " + marker + " >/dev/null 2>&1 & echo left",
				Project:     t.TempDir(),
				Env:         []string{"PATH=/usr/bin:/bin"},
				Output:      &out,
				Unsandboxed: unsandboxed,
			})
			if err != nil || oc.ExitCode != 0 || out.String() != "left\n" || oc.Sandboxed == unsandboxed {
				t.Fatalf("%+v %v %q", oc, err, out.String())
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("Run waited %s for the background processes", d)
			}
			testkit.Until(t, 5*time.Second, "the background processes to be gone", func() bool { return len(marked(marker)) == 0 })
		})
	}
}

// The hidden paths: folders become empty (and read-only), files empty; what lies inside a
// hidden folder needs nothing of its own; paths that do not exist are skipped.
func TestBwrapArgsHide(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	for _, d := range []string{"rt/skills/x", ".ssh", "proj"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "rt", "settings.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys")); err != nil {
		t.Fatal(err)
	}
	spec := Spec{
		Project:  filepath.Join(home, "proj"),
		Dir:      filepath.Join(home, "proj"),
		Hide:     []string{filepath.Join(home, "rt"), filepath.Join(home, "rt", "settings.json"), filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc"), filepath.Join(home, "missing"), filepath.Join(home, "keys")},
		ReadOnly: []string{filepath.Join(home, "rt", "skills", "x")},
	}
	got := strings.Join(bwrapArgs(spec), " ")
	got = strings.ReplaceAll(got, home, "$H")
	want := "--die-with-parent --new-session --unshare-all --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp" +
		" --bind $H/proj $H/proj --tmpfs $H/rt --tmpfs $H/.ssh --ro-bind /dev/null $H/.netrc --tmpfs $H/keys" +
		" --ro-bind $H/rt/skills/x $H/rt/skills/x --remount-ro $H/rt --remount-ro $H/.ssh --remount-ro $H/keys --chdir $H/proj"
	if got != want {
		t.Fatalf("bwrap args\n got %s\nwant %s", got, want)
	}
	spec.Network = true
	if args := bwrapArgs(spec); !slices.Contains(args, "--share-net") {
		t.Fatalf("network: %v", args)
	}
}

// A project that lies inside a hidden folder stays visible and writable; the rest of that
// folder stays hidden.
func TestProjectInsideAHiddenFolder(t *testing.T) {
	requireBwrap(t)
	hidden := filepath.Join(t.TempDir(), "config")
	proj := filepath.Join(hidden, "work", "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hidden, "secret"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	oc, err := Run(context.Background(), Spec{
		Command: "echo ok > made && cat made && cat ../../secret; echo x > ../../new",
		Project: proj, Hide: []string{hidden}, Env: []string{"PATH=/usr/bin:/bin"}, Output: &out,
	})
	if err != nil || oc.ExitCode == 0 || !strings.HasPrefix(out.String(), "ok\n") || strings.Contains(out.String(), "s3cret") {
		t.Fatalf("%+v %v %q", oc, err, out.String())
	}
	if _, err := os.Stat(filepath.Join(hidden, "new")); err == nil {
		t.Fatal("the hidden folder was written")
	}
}
