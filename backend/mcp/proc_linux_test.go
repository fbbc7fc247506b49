package mcp

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procStat returns the state and process group of pid from /proc (ok false when gone).
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0, 0, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, true
}

// alive reports whether pid is a live process (a zombie waiting to be reaped is not).
func alive(pid int) bool {
	st, _, ok := procStat(pid)
	return ok && st != 'Z' && st != 'X'
}

// groupMembers lists the live processes of group pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, g, ok := procStat(pid); ok && g == pgid && st != 'Z' && st != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// waitGone fails unless every pid, and every member of group pgid, is gone within d.
func waitGone(t *testing.T, d time.Duration, pgid int, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		members := groupMembers(pgid)
		if len(left) == 0 && len(members) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes still running after %s: pids %v, group %d members %v", d, left, pgid, members)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
