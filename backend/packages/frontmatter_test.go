package packages

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSplitFrontmatter(t *testing.T) {
	cases := []struct {
		name, src   string
		front, body string
		found       bool
		err         string
	}{
		{"basic", "---\na: 1\n---\nbody\n", "a: 1\n", "body\n", true, ""},
		{"crlf", "---\r\na: 1\r\n---\r\nbody\r\n", "a: 1\r\n", "body\r\n", true, ""},
		{"bom", "\xEF\xBB\xBF---\na: 1\n---\nbody", "a: 1\n", "body", true, ""},
		{"dots close", "---\na: 1\n...\nbody", "a: 1\n", "body", true, ""},
		{"trailing spaces on fences", "--- \na: 1\n---\t\nbody", "a: 1\n", "body", true, ""},
		{"empty block", "---\n---\nbody", "", "body", true, ""},
		{"closing at EOF", "---\na: 1\n---", "a: 1\n", "", true, ""},
		{"no frontmatter", "# Title\n---\n", "", "# Title\n---\n", false, ""},
		{"dashes not alone", "----\na: 1\n---\n", "", "----\na: 1\n---\n", false, ""},
		{"empty", "", "", "", false, ""},
		{"unclosed", "---\na: 1\n", "", "", true, "no closing"},
		{"only opening", "---", "", "", true, "no closing"},
		{"dots do not open", "...\na: 1\n...\n", "", "...\na: 1\n...\n", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			front, body, found, err := SplitFrontmatter([]byte(c.src))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if found != c.found || string(front) != c.front || string(body) != c.body {
				t.Fatalf("got (%q, %q, %v), want (%q, %q, %v)", front, body, found, c.front, c.body, c.found)
			}
		})
	}
}

func TestParseFrontmatter(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want map[string]any
		body string
		err  string
	}{
		{"values", "---\nschemaVersion: \"1.1\"\nn: 3\nf: 1.5\nok: true\nlist: [a, b]\nnested: {k: v}\nnothing: null\n---\nB",
			map[string]any{"schemaVersion": "1.1", "n": 3, "f": 1.5, "ok": true, "list": []any{"a", "b"}, "nested": map[string]any{"k": "v"}, "nothing": nil}, "B", ""},
		{"timestamp stays a string", "---\nupdatedAt: 2025-01-02T03:04:05Z\n---\n",
			map[string]any{"updatedAt": "2025-01-02T03:04:05Z"}, "", ""},
		{"non-string keys", "---\nm:\n  1: one\n  true: yes\n---\n",
			map[string]any{"m": map[string]any{"1": "one", "true": "yes"}}, "", ""},
		{"empty block", "---\n---\nbody", map[string]any{}, "body", ""},
		{"no frontmatter", "# hi", nil, "", "no YAML frontmatter"},
		{"list", "---\n- a\n---\n", nil, "", "must be a YAML mapping"},
		{"scalar", "---\nhello\n---\n", nil, "", "must be a YAML mapping"},
		{"bad yaml reports file line", "---\na: 1\nb: c: d\n---\n", nil, "", "line 3: mapping values"},
		{"duplicate key on one line", "---\na: 1\na: 2\n---\n", nil, "", "line 3: mapping key \"a\" already defined at line 2"},
		{"nan", "---\nx: .nan\n---\n", nil, "", "cannot be represented in JSON"},
		{"complex key", "---\n? [a, b]\n: c\n---\n", nil, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fm, body, err := ParseFrontmatter([]byte(c.src))
			if c.name == "complex key" {
				if err == nil {
					t.Fatal("want an error for a list used as a key")
				}
				return
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if c.err == "no YAML frontmatter" && !errors.Is(err, ErrNoFrontmatter) {
					t.Fatal("want ErrNoFrontmatter")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fm, c.want) || string(body) != c.body {
				t.Fatalf("got %#v %q, want %#v %q", fm, body, c.want, c.body)
			}
		})
	}
}

// FuzzParseFrontmatter checks that any input either fails cleanly or yields a JSON-encodable
// mapping and a body that is the tail of the input.
func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nschemaVersion: \"1.1\"\nnodeId: a\ntype: step\n---\n## Goal\n",
		"---\r\na: [1, 2]\r\n...\r\n",
		"\xEF\xBB\xBF---\nx: &a {y: *a}\n---\n",
		"---\n? [a]\n: b\n---\n",
		"---\na: .inf\n---\n",
		"# no frontmatter",
		"---\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		front, body, found, err := SplitFrontmatter(src)
		if err == nil {
			if !bytes.HasSuffix(src, body) {
				t.Fatalf("body %q is not a suffix of the input", body)
			}
			if found && !bytes.Contains(src, front) {
				t.Fatalf("front %q is not part of the input", front)
			}
			if !found && !bytes.Equal(body, src) {
				t.Fatal("without frontmatter the body must be the whole input")
			}
		}
		fm, pbody, perr := ParseFrontmatter(src)
		if perr != nil {
			if fm != nil || pbody != nil {
				t.Fatal("values returned with an error")
			}
			return
		}
		if err != nil || !found || !bytes.Equal(pbody, body) {
			t.Fatalf("ParseFrontmatter succeeded where SplitFrontmatter gave found=%v err=%v", found, err)
		}
		if _, err := json.Marshal(fm); err != nil {
			t.Fatalf("frontmatter is not JSON-encodable: %v", err)
		}
		if _, err := schemaValue(fm); err != nil {
			t.Fatalf("frontmatter cannot be validated: %v", err)
		}
	})
}
