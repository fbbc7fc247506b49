package frontmatter

import (
	"bytes"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name            string
		in              string
		ends            LineEnds
		yaml, body      string
		found, unclosed bool
	}{
		{"none", "# Title\n", Strict, "", "# Title\n", false, false},
		{"empty", "", Strict, "", "", false, false},
		{"block", "---\na: 1\n---\nbody\n", Strict, "a: 1\n", "body\n", true, false},
		{"dots close it", "---\na: 1\n...\nbody", Strict, "a: 1\n", "body", true, false},
		{"empty block", "---\n---\n", Strict, "", "", true, false},
		{"closing line at the end", "---\na: 1\n---", Strict, "a: 1\n", "", true, false},
		{"byte order mark", "\xEF\xBB\xBF---\na: 1\n---\nb", Strict, "a: 1\n", "b", true, false},
		{"CRLF", "---\r\na: 1\r\n---\r\nb\r\n", Strict, "a: 1\r\n", "b\r\n", true, false},
		{"trailing spaces and tabs", "--- \t\na: 1\n---  \nb", Strict, "a: 1\n", "b", true, false},
		{"unclosed", "---\na: 1\n", Strict, "", "---\na: 1\n", false, true},
		{"opening line only", "---", Strict, "", "---", false, true},
		{"four dashes are no fence", "----\na: 1\n---\n", Strict, "", "----\na: 1\n---\n", false, false},
		{"indented fence is no fence", "---\na: 1\n ---\n", Strict, "", "---\na: 1\n ---\n", false, true},
		{"not at the top", "\n---\na: 1\n---\n", Strict, "", "\n---\na: 1\n---\n", false, false},
		{"strict: a lone CR ends no line", "---\r", Strict, "", "---\r", false, false},
		{"lax: a lone CR is trailing space", "---\r", Lax, "", "---\r", false, true},
		{"strict: CR then space", "---\na\n---\r \nb", Strict, "", "---\na\n---\r \nb", false, true},
		{"lax: CR then space", "---\na\n---\r \nb", Lax, "a\n", "b", true, false},
		{"lax: CRLF", "---\r\na\r\n---\r\nb", Lax, "a\r\n", "b", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Split([]byte(tt.in), tt.ends)
			if string(b.YAML) != tt.yaml || string(b.Body) != tt.body || b.Found != tt.found || b.Unclosed != tt.unclosed {
				t.Fatalf("Split(%q) = yaml %q body %q found %v unclosed %v, want %q %q %v %v",
					tt.in, b.YAML, b.Body, b.Found, b.Unclosed, tt.yaml, tt.body, tt.found, tt.unclosed)
			}
			if got := string(b.Open) + string(b.YAML) + string(b.Close) + string(b.Body); got != tt.in {
				t.Fatalf("parts %q do not make up the input", got)
			}
		})
	}
}

func TestUnmarshalTurnsPanicsIntoErrors(t *testing.T) {
	var v any
	if err := Unmarshal([]byte("a: [1, 2"), &v); err == nil {
		t.Fatal("invalid YAML decoded")
	}
	// A nil target makes the decoder panic; Unmarshal reports it.
	if err := Unmarshal([]byte("a: 1"), nil); err == nil || !strings.HasPrefix(err.Error(), "yaml: ") {
		t.Fatalf("err = %v", err)
	}
	if err := Unmarshal([]byte("a: 1"), &v); err != nil || v.(map[string]any)["a"] != 1 {
		t.Fatalf("decoded %v, %v", v, err)
	}
}

// FuzzSplit: the parts make up the input, at most one of Found and
// Unclosed holds, a block's YAML is delimited by fence lines.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nb", "\xEF\xBB\xBF---\r\n...\r\n", "---", "---\r", "--- \r \n---\r", "----\n"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, lax bool) {
		ends := Strict
		if lax {
			ends = Lax
		}
		b := Split(in, ends)
		var all []byte
		for _, p := range [][]byte{b.Open, b.YAML, b.Close, b.Body} {
			all = append(all, p...)
		}
		if !bytes.Equal(all, in) {
			t.Fatalf("parts do not make up the input")
		}
		if b.Found && b.Unclosed {
			t.Fatal("found and unclosed")
		}
		if b.Found && (!bytes.HasPrefix(bytes.TrimPrefix(b.Open, BOM), []byte("---")) || !(bytes.HasPrefix(b.Close, []byte("---")) || bytes.HasPrefix(b.Close, []byte("...")))) {
			t.Fatalf("block without fences: %q %q", b.Open, b.Close)
		}
		if !b.Found && (b.Open != nil || b.YAML != nil || b.Close != nil) {
			t.Fatal("parts without a block")
		}
	})
}
