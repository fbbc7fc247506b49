// Package testkit holds the helpers the tests of several packages share:
// waiting for a condition, writing a file, and the CPU time the benchmarks
// report. Only tests import it.
package testkit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Generous is how long Wait waits: only a failure waits this long.
const Generous = 15 * time.Second

// Until checks cond every 10ms until it holds, and fails t, saying what it
// waited for, once d has passed without it.
func Until(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Wait is Until with the Generous time.
func Wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Until(t, Generous, what, cond)
}

// WriteFile writes content to path, making its folder first.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
