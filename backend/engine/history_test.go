package engine

import (
	"fmt"
	"sync"
	"testing"

	"crewagent/backend/conversation"
)

// countingStore records which reads the history loaders make and how many
// entries they return.
type countingStore struct {
	Store
	mu                  sync.Mutex
	loads, tails, since int
	tailSizes           []int
	read                int // entries returned by the three reads
}

func (c *countingStore) Load(id string) ([]*conversation.Entry, error) {
	out, err := c.Store.Load(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loads++
	c.read += len(out)
	return out, err
}

func (c *countingStore) LoadTail(id string, n int) ([]*conversation.Entry, error) {
	out, err := c.Store.LoadTail(id, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tails++
	c.tailSizes = append(c.tailSizes, n)
	c.read += len(out)
	return out, err
}

func (c *countingStore) LoadBackTo(id, from string) ([]*conversation.Entry, error) {
	out, err := c.Store.LoadBackTo(id, from)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tails++
	c.read += len(out)
	return out, err
}

func (c *countingStore) LoadSinceCompaction(id string) ([]*conversation.Entry, error) {
	out, err := c.Store.LoadSinceCompaction(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.since++
	c.read += len(out)
	return out, err
}

func TestLoadHistoryReadsBackToKeptFrom(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	entries := f.seed(convID, 500, 3) // 1000 messages
	compacted := make([]string, 0, 900)
	for _, e := range entries[:900] {
		compacted = append(compacted, e.ID)
	}
	keep := entries[700] // kept by the compaction although older than most compacted ones
	compacted = append(compacted[:700], compacted[701:]...)
	if _, err := f.store.MarkCompacted(convID, compacted, map[string]any{"strategy": "key-messages", keyKeptFrom: keep.ID}); err != nil {
		t.Fatal(err)
	}
	after := f.seed(convID, 2, 3)

	cs := &countingStore{Store: f.store}
	h, err := loadSinceCompaction(cs, convID)
	if err != nil {
		t.Fatal(err)
	}
	if cs.loads != 0 || cs.tails == 0 {
		t.Fatalf("loads %d, tails %v", cs.loads, cs.tailSizes)
	}
	if h[0].ID != keep.ID || h[len(h)-1].ID != after[len(after)-1].ID {
		t.Fatalf("history from %s to %s", h[0].ID, h[len(h)-1].ID)
	}
	// entries from keptFrom on: 300 seeded messages, their 200 compacted copies
	// count once each, the event, 4 new messages
	if len(h) != 300+1+4 {
		t.Fatalf("got %d entries", len(h))
	}
}

func TestLoadHistoryCases(t *testing.T) {
	cases := []struct {
		name      string
		data      map[string]any // compaction event data; nil: no compaction
		keptIndex int            // index of keptFrom in the seeded entries (-1: none)
		wantFirst string         // "seed0", "event" or "keep"
		wantLoads int
	}{
		{"no compaction: whole log", nil, -1, "seed0", 0},
		{"keptFrom after the event", map[string]any{}, -2, "event", 0},
		{"empty keptFrom", map[string]any{keyKeptFrom: ""}, -1, "event", 0},
		{"event from elsewhere: whole log", map[string]any{"messageIds": []string{}}, -1, "seed0", 1},
		{"keptFrom before the event", map[string]any{}, 5, "keep", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			convID := f.create()
			seeded := f.seed(convID, 5, 2)

			if tc.data != nil {
				data := tc.data
				if tc.keptIndex >= 0 {
					data[keyKeptFrom] = seeded[tc.keptIndex].ID
				}
				if tc.keptIndex == -2 {
					data[keyKeptFrom] = "kept-after-event"
				}
				if _, err := f.store.MarkCompacted(convID, []string{seeded[0].ID}, data); err != nil {
					t.Fatal(err)
				}
				if tc.keptIndex == -2 {
					later := &conversation.Entry{ID: "kept-after-event", Role: conversation.RoleSystem, Content: conversation.Str("CONVERSATION_SUMMARY\nx")}
					if err := f.store.Append(convID, later); err != nil {
						t.Fatal(err)
					}
				}
			}
			cs := &countingStore{Store: f.store}
			h, err := loadSinceCompaction(cs, convID)
			if err != nil {
				t.Fatal(err)
			}
			var first string
			switch {
			case h[0].ID == seeded[0].ID:
				first = "seed0"
			case h[0].IsEvent():
				first = "event"
			case tc.keptIndex >= 0 && h[0].ID == seeded[tc.keptIndex].ID:
				first = "keep"
			default:
				first = fmt.Sprintf("%s %s", h[0].Type, h[0].ID)
			}
			if first != tc.wantFirst || cs.loads != tc.wantLoads {
				t.Fatalf("first %s, loads %d", first, cs.loads)
			}
		})
	}
}
