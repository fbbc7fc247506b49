package engine

import (
	"encoding/json"

	"crewagent/backend/conversation"
)

// keyKeptFrom is the compaction event data key naming the oldest log entry
// the next request needs (conversation.CompactionData.KeptFrom): the history a
// later request loads starts there.
const keyKeptFrom = "keptFrom"

// Compaction reasons recorded in the compaction event.
const (
	ReasonThreshold     = "threshold"
	ReasonInLoop        = "in-loop"
	ReasonContextLength = "context-length"
	ReasonManual        = "manual"
	ReasonBackfill      = "backfill"
)

// historyLoader returns the history a request is built from.
type historyLoader func(st Store, convID string) ([]conversation.Entry, error)

// loadHistory is the default historyLoader: loadSinceCompaction.
func loadHistory(st Store, convID string) ([]conversation.Entry, error) {
	return loadSinceCompaction(st, convID)
}

// loadSinceCompaction returns the part of the log a request needs, reading
// the log from its end: the entries since the last compaction event when the
// log has one, extended back to the oldest entry the request still needs
// (recorded as keptFrom in the event) in one more backward pass. A log without
// a compaction event is read whole; so is one whose last compaction event was
// written by another program (no keptFrom). Summary messages written by a
// compaction follow its event, so they are always included.
func loadSinceCompaction(st Store, convID string) ([]conversation.Entry, error) {
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
	back, err := st.LoadBackTo(convID, floor)
	if err != nil {
		return nil, err
	}
	return deref(back), nil
}

func isCompaction(e *conversation.Entry) bool {
	return e.IsEvent() && e.Event == conversation.EventCompaction
}

// keptFrom reads the keptFrom of a compaction event; known is false when the
// event does not record it.
func keptFrom(e *conversation.Entry) (id string, known bool) {
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

func indexOf(entries []*conversation.Entry, id string) int {
	for i, e := range entries {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func deref(entries []*conversation.Entry) []conversation.Entry {
	out := make([]conversation.Entry, len(entries))
	for i, e := range entries {
		out[i] = *e
	}
	return out
}
