package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
)

// randomConversation writes a random conversation to st: user messages (meta,
// empty, big, includeInContext false), answers, thinking parts, error parts
// (some with tool calls), historical system messages, tool groups with
// results that are immediate, delayed, missing, duplicated, failed or
// externalised (big), reused call ids, and compactions whose keptFrom is an
// older message, empty, missing (an event from another program), or an entry
// that does not exist. With summaries, each compaction is followed by a
// CONVERSATION_SUMMARY message, as the llm-summary strategy writes it.
func randomConversation(t testing.TB, r *rand.Rand, st *convlog.Store, steps int, summaries bool) string {
	t.Helper()
	meta, err := st.Create("", "")
	if err != nil {
		t.Fatal(err)
	}
	convID := meta.ID
	var (
		batch   []*convlog.Entry
		msgIDs  []string
		pending []string
		calls   int
	)
	text := func(words int) string {
		var b strings.Builder
		for i := 0; i < words; i++ {
			fmt.Fprintf(&b, "w%d ", r.Intn(500))
		}
		return b.String()
	}
	body := func() string {
		switch r.Intn(10) {
		case 0:
			return text(300 + r.Intn(1500)) // big
		case 1:
			return text(40 + r.Intn(200))
		default:
			return text(1 + r.Intn(12))
		}
	}
	add := func(e *convlog.Entry) {
		e.ID = fmt.Sprintf("e%05d", len(msgIDs))
		msgIDs = append(msgIDs, e.ID)
		batch = append(batch, e)
	}
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if err := st.Append(convID, batch...); err != nil {
			t.Fatal(err)
		}
		batch = nil
	}
	result := func(id string) *convlog.Entry {
		e := &convlog.Entry{Role: convlog.RoleTool, ToolCallID: id, ToolName: "fs.read", PartType: convlog.PartToolResult}
		switch r.Intn(12) {
		case 0, 1:
			e.Content = convlog.Str(`{"ok":false,"error":{"code":"ENOENT","message":"` + text(3) + `"}}`)
			e.IsError = true
		case 2:
			e.Content = convlog.Str(`{"ok":true,"content":"` + text(400+r.Intn(800)) + `"}`) // externalised
		default:
			e.Content = convlog.Str(`{"ok":true,"content":"` + text(1+r.Intn(30)) + `"}`)
		}
		return e
	}
	for i := 0; i < steps; i++ {
		switch k := r.Intn(80); {
		case k < 22:
			e := &convlog.Entry{Role: convlog.RoleUser, Content: convlog.Str(body()), IsMeta: r.Intn(12) == 0}
			switch r.Intn(25) {
			case 0:
				e.Content = convlog.Str(" ")
			case 1:
				e.IncludeInContext = convlog.Bool(false)
			}
			add(e)
		case k < 34:
			add(&convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(body()), PartType: convlog.PartContent})
		case k < 52:
			var tcs []convlog.ToolCall
			for j := 0; j <= r.Intn(3); j++ {
				calls++
				id := fmt.Sprintf("call_%d", calls)
				if r.Intn(8) == 0 {
					id = fmt.Sprintf("call_%d", j) // ids numbered per response, reused
				}
				tcs = append(tcs, convlog.ToolCall{ID: id, Type: "function", Function: convlog.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/` + text(1) + `"}`}})
				pending = append(pending, id)
			}
			e := &convlog.Entry{Role: convlog.RoleAssistant, ToolCalls: tcs, PartType: convlog.PartToolStart}
			if r.Intn(4) == 0 {
				e.Content = convlog.Str("Checking.")
			}
			add(e)
			for len(pending) > 0 && r.Intn(6) > 0 {
				add(result(pending[0]))
				if r.Intn(12) == 0 {
					add(result(pending[0])) // logged twice: the last one counts
				}
				pending = pending[1:]
			}
		case k < 58:
			if len(pending) > 0 { // a delayed result
				j := r.Intn(len(pending))
				add(result(pending[j]))
				pending = slices.Delete(pending, j, j+1)
			} else {
				add(result(fmt.Sprintf("orphan_%d", i)))
			}
		case k < 62:
			e := &convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(text(3) + "\n\nLLM_ERROR\n- code: LLM_TIMEOUT"), PartType: convlog.PartError}
			if r.Intn(3) == 0 {
				e.ToolCalls = []convlog.ToolCall{{ID: "call_err", Type: "function", Function: convlog.FunctionCall{Name: "fs.list", Arguments: "{}"}}}
			}
			add(e)
		case k < 66:
			add(&convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(body()), PartType: convlog.PartThinking, IncludeInContext: convlog.Bool(false)})
		case k < 68:
			add(&convlog.Entry{Role: convlog.RoleSystem, Content: convlog.Str("old system prompt " + text(2))})
		case k < 69:
			flush()
			if len(msgIDs) == 0 {
				continue
			}
			var ids []string
			for _, id := range msgIDs {
				if r.Intn(3) == 0 {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				ids = msgIDs[:1]
			}
			data := map[string]any{"strategy": "key-messages"}
			switch r.Intn(8) {
			case 0: // another program's event: no keptFrom
			case 1:
				data[keyKeptFrom] = ""
			case 2:
				data[keyKeptFrom] = "gone"
			default:
				data[keyKeptFrom] = msgIDs[r.Intn(len(msgIDs))]
			}
			if _, err := st.MarkCompacted(convID, ids, data); err != nil {
				t.Fatal(err)
			}
			if summaries {
				add(&convlog.Entry{Role: convlog.RoleSystem, Content: convlog.Str("CONVERSATION_SUMMARY\n" + text(20+r.Intn(60)))})
			}
		default:
			add(&convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(body()), PartType: convlog.PartContent})
		}
	}
	flush()
	return convID
}

// randomBuildOptions are the builder options of one request: mode, budget
// (limits off, small, default), tool tokens, results in or out.
func randomBuildOptions(r *rand.Rand) contextbuilder.Options {
	pick := func(vals ...int) int { return vals[r.Intn(len(vals))] }
	o := contextbuilder.Options{
		Mode:       []string{convlog.ModeChat, convlog.ModeAgent, convlog.ModeRun}[r.Intn(3)],
		ToolPolicy: contextbuilder.ToolPolicy{Enabled: []string{"fs.read", "fs.list"}},
		ToolTokens: pick(0, 150),
		Counter:    quarterCounter{},
		Model:      testModel,
		Budget: contextbuilder.Budget{
			TokenBudget:        pick(0, 600, 2000, 6000, 20000),
			ReserveForResponse: pick(0, 300),
			MaxMessages:        pick(0, -1, -1, 5, 20),
			MaxChars:           pick(0, -1, -1, 3000, 30000),
		},
		OmitToolResults: r.Intn(3) == 0,
	}
	if o.Mode != convlog.ModeChat {
		o.Agent = &contextbuilder.Persona{ID: "analyst", Name: "Mary"}
	}
	if o.Mode == convlog.ModeRun {
		o.Run = staticBlocks{"RUN_DIRECTIVE\n- intent: continue"}
	}
	return o
}

// quarterCounter estimates one token per 4 bytes: the property tests are
// about structure, not tokenizer speed.
type quarterCounter struct{}

func (quarterCounter) Count(_, text string) int { return (len(text) + 3) / 4 }

func (c quarterCounter) CountMessage(model string, e *convlog.Entry) int {
	n := contextbuilder.MessageOverhead + c.Count(model, e.Text()) + c.Count(model, e.ToolCallID) + c.Count(model, e.ToolName)
	for _, tc := range e.ToolCalls {
		n += c.Count(model, tc.Function.Name) + c.Count(model, tc.Function.Arguments)
	}
	return n
}

func (c quarterCounter) CountEntry(e *convlog.Entry) (int, string) {
	return c.CountMessage("", e), "quarter"
}

type staticBlocks []string

func (b staticBlocks) Blocks() []string { return b }

// tailBuild loads the history the way ChatService.build does with a check
// (first entries in the first window) and returns it with its build and
// whether the check ended the reading.
func tailBuild(t testing.TB, st Store, convID string, first int, o contextbuilder.Options) ([]convlog.Entry, *contextbuilder.Result, bool) {
	t.Helper()
	var last *contextbuilder.Result
	h, built, err := loadTail(st, convID, first, func(h []convlog.Entry) (bool, error) {
		oo := o
		oo.History = h
		res, err := contextbuilder.Build(oo)
		last = res
		if err != nil {
			return false, err
		}
		return res.DependsOnOlder, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if built {
		return h, last, true
	}
	o.History = h
	res, err := contextbuilder.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	return h, res, false
}

// sameBuild fails unless two builds send the same request with the same
// explanation (the accounting of entries only one of them read aside).
func sameBuild(t testing.TB, ref, got *contextbuilder.Result) {
	t.Helper()
	if !reflect.DeepEqual(ref.Messages, got.Messages) {
		t.Fatalf("requests differ:\nwhole: %s\ntail:  %s", outline(ref.Messages), outline(got.Messages))
	}
	a, b := ref.Debug, got.Debug
	if !reflect.DeepEqual(ref.ToolNames, got.ToolNames) || !reflect.DeepEqual(a.Rows, b.Rows) || !reflect.DeepEqual(a.Kept, b.Kept) ||
		!reflect.DeepEqual(a.Compressed, b.Compressed) || a.UsedTokens != b.UsedTokens || a.UsedChars != b.UsedChars ||
		a.TokenLimit != b.TokenLimit || a.OverBudget != b.OverBudget || !slices.Equal(a.Notes, b.Notes) {
		t.Fatalf("explanations differ:\nwhole: %+v\ntail:  %+v", a, b)
	}
}

func outline(msgs []contextbuilder.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "\n  %s %s %.30q", m.Role, m.SourceID, m.Text())
	}
	return b.String()
}

// keptFromOf is what persistCompaction records: the oldest log message of
// msgs, by position in history.
func keptFromOf(history []convlog.Entry, msgs []contextbuilder.Message) string {
	pos := make(map[string]int, len(history))
	for i := range history {
		pos[history[i].ID] = i
	}
	best, id := math.MaxInt, ""
	for _, m := range msgs {
		if p, ok := pos[m.SourceID]; ok && p < best {
			best, id = p, m.SourceID
		}
	}
	return id
}

// TestPropertyTailHistoryBuildsTheSameRequest: for random logs and options,
// the request built from the tail loadTail reads (starting with tiny windows
// so that every stop rule is exercised) equals the one built from the
// history loadSinceCompaction reads (the whole log when it never compacted),
// and so do the compression run on it, its record and its keptFrom.
func TestPropertyTailHistoryBuildsTheSameRequest(t *testing.T) {
	st, err := convlog.Open(filepath.Join(t.TempDir(), "p"), convlog.Options{Counter: quarterCounter{},
		LargeOutputThreshold: 2000, PreviewChars: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var stops, compactions, wholeLogs, compressed int
	for seed := int64(1); seed <= 25; seed++ {
		r := rand.New(rand.NewSource(seed))
		convID := randomConversation(t, r, st, 20+r.Intn(300), false)
		ref, err := loadSinceCompaction(st, convID)
		if err != nil {
			t.Fatal(err)
		}
		all, err := st.Load(convID)
		if err != nil {
			t.Fatal(err)
		}
		if at, ok := historyStart(all, true); !ok || !reflect.DeepEqual(deref(all[at:]), ref) {
			t.Fatalf("seed %d: historyStart disagrees with loadSinceCompaction", seed)
		}
		for try := 0; try < 5; try++ {
			o := randomBuildOptions(r)
			first := 1 + r.Intn(48)
			name := fmt.Sprintf("seed %d try %d (first window %d, budget %+v, omit %v)", seed, try, first, o.Budget, o.OmitToolResults)
			ro := o
			ro.History = ref
			want, err := contextbuilder.Build(ro)
			if err != nil {
				t.Fatal(err)
			}
			h, got, stopped := tailBuild(t, st, convID, first, o)
			switch {
			case stopped:
				stops++
			case len(ref) < len(all):
				compactions++
			default:
				wholeLogs++
			}
			t.Run(name, func(t *testing.T) { sameBuild(t, want, got) })
			if contextbuilder.Validate(got.Messages) != nil {
				t.Fatalf("%s: invalid request", name)
			}

			// Compression decides on the request alone; its record and the
			// keptFrom persisted with it must not depend on what was read.
			pipe := compression.NewPipeline(compression.Config{Budget: o.Budget.TokenLimit(), ToolTokens: o.ToolTokens,
				TriggerThreshold: 0.5, Target: 0.3, Counter: quarterCounter{}, Model: testModel})
			if !pipe.ShouldCompress(want.Messages) {
				continue
			}
			compressed++
			a, err := pipe.Compress(context.Background(), want.Messages, 0)
			if err != nil {
				t.Fatal(err)
			}
			b, err := pipe.Compress(context.Background(), got.Messages, 0)
			if err != nil {
				t.Fatal(err)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Fatalf("%s: compression differs:\n%s\n%s", name, ja, jb)
			}
			if x, y := keptFromOf(ref, a.Output.Messages), keptFromOf(h, b.Output.Messages); x != y {
				t.Fatalf("%s: keptFrom %q vs %q", name, x, y)
			}
		}
	}
	// The property says little unless every way of ending the reading is common.
	t.Logf("%d reads ended by the builder, %d at a compaction, %d whole logs; %d compressions", stops, compactions, wholeLogs, compressed)
	if stops < 30 || compactions < 10 || wholeLogs < 3 || compressed < 15 {
		t.Fatal("too few cases of a kind")
	}
}
