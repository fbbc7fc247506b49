package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pidsCgroup is a pids cgroup made for one command: pids.max bounds its processes, and
// its process list lets every one of them be killed.
type pidsCgroup struct{ dir string }

// newPidsCgroup makes a child of this process's pids cgroup (cgroup v2 where the pids
// controller is enabled for children, or the v1 pids hierarchy) with pids.max set to max.
// It returns nil where none can be made (no permission, no controller): the command then
// relies on RLIMIT_NPROC alone.
func newPidsCgroup(max int) *pidsCgroup {
	for _, parent := range pidsParents() {
		removeStale(parent)
		var b [6]byte
		_, _ = rand.Read(b[:])
		dir := filepath.Join(parent, "crewagent-cmd-"+hex.EncodeToString(b[:]))
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		if os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0o644) != nil {
			_ = os.Remove(dir)
			continue
		}
		return &pidsCgroup{dir: dir}
	}
	return nil
}

// staleAfter is the age from which an empty cgroup of a command is a leftover (of an app
// that was killed before it could remove it).
const staleAfter = time.Minute

// removeStale removes the leftover cgroups of commands in parent: removing a cgroup that
// still has processes fails, and a new one is filled at once, long before staleAfter.
func removeStale(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "crewagent-cmd-*"))
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > staleAfter {
			_ = os.Remove(d)
		}
	}
}

// pidsParents lists the cgroup folders of this process where a pids child could be made.
func pidsParents() []string {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			for _, mnt := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
				if _, err := os.Stat(filepath.Join(mnt, "cgroup.controllers")); err == nil {
					out = append(out, filepath.Join(mnt, parts[2]))
					break
				}
			}
		case hasController(parts[1], "pids"):
			out = append(out, filepath.Join("/sys/fs/cgroup/pids", parts[2]))
		}
	}
	return out
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

func (c *pidsCgroup) procsFile() string { return filepath.Join(c.dir, "cgroup.procs") }

// limitReached reports whether a fork was refused for the limit.
func (c *pidsCgroup) limitReached() bool {
	b, err := os.ReadFile(filepath.Join(c.dir, "pids.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "max" && f[1] != "0" {
			return true
		}
	}
	return false
}

// killAll kills every process in the cgroup (cgroup.kill where the kernel has it).
func (c *pidsCgroup) killAll() {
	if os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0o644) == nil {
		return
	}
	for range 20 {
		b, err := os.ReadFile(c.procsFile())
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// remove kills what is left and deletes the cgroup (waiting briefly for the processes
// to be gone).
func (c *pidsCgroup) remove() {
	c.killAll()
	for range 100 {
		if err := os.Remove(c.dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
