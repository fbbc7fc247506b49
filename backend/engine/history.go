package engine

import (
	"encoding/json"

	"crewagent/backend/convlog"
)

// Compaction event data keys written by the engine (beside those of
// compression.Record).
const (
	// keyKeptFrom names the oldest log message the compressed request kept:
	// the history a later request needs starts there.
	keyKeptFrom = "keptFrom"
	// keyReason says why the compression ran: threshold, in-loop, context-length.
	keyReason = "reason"
)

// Compression reasons recorded in the compaction event.
const (
	ReasonThreshold     = "threshold"
	ReasonInLoop        = "in-loop"
	ReasonContextLength = "context-length"
)

// minTailWindow is the number of entries the first read from the end of the
// log takes; each further read takes twice as many.
const minTailWindow = 256

// dependsOnOlder builds the request over a history made of the newest entries
// of the log and reports whether entries older than them could change it
// (contextbuilder.Result.DependsOnOlder).
type dependsOnOlder func(history []convlog.Entry) (bool, error)

// historyLoader returns the history a request is built from. built is true
// when the last call of check was for exactly that history (and found it
// does not depend on older entries), so its build can be used as is.
type historyLoader func(st Store, convID string, check dependsOnOlder) (history []convlog.Entry, built bool, err error)

// loadHistory is the default historyLoader: loadTail with minTailWindow when
// check is set and the log holds no summary-class message (the index record's
// HasSummary), loadSinceCompaction otherwise.
func loadHistory(st Store, convID string, check dependsOnOlder) ([]convlog.Entry, bool, error) {
	if check != nil {
		meta, err := st.Get(convID)
		if err != nil {
			return nil, false, err
		}
		if !meta.HasSummary {
			return loadTail(st, convID, minTailWindow, check)
		}
	}
	h, err := loadSinceCompaction(st, convID)
	return h, false, err
}

// loadTail reads the log from its end in windows of first, 2*first, ...
// entries (LoadTail reads only the lines it returns) and stops at the first
// window that is enough:
//
//   - it reaches the start of the history loadSinceCompaction returns (the
//     last compaction event, or the oldest message that compaction kept, its
//     keptFrom) or the start of the log: that history is returned;
//   - check says that a request built from the window does not depend on
//     older entries: the window is returned (built is true).
//
// The request built from the result is the one the history of
// loadSinceCompaction gives, provided no entry older than the window is a
// summary-class message: check cannot see those. loadHistory calls it only
// for a log without summaries (ConversationMeta.HasSummary).
func loadTail(st Store, convID string, first int, check dependsOnOlder) ([]convlog.Entry, bool, error) {
	for n := max(first, 1); ; n *= 2 {
		tail, err := st.LoadTail(convID, n)
		if err != nil {
			return nil, false, err
		}
		if at, ok := historyStart(tail, len(tail) < n); ok {
			return deref(tail[at:]), false, nil
		}
		// The window is a strict suffix of the history: ask whether it is enough.
		h := deref(tail)
		dep, err := check(h)
		if err != nil {
			return nil, false, err
		}
		if !dep {
			return h, true, nil
		}
	}
}

// historyStart finds where the history loadSinceCompaction returns starts in
// tail, the newest entries of the log (all of them when whole). ok is false
// when it starts before tail.
func historyStart(tail []*convlog.Entry, whole bool) (at int, ok bool) {
	ev := -1
	for i := len(tail) - 1; i >= 0; i-- {
		if isCompaction(tail[i]) {
			ev = i
			break
		}
	}
	if ev < 0 {
		return 0, whole // no compaction event: the whole log
	}
	floor, known := keptFrom(tail[ev])
	switch {
	case !known:
		return 0, whole // written by another program: the whole log
	case floor == "":
		return ev, true
	}
	if i := indexOf(tail, floor); i >= 0 {
		return min(i, ev), true
	}
	return 0, whole // the floor entry is older, or gone (then the whole log)
}

// loadSinceCompaction returns the part of the log a request needs, reading
// the log from its end: the entries since the last compaction event when the
// log has one, extended back to the oldest message that compaction kept
// (recorded as keptFrom in the event), in windows that double. A log without
// a compaction event is read whole; so is one whose last compaction event was
// written by another program (no keptFrom). Summary messages written by a
// compaction follow its event, so they are always included.
func loadSinceCompaction(st Store, convID string) ([]convlog.Entry, error) {
	since, err := st.LoadSinceCompaction(convID)
	if err != nil {
		return nil, err
	}
	if len(since) == 0 || !isCompaction(since[0]) {
		return deref(since), nil
	}
	floor, known := keptFrom(since[0])
	if !known {
		all, err := st.Load(convID)
		if err != nil {
			return nil, err
		}
		return deref(all), nil
	}
	if floor == "" || indexOf(since, floor) >= 0 {
		return deref(since), nil
	}
	for n := max(2*len(since), minTailWindow); ; n *= 2 {
		tail, err := st.LoadTail(convID, n)
		if err != nil {
			return nil, err
		}
		if i := indexOf(tail, floor); i >= 0 {
			return deref(tail[i:]), nil
		}
		if len(tail) < n {
			return deref(tail), nil // the whole log: the floor entry is gone
		}
	}
}

func isCompaction(e *convlog.Entry) bool {
	return e.IsEvent() && e.Event == convlog.EventCompaction
}

// keptFrom reads the keptFrom of a compaction event; known is false when the
// event does not record it.
func keptFrom(e *convlog.Entry) (id string, known bool) {
	var data map[string]json.RawMessage
	if json.Unmarshal(e.Data, &data) != nil {
		return "", false
	}
	raw, ok := data[keyKeptFrom]
	if !ok || json.Unmarshal(raw, &id) != nil {
		return "", false
	}
	return id, true
}

func indexOf(entries []*convlog.Entry, id string) int {
	for i, e := range entries {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func deref(entries []*convlog.Entry) []convlog.Entry {
	out := make([]convlog.Entry, len(entries))
	for i, e := range entries {
		out[i] = *e
	}
	return out
}
