package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/errs"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/recall"
	"crewagent/backend/settings"
	"crewagent/backend/tokens"
	"crewagent/backend/tools"
)

// smallBudget makes requests of about limit tokens (no reply reserve).
func smallBudget(limit int) func(*settings.Settings) {
	return func(s *settings.Settings) {
		s.Context.TokenBudget = limit
		s.Context.ReserveForResponse = 0
	}
}

// requestTokens counts a recorded request independently of the engine:
// per message 4 + content + tool calls + ids + name, 3 for the reply, and
// the tool definitions of the fixture's host.
func (f *fixture) requestTokens(r fakellm.RecordedRequest) int {
	n := 3
	for _, m := range r.Messages {
		n += 4 + counter.Count(testModel, m.Text()) + counter.Count(testModel, m.ToolCallID) + counter.Count(testModel, m.Name)
		for _, tc := range m.ToolCalls {
			n += counter.Count(testModel, tc.Name) + counter.Count(testModel, tc.Arguments)
		}
	}
	host := tools.NewHost(tools.Config{Roots: toolsRoots(f), Policy: systemPolicy(f.st.Tools).Normalized()})
	for _, d := range host.Tools() {
		n += toolDefTokens(counter, testModel, d)
	}
	return n
}

// checkBudget fails when a request the server received is over limit.
func (f *fixture) checkBudget(limit int) {
	f.t.Helper()
	for i, r := range f.srv.ChatRequests() {
		if n := f.requestTokens(r); n > limit {
			f.t.Fatalf("request %d has %d tokens, over the limit of %d", i, n, limit)
		}
	}
}

func compactionEvents(entries []*conversation.Entry) []conversation.CompactionData {
	var out []conversation.CompactionData
	for _, e := range entries {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			d, _ := conversation.ParseCompactionData(e.Data)
			out = append(out, d)
		}
	}
	return out
}

// A compaction is persisted (marks, event, summary, recall index) and a new
// store and engine over the same files build the next request from it: the
// request's prefix (system prompt and summary) is byte for byte the same.
func TestCompactionPersistedAndResumedAfterRestart(t *testing.T) {
	f := newFixture(t, smallBudget(6000))
	convID := f.create()
	first := &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("Plan the migration. The budget must not exceed 4711 EUR and we must keep port 8443 open.")}
	if err := f.store.Append(convID, first); err != nil {
		t.Fatal(err)
	}
	f.seed(convID, 30, 60)
	f.srv.Enqueue(fakellm.Text("ok"), fakellm.Text("ok again"))
	res := f.send(SendRequest{ConversationID: convID, Text: "where are we?"})
	if res.Err != nil || !res.Context.Compressed {
		t.Fatalf("result %+v %v", res, res.Err)
	}
	all := f.load(convID)
	evs := compactionEvents(all)
	if len(evs) != 1 {
		t.Fatalf("%d compaction events", len(evs))
	}
	d := evs[0]
	if d.Summary == "" || d.KeptFrom == "" || d.Count == 0 || d.CompactedTotal != d.Count || d.Reason != ReasonThreshold || d.TokensAfter >= d.TokensBefore {
		t.Fatalf("event data: %+v", d)
	}
	var summary *conversation.Entry
	for i, e := range all {
		if e.ID == d.Summary {
			summary = e
			if !all[i-1].IsEvent() || !strings.HasPrefix(e.Text(), "CONVERSATION_SUMMARY") {
				t.Fatal("the summary does not follow its event")
			}
		}
	}
	if summary == nil || !strings.Contains(summary.Text(), "4711 EUR") || !strings.Contains(summary.Text(), "8443") {
		t.Fatalf("summary: %v", summary)
	}
	// the compacted messages went to the recall index beside the log
	if fi, err := os.Stat(filepath.Join(f.dataDir, "conversations", convID, conversation.RecallFile)); err != nil || fi.Size() == 0 {
		t.Fatalf("recall index: %v", err)
	}
	prefix := func(r fakellm.RecordedRequest) string {
		var b strings.Builder
		for _, m := range r.Messages {
			if m.Role != "system" {
				break
			}
			b.WriteString(m.Text() + "\x00")
		}
		return b.String()
	}
	before := prefix(f.srv.ChatRequests()[0])

	f.reopen()
	next := f.send(SendRequest{ConversationID: convID, Text: "and the port?"})
	if next.Err != nil {
		t.Fatal(next.Err)
	}
	if n := len(compactionEvents(f.load(convID))); n != 1 {
		t.Fatalf("%d compaction events after the second send: it should not compact again", n)
	}
	after := f.srv.ChatRequests()[1]
	if prefix(after) != before {
		t.Fatal("the request prefix changed between two turns without a compaction")
	}
	if !strings.Contains(systemText(after), "8443") {
		t.Fatal("the first message's requirement is not in the request after a restart")
	}
	f.checkBudget(6000)
}

// Pinned messages stay in every request, through several compactions, and
// leave once unpinned.
func TestPinsSurviveCompactions(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		smallBudget(5000)(s)
		s.Context.TriggerThreshold, s.Context.TargetAfterCompression, s.Context.SummaryShare = 0.8, 0.5, 0.25
	})
	convID := f.create()
	f.seed(convID, 4, 20)
	pinned := &conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("The release checklist: tag, changelog, smoke test on staging-7, then announce in #launch.")}
	if err := f.store.Append(convID, pinned); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Pin(convID, pinned.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Pin(convID, "no-such-message"); err == nil {
		t.Fatal("pinning a message that does not exist must fail")
	}
	f.srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Text(strings.Repeat("A long answer. ", 80))
	})
	for round := 0; round < 12; round++ {
		res := f.send(SendRequest{ConversationID: convID, Text: fmt.Sprintf("round %d: %s", round, strings.Repeat("more words ", 60))})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		last := f.srv.ChatRequests()[len(f.srv.ChatRequests())-1]
		found := false
		for _, m := range last.Messages {
			found = found || strings.Contains(m.Text(), "smoke test on staging-7")
		}
		if !found {
			t.Fatalf("round %d: the pinned message is not in the request", round)
		}
	}
	evs := compactionEvents(f.load(convID))
	if len(evs) < 3 {
		t.Fatalf("only %d compactions", len(evs))
	}
	carried := false
	for _, p := range evs[len(evs)-1].Pinned {
		carried = carried || (p.ID == pinned.ID && p.Kind == conversation.CarriedPin)
	}
	if !carried {
		t.Fatalf("the last compaction does not carry the pin: %+v", evs[len(evs)-1].Pinned)
	}
	if !strings.Contains(systemText(f.srv.ChatRequests()[len(f.srv.ChatRequests())-1]), contextbuilder.PinnedPrefix) {
		t.Fatal("the compacted pin is not quoted in the PINNED message")
	}
	// The explanation covers every compaction without reading the whole log.
	p, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: convID})
	if err != nil {
		t.Fatal(err)
	}
	cv := p.Conversation
	// (the next request may compact once more, in memory: the preview
	// shows that compaction too, with its summary)
	pending := len(cv.Compactions) - len(evs)
	if pending < 0 || pending > 1 || cv.Compacted < evs[len(evs)-1].CompactedTotal || cv.Loaded >= len(f.load(convID)) ||
		cv.Summary == nil || len(cv.Pins) != 1 || cv.Full || len(cv.Entries) != 0 {
		t.Fatalf("explanation: %d compactions of %d, loaded %d, %+v", len(cv.Compactions), len(evs), cv.Loaded, cv)
	}
	full, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: convID, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	byFate := map[string]int{}
	for _, e := range full.Conversation.Entries {
		byFate[e.Fate]++
		if e.Fate == FateCompacted && e.Compaction == "" {
			t.Fatalf("compacted without its compaction: %+v", e)
		}
	}
	if byFate[FateCompacted] == 0 || byFate[FateRequest] == 0 || len(full.Conversation.Entries) != len(f.messages(convID))+pending {
		t.Fatalf("full explanation: %v", byFate)
	}
	if err := f.svc.Unpin(convID, pinned.ID); err != nil {
		t.Fatal(err)
	}
	f.send(SendRequest{ConversationID: convID, Text: "after unpinning"})
	last := f.srv.ChatRequests()[len(f.srv.ChatRequests())-1]
	if strings.Contains(systemText(last), "smoke test on staging-7") {
		t.Fatal("the unpinned message is still quoted")
	}
	f.checkBudget(5000)
}

// Inside a tool loop, the loop's older results become previews with their
// output file when the loop outgrows the budget; when even that cannot fit,
// the turn ends with CONTEXT_STILL_TOO_LARGE and nothing over the budget is
// sent.
func TestToolLoopOverflow(t *testing.T) {
	const limit = 7000
	f := newFixture(t, smallBudget(limit))
	for i := 1; i <= 3; i++ {
		var b strings.Builder
		for j := 0; b.Len() < 6000; j++ {
			fmt.Fprintf(&b, "part %d line %d: the measured value is %d\n", i, j, i*1000+j)
		}
		if err := os.WriteFile(filepath.Join(f.root, fmt.Sprintf("part%d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(id string, i int) fakellm.Response {
		return fakellm.Tools(fakellm.ToolCall{ID: id, Name: "fs.read", Arguments: fmt.Sprintf(`{"path":"@project/part%d.txt"}`, i)})
	}
	f.srv.Enqueue(read("r1", 1), read("r2", 2), read("r3", 3), fakellm.Text("All three parts read."))
	res := f.send(SendRequest{Text: "read the three parts"})
	if res.Err != nil || res.Text != "All three parts read." {
		t.Fatalf("result %+v %v", res, res.Err)
	}
	f.checkBudget(limit)
	reqs := f.srv.ChatRequests()
	lastReq := reqs[len(reqs)-1]
	var preview string
	for _, m := range lastReq.Messages {
		if m.Role == "tool" && m.ToolCallID == "r1" {
			preview = m.Text()
		}
	}
	if !strings.HasPrefix(preview, contextbuilder.ToolPreviewPrefix) || !strings.Contains(preview, "@state/logs/tool-results/"+res.ConversationID+"/") {
		t.Fatalf("the first result is not a preview with its path: %q", preview)
	}
	// the output file it points at holds the whole result
	alias := preview[strings.Index(preview, "@state/logs/tool-results/"):]
	alias = alias[:strings.Index(alias, ".json")+5]
	path, err := toolResultHostPath(f.dataDir, alias)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "part 1 line 100") {
		t.Fatalf("full output file: %v", err)
	}

	// A loop whose newest result alone cannot fit: no request over the limit,
	// and the turn ends with a persisted, resumable error.
	g := newFixture(t, smallBudget(2600))
	var huge strings.Builder
	for j := 0; huge.Len() < 40000; j++ {
		fmt.Fprintf(&huge, "row %d;", j)
	}
	if err := os.WriteFile(filepath.Join(g.root, "huge.txt"), []byte(huge.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	g.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "h1", Name: "fs.read", Arguments: `{"path":"@project/huge.txt"}`}), fakellm.Text("never sent"))
	res = g.send(SendRequest{Text: "read the huge file " + strings.Repeat("please ", 200)})
	g.checkBudget(2600)
	if res.Err == nil || res.Err.Code != CodeContextTooLarge {
		t.Fatalf("want %s, got %+v", CodeContextTooLarge, res.Err)
	}
	msgs := g.messages(res.ConversationID)
	last := msgs[len(msgs)-1]
	if last.PartType != conversation.PartError || !strings.Contains(last.Text(), "LLM_ERROR") || !strings.Contains(last.Text(), CodeContextTooLarge) {
		t.Fatalf("failure not persisted: %+v", last)
	}
	if n := len(g.srv.ChatRequests()); n != 1 {
		t.Fatalf("%d requests sent; only the first fitted", n)
	}
}

// A provider's context-length error with figures lowers the request limit
// in proportion: the retried request is smaller, the limit is remembered
// for the next send, and nothing identical is sent twice.
func TestContextLengthRetryUsesTheReportedOverflow(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	f.seed(convID, 60, 60)
	vllm := fakellm.Error(400, "BadRequestError", "",
		"This model's maximum context length is 4000 tokens. However, you requested 7000 tokens (6500 in the messages, 500 in the completion).")
	f.srv.Enqueue(vllm, fakellm.Text("fits now"), fakellm.Text("still fits"))
	res := f.send(SendRequest{ConversationID: convID, Text: "answer"})
	if res.Err != nil || res.Text != "fits now" {
		t.Fatalf("result %+v %v", res, res.Err)
	}
	reqs := f.srv.ChatRequests()
	sent, retried := f.requestTokens(reqs[0]), f.requestTokens(reqs[1])
	if string(reqs[0].Body) == string(reqs[1].Body) || retried > sent*4000/7000 {
		t.Fatalf("first request %d tokens, retry %d (want at most %d)", sent, retried, sent*4000/7000)
	}
	if got := f.svc.learnedLimit(testModel); got == 0 || got > sent*4000/7000 {
		t.Fatalf("learned limit %d", got)
	}
	f.send(SendRequest{ConversationID: convID, Text: "again"})
	if third := f.requestTokens(f.srv.ChatRequests()[2]); third > f.svc.learnedLimit(testModel) {
		t.Fatalf("the next send ignored the learned limit: %d tokens", third)
	}
}

// A compaction at the trigger brings the request near the target, not just
// under the trigger: for the default 50 % target the compaction's own
// figure lands within 35-55 % of the limit, whatever the budget and message
// sizes; a 30 % target lands within 20-35 %. The request sent (counted
// independently) holds at least that, and the newest compacted messages
// word for word up to the trigger.
func TestThresholdCompactionLandsNearTheTarget(t *testing.T) {
	tests := []struct {
		name         string
		limit        int
		target       float64
		pairs, words int
	}{
		{"8k, just over the trigger", 8000, 0.5, 27, 40},
		{"8k, short messages", 8000, 0.5, 60, 40},
		{"8k, long messages", 8000, 0.5, 30, 150},
		{"16k", 16000, 0.5, 80, 80},
		{"32k", 32000, 0.5, 120, 120},
		{"16k, 30 % target", 16000, 0.3, 80, 80},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(s *settings.Settings) {
				smallBudget(tt.limit)(s)
				s.Context.TriggerThreshold = 0.8
				s.Context.TargetAfterCompression = tt.target
			})
			convID := f.create()
			f.seed(convID, tt.pairs, tt.words)
			f.srv.Enqueue(fakellm.Text("Done."))
			res := f.send(SendRequest{ConversationID: convID, Text: "summarise where we are"})
			if res.Err != nil || !res.Context.Compressed {
				t.Fatalf("no compaction: %+v %v", res.Context, res.Err)
			}
			evs := compactionEvents(f.load(convID))
			if len(evs) != 1 || evs[0].Reason != ReasonThreshold {
				t.Fatalf("compactions %+v", evs)
			}
			limit := float64(tt.limit)
			sent := float64(f.requestTokens(f.srv.ChatRequests()[0])) / limit
			after := float64(evs[0].TokensAfter) / limit
			before := float64(evs[0].TokensBefore) / limit
			target := float64(evs[0].Target) / limit
			t.Logf("before %.0f %%, after %.0f %%, request sent %.0f %%, landing %.0f %% of %d", before*100, after*100, sent*100, target*100, tt.limit)
			if before <= 0.8 {
				t.Fatalf("the history was not over the trigger (%.0f %%): the case tests nothing", before*100)
			}
			// the landing is the fixed part and the target share of the room
			// after it: at least the target share of the limit, below the
			// trigger
			if target < tt.target || target >= 0.8 {
				t.Fatalf("landing at %.0f %% of the limit for a %.0f %% target", target*100, tt.target*100)
			}
			if after < target-0.15 || after > target+0.02 {
				t.Errorf("the compaction's figure is %.1f %% of the limit, want %.0f-%.0f %% for a landing at %.0f %%", after*100, (target-0.15)*100, (target+0.02)*100, target*100)
			}
			// the request sent may hold compacted messages word for word
			// again, up to the trigger
			if sent < after-0.02 || sent > 0.8 {
				t.Errorf("the request sent is %.1f %% of the limit, want %.0f-80 %% (the landing, filled up to the trigger)", sent*100, (after-0.02)*100)
			}
		})
	}
}

// The other two branches of the retry after a context-length error: a
// provider that gives no figures gets a request a quarter smaller; one that
// names only its window gets a request within three quarters of it. Either
// way the retry is another request, and the limit is learned.
func TestContextLengthRetryWithoutFullFigures(t *testing.T) {
	tests := []struct {
		name  string
		err   fakellm.Response
		limit func(sent int) int // the most the retry may use
	}{
		{"no figures", fakellm.Error(400, "invalid_request_error", "context_length_exceeded", "The prompt is too long for this model."),
			func(sent int) int { return sent * 3 / 4 }},
		{"the window only", fakellm.Error(400, "BadRequestError", "", "This model's maximum context length is 4000 tokens."),
			func(int) int { return 4000 - 4000/4 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			convID := f.create()
			f.seed(convID, 60, 60)
			f.srv.Enqueue(tt.err, fakellm.Text("fits now"))
			res := f.send(SendRequest{ConversationID: convID, Text: "answer"})
			if res.Err != nil || res.Text != "fits now" {
				t.Fatalf("result %+v %v", res, res.Err)
			}
			reqs := f.srv.ChatRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want the refused one and one retry", len(reqs))
			}
			sent, retried := f.requestTokens(reqs[0]), f.requestTokens(reqs[1])
			want := tt.limit(sent)
			if sent <= 4000 || want >= sent {
				t.Fatalf("the first request (%d tokens) must be over the window for the test to mean anything", sent)
			}
			if string(reqs[0].Body) == string(reqs[1].Body) || retried > want {
				t.Fatalf("first request %d tokens, retry %d (want at most %d)", sent, retried, want)
			}
			if got := f.svc.learnedLimit(testModel); got == 0 || got > want {
				t.Fatalf("learned limit %d, want at most %d", got, want)
			}
		})
	}
}

// A message that cannot fit the request limit whatever happens is refused
// before anything is written or sent.
func TestOversizeInputRefused(t *testing.T) {
	f := newFixture(t, smallBudget(8000))
	huge := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 3000) // ~30k tokens
	if _, err := f.svc.Send(context.Background(), SendRequest{Text: huge}); errs.CodeOf(err) != CodeInputTooLarge || !strings.Contains(err.Error(), "fs.read") {
		t.Fatalf("want %s, got %v", CodeInputTooLarge, err)
	}
	if list, _ := f.store.List(); len(list) != 0 {
		t.Fatalf("a conversation was created: %+v", list)
	}
	convID := f.create()
	f.seed(convID, 2, 5)
	before := len(f.load(convID))
	if _, err := f.svc.Send(context.Background(), SendRequest{ConversationID: convID, Text: huge}); errs.CodeOf(err) != CodeInputTooLarge {
		t.Fatalf("want %s, got %v", CodeInputTooLarge, err)
	}
	if len(f.load(convID)) != before || len(f.srv.Requests()) != 0 {
		t.Fatal("the refused message was written or sent")
	}
	// a long message that fits is sent, counted once
	f.srv.Enqueue(fakellm.Text("read it"))
	res := f.send(SendRequest{ConversationID: convID, Text: strings.Repeat("word ", 3000)})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	f.checkBudget(8000)
}

// spyCounter records the largest text it was asked to count.
type spyCounter struct {
	*tokens.Counter
	mu      sync.Mutex
	largest int
}

func (c *spyCounter) note(n int) {
	c.mu.Lock()
	c.largest = max(c.largest, n)
	c.mu.Unlock()
}

func (c *spyCounter) Count(model, text string) int {
	c.note(len(text))
	return c.Counter.Count(model, text)
}

func (c *spyCounter) CountMessage(model string, e *conversation.Entry) int {
	c.note(len(e.Text()))
	return c.Counter.CountMessage(model, e)
}

// A pasted text too large for any request is refused by its size in bytes
// before it is counted (no token is longer than tokens.MaxTokenBytes): a
// 15 MB message never reaches the tokenizer, nothing is written or sent.
func TestHugeInputRefusedBeforeCounting(t *testing.T) {
	f := newFixture(t, smallBudget(20000))
	spy := &spyCounter{Counter: counter}
	svc, err := New(Options{Store: f.store, Settings: StaticSettings(f.st), LLM: testLLM, Tools: NewToolHosts(toolsRoots(f)), Counter: spy, Emitter: f.rec})
	if err != nil {
		t.Fatal(err)
	}
	convID := f.create()
	huge := strings.Repeat("All work and no play makes Jack a dull boy. ", 15<<20/44) // 15 MB
	start := time.Now()
	_, err = svc.Send(context.Background(), SendRequest{ConversationID: convID, Text: huge})
	took := time.Since(start)
	t.Logf("a %.1f MB message refused in %v", float64(len(huge))/1e6, took)
	if errs.CodeOf(err) != CodeInputTooLarge || !strings.Contains(err.Error(), "bytes") || !strings.Contains(err.Error(), "fs.read") {
		t.Fatalf("want %s by size, got %v", CodeInputTooLarge, err)
	}
	if spy.largest >= 1<<20 {
		t.Fatalf("the message was counted (a text of %d bytes) before it was refused", spy.largest)
	}
	if len(f.load(convID)) != 0 || len(f.srv.Requests()) != 0 {
		t.Fatal("the refused message was written or sent")
	}
	// Just under the bound by size, it is counted and refused by its count.
	over := strings.Repeat("All work and no play makes Jack a dull boy. ", 20000*tokens.MaxTokenBytes/44-1)
	if _, err := svc.Send(context.Background(), SendRequest{ConversationID: convID, Text: over}); errs.CodeOf(err) != CodeInputTooLarge || !strings.Contains(err.Error(), "tokens; with the system prompt") {
		t.Fatalf("want %s by count, got %v", CodeInputTooLarge, err)
	}
	if spy.largest < len(over) {
		t.Fatalf("a message within the size bound was not counted (largest text counted %d bytes)", spy.largest)
	}
}

// Legacy collapsed tool_start / tool_result UI entries stay out of the
// request unless context.includeCollapsedUiEventsInContext is on.
func TestCollapsedUIEventsSetting(t *testing.T) {
	for _, include := range []bool{false, true} {
		f := newFixture(t, func(s *settings.Settings) { s.Context.IncludeCollapsedUIEventsInContext = include })
		convID := f.create()
		legacy := `[{"id":"msg-1","role":"user","content":"Create a deck about the Q3 results"},
{"id":"msg-2","role":"assistant","content":"Starting. I will read the data first.","partType":"content"},
{"id":"msg-3","role":"assistant","content":"fs.read @project/data/q3.csv","partType":"tool_start","toolName":"fs.read","isCollapsed":true},
{"id":"msg-4","role":"assistant","content":"{\"ok\":true,\"content\":\"region,revenue\\nEU,12\"}","partType":"tool_result","toolName":"fs.read","isCollapsed":true}]`
		dir := filepath.Join(f.dataDir, "conversations", convID)
		os.Remove(filepath.Join(dir, convlog.LogFile))
		if err := os.WriteFile(filepath.Join(dir, "messages.json"), []byte(legacy), 0o644); err != nil {
			t.Fatal(err)
		}
		f.reopen()
		f.srv.Enqueue(fakellm.Text("ok"))
		f.send(SendRequest{ConversationID: convID, Text: "go on"})
		req := f.srv.ChatRequests()[0]
		var sent []string
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				sent = append(sent, m.Text())
			}
		}
		got := strings.Contains(strings.Join(sent, "\n"), "fs.read @project/data/q3.csv")
		if got != include {
			t.Fatalf("include=%v: UI events sent as assistant text: %v", include, sent)
		}
		if !strings.Contains(strings.Join(sent, "\n"), "Starting. I will read") {
			t.Fatal("the real answer is missing")
		}
	}
}

// A manual compaction compacts everything before the newest user message,
// with the focus steering the summary.
func TestManualCompactionWithFocus(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	f.seed(convID, 10, 40)
	facts := &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("Invoice rounding uses banker's rounding to 2 decimals.")}
	newest := &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("What next?")}
	if err := f.store.Append(convID, facts, newest); err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.Compact(context.Background(), CompactRequest{ConversationID: convID, Focus: "invoice rounding"})
	if err != nil {
		t.Fatal(err)
	}
	if res.CompactedMessages != 21 || res.SummaryID == "" || res.UsedTokensAfter >= res.UsedTokensBefore || !strings.Contains(res.Summary, "banker's rounding") ||
		!strings.Contains(res.Summary, "Focus of the last compaction: invoice rounding") {
		t.Fatalf("result: %+v", res)
	}
	evs := compactionEvents(f.load(convID))
	if len(evs) != 1 || evs[0].Reason != ReasonManual || evs[0].Focus != "invoice rounding" || evs[0].KeptFrom != newest.ID {
		t.Fatalf("events: %+v", evs)
	}
	// nothing left to compact: the newest exchange stays
	again, err := f.svc.Compact(context.Background(), CompactRequest{ConversationID: convID})
	if err != nil || again.CompactedMessages != 0 {
		t.Fatalf("second compaction: %+v %v", again, err)
	}
}

// Compacted messages relevant to the newest message come back into the
// request, by words (Chinese too) and, with an embeddings model, by
// meaning; vectors are computed once and cached beside the log.
func TestRecallBringsBackCompactedMessages(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget, s.Context.ReserveForResponse = 6000, 0
		s.Context.SummaryShare = 0.05 // a digest too small for everything
		s.LLM.EmbeddingsModel = "fake-embed"
	})
	convID := f.create()
	old := []*conversation.Entry{
		{Role: conversation.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: conversation.Str(`{"ok":true,"content":"retention_window: 417\nflush_interval: 30"}`)},
		// plain words the digest does not keep (recall skips a message the
		// request already quotes)
		{Role: conversation.RoleUser, Content: conversation.Str("仓储组说盘点的时候先清点货架，再核对系统里的库存。")},
	}
	call := &conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/conf.yaml"}`}}}}
	if err := f.store.Append(convID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("check the config")}, call, old[0], old[1]); err != nil {
		t.Fatal(err)
	}
	f.seed(convID, 30, 60)
	f.srv.Enqueue(fakellm.Text("ok"), fakellm.Text("ok"), fakellm.Text("ok"))
	f.send(SendRequest{ConversationID: convID, Text: "something else entirely"})
	if evs := compactionEvents(f.load(convID)); len(evs) == 0 || evs[0].RecallDocs == 0 {
		t.Fatalf("no compaction into the recall index: %+v", evs)
	}
	f.send(SendRequest{ConversationID: convID, Text: "What was the retention_window value in the config?"})
	req := f.srv.ChatRequests()[1]
	var recalled string
	for _, m := range req.Messages {
		if strings.HasPrefix(m.Text(), contextbuilder.RecallPrefix) {
			recalled = m.Text()
		}
	}
	if !strings.Contains(recalled, "retention_window: 417") {
		t.Fatalf("the compacted tool output was not recalled:\n%s", recalled)
	}
	if last := req.Messages[len(req.Messages)-1]; last.Text() != "What was the retention_window value in the config?" {
		t.Fatal("recall is not right before the newest message")
	}
	f.send(SendRequest{ConversationID: convID, Text: "盘点的时候先做什么？"})
	if req := f.srv.ChatRequests()[2]; !strings.Contains(texts(req)[len(req.Messages)-2], "清点货架") {
		t.Fatalf("the Chinese message was not recalled:\n%s", strings.Join(texts(req), "\n"))
	}
	// vectors: computed once per message, cached on disk by model
	vec := filepath.Join(f.dataDir, "conversations", convID, conversation.EmbeddingsFile(recall.ModelKey("fake-embed")))
	if fi, err := os.Stat(vec); err != nil || fi.Size() == 0 {
		t.Fatalf("vectors file: %v", err)
	}
	embedded := 0
	for _, in := range f.srv.EmbeddingRequests() {
		embedded += len(in)
	}
	docs := compactionEvents(f.load(convID))[0].RecallDocs
	if queries := 3; embedded > docs+queries+10 {
		t.Fatalf("%d texts embedded for %d documents and %d queries: vectors are recomputed", embedded, docs, queries)
	}
}

// An embeddings endpoint that fails leaves recall by words.
func TestRecallWithoutEmbeddings(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget, s.Context.ReserveForResponse = 5000, 0
		s.LLM.EmbeddingsModel = "fake-embed"
	})
	f.srv.FailEmbeddings(1000)
	convID := f.create()
	if err := f.store.Append(convID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("The vendor code is QX-4471-B for the parts order.")}); err != nil {
		t.Fatal(err)
	}
	f.seed(convID, 30, 60)
	f.srv.Enqueue(fakellm.Text("ok"), fakellm.Text("ok"))
	f.send(SendRequest{ConversationID: convID, Text: "go on"})
	res := f.send(SendRequest{ConversationID: convID, Text: "which vendor code was it for the parts order?"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if !strings.Contains(strings.Join(texts(f.srv.ChatRequests()[1]), "\n"), "QX-4471-B") {
		t.Fatal("the fact is lost without embeddings")
	}
	p, err := f.svc.Preview(context.Background(), PreviewRequest{ConversationID: convID})
	if err != nil {
		t.Fatal(err)
	}
	joined, _ := json.Marshal(p.Notes)
	if !strings.Contains(string(joined), "recalled by words only") {
		t.Fatalf("notes: %s", joined)
	}
}

// The request limit follows the budget from the environment without a
// cliff: it never shrinks when the budget grows.
func TestBudgetFromEnvironment(t *testing.T) {
	prev := 0
	for _, b := range []int{1000, 6000, 8191, 8192, 8193, 8200, 9000, 16000, 32768, 32769, 128000} {
		st, err := settings.LoadWithEnv(t.TempDir(), func(k string) (string, bool) {
			if k == "CREWAGENT_TOKEN_BUDGET" {
				return fmt.Sprint(b), true
			}
			return "", false
		})
		if err != nil {
			t.Fatal(err)
		}
		l := budgetOf(st.Effective().Context).TokenLimit()
		if l < prev {
			t.Fatalf("budget %d gives limit %d, below %d", b, l, prev)
		}
		if b == 8193 && l != 6145 || b == 9000 && l != 6750 {
			t.Fatalf("budget %d: limit %d", b, l)
		}
		prev = l
	}
}

// When the summary model fails, the compaction writes the digest and says
// why in the event.
func TestLLMSummaryFallsBackToTheDigest(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget, s.Context.ReserveForResponse = 6000, 0
		s.Context.CompressionStrategy = settings.StrategyLLMSummary
		s.LLM.MaxRetries = 0
	})
	convID := f.create()
	if err := f.store.Append(convID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("The invoice total must never exceed 4711 EUR.")}); err != nil {
		t.Fatal(err)
	}
	f.seed(convID, 30, 60)
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		if !r.Stream {
			return fakellm.Response{Status: 500}
		}
		return fakellm.Text("ok")
	})
	res := f.send(SendRequest{ConversationID: convID, Text: "go on"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	evs := compactionEvents(f.load(convID))
	if len(evs) != 1 || evs[0].Strategy != compression.NameKeyMessages || evs[0].SummaryError == "" {
		t.Fatalf("events: %+v", evs)
	}
	if !strings.Contains(systemText(f.srv.ChatRequests()[len(f.srv.ChatRequests())-1]), "4711 EUR") {
		t.Fatal("the digest written instead lacks the requirement")
	}
}

// A conversation compacted by an earlier version (marks and an event, no
// summary) gets the summary of what was compacted on its next send, once.
func TestBackfillOfEarlierCompactions(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	lost := &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("The export must never include rows of tenant 8842.")}
	if err := f.store.Append(convID, lost); err != nil {
		t.Fatal(err)
	}
	seeded := f.seed(convID, 6, 10)
	ids := []string{lost.ID, seeded[0].ID, seeded[1].ID}
	if _, err := f.store.MarkCompacted(convID, ids, map[string]any{"strategy": "key-messages", "count": 3, keyKeptFrom: seeded[2].ID}); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Text("ok"), fakellm.Text("ok"))
	f.send(SendRequest{ConversationID: convID, Text: "go on"})
	if !strings.Contains(systemText(f.srv.ChatRequests()[0]), "tenant 8842") {
		t.Fatal("the requirement compacted without a summary is still lost")
	}
	evs := compactionEvents(f.load(convID))
	if len(evs) != 2 || evs[1].Reason != ReasonBackfill || evs[1].CompactedTotal != 3 || evs[1].KeptFrom != seeded[2].ID {
		t.Fatalf("events: %+v", evs)
	}
	f.send(SendRequest{ConversationID: convID, Text: "and now?"})
	if n := len(compactionEvents(f.load(convID))); n != 2 {
		t.Fatalf("%d compaction events: the backfill ran again", n)
	}
	if !strings.Contains(systemText(f.srv.ChatRequests()[1]), "tenant 8842") {
		t.Fatal("the backfilled summary is not in the next request")
	}
}
