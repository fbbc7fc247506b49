package mcp

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogSinkRotatesAtItsCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "s.log")
	l := newLogSink(path, 1000)
	l.begin("starting s")
	for i := range 50 {
		io.WriteString(l, strings.Repeat(string(rune('a'+i%26)), 99)+"\n")
	}
	l.Close()
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > 1000 || fi.Size() == 0 {
			t.Fatalf("%s: %v %v", p, fi, err)
		}
	}
	tail := l.Tail()
	if len(tail) != tailBytes || !strings.HasSuffix(tail, strings.Repeat("x", 99)+"\n") || strings.Contains(tail, "starting s") {
		t.Fatalf("tail %q", tail)
	}
	got, err := readLogTail(path, 700)
	if err != nil || len(got) != 700 || !strings.HasSuffix(got, strings.Repeat("x", 99)+"\n") {
		t.Fatalf("readLogTail: %d bytes %v", len(got), err)
	}
	all, _ := readLogTail(path, 1<<20)
	if len(all) <= 1000 || len(all) > 2000 || !strings.HasPrefix(all[len(all)-len(got):], got) {
		t.Fatalf("the whole log: %d bytes", len(all))
	}
	// One write larger than the cap.
	l2 := newLogSink(filepath.Join(t.TempDir(), "b.log"), 100)
	l2.Write(bytes.Repeat([]byte("z"), 10_000))
	l2.Close()
	if got, _ := readLogTail(l2.path, 1<<20); len(got) != 200 {
		t.Fatalf("after a huge write the logs hold %d bytes", len(got))
	}
	if len(l2.Tail()) != tailBytes {
		t.Fatalf("tail %d bytes", len(l2.Tail()))
	}
	if got, err := readLogTail(filepath.Join(t.TempDir(), "none.log"), 10); got != "" || err != nil {
		t.Fatalf("missing log: %q %v", got, err)
	}
}

func TestLogSinkThatCannotWriteDropsQuietly(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	l := newLogSink(filepath.Join(blocker, "s.log"), 100) // its folder is a file
	if n, err := l.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("%d %v", n, err)
	}
	if l.Tail() != "hello" {
		t.Fatalf("tail %q", l.Tail())
	}
}
