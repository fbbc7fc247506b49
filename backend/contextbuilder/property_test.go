package contextbuilder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

// randomLog returns a log with everything the builder must cope with: tool
// groups with missing, delayed, interleaved, duplicated and orphan results,
// duplicate and empty call ids, errors, meta and empty user messages, system,
// developer and summary messages, events, huge messages, includeInContext
// false and compacted entries. Stored token counts are a cheap estimate (the
// builder trusts stored counts), or 0 for small texts so they get counted.
func randomLog(r *rand.Rand, n int) []conversation.Entry {
	var out []conversation.Entry
	var pending []string // call ids without a result yet
	next := 0
	text := func() string {
		switch r.Intn(12) {
		case 0:
			return strings.Repeat("huge payload line with words ", 200+r.Intn(2000))
		case 1:
			return ""
		default:
			return fmt.Sprintf("text %d must read @project/f%d.md\n- point %d", r.Intn(1000), r.Intn(50), r.Intn(9))
		}
	}
	add := func(e conversation.Entry) {
		next++
		e.ID = fmt.Sprintf("x%05d", next)
		if e.Type == "" {
			e.Type = conversation.TypeMsg
		}
		if e.IsMessage() {
			size := len(e.Text())
			for _, tc := range e.ToolCalls {
				size += len(tc.Function.Arguments) + len(tc.Function.Name)
			}
			if size > 200 || r.Intn(4) > 0 {
				e.Tokens = MessageOverhead + size/4 + 1
			}
			switch r.Intn(25) {
			case 0:
				e.IncludeInContext = conversation.Bool(false)
			case 1:
				e.Compacted = true
			}
		}
		out = append(out, e)
	}
	callID := func() string {
		if r.Intn(15) == 0 {
			return fmt.Sprintf("c%d", r.Intn(next+1)) // may duplicate an earlier id
		}
		if r.Intn(30) == 0 {
			return ""
		}
		return fmt.Sprintf("call%d", next)
	}
	for i := 0; i < n; i++ {
		switch k := r.Intn(20); {
		case k < 5:
			c := text()
			e := conversation.Entry{Role: conversation.RoleUser, Content: &c, IsMeta: r.Intn(10) == 0}
			if r.Intn(20) == 0 {
				e.Content = nil
			}
			add(e)
		case k < 8:
			c := text()
			add(conversation.Entry{Role: conversation.RoleAssistant, Content: &c})
		case k < 12:
			var calls []conversation.ToolCall
			for j := 0; j <= r.Intn(3); j++ {
				id := callID()
				if r.Intn(2) == 0 {
					id = fmt.Sprintf("c%d-%d", next, j)
				}
				calls = append(calls, conversation.ToolCall{ID: id, Type: []string{"function", ""}[r.Intn(2)], Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/a.md"}`}})
				pending = append(pending, id)
			}
			e := conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: calls}
			if r.Intn(3) == 0 {
				e.Content = conversation.Str("Let me check.")
			}
			add(e)
			// Most results follow right away, some later, some never.
			for len(pending) > 0 && r.Intn(5) > 0 {
				id := pending[0]
				pending = pending[1:]
				c := text()
				e := conversation.Entry{Role: conversation.RoleTool, ToolCallID: id, ToolName: "fs.read", Content: &c}
				if r.Intn(8) == 0 {
					e.FullOutputPath = "@state/logs/tool-results/conv/" + id + ".json"
				}
				add(e)
				if r.Intn(10) == 0 {
					add(e) // duplicate result
				}
			}
		case k < 14:
			if len(pending) > 0 {
				j := r.Intn(len(pending))
				c := text()
				add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: pending[j], Content: &c})
				pending = append(pending[:j], pending[j+1:]...)
			} else {
				add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: fmt.Sprintf("orphan%d", i), Content: conversation.Str("{}")})
			}
		case k == 14:
			add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("partial\n\nLLM_ERROR\n- code: LLM_TIMEOUT"), PartType: conversation.PartError})
		case k == 15:
			roles := []string{conversation.RoleSystem, conversation.RoleDeveloper}
			c := []string{"old system prompt", "CONVERSATION_SUMMARY\nearlier", "SUMMARY " + text()}[r.Intn(3)]
			add(conversation.Entry{Role: roles[r.Intn(2)], Content: &c})
		case k == 16:
			add(conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventCompaction, Data: json.RawMessage(`{}`)})
		case k == 17:
			add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("thinking"), PartType: conversation.PartThinking})
		case k == 18:
			add(conversation.Entry{Role: []string{"function", "", conversation.RoleTool}[r.Intn(3)], Content: conversation.Str("odd")})
		default:
			add(conversation.Entry{Role: conversation.RoleAssistant})
		}
	}
	return out
}

func randomOptions(r *rand.Rand, h []conversation.Entry) Options {
	mode := []string{conversation.ModeChat, conversation.ModeAgent, conversation.ModeRun}[r.Intn(3)]
	o := opts(mode, h)
	o.Run = fakeRun{"RUN_DIRECTIVE\n- intent: continue", "NODE_BRIEF\n- currentNodeId: n1"}[:1+r.Intn(2)]
	o.ToolTokens = r.Intn(500)
	pick := func(vals ...int) int { return vals[r.Intn(len(vals))] }
	o.Budget = Budget{
		TokenBudget:        pick(0, 1500, 3000, 8000, 40000, 128000),
		ReserveForResponse: pick(0, 500, 1000),
		MaxMessages:        pick(0, -1, 6, 12, 30),
		MaxChars:           pick(0, -1, 4000, 20000),
	}
	o.OmitToolResults = r.Intn(3) == 0
	if r.Intn(2) == 0 {
		limit := o.Budget.TokenLimit()
		o.Refill = Refill{Limit: limit * pick(50, 80, 95, 100) / 100, Headroom: limit * pick(0, 10, 30) / 100, Turns: pick(0, 1, 3),
			MaxSummary: pick(0, 0, 200)}
	}
	return o
}

// newestUser is the anchor computed independently from the log.
func newestUser(h []conversation.Entry) string {
	meta := ""
	for i := len(h) - 1; i >= 0; i-- {
		e := &h[i]
		if !e.IsMessage() || e.Role != conversation.RoleUser || e.Compacted || !e.InContext() ||
			strings.TrimSpace(e.Text()) == "" || e.PartType == conversation.PartThinking || e.PartType == conversation.PartError {
			continue
		}
		if !e.IsMeta {
			return e.ID
		}
		if meta == "" {
			meta = e.ID
		}
	}
	return meta
}

// checkInvariants asserts everything Build promises for any log.
func checkInvariants(t *testing.T, o Options, res *Result) {
	t.Helper()
	msgs := res.Messages
	if err := Validate(msgs); err != nil {
		t.Fatalf("invalid request: %v\n%s", err, dump(msgs))
	}
	d := res.Debug
	if len(d.Rows) != len(msgs) {
		t.Fatalf("%d rows for %d messages", len(d.Rows), len(msgs))
	}
	if d.UsedTokens != TokensOf(msgs)+o.ToolTokens {
		t.Fatalf("used tokens %d != %d", d.UsedTokens, TokensOf(msgs)+o.ToolTokens)
	}
	byID := map[string]*conversation.Entry{}
	for i := range o.History {
		byID[o.History[i].ID] = &o.History[i]
	}
	seen := map[string]bool{}
	sawHistory := false
	anchor := newestUser(o.History)
	anchorAt := -1
	for i, m := range msgs {
		if m.SourceID == "" {
			continue
		}
		if seen[m.SourceID] {
			t.Fatalf("entry %s twice", m.SourceID)
		}
		seen[m.SourceID] = true
		e := byID[m.SourceID]
		refilled := e != nil && e.Compacted && d.Rows[i].Reason == ReasonRefill
		if e == nil || !e.IsMessage() || e.Compacted && !refilled || !e.InContext() || e.PartType == conversation.PartThinking {
			t.Fatalf("message %d from excluded entry %+v", i, e)
		}
		if refilled {
			// sent word for word again: with the refill on, before the
			// uncompacted history, never a summary, a meta message or a record
			if o.Refill.Limit <= 0 || e.Role == conversation.RoleSystem || e.IsMeta || sawHistory {
				t.Fatalf("compacted message %d sent again: %+v\n%s", i, e, dump(msgs))
			}
		} else if m.Kind == KindHistory {
			sawHistory = true
		}
		if m.Role == conversation.RoleSystem && (!IsSummary(m.Text()) || m.Kind != KindSummary) {
			t.Fatalf("historical system message %s replayed", m.SourceID)
		}
		if m.SourceID == anchor {
			anchorAt = i
		}
	}
	if anchor != "" && anchorAt < 0 {
		t.Fatalf("newest user message %s missing\n%s", anchor, dump(msgs))
	}
	// Run blocks sit right before the newest user message, or at the end.
	if o.Mode == conversation.ModeRun {
		blocks := len(o.Run.Blocks())
		at := len(msgs) - blocks
		if anchorAt >= 0 {
			at = anchorAt - blocks
		}
		for j := 0; j < blocks; j++ {
			if msgs[at+j].Kind != KindInjection || msgs[at+j].Role != conversation.RoleUser {
				t.Fatalf("injection %d not at %d\n%s", j, at+j, dump(msgs))
			}
		}
	}
	// Every message entry is accounted for.
	pos := map[string]int{}
	for i, e := range o.History {
		pos[e.ID] = i
	}
	accounted := map[string]bool{}
	dropped := 0
	for _, x := range d.Kept {
		accounted[x.SourceID] = true
	}
	for _, x := range d.Dropped {
		accounted[x.SourceID] = true
		if x.ThroughID == "" {
			dropped++
			continue
		}
		n := 0
		for i := pos[x.SourceID]; i <= pos[x.ThroughID]; i++ {
			if e := &o.History[i]; !e.IsEvent() {
				accounted[e.ID] = true
				n++
			}
		}
		if n != x.Count {
			t.Fatalf("decision %+v covers %d entries", x, n)
		}
		dropped += n
	}
	if dropped != d.Counts.Dropped {
		t.Fatalf("dropped count %d, rows cover %d", d.Counts.Dropped, dropped)
	}
	for _, e := range o.History {
		if e.IsMessage() && !accounted[e.ID] {
			t.Fatalf("entry %s neither kept nor dropped", e.ID)
		}
	}
	// Budget: only the token limit bounds a request.
	over := d.UsedTokens > d.TokenLimit
	if !d.OverBudget {
		if over {
			t.Fatalf("over budget without flag: used %d/%d tokens", d.UsedTokens, d.TokenLimit)
		}
		return
	}
	// Flagged: the parts never left out (system prompt, run blocks, the
	// newest user message and the current turn) alone exceed the limit.
	fixed := ReplyPriming + o.ToolTokens
	for i := range msgs {
		if msgs[i].Kind == KindSystem || msgs[i].Kind == KindInjection || (anchorAt >= 0 && i >= anchorAt) {
			fixed += msgs[i].Tokens
		}
	}
	if fixed <= d.TokenLimit {
		t.Fatalf("flagged over budget but the fixed part fits: %d of %d\n%s", fixed, d.TokenLimit, dump(msgs))
	}
}

func TestPropertyRandomLogs(t *testing.T) {
	for seed := int64(1); seed <= 400; seed++ {
		r := rand.New(rand.NewSource(seed))
		h := randomLog(r, 1+r.Intn(120))
		o := randomOptions(r, h)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			res, err := Build(o)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, o, res)
		})
	}
}

func FuzzBuild(f *testing.F) {
	for _, s := range []int64{1, 7, 42, 1234} {
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, seed int64, n uint8) {
		r := rand.New(rand.NewSource(seed))
		h := randomLog(r, int(n))
		o := randomOptions(r, h)
		res, err := Build(o)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, o, res)
	})
}

// quarterCounter estimates one token per 4 bytes.
type quarterCounter struct{}

func (quarterCounter) Count(_, text string) int { return (len(text) + 3) / 4 }

// FuzzBuildJSONL feeds arbitrary log lines (as a store would decode them from
// disk) to Build.
func FuzzBuildJSONL(f *testing.F) {
	for _, name := range []string{"conversation.jsonl", "run.jsonl", "summary.jsonl"} {
		b, err := readFixture(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte(`{"type":"msg","id":"a","role":"assistant","tool_calls":[{"id":"x"},{"id":"x"}]}
{"type":"msg","id":"b","role":"tool","tool_call_id":"x","content":"1"}
{"type":"msg","id":"b","role":"tool","tool_call_id":"x","content":"2"}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		var h []conversation.Entry
		for _, line := range bytes.Split(data, []byte("\n")) {
			var e conversation.Entry
			if json.Unmarshal(line, &e) == nil {
				h = append(h, e)
			}
		}
		r := rand.New(rand.NewSource(int64(sel)))
		o := randomOptions(r, h)
		o.Counter = quarterCounter{} // structure is under test here, not tokenizer speed
		res, err := Build(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(res.Messages); err != nil {
			t.Fatalf("invalid request: %v\n%s", err, dump(res.Messages))
		}
	})
}
