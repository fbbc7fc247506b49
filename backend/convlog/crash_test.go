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
	"strings"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/conversation"
)

const (
	crashDirEnv  = "CONVLOG_CRASH_CHILD_DIR"
	crashConvEnv = "CONVLOG_CRASH_CHILD_CONV"
)

// TestCrashChild is the child process of TestCrashKill9: it appends in a loop
// and prints "ack <ids>" once Append has returned.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper process of TestCrashKill9")
	}
	conv := os.Getenv(crashConvEnv)
	s, err := Open(dir, Options{Counter: &lenCounter{}, LargeOutputThreshold: 32 << 10, IndexFlushDelay: 5 * time.Millisecond, Logger: discard})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	os.Stdout.WriteString("ready\n")
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	var acked []string
	for {
		batch := make([]*conversation.Entry, 1+r.IntN(3))
		for i := range batch {
			size := 10 + r.IntN(150)
			switch r.IntN(50) {
			case 0:
				size = 5000 + r.IntN(5000) // spans pages
			case 1:
				batch[i] = &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "c", Content: conversation.Str(strings.Repeat("t", 40<<10))}
				continue
			}
			batch[i] = msg(conversation.RoleUser, strings.Repeat("x", size))
		}
		if err := s.Append(conv, batch...); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		line := "ack"
		for _, e := range batch {
			line += " " + e.ID
			acked = append(acked, e.ID)
		}
		os.Stdout.WriteString(line + "\n")
		switch r.IntN(12) {
		case 0:
			x := acked[r.IntN(len(acked))]
			if err := s.Update(conv, &conversation.Entry{ID: x, Role: conversation.RoleUser, Content: conversation.Str("updated")}); err != nil {
				fmt.Println("error", err)
				os.Exit(3)
			}
		case 1:
			if _, err := s.MarkCompacted(conv, []string{acked[r.IntN(len(acked))]}, nil); err != nil {
				fmt.Println("error", err)
				os.Exit(3)
			}
		}
	}
}

// TestCrashKill9 kills an appending child process with SIGKILL at random
// moments, 200 times, reusing one conversation, and checks that every entry
// whose Append returned is in the log, that the log and the index load, and
// that no complete line of the log is corrupt.
func TestCrashKill9(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("running as the child")
	}
	kills := 200
	if testing.Short() {
		kills = 30
	}
	dir := t.TempDir()
	s, err := Open(dir, Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	conv := mustCreate(t, s)
	s.Close()

	acked := map[string]bool{}
	r := rand.New(rand.NewPCG(42, uint64(time.Now().UnixNano())))
	torn := 0
	start := time.Now()
	for i := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashConvEnv+"="+conv)
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
		first, err := br.ReadString('\n')
		if err != nil || first != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("kill %d: child did not start: %q %v\n%s", i, first, err, stderr.String())
		}
		time.Sleep(time.Duration(r.IntN(15000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for {
			l, err := br.ReadString('\n')
			if strings.HasSuffix(l, "\n") {
				f := strings.Fields(l)
				if len(f) > 0 && f[0] == "error" {
					t.Fatalf("child failed: %s", l)
				}
				if len(f) > 0 && f[0] == "ack" {
					for _, id := range f[1:] {
						acked[id] = true
					}
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := cmd.Wait(); err != nil {
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
				t.Fatalf("child exited with %v: %s", err, stderr.String())
			}
		}
		if data, err := os.ReadFile(logPath(dir, conv)); err == nil && len(data) > 0 && data[len(data)-1] != '\n' {
			torn++
		}
	}

	lb := &logBuf{}
	s = openDir(t, dir, Options{Logger: lb.logger()})
	all, err := s.Load(conv)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]*conversation.Entry{}
	msgs := 0
	for _, e := range all {
		have[e.ID] = e
		if e.Type == conversation.TypeMsg {
			msgs++
		}
	}
	missing := 0
	for id := range acked {
		e := have[id]
		if e == nil {
			missing++
			continue
		}
		if e.FullOutputPath != "" {
			p, err := ToolResultHostPath(dir, e.FullOutputPath)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("tool result of acknowledged entry %s: %v", id, err)
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged entries are missing", missing, len(acked))
	}
	if m, _ := s.Get(conv); m.MessageCount != msgs {
		t.Errorf("index messageCount = %d, log has %d messages", m.MessageCount, msgs)
	}
	data, _ := os.ReadFile(logPath(dir, conv))
	ls := strings.Split(string(data), "\n")
	for i, l := range ls[:len(ls)-1] {
		if _, err := decodeLine([]byte(l)); err != nil {
			t.Errorf("complete line %d is corrupt: %v", i+1, err)
		}
	}
	if strings.Contains(lb.String(), "corrupt") {
		t.Errorf("warnings: %s", lb.String())
	}
	tail, _ := s.LoadTail(conv, 50)
	if !entriesEqual(tail, all[max(0, len(all)-50):]) {
		t.Error("LoadTail differs from the end of Load")
	}
	t.Logf("%d kills in %v: %d acknowledged entries (%d in the log, %d lines), %d kills left a torn last line",
		kills, time.Since(start).Round(time.Millisecond), len(acked), len(all), len(ls)-1, torn)
}
