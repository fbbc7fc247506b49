package frontmatter

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToJSON(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		maxDepth int
		want     string // the JSON of the result
		err      string
	}{
		{"scalars", "s: text\nb: true\ni: 3\nf: 1.5\nn: null", 0, `{"b":true,"f":1.5,"i":3,"n":null,"s":"text"}`, ""},
		{"timestamp", "t: 2026-01-02T03:04:05Z", 0, `{"t":"2026-01-02T03:04:05Z"}`, ""},
		{"plain keys become text", "1: one\ntrue: yes", 0, `{"1":"one","true":"yes"}`, ""},
		{"list key", "? [a, b]\n: v", 0, "", "invalid map key"},
		{"nested", "a:\n  b: [1, {c: d}]", 0, `{"a":{"b":[1,{"c":"d"}]}}`, ""},
		{"nan", "x: .nan", 0, "", "cannot be represented in JSON"},
		{"inf", "x: -.inf", 0, "", "cannot be represented in JSON"},
		{"within the depth", "a: {b: {c: 1}}", 3, `{"a":{"b":{"c":1}}}`, ""},
		{"too deep", "a: {b: {c: {d: 1}}}", 3, "", "nested deeper than 3 levels"},
		{"no bound", "a: {b: {c: {d: {e: 1}}}}", 0, `{"a":{"b":{"c":{"d":{"e":1}}}}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			err := Unmarshal([]byte(tt.yaml), &v)
			var got any
			if err == nil {
				got, err = ToJSON(v, tt.maxDepth)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}

func TestBlockCRLF(t *testing.T) {
	for in, want := range map[string]bool{
		"---\r\na: 1\r\n---\r\nbody":         true,
		"\xEF\xBB\xBF---\r\na: 1\r\n---\r\n": true,
		"---\na: 1\n---\nbody":               false,
		"no frontmatter\r\n":                 false,
	} {
		if got := Split([]byte(in), Strict).CRLF(); got != want {
			t.Errorf("%q: CRLF() = %v, want %v", in, got, want)
		}
	}
}
