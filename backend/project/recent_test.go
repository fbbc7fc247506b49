package project

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"crewagent/backend/errs"
)

func openN(t *testing.T, home string, n int) []*Project {
	t.Helper()
	base := tempDir(t)
	ps := make([]*Project, n)
	for i := range ps {
		p, err := Create(home, base, fmt.Sprintf("p%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		ps[i] = p
	}
	return ps
}

func roots(list []RecentProject) []string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = filepath.Base(r.Root)
	}
	return out
}

func TestRecent(t *testing.T) {
	home := tempDir(t)
	if list, err := Recent(home); err != nil || len(list) != 0 {
		t.Fatalf("empty home: %v %v", list, err)
	}
	ps := openN(t, home, 3)
	for _, p := range ps {
		if err := Touch(home, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := Touch(home, ps[0]); err != nil { // again: moves to the front, no duplicate
		t.Fatal(err)
	}
	list, err := Recent(home)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(roots(list), ","); got != "p00,p02,p01" {
		t.Fatalf("order = %s", got)
	}
	r := list[0]
	if r.Root != ps[0].Root || r.ID != ps[0].ID || r.Name != "p00" || r.LastOpenedAt == "" || !r.Exists {
		t.Errorf("entry %+v", r)
	}

	os.RemoveAll(ps[2].Root)
	list, _ = Recent(home)
	if list[1].Exists || !list[0].Exists || !list[2].Exists {
		t.Errorf("exists flags: %+v", list)
	}

	if err := Forget(home, ps[2].Root); err != nil {
		t.Fatal(err)
	}
	if err := Forget(home, "/not/listed"); err != nil {
		t.Fatal(err)
	}
	list, _ = Recent(home)
	if got := strings.Join(roots(list), ","); got != "p00,p01" {
		t.Fatalf("after Forget: %s", got)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(filepath.Join(home, RecentFileName))
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %o", fi.Mode().Perm())
		}
	}
}

func TestForgetThroughSymlinkAndRelativePath(t *testing.T) {
	home := tempDir(t)
	p := openN(t, home, 1)[0]
	Touch(home, p)
	link := filepath.Join(tempDir(t), "link")
	if err := os.Symlink(p.Root, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := Forget(home, link); err != nil {
		t.Fatal(err)
	}
	if list, _ := Recent(home); len(list) != 0 {
		t.Fatalf("still listed: %v", list)
	}
	Touch(home, p)
	t.Chdir(filepath.Dir(p.Root))
	if err := Forget(home, filepath.Base(p.Root)); err != nil {
		t.Fatal(err)
	}
	if list, _ := Recent(home); len(list) != 0 {
		t.Fatalf("still listed: %v", list)
	}
}

func TestRecentKeepsAtMost20(t *testing.T) {
	home := tempDir(t)
	ps := openN(t, home, MaxRecent+5)
	for _, p := range ps {
		if err := Touch(home, p); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := Recent(home)
	if len(list) != MaxRecent || filepath.Base(list[0].Root) != "p24" || filepath.Base(list[MaxRecent-1].Root) != "p05" {
		t.Fatalf("list = %v", roots(list))
	}
}

func TestConcurrentTouch(t *testing.T) {
	home := tempDir(t)
	ps := openN(t, home, 12)
	var wg sync.WaitGroup
	errs := make(chan error, len(ps)*3)
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if err := Touch(home, p); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	list, err := Recent(home)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range list {
		if seen[r.Root] {
			t.Errorf("duplicate %s", r.Root)
		}
		seen[r.Root] = true
	}
	if len(list) != len(ps) {
		t.Fatalf("lost updates: %d entries, want %d", len(list), len(ps))
	}
}

func TestCorruptRecentList(t *testing.T) {
	home := tempDir(t)
	path := filepath.Join(home, RecentFileName)
	os.WriteFile(path, []byte(`{"projects": [`), 0o600)
	_, err := Recent(home)
	if errs.CodeOf(err) != CodeRecentCorrupt || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	p := openN(t, home, 1)[0]
	if err := Touch(home, p); err != nil {
		t.Fatal(err)
	}
	if list, err := Recent(home); err != nil || len(list) != 1 {
		t.Fatalf("after Touch: %v %v", list, err)
	}
	if data, err := os.ReadFile(path + ".corrupt"); err != nil || string(data) != `{"projects": [` {
		t.Errorf("corrupt list not kept aside: %q %v", data, err)
	}
}
