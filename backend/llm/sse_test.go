package llm

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readSSE(t testing.TB, in io.Reader) (string, bool, error) {
	t.Helper()
	r := newSSEReader(io.NopCloser(in))
	out, err := io.ReadAll(r)
	return string(out), r.sawDone(), err
}

func TestSSEReaderNormalises(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		done bool
	}{
		{"plain", "data: {\"a\":1}\n\ndata: [DONE]\n\n", "data: {\"a\":1}\ndata: [DONE]\n", true},
		{"comments and fields dropped", ": ping\n\nevent: message\nid: 7\nretry: 10\ndata: {}\n\n", "data: {}\n", false},
		{"CRLF", "data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n", "data: {\"a\":1}\ndata: [DONE]\n", true},
		{"no space after colon", "data:{\"a\":1}\n\n", "data: {\"a\":1}\n", false},
		{"multi-line data joined", "data: {\"a\":\ndata: 1}\n\n", "data: {\"a\": 1}\n", false},
		{"missing blank lines", "data: {\"a\":1}\ndata: {\"b\":2}\ndata: [DONE]\n", "data: {\"a\":1}\ndata: {\"b\":2}\ndata: [DONE]\n", true},
		{"unterminated last event", "data: {\"a\":1}", "data: {\"a\":1}\n", false},
		{"empty data ignored", "data:\n\ndata: \n\n", "", false},
		{"indented field", "   data: {}\n\n", "data: {}\n", false},
		{"line without colon", "garbage\n\ndata: {}\n\n", "data: {}\n", false},
		{"error event normalised and ends the stream", "data: { \"error\" : {\"message\":\"x\"} }\n\ndata: {\"a\":1}\n\n",
			"data: {\"error\":{\"message\":\"x\"}}\n", false},
		{"error as string", "data: {\"error\":\"boom\"}\n\n", "data: {\"error\":{\"message\":\"boom\"}}\n", false},
		{"error without message", "data: {\"error\":{\"code\":500}}\n\n", "data: {\"error\":{\"code\":500,\"message\":\"{\\\"error\\\":{\\\"code\\\":500}}\"}}\n", false},
		{"null error is not an error", "data: {\"error\":null,\"choices\":[]}\n\n", "data: {\"error\":null,\"choices\":[]}\n", false},
		{"word error in content", "data: {\"choices\":[{\"delta\":{\"content\":\"\\\"error\\\"\"}}]}\n\n",
			"data: {\"choices\":[{\"delta\":{\"content\":\"\\\"error\\\"\"}}]}\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reader := range []func(string) io.Reader{
				func(s string) io.Reader { return strings.NewReader(s) },
				func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
			} {
				got, done, err := readSSE(t, reader(tt.in))
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want || done != tt.done {
					t.Fatalf("got %q done=%v, want %q done=%v", got, done, tt.want, tt.done)
				}
			}
		})
	}
}

func TestSSEReaderReadError(t *testing.T) {
	in := io.MultiReader(strings.NewReader("data: {\"a\":1}\n\ndata: {\"b\""), iotest.ErrReader(io.ErrUnexpectedEOF))
	got, _, err := readSSE(t, in)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v", err)
	}
	if got != "data: {\"a\":1}\n" {
		t.Fatalf("got %q: the incomplete line must be dropped", got)
	}
}

func TestSSEReaderEventTooLarge(t *testing.T) {
	in := io.MultiReader(strings.NewReader("data: "), bytes.NewReader(bytes.Repeat([]byte("x"), maxEventBytes+10)))
	_, _, err := readSSE(t, in)
	if !errors.Is(err, errEventTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

// FuzzSSEReader checks that the normalised output does not depend on how the body is
// split into reads, and that it only ever holds single-line data events.
func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\n: ping\n\nevent: x\ndata: [DONE]\n\n"), uint8(3))
	f.Add([]byte("data: {\"a\":\r\ndata: 1}\r\n\r\n"), uint8(1))
	f.Add([]byte("data: {\"error\":\"x\"}\n\n"), uint8(5))
	f.Add([]byte("data:{\"object\":\"error\",\"message\":\"m\"}\ndata: {}"), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, step uint8) {
		whole, doneWhole, errWhole := readSSE(t, bytes.NewReader(body))
		n := int(step%16) + 1
		split, doneSplit, errSplit := readSSE(t, &chunkedReader{data: body, n: n})
		if whole != split || doneWhole != doneSplit || (errWhole == nil) != (errSplit == nil) {
			t.Fatalf("split-dependent output:\n%q\n%q", whole, split)
		}
		if whole == "" {
			return
		}
		if !strings.HasSuffix(whole, "\n") {
			t.Fatalf("output not line-terminated: %q", whole)
		}
		for _, line := range strings.Split(strings.TrimSuffix(whole, "\n"), "\n") {
			if !strings.HasPrefix(line, "data: ") || strings.Contains(line, "\r") || len(line) == len("data: ") {
				t.Fatalf("bad output line %q", line)
			}
		}
	})
}

type chunkedReader struct {
	data []byte
	n    int
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(r.n, len(p), len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}
