package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultLocations(t *testing.T) {
	got := DefaultLocations(Places{Project: "/p", Package: "/pkg", Home: "/h", UserHome: "/u"})
	want := []Location{
		{SourceProject, "/p/.crewagent/skills", "/p"},
		{SourcePackage, "/pkg/skills", "/pkg"},
		{SourceUser, "/h/skills", "/h"},
		{SourceClaudeProject, "/p/.claude/skills", "/p"},
		{SourceAgentsProject, "/p/.agents/skills", "/p"},
		{SourceClaudeUser, "/u/.claude/skills", "/u"},
		{SourceAgentsUser, "/u/.agents/skills", "/u"},
		{SourceCodexUser, "/u/.codex/skills", "/u"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	got = DefaultLocations(Places{Project: "/p", UserHome: "/u", CodexHome: "/c"})
	if l := got[len(got)-1]; l != (Location{SourceCodexUser, "/c/skills", "/c"}) {
		t.Errorf("CODEX_HOME: got %+v", l)
	}
	got = DefaultLocations(Places{Project: "/p", Home: "/h", UserHome: "/u", NoOtherAgents: true})
	if len(got) != 2 || got[0].Source != SourceProject || got[1].Source != SourceUser {
		t.Errorf("NoOtherAgents: got %+v", got)
	}
	if got := DefaultLocations(Places{}); len(got) != 0 {
		t.Errorf("no places: got %+v", got)
	}
}

// TestDiscoverTree discovers the realistic fixture tree (every source, a
// shadowed skill per precedence step, loose and broken skills, a
// user-only skill, symbolic links) and compares the listing with a golden
// file.
func TestDiscoverTree(t *testing.T) {
	root := copyTree(t)
	home := filepath.Join(root, "home", "skills")
	os.MkdirAll(filepath.Join(home, "empty-folder"), 0o755)
	// a skill folder linked from elsewhere (how skill managers install them)
	shared := t.TempDir()
	writeSkill(t, shared, "linked-skill", skillText("linked-skill", "A skill installed as a symbolic link."))
	os.WriteFile(filepath.Join(shared, "secret.txt"), []byte("outside"), 0o644)
	if err := os.Symlink(filepath.Join(shared, "linked-skill"), filepath.Join(home, "linked-skill")); err != nil {
		t.Fatal(err)
	}
	// inside a skill: a link to a file inside (listed), one leaving the folder (reported)
	pptx := filepath.Join(root, "project", ".crewagent", "skills", "pptx")
	os.Symlink("reference/ooxml.md", filepath.Join(pptx, "ooxml-link.md"))
	os.Symlink(filepath.Join(shared, "secret.txt"), filepath.Join(pptx, "escape.txt"))
	// a SKILL.md that is a link leaving its folder
	evil := filepath.Join(home, "evil-link")
	os.MkdirAll(evil, 0o755)
	os.Symlink(filepath.Join(shared, "linked-skill", SkillFile), filepath.Join(evil, SkillFile))
	// a dangling skill folder link
	os.Symlink(filepath.Join(shared, "gone"), filepath.Join(home, "dangling"))

	cat := Discover(DefaultLocations(treePlaces(root)))
	golden(t, "list.golden.json", jsonWithRoot(t, cat.List(), root))

	// spot checks on top of the golden file
	sk, ok := cat.Get("pptx")
	if !ok || sk.Source != SourceProject {
		t.Fatalf("pptx: %+v", sk)
	}
	if want := []string{"LICENSE.txt", "ooxml-link.md", "reference/ooxml.md", "scripts/thumbnail.py"}; !reflect.DeepEqual(sk.Files, want) {
		t.Errorf("pptx files = %q, want %q", sk.Files, want)
	}
	if sk, _ := cat.Get("commit-message"); sk.Source != SourceProject {
		t.Errorf("commit-message from %s, want project (it shadows claude-user)", sk.Source)
	}
	if _, ok := cat.Get("release-deploy"); !ok {
		t.Errorf("user-only skills are usable (by the user)")
	}
	if sk, ok := cat.Get("meeting-notes"); !ok || sk.Source != SourceClaudeUser {
		t.Errorf("a title-case name in a folder of another spelling is still usable: %+v", sk)
	}
	for _, name := range []string{"broken-yaml", "notes-only", "empty-folder", "evil-link", "dangling"} {
		if _, ok := cat.Get(name); ok {
			t.Errorf("%s must not be usable", name)
		}
	}
	shadowed := map[string]Source{}
	for _, s := range cat.Shadowed() {
		shadowed[s.Name+"@"+string(s.Source)] = s.BySource
	}
	want := map[string]Source{"pptx@package": SourceProject, "commit-message@claude-user": SourceProject}
	if !reflect.DeepEqual(shadowed, want) {
		t.Errorf("shadowed = %v, want %v", shadowed, want)
	}
}

// TestDiscoverEachSource finds one skill in each source alone, then the same
// name in every source: the first location wins and the others are shadowed.
func TestDiscoverEachSource(t *testing.T) {
	root := t.TempDir()
	p := Places{Project: filepath.Join(root, "p"), Package: filepath.Join(root, "pkg"), Home: filepath.Join(root, "h"),
		UserHome: filepath.Join(root, "u")}
	locs := DefaultLocations(p)
	for i, loc := range locs {
		t.Run(string(loc.Source), func(t *testing.T) {
			name := "only-" + string(loc.Source)
			writeSkill(t, loc.Dir, name, skillText(name, "From "+string(loc.Source)+"."))
			cat := Discover(locs)
			sk, ok := cat.Get(name)
			if !ok || sk.Source != loc.Source || sk.Precedence != i {
				t.Fatalf("got %+v", sk)
			}
		})
	}
	for _, loc := range locs {
		writeSkill(t, loc.Dir, "same", skillText("same", "From "+string(loc.Source)+"."))
	}
	for i := range locs {
		cat := Discover(locs[i:])
		sk, _ := cat.Get("same")
		if sk.Source != locs[i].Source {
			t.Errorf("with locations from %d: winner %s, want %s", i, sk.Source, locs[i].Source)
		}
		if n := len(cat.Shadowed()); n != len(locs)-i-1 {
			t.Errorf("with locations from %d: %d shadowed, want %d", i, n, len(locs)-i-1)
		}
		for _, s := range cat.Shadowed() {
			if s.Name == "same" && s.BySource != locs[i].Source {
				t.Errorf("shadowed by %s, want %s", s.BySource, locs[i].Source)
			}
		}
	}
}

func TestDiscoverSameFolderTwice(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, ".claude", "skills"), "a", skillText("a", "A."))
	// the project is the user's home: .claude/skills is both project and user folder
	cat := Discover(DefaultLocations(Places{Project: root, UserHome: root}))
	if len(cat.Skills()) != 1 || len(cat.Shadowed()) != 0 {
		t.Errorf("the same folder must be scanned once: %+v / %+v", cat.Skills(), cat.Shadowed())
	}
}

func TestDiscoverDuplicateNamesInOneFolder(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "pdf", skillText("pdf", "First."))
	writeSkill(t, dir, "pdf-old", skillText("pdf", "Second, same name."))
	cat := Discover([]Location{{Source: SourceUser, Dir: dir}})
	sk, _ := cat.Get("pdf")
	if sk.Description != "First." || len(cat.Shadowed()) != 1 || cat.Shadowed()[0].Dir != filepath.Join(dir, "pdf-old") {
		t.Errorf("got %+v / %+v", sk, cat.Shadowed())
	}
}

func TestDiscoverLocationProblems(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "skills-file")
	os.WriteFile(file, []byte("x"), 0o644)
	cat := Discover([]Location{{Source: SourceUser, Dir: file}, {Source: SourceProject, Dir: filepath.Join(root, "missing")}})
	inv := cat.Invalid()
	if len(inv) != 1 || inv[0].Dir != file || !strings.Contains(inv[0].Problems[0].Message, "is not a folder") {
		t.Errorf("got %+v", inv)
	}
}

func TestDiscoverUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := t.TempDir()
	p := writeSkill(t, dir, "locked", skillText("locked", "d"))
	os.Chmod(p, 0)
	defer os.Chmod(p, 0o644)
	cat := Discover([]Location{{Source: SourceUser, Dir: dir}})
	if inv := cat.Invalid(); len(inv) != 1 || !strings.Contains(inv[0].Problems[0].Message, "permission denied") {
		t.Errorf("got %+v", inv)
	}
}

func TestDiscoverOversizedFile(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "huge", "---\nname: huge\ndescription: d\n---\n"+strings.Repeat("x\n", MaxFileBytes))
	cat := Discover([]Location{{Source: SourceUser, Dir: dir}})
	if inv := cat.Invalid(); len(inv) != 1 || !strings.Contains(inv[0].Problems[0].Message, "larger than the 256 KiB limit") {
		t.Errorf("got %+v", inv)
	}
}

func TestDiscoverLowercaseFileName(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "skill.md"), []byte(skillText("x", "d")), 0o644)
	cat := Discover([]Location{{Source: SourceUser, Dir: dir}})
	sk, ok := cat.Get("x")
	if !ok || !strings.Contains(problemText(sk.Problems), "the file is named skill.md") {
		t.Errorf("got %+v", sk)
	}
}

func TestDiscoverManySkills(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < MaxSkillsPerLocation+5; i++ {
		name := fmt.Sprintf("s%04d", i)
		writeSkill(t, dir, name, skillText(name, "Skill number "+name+"."))
	}
	cat := Discover([]Location{{Source: SourceUser, Dir: dir}})
	if n := len(cat.Skills()); n != MaxSkillsPerLocation {
		t.Errorf("%d skills, want %d", n, MaxSkillsPerLocation)
	}
	inv := cat.Invalid()
	if len(inv) != 1 || !strings.Contains(inv[0].Problems[0].Message, "holds more than 1000 skill folders; s1000 and the folders after it are ignored") {
		t.Errorf("got %+v", inv)
	}
}

func TestListFilesCaps(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "big", skillText("big", "d"))
	sk := filepath.Join(dir, "big")
	for i := 0; i < MaxFiles+7; i++ {
		os.WriteFile(filepath.Join(sk, fmt.Sprintf("f%03d.md", i)), []byte("x"), 0o644)
	}
	deep := sk
	for i := 0; i < 12; i++ {
		deep = filepath.Join(deep, "d")
	}
	os.MkdirAll(deep, 0o755)
	os.WriteFile(filepath.Join(deep, "deep.md"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(sk, ".git"), 0o755)
	os.WriteFile(filepath.Join(sk, ".git", "HEAD"), []byte("x"), 0o644)
	// a loop through a folder link must not be followed
	os.Symlink(".", filepath.Join(sk, "loop"))
	cat := Discover([]Location{{Source: SourceUser, Dir: dir}})
	s, _ := cat.Get("big")
	if len(s.Files) != MaxFiles || s.MoreFiles != 7 {
		t.Errorf("%d files listed, %d more; want %d and 7", len(s.Files), s.MoreFiles, MaxFiles)
	}
	for _, f := range s.Files {
		if strings.HasPrefix(f, ".git") || strings.HasPrefix(f, "loop") || strings.Contains(f, "deep.md") {
			t.Errorf("listed %s", f)
		}
	}
}

func BenchmarkDiscover1000(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("skill-%04d", i)
		writeSkill(b, dir, name, skillText(name, "Does task number "+name+" with care and precision.")+strings.Repeat("More instructions.\n", 100))
		os.MkdirAll(filepath.Join(dir, name, "scripts"), 0o755)
		os.WriteFile(filepath.Join(dir, name, "scripts", "run.py"), []byte("print(1)\n"), 0o644)
	}
	locs := []Location{{Source: SourceUser, Dir: dir}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n := len(Discover(locs).Skills()); n != 1000 {
			b.Fatal(n)
		}
	}
}
