package compression

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/llm/fakellm"
)

func TestStatus(t *testing.T) {
	for p, want := range map[float64]string{0: "normal", 59.99: "normal", 60: "warning", 79.9: "warning", 80: "warning", 80.01: "critical", 130: "critical"} {
		if got := Status(p); got != want {
			t.Errorf("Status(%v) = %s, want %s", p, got, want)
		}
	}
}

func TestMonitorUsage(t *testing.T) {
	msgs := []Message{{Role: "system", Content: convlog.Str("s"), Tokens: 100}, {Role: "user", Content: convlog.Str("u"), Tokens: 397}}
	u := Monitor{Budget: 1000, ToolTokens: 100}.Usage(msgs)
	if u != (Usage{UsedTokens: 600, TotalBudget: 1000, UsagePercent: 60, Remaining: 400}) || u.Status() != StatusWarning {
		t.Fatalf("usage %+v", u)
	}
	over := Monitor{Budget: 400}.Usage(msgs)
	if over.Remaining != 0 || over.UsagePercent != 125 {
		t.Fatalf("over budget usage %+v", over)
	}
}

func TestThresholdTrigger(t *testing.T) {
	p := pipeline(1000, nil)
	at := func(used int) []Message { // a request that uses exactly `used` tokens
		return []Message{{Role: "system", Content: convlog.Str("s"), Tokens: 100, Kind: contextbuilder.KindSystem},
			{Role: "user", Content: convlog.Str("u"), Tokens: used - 100 - contextbuilder.ReplyPriming}}
	}
	for used, want := range map[int]bool{500: false, 799: false, 800: false, 801: true, 1200: true} {
		if got := p.ShouldCompress(at(used)); got != want {
			t.Errorf("ShouldCompress at %d/1000 = %v, want %v", used, got, want)
		}
		res, err := p.CompressIfNeeded(context.Background(), at(used), 0)
		if err != nil || (res != nil) != want {
			t.Errorf("CompressIfNeeded at %d: %v, %v", used, res, err)
		}
	}
}

// longConversation returns a chat whose request is about 111 % of budget.
func longConversation(t *testing.T, rounds int) (*convo, []Message, int) {
	var c convo
	for i := 1; i <= rounds; i++ {
		c.round(i, 1200)
	}
	c.user("Now write the summary of all sections.")
	msgs := request(t, &c, convlog.ModeChat)
	budget := contextbuilder.TokensOf(msgs) * 100 / 111
	return &c, msgs, budget
}

func TestCompressionReachesTarget(t *testing.T) {
	_, msgs, budget := longConversation(t, 40)
	p := pipeline(budget, nil)
	if !p.ShouldCompress(msgs) {
		t.Fatal("111% must trigger")
	}
	res := compress(t, p, msgs, 0)
	if res.Before.UsagePercent < 110 || res.After.UsagePercent > 50 {
		t.Fatalf("usage %.1f%% -> %.1f%%, want <= 50%%", res.Before.UsagePercent, res.After.UsagePercent)
	}
	if res.After.UsagePercent < 40 {
		t.Errorf("compressed far below the target: %.1f%%", res.After.UsagePercent)
	}
	out := res.Output
	if out.OverTarget || len(out.Steps) != 0 || out.Strategy != NameKeyMessages || res.FellBack {
		t.Fatalf("unexpected output: %+v", out.Steps)
	}
	// Compressing the result again changes nothing: it is within the target.
	again := compress(t, p, out.Messages, 0)
	if again.Output.TokensAfter != out.TokensAfter || len(again.Output.Dropped) != 0 {
		t.Fatalf("second pass changed the result: %d -> %d", out.TokensAfter, again.Output.TokensAfter)
	}
	r := res.Record
	if !r.HasChanges() || len(r.CompactedIDs) != len(out.Dropped) || r.From != out.Dropped[0] || r.TokensBefore != res.Before.UsedTokens || r.TokensAfter != res.After.UsedTokens {
		t.Fatalf("record %+v", r)
	}
}

func TestToolGroupsStayWhole(t *testing.T) {
	_, msgs, budget := longConversation(t, 30)
	for _, b := range []int{budget, budget / 2, budget / 4} {
		out := compress(t, pipeline(b, nil), msgs, 0).Output // Validate fails on a split group
		for _, ex := range out.Explanation {
			if ex.Role == convlog.RoleAssistant && msgs[ex.Index].ToolCalls != nil && ex.Count != 2 {
				t.Fatalf("tool unit %+v not grouped", ex)
			}
		}
	}
}

func TestMandatoryMessagesKept(t *testing.T) {
	var c convo
	c.round(1, 800)
	_, record := c.tool("fs.write", `{"path":"@project/artifacts/brief.md"}`, `{"ok":true} ARTIFACT_SAVED @project/artifacts/brief.md`)
	for i := 2; i < 30; i++ {
		c.round(i, 1500)
	}
	latest := c.user("USER_INPUT\n- forNodeId: n3\nGo on with the next step.")
	msgs := request(t, &c, convlog.ModeRun)
	budget := contextbuilder.TokensOf(msgs) * 100 / 150
	out := compress(t, pipeline(budget, nil), msgs, 0).Output
	for _, m := range msgs {
		if m.Kind == contextbuilder.KindSystem || m.Kind == contextbuilder.KindInjection {
			if !slices.ContainsFunc(out.Messages, func(o Message) bool { return o.Kind == m.Kind && o.Text() == m.Text() }) {
				t.Fatalf("%s message dropped: %q", m.Kind, m.Text())
			}
		}
	}
	if has(out.Messages, latest) == nil || has(out.Messages, record) == nil {
		t.Fatalf("latest user message or artifact record dropped\n%s", dump(out.Messages))
	}
	if ex := unitOf(out, msgs, record); ex == nil || ex.Reason != "kept: mandatory, artifact/completion record (ARTIFACT_SAVED)" {
		t.Fatalf("record explanation %+v", ex)
	}
	// The newest N=10 history messages are all there.
	var hist []string
	for _, m := range msgs {
		if m.Kind == contextbuilder.KindHistory {
			hist = append(hist, m.SourceID)
		}
	}
	for _, id := range hist[len(hist)-10:] {
		if has(out.Messages, id) == nil {
			t.Fatalf("recent message %s dropped", id)
		}
	}
	// The run blocks still sit right before the latest user message.
	i := slices.IndexFunc(out.Messages, func(m Message) bool { return m.SourceID == latest })
	if out.Messages[i-1].Kind != contextbuilder.KindInjection || out.Messages[i-2].Kind != contextbuilder.KindInjection {
		t.Fatalf("run blocks moved\n%s", dump(out.Messages))
	}
}

func TestScoringExplanation(t *testing.T) {
	var c convo
	c.user("hello")
	rich := c.assistant("You must keep the budget under 5000 EUR; see @project/docs/budget.md:\n```\ntotal = 4800\n```")
	plain := c.assistant("Sounds good, happy to help with anything else today.")
	_, big := c.tool("fs.read", `{"path":"@project/big.txt"}`, strings.Repeat("noise ", 3000))
	for i := 0; i < 12; i++ {
		c.round(100+i, 100)
	}
	c.user("and now?")
	msgs := request(t, &c, convlog.ModeChat)
	// Room for the mandatory part (system prompt, newest 10 history messages
	// and the latest user message), the user messages, and the rich message.
	k := NewKeyMessages(KeyMessageConfig{})
	mandatory := contextbuilder.ReplyPriming
	for i, m := range msgs {
		if i >= len(msgs)-11 || m.Kind == contextbuilder.KindSystem || m.Role == convlog.RoleUser {
			mandatory += m.Tokens
		}
	}
	target := mandatory + has(msgs, rich).Tokens + 5
	out, err := k.Compress(context.Background(), Input{Messages: msgs, Target: target, Counter: counter, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if has(out.Messages, rich) == nil || has(out.Messages, plain) != nil {
		t.Fatalf("scoring kept the wrong message\n%s", dump(out.Messages))
	}
	er, ep, eb := explanationOf(out, rich), explanationOf(out, plain), unitOf(out, msgs, big)
	b := er.Breakdown
	if b.Keywords != weightKeyword || b.Matched != "must" || b.FilePath != weightFilePath || b.CodeBlock != weightCodeBlock || b.Numbers != weightNumbers || b.Recency <= 0 {
		t.Fatalf("rich breakdown %+v", b)
	}
	if er.Score != b.Total() || er.Score <= ep.Score || er.Decision != "kept" || er.Reason != "kept: selected by score" || er.Rank != 1 {
		t.Fatalf("rich %+v plain %+v", er, ep)
	}
	if ep.Decision != "dropped" || !strings.Contains(ep.Reason, "score too low") {
		t.Fatalf("plain %+v", ep)
	}
	if eb == nil || eb.Breakdown.LargeTool >= 0 {
		t.Fatalf("big tool result not penalised: %+v", eb)
	}
	for _, ex := range out.Explanation {
		if ex.Reason == "" || (ex.Decision != "kept" && ex.Decision != "dropped") {
			t.Fatalf("row without explanation: %+v", ex)
		}
	}
	var buf strings.Builder
	if err := json.NewEncoder(&buf).Encode(out); err != nil || !strings.Contains(buf.String(), `"breakdown":{"keywords":2,"matched":"must"`) {
		t.Fatalf("json: %v %s", err, buf.String()[:200])
	}
}

func TestFallbackChain(t *testing.T) {
	huge := func(word string, n int) string { return strings.Repeat(word+" ", n) }
	tests := []struct {
		name  string
		build func(c *convo)
		steps []string
		check func(t *testing.T, in []Message, out *Output)
	}{
		{
			name: "1 tool previews",
			build: func(c *convo) {
				for i := 0; i < 10; i++ {
					c.round(i, 200)
				}
				c.user("read the log")
				c.tool("fs.read", `{"path":"@project/log.txt"}`, `{"ok":true,"content":"`+huge("logline", 6000)+`"}`+"\nFull output: @state/logs/tool-results/c1/m0033.json")
				c.assistant("The log is long.")
			},
			steps: []string{"1: tool results replaced by previews"},
			check: func(t *testing.T, in []Message, out *Output) {
				var p *Message
				for i := range out.Messages {
					if strings.HasPrefix(out.Messages[i].Text(), ToolPreviewPrefix) {
						p = &out.Messages[i]
					}
				}
				if p == nil || !strings.Contains(p.Text(), "- tool: fs.read\n- status: ok") || !strings.Contains(p.Text(), "chars omitted") ||
					!strings.Contains(p.Text(), "@state/logs/tool-results/c1/m0033.json") || !slices.Contains(out.Truncated, p.SourceID) {
					t.Fatalf("no preview: %+v", p)
				}
				if orig := has(in, p.SourceID); p.Tokens >= orig.Tokens/10 || p.Tokens != contextbuilder.CountMessage(counter, testModel, p) {
					t.Fatalf("preview tokens %d (was %d)", p.Tokens, orig.Tokens)
				}
			},
		},
		{
			name: "2 truncated texts",
			build: func(c *convo) {
				for i := 0; i < 10; i++ {
					c.round(i, 200)
				}
				c.user("explain everything")
				c.assistant("First paragraph of the answer.\n\n" + huge("filler", 4000) + "\n- point one\n- point two\n" + huge("more", 3000) + "\nIn summary, the plan works.")
			},
			steps: []string{"1: tool results replaced by previews", "2: long user/assistant texts truncated"},
			check: func(t *testing.T, in []Message, out *Output) {
				var cut *Message
				for i := range out.Messages {
					if strings.Contains(out.Messages[i].Text(), "[truncated: kept") {
						cut = &out.Messages[i]
					}
				}
				if cut == nil || !strings.HasPrefix(cut.Text(), "First paragraph of the answer.") || !strings.Contains(cut.Text(), "- point one\n- point two") ||
					!strings.Contains(cut.Text(), "In summary, the plan works.") {
					t.Fatalf("truncation: %+v", cut)
				}
			},
		},
		{
			name: "3 last K rounds",
			build: func(c *convo) {
				for i := 0; i < 40; i++ {
					c.user(fmt.Sprintf("step %d", i))
					c.tool("fs.write", fmt.Sprintf(`{"path":"@project/artifacts/a%d.md"}`, i), fmt.Sprintf(`{"ok":true} ARTIFACT_SAVED @project/artifacts/a%d.md %s`, i, huge("x", 150)))
				}
				c.user("what next?")
			},
			steps: []string{"1: tool results replaced by previews", "2: long user/assistant texts truncated", "3: only the last 4 rounds kept"},
			check: func(t *testing.T, in []Message, out *Output) {
				checkLastRounds(t, in, out, 4)
			},
		},
		{
			name: "3 fewer rounds",
			build: func(c *convo) {
				for i := 0; i < 8; i++ {
					c.user(fmt.Sprintf("step %d", i))
					c.assistant(huge(fmt.Sprintf("word%d", i), 150)) // short enough to stay whole
					c.add(convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(fmt.Sprintf("NODE_COMPLETE n%d", i))})
				}
				c.user("what next?")
			},
			steps: []string{"1: tool results replaced by previews", "2: long user/assistant texts truncated", "3: only the last 2 rounds kept"},
			check: func(t *testing.T, in []Message, out *Output) {
				checkLastRounds(t, in, out, 2)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c convo
			tt.build(&c)
			msgs := request(t, &c, convlog.ModeChat)
			budget := map[string]int{"1 tool previews": contextbuilder.TokensOf(msgs) * 2 / 5, "2 truncated texts": contextbuilder.TokensOf(msgs) * 2 / 5,
				"3 last K rounds": contextbuilder.TokensOf(msgs) * 2 / 3, "3 fewer rounds": contextbuilder.TokensOf(msgs) * 2 / 3}[tt.name]
			if tt.name == "3 fewer rounds" {
				// Between the cost of the last 2 rounds and of the last 3.
				two, three := roundsCost(msgs, 2), roundsCost(msgs, 3)
				budget = 2 * (systemTokens(msgs) + contextbuilder.ReplyPriming + (two+three)/2)
			}
			res := compress(t, pipeline(budget, nil), msgs, 0)
			out := res.Output
			if !slices.Equal(out.Steps, tt.steps) {
				t.Fatalf("steps %q, want %q\n%s", out.Steps, tt.steps, dump(out.Messages))
			}
			if out.OverTarget || out.TokensAfter > out.Target || res.After.UsagePercent > 50 {
				t.Fatalf("not within target: %d > %d", out.TokensAfter, out.Target)
			}
			tt.check(t, msgs, out)
		})
	}
}

// roundsCost returns the tokens of the last k rounds of msgs.
func roundsCost(msgs []Message, k int) int {
	n, seen := 0, 0
	for i := len(msgs) - 1; i >= 0 && seen < k; i-- {
		n += msgs[i].Tokens
		if msgs[i].Role == convlog.RoleUser {
			seen++
		}
	}
	return n
}

func systemTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		if m.Kind == contextbuilder.KindSystem {
			n += m.Tokens
		}
	}
	return n
}

// checkLastRounds asserts out holds the system prompt and exactly the last k
// rounds of in.
func checkLastRounds(t *testing.T, in []Message, out *Output, k int) {
	t.Helper()
	from, seen := 0, 0
	for i := len(in) - 1; i >= 0; i-- {
		if in[i].Role == convlog.RoleUser && in[i].Kind == contextbuilder.KindHistory {
			if seen++; seen == k {
				from = i
				break
			}
		}
	}
	var want []string
	for _, m := range in[from:] {
		want = append(want, m.SourceID)
	}
	var got []string
	for _, m := range out.Messages {
		if m.Kind != contextbuilder.KindSystem {
			got = append(got, m.SourceID)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("kept %v, want the last %d rounds %v", got, k, want)
	}
	for _, ex := range out.Explanation {
		if ex.Decision == "dropped" && !strings.Contains(ex.Reason, fmt.Sprintf("outside the last %d rounds", k)) {
			t.Fatalf("reason %q", ex.Reason)
		}
	}
}

func TestMinimalSetOverTarget(t *testing.T) {
	var c convo
	c.round(1, 300)
	latest := c.user(strings.Repeat("enormous question ", 3000))
	msgs := request(t, &c, convlog.ModeChat)
	res := compress(t, pipeline(4000, nil), msgs, 0)
	out := res.Output
	if !out.OverTarget || len(out.Notes) == 0 || out.Steps[len(out.Steps)-1] != "minimal: only the messages that are never dropped" {
		t.Fatalf("over target not reported: %+v", out)
	}
	var got []string
	for _, m := range out.Messages {
		if m.SourceID != "" {
			got = append(got, m.SourceID)
		}
	}
	if !slices.Equal(got, []string{latest}) || has(out.Messages, latest).Text() != has(msgs, latest).Text() {
		t.Fatalf("minimal set: %v", got)
	}
}

func TestInLoopCompressionLeavesLoopUntouched(t *testing.T) {
	_, msgs, _ := longConversation(t, 30)
	loopStart := len(msgs)
	// The engine appends the tool loop of the current turn to the request.
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("loop_%d", i)
		msgs = append(msgs,
			Message{Role: convlog.RoleAssistant, ToolCalls: []convlog.ToolCall{{ID: id, Type: "function", Function: convlog.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/x.md"}`}}}, SourceID: "a" + id, Kind: contextbuilder.KindHistory, Tokens: 20},
			Message{Role: convlog.RoleTool, ToolCallID: id, Name: "fs.read", Content: convlog.Str(strings.Repeat("loop data ", 400)), SourceID: "r" + id, Kind: contextbuilder.KindHistory, Tokens: 1204})
	}
	budget := contextbuilder.TokensOf(msgs) * 100 / 120
	res := compress(t, pipeline(budget, nil), msgs, loopStart)
	out := res.Output
	if !reflect.DeepEqual(out.Messages[out.LoopStart:], msgs[loopStart:]) {
		t.Fatalf("current loop changed (loop starts at %d)\n%s", out.LoopStart, dump(out.Messages[out.LoopStart:]))
	}
	if len(out.Dropped) == 0 || res.After.UsagePercent > 50 {
		t.Fatalf("history not compressed: %.1f%%", res.After.UsagePercent)
	}
	for _, id := range out.Dropped {
		if strings.Contains(id, "loop_") {
			t.Fatalf("loop message %s dropped", id)
		}
	}
}

func TestLLMSummaryInserted(t *testing.T) {
	srv, c := fakeServer(t)
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Text("Goals: a launch plan.\n- Budget owner: Ana.")
	})
	var cv convo
	old := cv.system("CONVERSATION_SUMMARY\nEarlier: the user picked the freemium model.")
	for i := 1; i <= 40; i++ {
		cv.round(i, 1200)
	}
	cv.user("What is left?")
	msgs := request(t, &cv, convlog.ModeAgent)
	budget := contextbuilder.TokensOf(msgs) * 100 / 111
	res := compress(t, pipeline(budget, NewLLMSummary(llmSummarizer{c}, nil, 0)), msgs, 0)
	out := res.Output
	if out.Strategy != NameLLMSummary || res.FellBack || out.SummaryError != "" {
		t.Fatalf("strategy %s, error %q", out.Strategy, out.SummaryError)
	}
	at := systemCount(out.Messages)
	sum := out.Messages[at]
	if sum.Role != convlog.RoleSystem || sum.Text() != "CONVERSATION_SUMMARY\nGoals: a launch plan.\n- Budget owner: Ana." || sum.SourceID != "" || sum.Tokens != contextbuilder.CountMessage(counter, testModel, &sum) {
		t.Fatalf("summary message %+v\n%s", sum, dump(out.Messages))
	}
	if has(out.Messages, old) != nil || !slices.Contains(out.Dropped, old) || !slices.Contains(res.Record.CompactedIDs, old) {
		t.Fatalf("old summary not replaced")
	}
	if res.After.UsagePercent > 50 {
		t.Fatalf("usage %.1f%%", res.After.UsagePercent)
	}
	// The summarizer saw the old summary first, then the dropped messages.
	reqs := srv.ChatRequests()
	if len(reqs) != 1 || reqs[0].Messages[0].Text() != SummaryPrompt {
		t.Fatalf("summary requests: %d", len(reqs))
	}
	transcript := reqs[0].Messages[1].Text()
	if !strings.HasPrefix(transcript, "[earlier summary] CONVERSATION_SUMMARY\nEarlier: the user picked the freemium model.") ||
		!strings.Contains(transcript, "[tool fs.read result] {\"ok\":true,\"content\":\"Section 1 line") || !strings.Contains(transcript, "[assistant calls fs.read]") {
		t.Fatalf("transcript:\n%.600s", transcript)
	}
	// What the caller persists.
	r := res.Record
	if r.Summary != sum.Text() || r.Strategy != NameLLMSummary {
		t.Fatalf("record %+v", r)
	}
	n := 0
	summary, event := r.Entries(func() string { n++; return fmt.Sprintf("new%d", n) }, "2026-01-28T10:00:00.000Z")
	if summary == nil || summary.Role != convlog.RoleSystem || summary.Text() != r.Summary || event.Event != convlog.EventCompaction || event.RefMsgID != summary.ID {
		t.Fatalf("entries %+v %+v", summary, event)
	}
	var data map[string]any
	if err := json.Unmarshal(event.Data, &data); err != nil || data["summary"] != summary.ID || data["from"] != r.From || data["count"] != float64(len(r.CompactedIDs)) || data["strategy"] != NameLLMSummary {
		t.Fatalf("event data %s (%v)", event.Data, err)
	}
}

func systemCount(msgs []Message) int {
	n := 0
	for n < len(msgs) && msgs[n].Kind == contextbuilder.KindSystem {
		n++
	}
	return n
}

func TestLLMSummaryFallsBackOnError(t *testing.T) {
	srv, c := fakeServer(t)
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.ServerError() })
	_, msgs, budget := longConversation(t, 40)
	res := compress(t, pipeline(budget, NewLLMSummary(llmSummarizer{c}, nil, 0)), msgs, 0)
	out := res.Output
	if out.Strategy != NameKeyMessages || out.SummaryError == "" || out.SummaryText != "" || res.Record.Summary != "" {
		t.Fatalf("no fallback: %+v", out.Notes)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "summary failed") || res.After.UsagePercent > 50 {
		t.Fatalf("notes %q, usage %.1f", out.Notes, res.After.UsagePercent)
	}
	for _, m := range out.Messages {
		if strings.HasPrefix(m.Text(), "CONVERSATION_SUMMARY") {
			t.Fatal("summary inserted after an error")
		}
	}
	// An empty summary is a failure too.
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.Text("  ") })
	res = compress(t, pipeline(budget, NewLLMSummary(llmSummarizer{c}, nil, 0)), msgs, 0)
	if res.Output.SummaryError != "the summary is empty" {
		t.Fatalf("empty summary: %q", res.Output.SummaryError)
	}
}

type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Compress(context.Context, Input) (*Output, error) {
	return nil, errors.New("boom")
}

func TestPipelineFallsBackToKeyMessages(t *testing.T) {
	_, msgs, budget := longConversation(t, 20)
	res := compress(t, pipeline(budget, failing{}), msgs, 0)
	if !res.FellBack || res.PrimaryError != "boom" || res.Output.Strategy != NameKeyMessages || !res.Record.FellBack || res.After.UsagePercent > 50 {
		t.Fatalf("fallback: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pipeline(budget, nil).Compress(ctx, msgs, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := NewKeyMessages(KeyMessageConfig{}).Compress(context.Background(), Input{Messages: msgs}); !errors.Is(err, ErrNoCounter) {
		t.Fatalf("no counter: %v", err)
	}
}

func TestWithinTargetIsUnchanged(t *testing.T) {
	_, msgs, budget := longConversation(t, 5)
	res := compress(t, pipeline(budget*3, nil), msgs, 0)
	if !reflect.DeepEqual(res.Output.Messages, msgs) || res.Record.HasChanges() {
		t.Fatal("a request within the target was changed")
	}
}
