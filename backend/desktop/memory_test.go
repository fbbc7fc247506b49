package desktop

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestTrimmerDecides(t *testing.T) {
	const mb = 1 << 20
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	type look struct {
		sec  int
		heap uint64
		want bool
	}
	cases := []struct {
		name  string
		looks []look
	}{
		{"a small heap that varies", []look{{0, 20 * mb, false}, {2, 26 * mb, false}, {4, 23 * mb, false}, {6, 27 * mb, false}, {8, 26 * mb, false}}},
		// the idle window still allocates a little between collections: the heap never stops growing altogether
		{"a burst followed by a trickle", []look{{0, 10 * mb, false}, {2, 28 * mb, false}, {4, 28*mb + 300<<10, true}}},
		{"a heap growing by more than a trickle is left alone", []look{{0, 10 * mb, false}, {2, 28 * mb, false}, {4, 30 * mb, false}, {6, 32 * mb, false}}},
		// paging through a long conversation: ~20 MB of garbage over a heap of ~10 MB alive
		{"a burst of pages", []look{{0, 10 * mb, false}, {2, 22 * mb, false}, {4, 31 * mb, false}, {6, 31 * mb, true}}},
		{"a burst, trimmed once it stops growing", []look{{0, 20 * mb, false}, {2, 60 * mb, false}, {4, 95 * mb, false}, {6, 95 * mb, true}}},
		{"a burst that shrinks by itself first", []look{{0, 20 * mb, false}, {2, 100 * mb, false}, {4, 90 * mb, true}}},
		{"a heap that keeps growing is left alone", []look{{0, 20 * mb, false}, {2, 80 * mb, false}, {4, 140 * mb, false}, {6, 200 * mb, false}}},
		{"the smallest heap since is the base", []look{{0, 80 * mb, false}, {2, 30 * mb, false}, {4, 36 * mb, false}, {6, 36 * mb, false}, {8, 45 * mb, false}, {10, 45 * mb, true}}},
	}
	for _, tc := range cases {
		var tr trimmer
		tr.last = t0.Add(-time.Hour)
		for _, l := range tc.looks {
			if got := tr.observe(heapSample{retained: l.heap}, at(l.sec)); got != l.want {
				t.Errorf("%s: at %d s with %d MB: trim = %v, want %v", tc.name, l.sec, l.heap/mb, got, l.want)
			}
		}
	}

	// after a trim: the next needs the heap to grow again, and some time
	var tr trimmer
	tr.last = t0.Add(-time.Hour)
	tr.observe(heapSample{retained: 20 * mb}, at(0))
	tr.observe(heapSample{retained: 100 * mb}, at(2))
	if !tr.observe(heapSample{retained: 100 * mb}, at(4)) {
		t.Fatal("the burst was not trimmed")
	}
	tr.trimmed(heapSample{retained: 25 * mb}, at(4))
	tr.observe(heapSample{retained: 100 * mb}, at(6))
	if tr.observe(heapSample{retained: 100 * mb}, at(8)) {
		t.Fatal("trimmed again within trimAtMost")
	}
	if !tr.observe(heapSample{retained: 100 * mb}, at(20)) {
		t.Fatal("a second burst was not trimmed after trimAtMost")
	}
}

var sink [][]byte

// After a burst of garbage the window hands the memory back: the heap the
// process holds falls back near what is alive.
func TestTrimMemoryReturnsABurst(t *testing.T) {
	runtime.GC()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { trimMemory(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	time.Sleep(trimEvery + 200*time.Millisecond) // the trimmer has seen the quiet heap

	for i := 0; i < 160; i++ {
		sink = append(sink, make([]byte, 1<<20))
	}
	runtime.GC() // the burst is alive through a collection: the heap grows to hold it
	sink = nil   // …and is garbage now; no collection comes while nothing allocates
	burst := readHeap()
	if burst.retained < 150<<20 {
		t.Fatalf("the burst is not held by the heap (%d MB)", burst.retained>>20)
	}
	deadline := time.Now().Add(4 * trimEvery)
	var after heapSample
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if after = readHeap(); after.retained < burst.retained/3 {
			return
		}
	}
	t.Fatalf("the heap was not trimmed: %d MB after the burst, %d MB %v later", burst.retained>>20, after.retained>>20, 4*trimEvery)
}

func TestWebProcessEnvKeepsTheUsersChoice(t *testing.T) {
	for name, want := range webProcessEnv {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "user's") // set by the user: kept
			setWebProcessEnv()
			if got := os.Getenv(name); got != "user's" {
				t.Fatalf("%s = %q, want the user's value", name, got)
			}
			os.Unsetenv(name)
			setWebProcessEnv()
			if got := os.Getenv(name); got != want {
				t.Fatalf("%s = %q, want %q", name, got, want)
			}
		})
	}
}
