package attach

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/errs"
)

// Attachments decode from the window's base64, are saved under their content's hash, and
// a file that cannot be attached saves nothing.
func TestDecodeAndSave(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, data []byte) (string, error) {
		return "@att/" + name, os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	enc := base64.StdEncoding.EncodeToString
	tests := []struct {
		name    string
		in      []Input
		code    string // the error's, "" for none
		written int
	}{
		{"a text file", []Input{{Name: "notes.md", Data: enc([]byte("# notes\n"))}}, "", 1},
		{"not base64", []Input{{Name: "x.txt", Data: "%%%"}}, errs.InvalidRequest, 0},
		{"too many", func() []Input {
			var in []Input
			for range MaxFiles + 1 {
				in = append(in, Input{Name: "a.txt", Data: enc([]byte("a"))})
			}
			return in
		}(), errs.InvalidRequest, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadDir(dir)
			files, err := Decode(tt.in)
			var out []string
			if err == nil {
				atts, serr := Save(files, save)
				err = serr
				for _, a := range atts {
					out = append(out, a.Path)
				}
			}
			if got := errs.CodeOf(err); got != tt.code {
				t.Fatalf("error %v (code %q), want code %q", err, got, tt.code)
			}
			after, _ := os.ReadDir(dir)
			if len(after)-len(before) != tt.written {
				t.Fatalf("%d files written, want %d", len(after)-len(before), tt.written)
			}
			for _, p := range out {
				if !strings.HasPrefix(p, "@att/") || !strings.HasSuffix(p, "-notes.md") {
					t.Fatalf("saved as %q", p)
				}
			}
		})
	}
}
