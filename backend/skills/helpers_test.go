package skills

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// copyTree copies testdata/tree into a fresh folder and returns it.
func copyTree(t testing.TB) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", "tree")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// treePlaces are the places of a copied tree.
func treePlaces(root string) Places {
	return Places{
		Project:  filepath.Join(root, "project"),
		Package:  filepath.Join(root, "package"),
		Home:     filepath.Join(root, "home"),
		UserHome: filepath.Join(root, "userhome"),
	}
}

// writeSkill writes <dir>/<folder>/SKILL.md.
func writeSkill(t testing.TB, dir, folder, content string) string {
	t.Helper()
	p := filepath.Join(dir, folder, SkillFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func skillText(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\nInstructions of " + name + ".\n"
}

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (run with -update after checking the change)\n--- got:\n%s", path, got)
	}
}

// jsonWithRoot renders v as indented JSON with root replaced by $ROOT.
func jsonWithRoot(t *testing.T, v any, root string) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), root, "$ROOT")
	return []byte(s + "\n")
}

// DeriveAsOf returns the state as of the entry with the given id, included
// (a fork at a message copies the entries up to it, so it gets this state).
// An id not in entries is an error.
func DeriveAsOf(entries []*conversation.Entry, id string) (*State, error) {
	s := NewState()
	for _, e := range entries {
		if e == nil {
			continue
		}
		s.Apply(e)
		if e.ID == id {
			return s, nil
		}
	}
	return nil, fmt.Errorf("skills: entry %q is not in the log", id)
}

// ParseCommand reads "/skill NAME", "/skill off NAME", "/skill" and
// "/skill off" from the composer's text. ok is false when the text is not a
// skill command (an ordinary message). A skill called "off" can only be
// activated from the picker.
func ParseCommand(text string) (Command, bool) {
	fields := strings.Fields(text)
	if len(fields) == 0 || fields[0] != "/skill" {
		return Command{}, false
	}
	switch len(fields) {
	case 1:
		return Command{}, true
	case 2:
		if fields[1] == "off" {
			return Command{Off: true}, true
		}
		return Command{Name: fields[1]}, true
	case 3:
		if fields[1] == "off" {
			return Command{Off: true, Name: fields[2]}, true
		}
	}
	return Command{}, false
}
