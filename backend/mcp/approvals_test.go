package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestApprovalsAreKeyedByNameAndConfigHash(t *testing.T) {
	home := t.TempDir()
	a := NewApprovals(home, "p1")
	if a.Path() != filepath.Join(home, "projects", "p1", "mcp-approvals.json") {
		t.Fatalf("path %s", a.Path())
	}
	a.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	lint := ServerConfig{Name: "lint", Source: SourceProject, Command: "./lint"}
	docs := ServerConfig{Name: "docs", Source: SourceProject, URL: "http://127.0.0.1:9/mcp"}
	off := ServerConfig{Name: "off", Source: SourceProject, Command: "x", Disabled: true}
	fromSettings := ServerConfig{Name: "gh", Source: SourceSettings, Command: "npx"}

	if ok, err := a.IsApproved(lint); ok || err != nil {
		t.Fatalf("approved before approval: %v %v", ok, err)
	}
	if ok, _ := a.IsApproved(fromSettings); !ok {
		t.Fatal("a settings server needs approval")
	}
	pending, err := a.Pending([]ServerConfig{lint, docs, off, fromSettings})
	if err != nil || !reflect.DeepEqual(pending, []PendingServer{{Name: "docs"}, {Name: "lint"}}) {
		t.Fatalf("pending %v %v", pending, err)
	}
	if err := a.Approve(lint); err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.IsApproved(lint); !ok {
		t.Fatal("not approved after Approve")
	}
	// The approval is for this project only.
	if ok, _ := NewApprovals(home, "p2").IsApproved(lint); ok {
		t.Fatal("approved in another project")
	}
	// An edited configuration needs a new approval.
	edited := lint.Clone()
	edited.Args = []string{"--fix"}
	if ok, _ := a.IsApproved(edited); ok {
		t.Fatal("an edited server is still approved")
	}
	pending, _ = a.Pending([]ServerConfig{edited, docs})
	if !reflect.DeepEqual(pending, []PendingServer{{Name: "docs"}, {Name: "lint", Changed: true}}) {
		t.Fatalf("pending after the edit %v", pending)
	}
	all, _ := a.All()
	if all["lint"].ConfigHash != lint.Hash() || !all["lint"].ApprovedAt.Equal(a.now()) {
		t.Fatalf("stored %+v", all)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(a.Path()); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("file mode %v %v", fi.Mode(), err)
		}
	}
	if err := a.Revoke("lint"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.IsApproved(lint); ok {
		t.Fatal("approved after Revoke")
	}
	if err := a.Revoke("never"); err != nil {
		t.Fatal(err)
	}
}

func TestApprovalsSurviveConcurrentWritersAndDamage(t *testing.T) {
	home := t.TempDir()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Separate values, as separate processes would have.
			if err := NewApprovals(home, "p").Approve(ServerConfig{Name: string(rune('a' + i)), Source: SourceProject, Command: "x"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	a := NewApprovals(home, "p")
	all, err := a.All()
	if err != nil || len(all) != 20 {
		t.Fatalf("%d approvals, %v", len(all), err)
	}
	if err := os.WriteFile(a.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := ServerConfig{Name: "a", Source: SourceProject, Command: "x"}
	if ok, err := a.IsApproved(s); ok || err == nil {
		t.Fatalf("a damaged file approved: %v %v", ok, err)
	}
	if err := a.Approve(s); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.IsApproved(s); !ok || err != nil {
		t.Fatalf("after repair: %v %v", ok, err)
	}
}
