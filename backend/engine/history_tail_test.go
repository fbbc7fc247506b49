package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

// referenceHistory is the loader that reads back to the last compaction
// event (the whole log when it never compacted): what the request must equal.
func referenceHistory(st Store, convID string, _ dependsOnOlder) ([]convlog.Entry, bool, error) {
	h, err := loadSinceCompaction(st, convID)
	return h, false, err
}

// TestLoadTailFollowsKeptFrom: when every window depends on older entries,
// loadTail reads exactly the history loadSinceCompaction returns, in every
// compaction case; when the first window is enough, it stops there.
func TestLoadTailFollowsKeptFrom(t *testing.T) {
	cases := []struct {
		name string
		data map[string]any // compaction event data; nil: no compaction
		kept int            // index of keptFrom in the seeded entries (-1: none, -2: an entry after the event, -3: gone)
	}{
		{"no compaction", nil, -1},
		{"keptFrom after the event", map[string]any{}, -2},
		{"empty keptFrom", map[string]any{keyKeptFrom: ""}, -1},
		{"event from elsewhere", map[string]any{"messageIds": []string{}}, -1},
		{"keptFrom before the event", map[string]any{}, 13},
		{"keptFrom far back", map[string]any{}, 2},
		{"keptFrom gone", map[string]any{}, -3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			convID := f.create()
			seeded := f.seed(convID, 20, 2)
			if tc.data != nil {
				data := tc.data
				switch {
				case tc.kept >= 0:
					data[keyKeptFrom] = seeded[tc.kept].ID
				case tc.kept == -2:
					data[keyKeptFrom] = "kept-after-event"
				case tc.kept == -3:
					data[keyKeptFrom] = "no-such-entry"
				}
				if _, err := f.store.MarkCompacted(convID, []string{seeded[0].ID, seeded[1].ID}, data); err != nil {
					t.Fatal(err)
				}
				if tc.kept == -2 {
					if err := f.store.Append(convID, &convlog.Entry{ID: "kept-after-event", Role: convlog.RoleUser, Content: convlog.Str("x")}); err != nil {
						t.Fatal(err)
					}
				}
			}
			f.seed(convID, 3, 2)
			want, err := loadSinceCompaction(f.store, convID)
			if err != nil {
				t.Fatal(err)
			}
			for _, first := range []int{1, 2, 5, 1000} {
				cs := &countingStore{Store: f.store}
				checks := 0
				got, built, err := loadTail(cs, convID, first, func(h []convlog.Entry) (bool, error) {
					checks++
					if len(h) >= len(want) {
						t.Fatalf("checked a window of %d entries, the history has %d", len(h), len(want))
					}
					return true, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if built || !reflect.DeepEqual(got, want) {
					t.Fatalf("first %d: got %d entries (built %v), want %d", first, len(got), built, len(want))
				}
				if cs.loads != 0 || cs.since != 0 {
					t.Fatalf("first %d: whole reads: %+v", first, cs)
				}
				if first == 1000 && (checks != 0 || cs.tails != 1) {
					t.Fatalf("one window holds the whole log: %d checks, %d reads", checks, cs.tails)
				}
			}

			// A window that is enough ends the reading.
			cs := &countingStore{Store: f.store}
			got, built, err := loadTail(cs, convID, 2, func([]convlog.Entry) (bool, error) { return false, nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(want) > 2 && (!built || len(got) != 2 || cs.tails != 1 || cs.read != 2) {
				t.Fatalf("stopped with %d entries, built %v, %d reads of %d entries", len(got), built, cs.tails, cs.read)
			}
		})
	}
}

// TestSendReadsOnlyTheTail: a send in a long conversation that never
// compacted reads the end of the log only, and sends exactly what reading the
// whole log would have sent.
func TestSendReadsOnlyTheTail(t *testing.T) {
	f := newFixture(t, nil)
	a, b := f.create(), f.create()
	f.seed(a, 1500, 3) // 3000 messages: only the last 80 fit the request
	f.seed(b, 1500, 3)
	cs := &countingStore{Store: f.store}
	tail, err := New(Options{Store: cs, Settings: StaticSettings(f.st), LLM: testLLM, Tools: NewToolHosts(toolsRoots(f)), Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := New(Options{Store: f.store, Settings: StaticSettings(f.st), LLM: testLLM, Tools: NewToolHosts(toolsRoots(f)), Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	whole.history = referenceHistory
	f.srv.Enqueue(fakellm.Text("We were at question 1499."), fakellm.Text("We were at question 1499."))
	for _, run := range []struct {
		svc *ChatService
		id  string
	}{{tail, a}, {whole, b}} {
		if res, err := run.svc.Send(context.Background(), SendRequest{ConversationID: run.id, Text: "where were we?"}); err != nil || res.Err != nil {
			t.Fatalf("send: %v %v", err, res.Err)
		}
	}
	if cs.loads != 0 || cs.since != 0 || cs.read > 2*minTailWindow {
		t.Fatalf("the send read %d entries (%d whole loads, %d since compaction, tails %v)", cs.read, cs.loads, cs.since, cs.tailSizes)
	}
	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 || len(reqs[0].Messages) != 80 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !bytes.Equal(reqs[0].Body, reqs[1].Body) {
		t.Fatalf("the requests differ:\n%s\n%s", strings.Join(texts(reqs[0]), "\n"), strings.Join(texts(reqs[1]), "\n"))
	}
}

// TestLLMSummaryReadsBackToTheCompaction: with the llm-summary strategy a
// summary may sit anywhere after the last compaction event, so the history
// is read back to it.
func TestLLMSummaryReadsBackToTheCompaction(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) { s.Context.CompressionStrategy = settings.StrategyLLMSummary })
	convID := f.create()
	old := f.seed(convID, 10, 2)
	if _, err := f.store.MarkCompacted(convID, []string{old[0].ID}, map[string]any{keyKeptFrom: ""}); err != nil {
		t.Fatal(err)
	}
	summary := &convlog.Entry{Role: convlog.RoleSystem, Content: convlog.Str("CONVERSATION_SUMMARY\nthe user plans a launch")}
	if err := f.store.Append(convID, summary); err != nil {
		t.Fatal(err)
	}
	f.seed(convID, 400, 2)
	cs := &countingStore{Store: f.store}
	svc, err := New(Options{Store: cs, Settings: StaticSettings(f.st), LLM: testLLM, Tools: NewToolHosts(toolsRoots(f)), Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Preview(context.Background(), PreviewRequest{ConversationID: convID})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range p.Messages {
		found = found || m.SourceID == summary.ID
	}
	if cs.since != 1 || !found || len(p.Messages) != 80 {
		t.Fatalf("since-compaction reads %d; summary sent: %v (%d messages)", cs.since, found, len(p.Messages))
	}
}

// TestPreviewSameWithTailHistory: the preview (request, usage, compression,
// reasons) is the same whether the history was read from the tail or back
// to the last compaction; only the accounting of unread entries differs.
func TestPreviewSameWithTailHistory(t *testing.T) {
	f := newFixture(t, nil)
	store, err := convlog.Open(filepath.Join(t.TempDir(), "p"), convlog.Options{Counter: quarterCounter{}, LargeOutputThreshold: 2000, PreviewChars: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	r := rand.New(rand.NewSource(7))
	compressed := 0
	for i := 0; i < 5; i++ {
		convID := randomConversation(t, r, store, 150+r.Intn(200), false)
		for _, c := range []settings.Context{
			{MaxMessages: 5, TokenBudget: 128000},
			{MaxMessages: 30, TokenBudget: 3000, ReserveForResponse: 0},
			{MaxMessages: 80, MaxChars: 6000, TokenBudget: 12000, ReserveForResponse: 1000},
			{MaxMessages: 200, MaxChars: 1000000, TokenBudget: 6000, ReserveForResponse: 500},
		} {
			st := f.st
			st.Context.MaxMessages, st.Context.MaxChars, st.Context.TokenBudget, st.Context.ReserveForResponse = c.MaxMessages, c.MaxChars, c.TokenBudget, c.ReserveForResponse
			if c.MaxChars == 0 {
				st.Context.MaxChars = settings.Defaults().Context.MaxChars
			}
			st.Context.IncludeToolResultsInContext = r.Intn(2) == 0
			var previews [2]*Preview
			for k, load := range []historyLoader{nil, referenceHistory} {
				svc, err := New(Options{Store: store, Settings: StaticSettings(st), LLM: testLLM, Tools: NewToolHosts(toolsRoots(f)),
					Counter: quarterCounter{}, Agents: f.agents})
				if err != nil {
					t.Fatal(err)
				}
				if load != nil {
					svc.history = load
				} else {
					svc.history = func(s Store, id string, check dependsOnOlder) ([]convlog.Entry, bool, error) {
						return loadTail(s, id, 4, check)
					}
				}
				req := PreviewRequest{ConversationID: convID}
				if i%2 == 1 {
					req.Mode, req.AgentID = convlog.ModeAgent, "analyst"
				}
				p, err := svc.Preview(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				p.Build.Dropped, p.Build.Counts = nil, contextbuilder.Counts{}
				previews[k] = p
			}
			a, _ := json.Marshal(previews[0])
			b, _ := json.Marshal(previews[1])
			if !bytes.Equal(a, b) {
				t.Fatalf("conversation %d, context %+v: previews differ:\n%s\n%s", i, c, a, b)
			}
			if previews[0].Compression != nil {
				compressed++
			}
		}
	}
	if compressed < 4 {
		t.Fatalf("only %d previews showed compression", compressed)
	}
}

// TestSummaryOlderThanTheWindow: with the key-messages strategy, a summary
// written long ago (by an earlier llm-summary compaction, or imported) is
// still sent: the log's index record says it holds one, so the history is
// read back to the last compaction event and the request equals the one the
// whole history gives.
func TestSummaryOlderThanTheWindow(t *testing.T) {
	f := newFixture(t, nil)
	a, b := f.create(), f.create()
	var summaries []string
	for _, id := range []string{a, b} {
		f.seed(id, 10, 2)
		s := &convlog.Entry{Role: convlog.RoleSystem, Content: convlog.Str("CONVERSATION_SUMMARY\nthe user plans a launch")}
		if err := f.store.Append(id, s); err != nil {
			t.Fatal(err)
		}
		summaries = append(summaries, s.ID)
		f.seed(id, 400, 2) // 800 messages after it: far more than one window
	}
	cs := &countingStore{Store: f.store}
	tail, err := New(Options{Store: cs, Settings: StaticSettings(f.st), LLM: testLLM, Tools: NewToolHosts(toolsRoots(f)), Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := New(Options{Store: f.store, Settings: StaticSettings(f.st), LLM: testLLM, Tools: NewToolHosts(toolsRoots(f)), Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	whole.history = referenceHistory
	f.srv.Enqueue(fakellm.Text("A launch."), fakellm.Text("A launch."))
	for _, run := range []struct {
		svc *ChatService
		id  string
	}{{tail, a}, {whole, b}} {
		if res, err := run.svc.Send(context.Background(), SendRequest{ConversationID: run.id, Text: "what do I plan?"}); err != nil || res.Err != nil {
			t.Fatalf("send: %v %v", err, res.Err)
		}
	}
	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), "the user plans a launch") {
		t.Fatal("the whole-history request lacks the summary")
	}
	if !bytes.Equal(reqs[0].Body, reqs[1].Body) {
		t.Fatalf("the requests differ:\n%s\n%s", strings.Join(texts(reqs[0]), "\n"), strings.Join(texts(reqs[1]), "\n"))
	}
	if cs.since != 1 {
		t.Fatalf("since-compaction reads: %d", cs.since)
	}
}
