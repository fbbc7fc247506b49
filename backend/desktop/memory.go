package desktop

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The window lives for hours, and some of its work needs tens of MB for a
// moment: the request built for the context meter of a long conversation,
// its pages, a tokenizer being loaded. Go keeps the heap such a moment grew
// to for reuse, and while the window is idle no collection comes to hand it
// back: the system counts it as the app's for minutes. The trimmer notices a
// heap that grew by much and stopped growing, and returns what it does not
// need.
const (
	trimEvery  = time.Second     // how often the heap is looked at (reading the metrics costs microseconds)
	trimAtMost = 5 * time.Second // the least time between two trims (each is a full collection: a few ms with the heap of a long conversation)
	trimGrowth = 8 << 20         // how much the heap must have grown since the last trim (the free heap a conversation's paging leaves held)
	trimSettle = 1 << 20         // growth between two looks that still counts as stopped (the window's small work while idle: the meter's polls, events)
)

// heapSample is what the trimmer reads of the heap.
type heapSample struct {
	retained uint64 // heap memory the process holds: objects (live or not yet swept), free and unused spans
}

var heapMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
}

func readHeap() heapSample {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	var sum uint64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			sum += x.Value.Uint64()
		}
	}
	return heapSample{retained: sum}
}

// trimmer decides when to trim: once the heap has grown by trimGrowth over
// what it held after the last trim (or at its smallest since), and has
// stopped growing (by less than trimSettle since the last look: the burst is
// over, and a reply streaming or a page loading is left alone; what the idle
// window still does between collections only trickles), at most once every
// trimAtMost.
type trimmer struct {
	base uint64 // the heap after the last trim, or smaller since
	prev uint64 // the heap at the last look
	last time.Time
}

// observe takes one look at the heap and says whether to trim now.
func (t *trimmer) observe(h heapSample, now time.Time) bool {
	prev := t.prev
	t.prev = h.retained
	if t.base == 0 || h.retained < t.base {
		t.base = h.retained
		return false
	}
	settled := h.retained <= prev+trimSettle
	return settled && h.retained-t.base > trimGrowth && now.Sub(t.last) >= trimAtMost
}

// trimmed records the heap after a trim.
func (t *trimmer) trimmed(h heapSample, now time.Time) {
	t.base, t.prev, t.last = h.retained, h.retained, now
}

// trimMemory looks at the heap every trimEvery until ctx ends and returns
// what it does not need to the system when the trimmer says so.
func trimMemory(ctx context.Context) {
	tick := time.NewTicker(trimEvery)
	defer tick.Stop()
	var t trimmer
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if t.observe(readHeap(), now) {
				debug.FreeOSMemory()
				t.trimmed(readHeap(), now)
			}
		}
	}
}
