//go:build unix

package convlog

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/conversation"
)

const crashCreateEnv = "CONVLOG_CRASH_CREATE_DIR"

// TestCrashCreateChild is the child process of TestCrashCreateKill9: it creates
// conversations with their first message (as a send does), forks them and appends to them
// in a loop, printing "made <id>" once a creation or fork has returned.
func TestCrashCreateChild(t *testing.T) {
	dir := os.Getenv(crashCreateEnv)
	if dir == "" {
		t.Skip("helper process of TestCrashCreateKill9")
	}
	s, err := Open(dir, Options{Counter: &lenCounter{}, LargeOutputThreshold: 2 << 10, IndexFlushDelay: 5 * time.Millisecond, Logger: discard})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	os.Stdout.WriteString("ready\n")
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	var made []string
	for {
		var id string
		switch op := r.IntN(4); {
		case op < 2 || len(made) == 0:
			m, err := s.CreateWith("", "", msg(conversation.RoleUser, "hello "+strings.Repeat("x", r.IntN(200))),
				&conversation.Entry{Role: conversation.RoleTool, ToolCallID: "c", Content: conversation.Str(strings.Repeat("o", 3<<10))})
			if err != nil {
				fmt.Println("error", err)
				os.Exit(3)
			}
			id = m.ID
		case op == 2:
			m, err := s.Fork(made[r.IntN(len(made))], ForkOptions{})
			if err != nil {
				fmt.Println("error", err)
				os.Exit(3)
			}
			id = m.ID
		default:
			if err := s.Append(made[r.IntN(len(made))], msg(conversation.RoleAssistant, "answer")); err != nil {
				fmt.Println("error", err)
				os.Exit(3)
			}
			continue
		}
		made = append(made, id)
		os.Stdout.WriteString("made " + id + "\n")
	}
}

// TestCrashCreateKill9 kills the creating child with SIGKILL at random moments and then
// opens the store as the next start would: every conversation it shows has its entries,
// every creation that returned is there, and no staging folder, temporary file or orphaned
// tool output is left.
func TestCrashCreateKill9(t *testing.T) {
	if os.Getenv(crashCreateEnv) != "" {
		t.Skip("running as the child")
	}
	kills := 60
	if testing.Short() {
		kills = 15
	}
	dir := t.TempDir()
	made := map[string]bool{}
	r := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	for i := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashCreateChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashCreateEnv+"="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(out)
		if first, err := br.ReadString('\n'); err != nil || first != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("kill %d: child did not start: %q %v\n%s", i, first, err, stderr.String())
		}
		time.Sleep(time.Duration(r.IntN(20000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for {
			l, err := br.ReadString('\n')
			if f := strings.Fields(l); strings.HasSuffix(l, "\n") && len(f) == 2 && f[0] == "made" {
				made[f[1]] = true
			} else if len(f) > 0 && f[0] == "error" {
				t.Fatalf("child failed: %s", l)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		cmd.Wait()
	}

	s := openDir(t, dir, Options{Logger: discard})
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range list {
		shown[m.ID] = true
		entries, err := s.Load(m.ID)
		if err != nil || len(entries) == 0 {
			t.Errorf("conversation %s (%q) shows with %d entries (%v)", m.ID, m.Title, len(entries), err)
		}
		if m.Title == DefaultTitle {
			t.Errorf("conversation %s shows as %q", m.ID, DefaultTitle)
		}
	}
	for id := range made {
		if !shown[id] {
			t.Errorf("conversation %s was made but does not show", id)
		}
	}
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && (strings.HasPrefix(d.Name(), stagingPrefix) || strings.HasPrefix(d.Name(), trashPrefix) || isTempName(d.Name())) {
			left = append(left, p)
		}
		return nil
	})
	des, _ := os.ReadDir(toolResultsRoot(dir))
	for _, de := range des {
		if !shown[de.Name()] {
			left = append(left, "tool results of "+de.Name())
		}
	}
	if len(left) > 0 {
		t.Errorf("leftovers: %v", left)
	}
	t.Logf("%d kills: %d conversations made, %d shown", kills, len(made), len(list))
}
