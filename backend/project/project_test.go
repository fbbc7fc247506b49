package project

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"crewagent/backend/errs"
)

// tempDir returns a fresh folder with symlinks resolved, as Open reports roots.
func tempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestOpenNewFolder(t *testing.T) {
	home, root := tempDir(t), filepath.Join(tempDir(t), "my-book")
	os.Mkdir(root, 0o755)
	p, err := Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := uuid.Parse(p.ID); err != nil {
		t.Fatalf("id %q: %v", p.ID, err)
	}
	want := Project{ID: p.ID, Name: "my-book", Root: root, DataDir: filepath.Join(home, "projects", p.ID),
		ArtifactsDir: filepath.Join(root, "artifacts"), CreatedAt: p.CreatedAt, UpdatedAt: p.CreatedAt}
	if *p != want {
		t.Fatalf("got  %+v\nwant %+v", *p, want)
	}
	if p.CreatedAt == "" {
		t.Error("createdAt not set")
	}
	fi, err := os.Stat(p.DataDir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("data dir: %v", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %o", fi.Mode().Perm())
	}
	m := readJSON(t, MetaPath(root))
	for k, v := range map[string]any{"schemaVersion": "1", "projectId": p.ID, "projectName": "my-book",
		"artifactsDir": "artifacts", "activePackageId": "", "createdAt": p.CreatedAt, "updatedAt": p.UpdatedAt} {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if _, err := os.Stat(p.ArtifactsDir); !os.IsNotExist(err) {
		t.Errorf("Open created the artifacts folder")
	}

	// Reopening keeps the identity and leaves the file alone.
	before, _ := os.ReadFile(MetaPath(root))
	p2, err := Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if *p2 != *p {
		t.Fatalf("reopened: %+v", *p2)
	}
	after, _ := os.ReadFile(MetaPath(root))
	if string(before) != string(after) {
		t.Error("reopening rewrote .crewagent.json")
	}
}

func TestOpenRelativeAndSymlinkedRoot(t *testing.T) {
	home, base := tempDir(t), tempDir(t)
	root := filepath.Join(base, "real")
	os.Mkdir(root, 0o755)
	t.Chdir(base)
	p, err := Open(home, "real")
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != root {
		t.Errorf("root = %q, want %q", p.Root, root)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	p2, err := Open(home, link)
	if err != nil {
		t.Fatal(err)
	}
	if p2.Root != root || p2.ID != p.ID {
		t.Errorf("through a link: %+v", p2)
	}
}

func TestOpenKeepsFieldsAndFixesMissingID(t *testing.T) {
	cases := map[string]string{
		"no id":      `{"projectName":"Novel","artifactsDir":"out/docs","custom":{"a":[1,2]},"activePackageId":"pkg-1","createdAt":"2024-01-02T03:04:05.000Z"}`,
		"bad id":     `{"projectId":"not-a-uuid","projectName":"Novel","artifactsDir":"out/docs","custom":{"a":[1,2]},"activePackageId":"pkg-1","createdAt":"2024-01-02T03:04:05.000Z"}`,
		"number id":  `{"projectId":42,"projectName":"Novel","artifactsDir":"out/docs","custom":{"a":[1,2]},"activePackageId":"pkg-1","createdAt":"2024-01-02T03:04:05.000Z"}`,
		"braced id":  `{"projectId":"{0b5c2a7e-6f3b-4a1e-9d43-5a7c1f0e9b21}","projectName":"Novel","artifactsDir":"out/docs","custom":{"a":[1,2]},"activePackageId":"pkg-1","createdAt":"2024-01-02T03:04:05.000Z"}`,
		"empty name": `{"projectId":"","projectName":"Novel","artifactsDir":"out/docs","custom":{"a":[1,2]},"activePackageId":"pkg-1","createdAt":"2024-01-02T03:04:05.000Z"}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			home, root := tempDir(t), tempDir(t)
			os.WriteFile(MetaPath(root), []byte(content), 0o644)
			p, err := Open(home, root)
			if err != nil {
				t.Fatal(err)
			}
			if !validID(p.ID) || p.Name != "Novel" || p.ActivePackageID != "pkg-1" ||
				p.ArtifactsDir != filepath.Join(root, "out", "docs") || p.CreatedAt != "2024-01-02T03:04:05.000Z" {
				t.Fatalf("project %+v", p)
			}
			m := readJSON(t, MetaPath(root))
			if m["projectId"] != p.ID || m["schemaVersion"] != "1" || m["updatedAt"] == nil {
				t.Errorf("file not updated: %v", m)
			}
			if fmt.Sprint(m["custom"]) != "map[a:[1 2]]" || m["createdAt"] != "2024-01-02T03:04:05.000Z" || m["artifactsDir"] != "out/docs" {
				t.Errorf("fields lost: %v", m)
			}
		})
	}
}

func TestOpenValidFileIsNotRewritten(t *testing.T) {
	home, root := tempDir(t), tempDir(t)
	id := uuid.NewString()
	content := `{"projectId":"` + id + `","extra":true}`
	os.WriteFile(MetaPath(root), []byte(content), 0o644)
	p, err := Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != id || p.Name != filepath.Base(root) || p.ArtifactsDir != filepath.Join(root, "artifacts") {
		t.Fatalf("project %+v", p)
	}
	if data, _ := os.ReadFile(MetaPath(root)); string(data) != content {
		t.Errorf("file rewritten: %s", data)
	}
}

func TestOpenEmptyFile(t *testing.T) {
	home, root := tempDir(t), tempDir(t)
	os.WriteFile(MetaPath(root), nil, 0o644)
	p, err := Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if m := readJSON(t, MetaPath(root)); m["projectId"] != p.ID {
		t.Errorf("file = %v", m)
	}
}

func TestOpenCorruptFile(t *testing.T) {
	for name, content := range map[string]string{
		"syntax":    `{"projectId": "x",`,
		"array":     `["projectId"]`,
		"null":      `null`,
		"string":    `"hello"`,
		"two docs":  `{} {}`,
		"text file": "projectId = 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			home, root := tempDir(t), tempDir(t)
			os.WriteFile(MetaPath(root), []byte(content), 0o644)
			_, err := Open(home, root)
			if errs.CodeOf(err) != CodeMetaCorrupt {
				t.Fatalf("err = %v, want %s", err, CodeMetaCorrupt)
			}
			if !strings.Contains(err.Error(), MetaPath(root)) {
				t.Errorf("message does not name the file: %v", err)
			}
			if data, _ := os.ReadFile(MetaPath(root)); string(data) != content {
				t.Errorf("corrupt file overwritten: %q", data)
			}
			if entries, _ := os.ReadDir(filepath.Join(home, "projects")); len(entries) != 0 {
				t.Errorf("data dir created for a corrupt project")
			}
		})
	}
}

func TestOpenBadArtifactsDir(t *testing.T) {
	for _, dir := range []string{"../outside", "/abs/path", "a/../../b"} {
		home, root := tempDir(t), tempDir(t)
		content := `{"projectId":"` + uuid.NewString() + `","artifactsDir":"` + dir + `"}`
		os.WriteFile(MetaPath(root), []byte(content), 0o644)
		_, err := Open(home, root)
		if errs.CodeOf(err) != CodeMetaInvalid || !strings.Contains(err.Error(), "artifactsDir") {
			t.Errorf("artifactsDir %q: err = %v", dir, err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	home, base := tempDir(t), tempDir(t)
	file := filepath.Join(base, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := []struct {
		home, root, code string
	}{
		{home, filepath.Join(base, "missing"), CodeNotFound},
		{home, file, CodeNotDir},
		{home, "", CodeNotFound},
		{"", base, CodeHome},
	}
	for _, tc := range cases {
		_, err := Open(tc.home, tc.root)
		if errs.CodeOf(err) != tc.code {
			t.Errorf("Open(%q, %q): err = %v, want %s", tc.home, tc.root, err, tc.code)
		}
		if tc.root != "" && tc.home != "" && !strings.Contains(err.Error(), tc.root) {
			t.Errorf("message does not name the folder: %v", err)
		}
	}
}

// Openers racing on a new folder agree on one identity.
func TestConcurrentOpenAgreesOnID(t *testing.T) {
	home, root := tempDir(t), tempDir(t)
	const n = 8
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := Open(home, root)
			errs[i] = err
			if err == nil {
				ids[i] = p.ID
			}
		}()
	}
	wg.Wait()
	final := readJSON(t, MetaPath(root))["projectId"]
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("opener %d: %v", i, errs[i])
		}
		if ids[i] != final {
			t.Errorf("opener %d got %s, file has %v", i, ids[i], final)
		}
	}
}

func TestCreate(t *testing.T) {
	home, parent := tempDir(t), tempDir(t)
	p, err := Create(home, parent, "Travel Notes 2025")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(parent, "Travel Notes 2025")
	if p.Root != root || p.Name != "Travel Notes 2025" {
		t.Fatalf("project %+v", p)
	}
	if m := readJSON(t, MetaPath(root)); m["projectId"] != p.ID || m["projectName"] != "Travel Notes 2025" {
		t.Errorf("file %v", m)
	}
	if _, err := Create(home, parent, "Travel Notes 2025"); errs.CodeOf(err) != CodeExists {
		t.Errorf("second create: %v", err)
	}
	if _, err := Create(home, filepath.Join(parent, "nope"), "x"); errs.CodeOf(err) != CodeNotFound {
		t.Errorf("missing parent: %v", err)
	}
}

func TestCreateCleansUpOnFailure(t *testing.T) {
	base, parent := tempDir(t), tempDir(t)
	home := filepath.Join(base, "home-is-a-file") // the data folder cannot be created under it
	os.WriteFile(home, []byte("x"), 0o600)
	if _, err := Create(home, parent, "p"); errs.CodeOf(err) != CodeIO {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "p")); !os.IsNotExist(err) {
		t.Error("folder left behind")
	}
}

func TestValidateName(t *testing.T) {
	good := []string{"book", "My Project", "数据分析", "v1.2", "a-b_c", ".hidden"}
	bad := []string{"", "   ", ".", "..", "a/b", `a\b`, "a:b", "what?", "a*", "x\x00y", "tab\tname",
		" lead", "trail ", "dot.", "CON", "nul.txt", "com1", strings.Repeat("x", 256)}
	for _, n := range good {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v", n, err)
		}
	}
	for _, n := range bad {
		if err := ValidateName(n); errs.CodeOf(err) != CodeNameInvalid {
			t.Errorf("ValidateName(%q) = %v, want %s", n, err, CodeNameInvalid)
		}
	}
}

func TestSetActivePackage(t *testing.T) {
	home, root := tempDir(t), tempDir(t)
	os.WriteFile(MetaPath(root), []byte(`{"keep":"me"}`), 0o644)
	p, err := Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetActivePackage(p, "bmad-novel"); err != nil {
		t.Fatal(err)
	}
	if p.ActivePackageID != "bmad-novel" || p.UpdatedAt == "" {
		t.Fatalf("project %+v", p)
	}
	m := readJSON(t, MetaPath(root))
	if m["activePackageId"] != "bmad-novel" || m["keep"] != "me" || m["projectId"] != p.ID || m["updatedAt"] != p.UpdatedAt {
		t.Errorf("file %v", m)
	}
	p2, _ := Open(home, root)
	if p2.ActivePackageID != "bmad-novel" {
		t.Errorf("reopened: %+v", p2)
	}

	// Deleted meanwhile: written again with the same identity.
	os.Remove(MetaPath(root))
	if err := SetActivePackage(p, ""); err != nil {
		t.Fatal(err)
	}
	if m := readJSON(t, MetaPath(root)); m["projectId"] != p.ID || m["activePackageId"] != "" {
		t.Errorf("recreated file %v", m)
	}

	// Replaced by another project's file: refused.
	other := `{"projectId":"` + uuid.NewString() + `"}`
	os.WriteFile(MetaPath(root), []byte(other), 0o644)
	if err := SetActivePackage(p, "x"); errs.CodeOf(err) != CodeIDChanged {
		t.Errorf("err = %v", err)
	}
	os.WriteFile(MetaPath(root), []byte("{"), 0o644)
	if err := SetActivePackage(p, "x"); errs.CodeOf(err) != CodeMetaCorrupt {
		t.Errorf("corrupt: err = %v", err)
	}
	if data, _ := os.ReadFile(MetaPath(root)); string(data) != "{" {
		t.Error("corrupt file overwritten")
	}
}

func FuzzOpenMeta(f *testing.F) {
	f.Add([]byte(`{"projectId":"0b5c2a7e-6f3b-4a1e-9d43-5a7c1f0e9b21","artifactsDir":"out"}`))
	f.Add([]byte(`{"projectName":"x","projectId":7}`))
	f.Add([]byte(`[1]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A home of its own: an id an earlier input used, in a folder gone
		// since, would be a moved project (a question, not a failure).
		home, root := tempDir(t), tempDir(t)
		os.WriteFile(MetaPath(root), data, 0o644)
		p, err := Open(home, root)
		if err != nil {
			switch errs.CodeOf(err) {
			case CodeMetaCorrupt, CodeMetaInvalid:
			default:
				t.Fatalf("unexpected error: %v", err)
			}
			if got, _ := os.ReadFile(MetaPath(root)); string(got) != string(data) {
				t.Fatal("file changed on error")
			}
			return
		}
		if !validID(p.ID) || !strings.HasPrefix(p.ArtifactsDir, root) {
			t.Fatalf("project %+v", p)
		}
		p2, err := Open(home, root)
		if err != nil || p2.ID != p.ID {
			t.Fatalf("reopen: %v %+v", err, p2)
		}
	})
}
