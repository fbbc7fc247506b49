package checkpoint

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The child process of TestRewindKilledIsFinishedOnOpen: it rewinds the
// store named in its environment and is killed while it does.
func TestMain(m *testing.M) {
	if dir := os.Getenv("CHECKPOINT_REWIND_CHILD"); dir != "" {
		st, err := Open(filepath.Join(dir, "checkpoints"), filepath.Join(dir, "project"), Options{})
		if err == nil {
			_, err = st.Rewind("c1", "m1", map[string]bool{"m1": true}, false)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A process killed (SIGKILL) at some point of a rewind of many files: the
// next Open finishes it, and every file is as it was before the turn.
func TestRewindKilledIsFinishedOnOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	const n = 1500
	cut := 0 // kills that left the rewind half done
	for _, delay := range []time.Duration{0, 5 * time.Millisecond, 30 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			f := newFixture(t)
			files := map[string]string{}
			for j := 0; j < n; j++ {
				rel := fmt.Sprintf("d%02d/f%05d.txt", j%15, j)
				if j%3 != 0 { // a third are new files, removed by the rewind
					f.put(rel, fmt.Sprintf("before %d\n", j))
				}
				files[rel] = fmt.Sprintf("after %d, a longer line than before\n", j)
			}
			f.write("c1", "m1", files)
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), "CHECKPOINT_REWIND_CHILD="+filepath.Dir(f.project))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Killed once its intent is on disk (plus the delay), or at once
			// if it is done first.
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				if _, err := os.Stat(filepath.Join(f.dir, "rewind.json")); err == nil {
					break
				}
				if cmd.ProcessState != nil {
					break
				}
				time.Sleep(200 * time.Microsecond)
			}
			time.Sleep(delay)
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			if _, err := os.Stat(filepath.Join(f.dir, "rewind.json")); err == nil {
				cut++
			}
			f.open()
			if _, err := os.Stat(filepath.Join(f.dir, "rewind.json")); !os.IsNotExist(err) {
				t.Fatalf("the intent is still there: %v", err)
			}
			for j := 0; j < n; j++ {
				rel := fmt.Sprintf("d%02d/f%05d.txt", j%15, j)
				want := fmt.Sprintf("before %d\n", j)
				if j%3 == 0 {
					want = "<none>"
				}
				if got := f.read(rel); got != want {
					t.Fatalf("%s = %q, want %q", rel, got, want)
				}
			}
		})
	}
	if cut == 0 {
		t.Error("no kill landed during a rewind")
	}
}
