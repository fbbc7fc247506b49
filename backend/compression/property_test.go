package compression

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
)

// quarterCounter estimates one token per 4 bytes: the properties below are
// about structure and budgets, not tokenizer accuracy.
type quarterCounter struct{}

func (quarterCounter) Count(_, text string) int { return (len(text) + 3) / 4 }

// randomRequest builds a request from a random conversation (rounds with tool
// groups, records, huge results and texts, summaries; run mode with blocks)
// and maybe a tool loop in progress. It returns the messages and the loop start.
func randomRequest(t testing.TB, r *rand.Rand) ([]Message, int) {
	var h []convlog.Entry
	add := func(e convlog.Entry) {
		e.Type = convlog.TypeMsg
		e.ID = fmt.Sprintf("x%05d", len(h)+1)
		e.Tokens = contextbuilder.MessageOverhead + (len(e.Text())+3)/4
		for _, tc := range e.ToolCalls {
			e.Tokens += (len(tc.Function.Name) + len(tc.Function.Arguments) + 6) / 4
		}
		h = append(h, e)
	}
	text := func() string {
		switch r.Intn(10) {
		case 0:
			return "Intro.\n\n" + strings.Repeat("long text must go on ", 100+r.Intn(600)) + "\n- a bullet\nIn summary: done."
		case 1:
			return fmt.Sprintf("ARTIFACT_SAVED @project/artifacts/a%d.md", r.Intn(100))
		default:
			return fmt.Sprintf("message %d about @project/f%d.md with number %d", r.Intn(1000), r.Intn(9), r.Intn(99))
		}
	}
	if r.Intn(3) == 0 {
		add(convlog.Entry{Role: convlog.RoleSystem, Content: convlog.Str("CONVERSATION_SUMMARY\nearlier work")})
	}
	rounds := 1 + r.Intn(40)
	for i := 0; i < rounds; i++ {
		add(convlog.Entry{Role: convlog.RoleUser, Content: convlog.Str(text())})
		for j := r.Intn(4); j > 0; j-- {
			var calls []convlog.ToolCall
			for k := 0; k <= r.Intn(3); k++ {
				calls = append(calls, convlog.ToolCall{ID: fmt.Sprintf("c%d_%d_%d", i, j, k), Type: "function", Function: convlog.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/a.md"}`}})
			}
			add(convlog.Entry{Role: convlog.RoleAssistant, ToolCalls: calls})
			for _, c := range calls {
				res := `{"ok":true,"content":"` + text() + `"}`
				if r.Intn(5) == 0 {
					res = `{"ok":true,"content":"` + strings.Repeat("data ", 300+r.Intn(3000)) + `"}`
				}
				add(convlog.Entry{Role: convlog.RoleTool, ToolCallID: c.ID, ToolName: "fs.read", Content: convlog.Str(res)})
			}
		}
		if r.Intn(4) > 0 {
			add(convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(text())})
		}
	}
	mode := []string{convlog.ModeChat, convlog.ModeAgent, convlog.ModeRun}[r.Intn(3)]
	o := contextbuilder.Options{Mode: mode, History: h, Counter: quarterCounter{}, Model: testModel,
		Agent: &contextbuilder.Persona{ID: "a", Name: "A"}, Run: fakeRun{"RUN_DIRECTIVE\n- intent: continue", "NODE_BRIEF\n- n: 1"},
		Budget: contextbuilder.Budget{TokenBudget: 1 << 30, MaxMessages: -1, MaxChars: -1}}
	res, err := contextbuilder.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Messages
	loop := 0
	if r.Intn(2) == 0 {
		loop = len(msgs)
		for i := r.Intn(4); i >= 0; i-- {
			id := fmt.Sprintf("loop%d", i)
			msgs = append(msgs,
				Message{Role: convlog.RoleAssistant, ToolCalls: []convlog.ToolCall{{ID: id, Type: "function", Function: convlog.FunctionCall{Name: "fs.list", Arguments: "{}"}}}, SourceID: "a" + id, Tokens: 12, Kind: contextbuilder.KindHistory},
				Message{Role: convlog.RoleTool, ToolCallID: id, Name: "fs.list", Content: convlog.Str(strings.Repeat("e ", 10+r.Intn(2000))), SourceID: "r" + id, Kind: contextbuilder.KindHistory})
			msgs[len(msgs)-1].Tokens = contextbuilder.CountMessage(quarterCounter{}, testModel, &msgs[len(msgs)-1])
		}
	}
	return msgs, loop
}

// hardSet returns which input messages may never change or be dropped.
func hardSet(msgs []Message, loop int) []bool {
	latest := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == convlog.RoleUser && msgs[i].Kind != contextbuilder.KindInjection {
			latest = i
			break
		}
	}
	hard := make([]bool, len(msgs))
	for i := range msgs {
		hard[i] = msgs[i].Role == convlog.RoleSystem || msgs[i].Kind != contextbuilder.KindHistory || i == latest || (loop > 0 && i >= loop)
	}
	return hard
}

func checkCompression(t *testing.T, in []Message, loop int, out *Output, v2 bool) {
	t.Helper()
	if err := contextbuilder.Validate(out.Messages); err != nil {
		t.Fatalf("invalid output: %v\n%s", err, dump(out.Messages))
	}
	if out.TokensAfter != contextbuilder.TokensOf(out.Messages) {
		t.Fatalf("TokensAfter %d", out.TokensAfter)
	}
	hard := hardSet(in, loop)
	hardCost := contextbuilder.ReplyPriming
	for i := range in {
		if hard[i] && !(v2 && isOldSummary(&in[i]) && out.SummaryText != "") {
			hardCost += in[i].Tokens
		}
	}
	if out.TokensAfter > out.Target && !out.OverTarget {
		t.Fatalf("over target without flag: %d > %d", out.TokensAfter, out.Target)
	}
	if out.OverTarget && hardCost <= out.Target {
		t.Fatalf("flagged over target but the hard set costs %d <= %d", hardCost, out.Target)
	}
	// Hard messages are present and unchanged (an earlier summary may be
	// replaced by the new one), in order.
	j := 0
	for i := range in {
		if !hard[i] || (v2 && out.SummaryText != "" && isOldSummary(&in[i])) {
			continue
		}
		for j < len(out.Messages) && !reflect.DeepEqual(out.Messages[j], in[i]) {
			j++
		}
		if j == len(out.Messages) {
			t.Fatalf("hard message %d (%s %q) missing or changed\n%s", i, in[i].Role, in[i].SourceID, dump(out.Messages))
		}
	}
	if loop > 0 && !reflect.DeepEqual(out.Messages[out.LoopStart:], in[loop:]) {
		t.Fatalf("loop changed: out loop %d", out.LoopStart)
	}
	// Every source id is kept or dropped, never both; order is preserved.
	pos := map[string]int{}
	for i, m := range in {
		if m.SourceID != "" {
			pos[m.SourceID] = i
		}
	}
	kept := map[string]bool{}
	last := -1
	for _, m := range out.Messages {
		if m.SourceID == "" {
			continue
		}
		p, ok := pos[m.SourceID]
		if !ok || p <= last {
			t.Fatalf("message %s unknown or out of order", m.SourceID)
		}
		last = p
		kept[m.SourceID] = true
	}
	dropped := map[string]bool{}
	for _, id := range out.Dropped {
		if kept[id] {
			t.Fatalf("%s both kept and dropped", id)
		}
		dropped[id] = true
	}
	for id := range pos {
		if !kept[id] && !dropped[id] {
			t.Fatalf("%s neither kept nor dropped", id)
		}
	}
	for _, id := range out.Truncated {
		if !kept[id] {
			t.Fatalf("truncated %s not kept", id)
		}
	}
	// The explanation covers every input message once.
	next := 0
	for _, ex := range out.Explanation {
		if ex.Index != next || ex.Count < 1 {
			t.Fatalf("explanation rows not contiguous at %d: %+v", next, ex)
		}
		next += ex.Count
	}
	if next != len(in) {
		t.Fatalf("explanation covers %d of %d", next, len(in))
	}
	if v2 && out.SummaryText != "" {
		at := systemCount(out.Messages)
		if !strings.HasPrefix(out.Messages[at].Text(), "CONVERSATION_SUMMARY\n") {
			t.Fatalf("summary not after the system prompt\n%s", dump(out.Messages))
		}
	}
}

func runProperty(t *testing.T, seed int64, c *llm.Client) {
	r := rand.New(rand.NewSource(seed))
	msgs, loop := randomRequest(t, r)
	total := contextbuilder.TokensOf(msgs)
	target := max(1, int(float64(total)*[]float64{0.02, 0.1, 0.3, 0.5, 0.8, 1.2}[r.Intn(6)]))
	in := Input{Messages: msgs, Target: target, LoopStart: loop, Counter: quarterCounter{}, Model: testModel}
	var s Strategy = NewKeyMessages(KeyMessageConfig{RecentMessages: r.Intn(15), Rounds: r.Intn(6)})
	v2 := c != nil && r.Intn(2) == 0
	if v2 {
		s = NewLLMSummary(llmSummarizer{c}, nil, 0)
	}
	out, err := s.Compress(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkCompression(t, msgs, loop, out, v2)
}

func TestPropertyCompression(t *testing.T) {
	srv, c := fakeServer(t)
	n := 0
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response {
		n++
		if n%5 == 0 {
			return fakellm.ServerError()
		}
		return fakellm.Text("Goals: keep going. Decisions: none.")
	})
	for seed := int64(1); seed <= 250; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runProperty(t, seed, c) })
	}
}

func FuzzCompress(f *testing.F) {
	for _, s := range []int64{1, 2, 3, 99} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed int64) { runProperty(t, seed, nil) })
}
