package mcp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestJSONLineFilter(t *testing.T) {
	in := "Server v1 starting...\n" +
		`{"jsonrpc":"2.0","id":1}` + "\n" +
		"  \n" +
		"warning: [deprecated]\n" +
		`  [{"a":1}]` + "\r\n" +
		"no newline at the end"
	for name, r := range map[string]io.Reader{
		"whole":          strings.NewReader(in),
		"one byte reads": iotest.OneByteReader(strings.NewReader(in)),
		"half reads":     iotest.HalfReader(strings.NewReader(in)),
	} {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			f := &jsonLineFilter{r: r, divert: &log}
			out, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"jsonrpc":"2.0","id":1}` + "\n  \n" + `  [{"a":1}]` + "\r\n"; string(out) != want {
				t.Fatalf("passed %q, want %q", out, want)
			}
			if want := "[stdout] Server v1 starting...\n[stdout] warning: [deprecated]\n[stdout] no newline at the end"; log.String() != want {
				t.Fatalf("diverted %q, want %q", log.String(), want)
			}
		})
	}
}

func FuzzJSONLineFilter(f *testing.F) {
	f.Add("banner\n{\"a\":1}\n", 3)
	f.Add("{\"x\":\"y\"}\r\nnot json\n[1]", 1)
	f.Fuzz(func(t *testing.T, in string, chunk int) {
		if chunk < 1 {
			chunk = 1
		}
		var log bytes.Buffer
		f := &jsonLineFilter{r: strings.NewReader(in), divert: &log}
		buf := make([]byte, chunk%64+1)
		var out []byte
		for {
			n, err := f.Read(buf)
			out = append(out, buf[:n]...)
			if err != nil {
				break
			}
		}
		// Every byte goes to one side or the other (the log adds one prefix per line).
		if len(out)+len(log.Bytes())-bytes.Count(log.Bytes(), stdoutPrefix)*len(stdoutPrefix) != len(in) {
			t.Fatalf("bytes lost: in %d, out %d, log %d", len(in), len(out), log.Len())
		}
		for _, line := range strings.SplitAfter(string(out), "\n") {
			if s := strings.TrimLeft(line, " \t\r\n"); s != "" && s[0] != '{' && s[0] != '[' {
				t.Fatalf("passed a line that is not JSON: %q", line)
			}
		}
	})
}
