package tools

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// loadCorpus reads the Go-quoted paths of testdata/sandbox_attacks.txt.
func loadCorpus(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sandbox_attacks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("corpus line %q: %v", line, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSandboxRejectsAttackCorpus(t *testing.T) {
	f := newFixture(t)
	sb := NewSandbox(f.roots)
	corpus := loadCorpus(t)
	corpus = append(corpus,
		"@project/"+strings.Repeat("a", MaxPathLen),
		"@project/"+strings.Repeat("a/", 600),
		f.roots.Project+"/docs/readme.md",
		f.outside+"/secret.txt",
		"@project/link-abs-out/secret.txt",
		"@project/link-abs-out",
	)
	if len(corpus) < 30 {
		t.Fatalf("corpus has only %d paths", len(corpus))
	}
	for _, p := range corpus {
		for _, access := range []Access{AccessRead, AccessWrite} {
			r, terr := sb.Resolve(p, access)
			if terr == nil {
				t.Errorf("%q (access %d) resolved to %q; want E_SANDBOX_VIOLATION", p, access, r.Host)
				continue
			}
			if terr.Code != CodeSandboxViolation {
				t.Errorf("%q (access %d): code %s (%s); want E_SANDBOX_VIOLATION", p, access, terr.Code, terr.Message)
			}
			if strings.Contains(terr.Message, f.base) {
				t.Errorf("%q: message leaks a host path: %s", p, terr.Message)
			}
		}
	}
}

func TestSandboxAcceptsLegitimatePaths(t *testing.T) {
	f := newFixture(t)
	sb := NewSandbox(f.roots)
	proj, state, tr := f.roots.Project, f.roots.State, f.roots.ToolResults
	tests := []struct {
		path, display, host string
		exists              bool
	}{
		{"@project", "@project", proj, true},
		{"@project/", "@project", proj, true},
		{"@project/.", "@project", proj, true},
		{"@project/docs/readme.md", "@project/docs/readme.md", proj + "/docs/readme.md", true},
		{"@project/./docs/readme.md", "@project/docs/readme.md", proj + "/docs/readme.md", true},
		{"@project//docs//readme.md", "@project/docs/readme.md", proj + "/docs/readme.md", true},
		{"@project/docs/", "@project/docs", proj + "/docs", true},
		{"@project/docs/new/deeper/file.md", "@project/docs/new/deeper/file.md", proj + "/docs/new/deeper/file.md", false},
		{"@project/link-in/readme.md", "@project/link-in/readme.md", proj + "/docs/readme.md", true},
		{"@project/link-in-file", "@project/link-in-file", proj + "/docs/readme.md", true},
		{"@project/link-abs-in/readme.md", "@project/link-abs-in/readme.md", proj + "/docs/readme.md", true},
		{"@project/docs/link-self/link-self/readme.md", "@project/docs/link-self/link-self/readme.md", proj + "/docs/readme.md", true},
		{"@project/link-in/new.md", "@project/link-in/new.md", proj + "/docs/new.md", false},
		{"@project/100%.md", "@project/100%.md", proj + "/100%.md", false},
		{"@project/a%2fb", "@project/a%2fb", proj + "/a%2fb", false},
		{"@project/日本語.md", "@project/日本語.md", proj + "/日本語.md", false},
		{"@project/résumé.md", "@project/résumé.md", proj + "/résumé.md", false},
		{"@project/.hidden", "@project/.hidden", proj + "/.hidden", false},
		{"@project/a..b", "@project/a..b", proj + "/a..b", false},
		{"@project/..a", "@project/..a", proj + "/..a", false},
		{"@project/a.", "@project/a.", proj + "/a.", false},
		{"@project/my file (1).md", "@project/my file (1).md", proj + "/my file (1).md", false},
		{"@project/~", "@project/~", proj + "/~", false},
		{"@pkg", "@pkg", f.roots.Package, true},
		{"@pkg/workflows/a.md", "@pkg/workflows/a.md", f.roots.Package + "/workflows/a.md", true},
		{"@state", "@state", state, true},
		{"@state/workflow.md", "@state/workflow.md", state + "/workflow.md", true},
		{"@state/logs/execution.jsonl", "@state/logs/execution.jsonl", state + "/logs/execution.jsonl", true},
		{"@state/logs/tool-results", "@state/logs/tool-results/conv1", tr + "/conv1", true},
		{"@state/logs/tool-results/conv1", "@state/logs/tool-results/conv1", tr + "/conv1", true},
		{"@state/logs/tool-results/conv1/msg1.json", "@state/logs/tool-results/conv1/msg1.json", tr + "/conv1/msg1.json", true},
		{"@state/logs//tool-results/conv1/msg1.json", "@state/logs/tool-results/conv1/msg1.json", tr + "/conv1/msg1.json", true},
	}
	for _, tc := range tests {
		r, terr := sb.Resolve(tc.path, AccessRead)
		if terr != nil {
			t.Errorf("%q: %s", tc.path, terr.Error())
			continue
		}
		if r.Display() != tc.display {
			t.Errorf("%q: display %q, want %q", tc.path, r.Display(), tc.display)
		}
		if r.Host != tc.host {
			t.Errorf("%q: host %q, want %q", tc.path, r.Host, tc.host)
		}
		if r.Exists != tc.exists {
			t.Errorf("%q: exists %v, want %v", tc.path, r.Exists, tc.exists)
		}
		if !within(r.Root, r.Host) {
			t.Errorf("%q: %q is outside %q", tc.path, r.Host, r.Root)
		}
	}
}

func TestSandboxReadOnlyAndUnavailable(t *testing.T) {
	f := newFixture(t)
	sb := NewSandbox(f.roots)
	for _, p := range []string{"@pkg/workflows/a.md", "@pkg/new.md", "@state/logs/execution.jsonl", "@state/logs", "@state/logs/other.txt",
		"@state/logs/tool-results/conv1/msg1.json", "@state/logs/tool-results/conv1/new.json"} {
		if _, terr := sb.Resolve(p, AccessRead); terr != nil {
			t.Errorf("read %q: %s", p, terr.Error())
		}
		_, terr := sb.Resolve(p, AccessWrite)
		if terr == nil || terr.Code != CodeSandboxViolation || terr.Details["reason"] != "read_only" {
			t.Errorf("write %q: %v; want E_SANDBOX_VIOLATION read_only", p, terr)
		}
	}
	if _, terr := sb.Resolve("@state/workflow.md", AccessWrite); terr != nil {
		t.Errorf("write @state/workflow.md: %s", terr.Error())
	}

	// Chat mode: no package, no run. Only tool results stay reachable under @state.
	chat := NewSandbox(Roots{Project: f.roots.Project, ToolResults: f.roots.ToolResults, Conversation: "conv1"})
	for _, p := range []string{"@pkg/workflows/a.md", "@pkg", "@state/workflow.md", "@state"} {
		_, terr := chat.Resolve(p, AccessRead)
		if terr == nil || terr.Code != CodeNotFound || terr.Details["reason"] != "alias_unavailable" {
			t.Errorf("chat %q: %v; want ENOENT alias_unavailable", p, terr)
		}
	}
	if r, terr := chat.Resolve("@state/logs/tool-results/conv1/msg1.json", AccessRead); terr != nil || !r.Exists {
		t.Errorf("chat tool result: %v", terr)
	}

	// A root that does not exist yet is ENOENT, not a crash.
	missing := NewSandbox(Roots{Project: filepath.Join(f.base, "nope")})
	if _, terr := missing.Resolve("@project/a", AccessRead); terr == nil || terr.Code != CodeNotFound {
		t.Errorf("missing root: %v", terr)
	}
}

func TestSandboxDanglingSymlinkInsideIsRefused(t *testing.T) {
	f := newFixture(t)
	_, terr := NewSandbox(f.roots).Resolve("@project/link-dangling-in", AccessWrite)
	if terr == nil || terr.Code != CodeSandboxViolation || terr.Details["reason"] != "dangling_symlink" {
		t.Fatalf("got %v", terr)
	}
}

func TestSandboxRootBehindSymlink(t *testing.T) {
	f := newFixture(t)
	link := filepath.Join(f.base, "project-link")
	symlink(t, f.roots.Project, link)
	sb := NewSandbox(Roots{Project: link})
	r, terr := sb.Resolve("@project/docs/readme.md", AccessRead)
	if terr != nil {
		t.Fatal(terr)
	}
	if r.Host != filepath.Join(f.roots.Project, "docs", "readme.md") {
		t.Fatalf("host %q", r.Host)
	}
	if _, terr := sb.Resolve("@project/link-out/secret.txt", AccessRead); terr == nil || terr.Code != CodeSandboxViolation {
		t.Fatalf("escape through a symlinked root: %v", terr)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, p string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/", "/x", true},
	}
	for _, tc := range tests {
		if got := within(tc.root, tc.p); got != tc.want {
			t.Errorf("within(%q,%q)=%v", tc.root, tc.p, got)
		}
	}
}

func FuzzResolve(f *testing.F) {
	for _, p := range loadCorpus(f) {
		f.Add(p)
	}
	for _, p := range []string{"@project/docs/readme.md", "@project/link-in/x", "@state/logs/tool-results/conv1/msg1.json",
		"@pkg/workflows/a.md", "@project/docs/link-self/link-up/x", "@state/alias.md"} {
		f.Add(p)
	}
	fx := newFixture(f)
	sb := NewSandbox(fx.roots)
	realRoots := map[string]string{}
	for base, root := range map[string]string{AliasProject: fx.roots.Project, AliasPkg: fx.roots.Package,
		AliasState: fx.roots.State, ToolResultsAlias + "/conv1": filepath.Join(fx.roots.ToolResults, "conv1")} {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			f.Fatal(err)
		}
		realRoots[base] = r
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, access := range []Access{AccessRead, AccessWrite} {
			r, terr := sb.Resolve(p, access)
			if terr != nil {
				if strings.Contains(terr.Message, fx.base) {
					t.Fatalf("%q: message leaks a host path: %s", p, terr.Message)
				}
				continue
			}
			root, ok := realRoots[r.Base]
			if !ok || r.Root != root {
				t.Fatalf("%q: unexpected base %q root %q", p, r.Base, r.Root)
			}
			if !within(root, r.Host) {
				t.Fatalf("%q resolved outside its root: %q", p, r.Host)
			}
			if real, err := filepath.EvalSymlinks(r.Host); err == nil && !within(root, real) {
				t.Fatalf("%q: real path %q is outside %q", p, real, root)
			}
			for _, seg := range strings.Split(r.Display(), "/") {
				if seg == ".." {
					t.Fatalf("%q: display %q has a .. segment", p, r.Display())
				}
			}
			if access == AccessWrite && r.ReadOnly {
				t.Fatalf("%q: write allowed under a read-only root", p)
			}
		}
	})
}
