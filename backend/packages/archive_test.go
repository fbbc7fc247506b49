package packages

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// rawEntry is an archive entry written with a hand-made header.
type rawEntry struct {
	name string
	data []byte
	mode fs.FileMode // 0: regular 0644
	// raw, when set, writes data as already-compressed bytes with these header sizes.
	raw              bool
	uncompressedSize uint64
	flags            uint16
	method           uint16
}

// writeEvilZip writes the demo package plus extra entries.
func writeEvilZip(t *testing.T, path string, base fileMap, extra ...rawEntry) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range base.names() {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(base[name])
	}
	for _, e := range extra {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Flags: e.flags}
		if e.method != 0 {
			hdr.Method = e.method
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		hdr.SetMode(mode)
		if e.raw {
			hdr.CompressedSize64 = uint64(len(e.data))
			hdr.UncompressedSize64 = e.uncompressedSize
			w, err := zw.CreateRaw(hdr)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(e.data)
			continue
		}
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func deflate(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func TestZipSafety(t *testing.T) {
	demo := demoFileMap(t)
	zeros := make([]byte, 5<<20)
	manyFiles := make([]rawEntry, 5000)
	for i := range manyFiles {
		manyFiles[i] = rawEntry{name: "assets/many/" + strings.Repeat("x", i%7) + "f" + strconv.Itoa(i) + ".txt", data: []byte("x")}
	}
	lying := deflate(t, make([]byte, 2<<20))
	cases := []struct {
		name  string
		extra []rawEntry
		file  string
		msg   string
	}{
		{"zip slip", []rawEntry{{name: "../evil", data: []byte("x")}}, "../evil", "escapes the package"},
		{"zip slip nested", []rawEntry{{name: "assets/../../evil", data: []byte("x")}}, "assets/../../evil", "escapes the package"},
		{"zip slip backslash", []rawEntry{{name: `assets\..\..\evil`, data: []byte("x")}}, `assets\..\..\evil`, "escapes the package"},
		{"absolute path", []rawEntry{{name: "/tmp/evil", data: []byte("x")}}, "/tmp/evil", "absolute paths are not allowed"},
		{"absolute backslash path", []rawEntry{{name: `\tmp\evil`, data: []byte("x")}}, `\tmp\evil`, "absolute paths are not allowed"},
		{"drive letter", []rawEntry{{name: "C:/evil", data: []byte("x")}}, "C:/evil", "drive letters"},
		{"control characters", []rawEntry{{name: "assets/a\x00b", data: []byte("x")}}, "assets/a\x00b", "control characters"},
		{"symlink entry", []rawEntry{{name: "assets/link", data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}}, "assets/link", "symbolic links are not allowed"},
		{"device entry", []rawEntry{{name: "assets/dev", mode: fs.ModeDevice | 0o644}}, "assets/dev", "only regular files and folders"},
		{"duplicate name", []rawEntry{{name: "agents.json", data: []byte("{}")}}, "agents.json", "duplicate entry"},
		{"duplicate by letter case", []rawEntry{{name: "Agents.json", data: []byte("{}")}}, "Agents.json", "only in letter case"},
		{"file used as folder", []rawEntry{{name: "bmad.json/x", data: []byte("x")}}, "bmad.json/x", "parent folder \"bmad.json\" is also a file"},
		{"too many files", manyFiles, "", "files; the limit is 5000"},
		{"zip bomb ratio", []rawEntry{{name: "assets/zeros.bin", data: zeros}}, "assets/zeros.bin", "possible zip bomb"},
		{"lying size header", []rawEntry{{name: "assets/small.txt", data: lying, raw: true, uncompressedSize: 100}}, "assets/small.txt", "more data than its header declares"},
		{"encrypted entry", []rawEntry{{name: "assets/secret.txt", data: []byte("x"), flags: 0x1}}, "assets/secret.txt", "encrypted entries are not supported"},
		{"unknown compression", []rawEntry{{name: "assets/odd.txt", data: []byte("x"), raw: true, uncompressedSize: 1, method: 99}}, "assets/odd.txt", "unsupported compression method 99"},
	}
	home := newHome(t)
	m := NewManager(home)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			archive := filepath.Join(dir, "evil.bmad")
			writeEvilZip(t, archive, demo, tc.extra...)
			_, err := m.Import(archive)
			wantProblem(t, validationProblems(t, err), tc.file, "", tc.msg)
			for _, p := range []string{filepath.Join(dir, "evil"), filepath.Join(home, "evil"), filepath.Join(filepath.Dir(home), "evil")} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
	assertPristine(t, home)
}

func TestZipSafetyCollectsEveryViolation(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "evil.zip")
	writeEvilZip(t, archive, demoFileMap(t),
		rawEntry{name: "../a", data: []byte("x")},
		rawEntry{name: "/b", data: []byte("x")},
		rawEntry{name: "c", data: []byte("x"), mode: fs.ModeSymlink | 0o777},
	)
	home := newHome(t)
	_, err := NewManager(home).Import(archive)
	probs := validationProblems(t, err)
	wantProblem(t, probs, "../a", "", "escapes")
	wantProblem(t, probs, "/b", "", "absolute")
	wantProblem(t, probs, "c", "", "symbolic link")
	assertPristine(t, home)
}

func TestSizeLimits(t *testing.T) {
	demo := demoFileMap(t)
	lim := DefaultLimits()

	t.Run("oversized file at the default limit", func(t *testing.T) {
		archive := filepath.Join(t.TempDir(), "big.bmad")
		big := bytes.Repeat([]byte("0123456789abcdef"), (21<<20)/16)
		writeEvilZip(t, archive, demo, rawEntry{name: "assets/big.bin", data: big, method: zip.Store})
		home := newHome(t)
		_, err := NewManager(home).Import(archive)
		wantProblem(t, validationProblems(t, err), "assets/big.bin", "", "the limit is 20971520 bytes per file")
		assertPristine(t, home)
	})

	t.Run("total size", func(t *testing.T) {
		l := lim
		l.MaxTotalSize = 4000
		archive := filepath.Join(t.TempDir(), "p.bmad")
		writeEvilZip(t, archive, demo, rawEntry{name: "assets/filler.txt", data: bytes.Repeat([]byte("y"), 3000)})
		home := newHome(t)
		_, err := NewManager(home, WithLimits(l)).Import(archive)
		wantProblem(t, validationProblems(t, err), "", "", "the limit is 4000 bytes")
		assertPristine(t, home)
	})

	t.Run("oversized file in a folder", func(t *testing.T) {
		l := lim
		l.MaxFileSize = 1000
		dir := t.TempDir()
		files := demo.clone()
		files["assets/big.txt"] = bytes.Repeat([]byte("z"), 1001)
		files.writeDir(t, dir)
		home := newHome(t)
		_, err := NewManager(home, WithLimits(l)).Import(dir)
		probs := validationProblems(t, err)
		wantProblem(t, probs, "assets/big.txt", "", "the limit is 1000 bytes per file")
		assertPristine(t, home)
	})

	t.Run("too many files in a folder", func(t *testing.T) {
		l := lim
		l.MaxFiles = 5
		dir := t.TempDir()
		demo.writeDir(t, dir)
		home := newHome(t)
		_, err := NewManager(home, WithLimits(l)).Import(dir)
		wantProblem(t, validationProblems(t, err), "", "", "more than 5 files")
		assertPristine(t, home)
	})
}

func TestFolderSafety(t *testing.T) {
	dir := t.TempDir()
	demoFileMap(t).writeDir(t, dir)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "assets", "passwd")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "etc")); err != nil {
		t.Fatal(err)
	}
	home := newHome(t)
	_, err := NewManager(home).Import(dir)
	probs := validationProblems(t, err)
	wantProblem(t, probs, "assets/passwd", "", "symbolic links are not allowed")
	wantProblem(t, probs, "etc", "", "symbolic links are not allowed")
	assertPristine(t, home)
}

func TestNotAnArchive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.bmad")
	os.WriteFile(p, []byte("just text"), 0o644)
	home := newHome(t)
	_, err := NewManager(home).Import(p)
	wantProblem(t, validationProblems(t, err), "notes.bmad", "", "not a valid .bmad/.zip archive")
	assertPristine(t, home)

	_, err = NewManager(home).Import(filepath.Join(t.TempDir(), "missing.bmad"))
	if err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("missing file: want a not-exist error, got %v", err)
	}
	assertPristine(t, home)
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

func TestCleanEntryName(t *testing.T) {
	cases := []struct {
		raw, name, problem string
	}{
		{"bmad.json", "bmad.json", ""},
		{"./steps/a.md", "steps/a.md", ""},
		{"steps//a.md", "steps/a.md", ""},
		{`steps\a.md`, "steps/a.md", ""},
		{"steps/", "steps", ""},
		{"./", "", ""},
		{"", "", "empty"},
		{"..", "", "escapes"},
		{"a/../../b", "", "escapes"},
		{`..\b`, "", "escapes"},
		{"/abs", "", "absolute"},
		{"c:/x", "", "drive"},
		{"a\tb", "", "control"},
	}
	for _, c := range cases {
		name, problem := cleanEntryName(c.raw)
		if name != c.name || (c.problem == "") != (problem == "") || !strings.Contains(problem, c.problem) {
			t.Errorf("cleanEntryName(%q) = %q, %q; want %q, problem containing %q", c.raw, name, problem, c.name, c.problem)
		}
	}
}

func TestStripTopFolder(t *testing.T) {
	mk := func(names ...string) []entry {
		var es []entry
		for _, n := range names {
			es = append(es, entry{name: strings.TrimSuffix(n, "/"), dir: strings.HasSuffix(n, "/")})
		}
		return es
	}
	names := func(es []entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.name)
		}
		return strings.Join(s, ",")
	}
	cases := []struct {
		in   []entry
		want string
	}{
		{mk("pkg/", "pkg/bmad.json", "pkg/steps/a.md"), "bmad.json,steps/a.md"},
		{mk("pkg/bmad.json", "pkg/steps/a.md"), "bmad.json,steps/a.md"},
		{mk("bmad.json", "steps/a.md"), "bmad.json,steps/a.md"},
		{mk("a/bmad.json", "b/x"), "a/bmad.json,b/x"},
		{mk("a/x", "readme.md"), "a/x,readme.md"},
		{mk("workflows/x/bmad.json"), "x/bmad.json"},
	}
	for _, c := range cases {
		if got := names(stripTopFolder(c.in)); got != c.want {
			t.Errorf("stripTopFolder = %s, want %s", got, c.want)
		}
	}
}
