package fidelity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
	"crewagent/backend/tokens"
	"crewagent/backend/tools"
)

// Variants measured.
const (
	Default = "default" // the default settings: digest + lexical recall; the final message names nothing
	Named   = "named"   // the default settings; the final message names the topics of three facts
	Digest  = "digest"  // the digest alone (recall off)
	Hybrid  = "hybrid"  // digest + recall fused with embeddings
	Newest  = "newest"  // keep-newest truncation at the same budget
)

// Variants lists them in report order.
var Variants = []string{Default, Named, Digest, Hybrid, Newest}

// DefaultVariants are the variants measured unless asked otherwise.
var DefaultVariants = []string{Default, Named, Newest}

// Model is the model the benchmark's requests are for (o200k tokenizer).
const Model = "gpt-4o"

// Outcome is the measurement of one conversation at one budget.
type Outcome struct {
	Conversation string  `json:"conversation"`
	Lang         string  `json:"lang"`
	Kind         string  `json:"kind"`
	Variant      string  `json:"variant"`
	Ratio        float64 `json:"ratio"`
	// Limit is the request limit; History the tokens of the whole history.
	Limit   int `json:"limit"`
	History int `json:"history"`
	Facts   int `json:"facts"`
	Kept    int `json:"kept"`
	// ByKind is kept/total per fact kind, ByDepth per depth bucket.
	ByKind  map[string][2]int `json:"byKind"`
	ByDepth map[string][2]int `json:"byDepth"`
	// Knowledge updates: how many, how many with their newest value
	// present, how many with a stale value and no correction after it.
	Updates        int `json:"updates"`
	UpdatesNewest  int `json:"updatesNewest"`
	UpdatesStale   int `json:"updatesStale"`
	Turns          int `json:"turns"`
	Compactions    int `json:"compactions"`
	CompactedTurns int `json:"compactedTurns"`
	// CompactedAt are the turns that compacted; Thrash counts those that
	// compacted right after a turn that did.
	CompactedAt []int `json:"compactedAt,omitempty"`
	Thrash      int   `json:"thrash"`
	// Forced counts the compactions in consecutive turns that a single
	// turn forced: the request grew since the compaction before by more
	// tokens than the room between that compaction's landing target and the
	// trigger (a turn too large to fit twice), or the compaction before took
	// every message older than the turn in progress and still could not get
	// down to its target (that turn alone filled the room).
	Forced int `json:"forced"`
	// Prefix reuse between consecutive requests (see PrefixReuse): over all
	// pairs, and over the pairs with a compaction between them.
	Prefix     Reuse `json:"prefix"`
	PrefixComp Reuse `json:"prefixCompaction"`
	// Requests sent, valid under the OpenAI protocol, within the limit.
	Requests     int `json:"requests"`
	Valid        int `json:"valid"`
	WithinBudget int `json:"withinBudget"`
	MaxUsed      int `json:"maxUsed"`
	// NewestVerbatim: every request carried its turn's user message as is.
	NewestVerbatim bool `json:"newestVerbatim"`
	// Failures are turns that ended in an error (they count as failures of
	// budget adherence when the error is CONTEXT_STILL_TOO_LARGE).
	Failures []string `json:"failures,omitempty"`
	Missing  []string `json:"missing,omitempty"`
}

// Share is the share of facts kept.
func (o Outcome) Share() float64 {
	if o.Facts == 0 {
		return 0
	}
	return float64(o.Kept) / float64(o.Facts)
}

var counter = tokens.New()

// counts caches the benchmark's own counts of texts (requests repeat most of
// their messages from one call to the next).
var counts sync.Map

func count(text string) int {
	if len(text) < 64 {
		return counter.Count(Model, text)
	}
	if n, ok := counts.Load(text); ok {
		return n.(int)
	}
	n := counter.Count(Model, text)
	counts.Store(text, n)
	return n
}

// toolDefTokens counts a tool definition the way the engine does.
func toolDefTokens(d tools.ToolDef) int {
	return 8 + counter.Count(Model, d.Name) + counter.Count(Model, d.Description) + counter.Count(Model, string(d.Parameters))
}

type budgetKey struct {
	name string
}

var budgets sync.Map // conversation name -> [2]int{history, fixed}

// Budget returns the request limit at which the history of c is ratio times
// what fits, the history's tokens and the fixed part (system prompt, tools).
func Budget(c *Conversation, ratio float64) (limit, history, fixed int) {
	if v, ok := budgets.Load(budgetKey{c.Name}); ok {
		hf := v.([3]int)
		return hf[2] + hf[1] + int(float64(hf[0])/ratio), hf[0], hf[1]
	}
	host := defsHost()
	toolTokens := 0
	for _, d := range host.Tools() {
		toolTokens += toolDefTokens(d)
	}
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, ToolNames: host.ToolNames(), ToolTokens: toolTokens,
		ToolPolicy: contextbuilder.ToolPolicy{Enabled: host.ToolNames()}, Counter: counter, Model: Model})
	if err != nil {
		panic(err)
	}
	fixed = res.Debug.UsedTokens
	for _, m := range logMessages(c, len(c.Turns)-1) {
		history += counter.CountMessage(Model, &m)
	}
	final := 0
	for _, text := range []string{c.Final(), c.Named} {
		final = max(final, counter.CountMessage(Model, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(text)}))
	}
	budgets.Store(budgetKey{c.Name}, [3]int{history, fixed, final})
	limit = fixed + final + int(float64(history)/ratio)
	return limit, history, fixed
}

var (
	defsOnce sync.Once
	defs     *tools.Host
)

// defsHost is a tool host whose definitions the scripted host reuses.
func defsHost() *tools.Host {
	defsOnce.Do(func() {
		dir, _ := os.MkdirTemp("", "fidelity-defs")
		defs = tools.NewHost(tools.Config{Roots: tools.Roots{Project: dir}, Policy: tools.DefaultPolicy()})
	})
	return defs
}

// logMessages are the log entries of the first n turns, as the engine writes
// them (call ids as the scripted model gives them).
func logMessages(c *Conversation, n int) []conversation.Entry {
	var out []conversation.Entry
	for t := 0; t < n && t < len(c.Turns); t++ {
		turn := &c.Turns[t]
		out = append(out, conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(turn.User)})
		for s, st := range turn.Steps {
			if len(st.Calls) == 0 {
				out = append(out, conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(st.Text)})
				continue
			}
			a := conversation.Entry{Role: conversation.RoleAssistant}
			var results []conversation.Entry
			for k, cl := range st.Calls {
				id := callID(t, s, k)
				a.ToolCalls = append(a.ToolCalls, conversation.ToolCall{ID: id, Type: "function", Function: conversation.FunctionCall{Name: cl.Name, Arguments: cl.Args}})
				results = append(results, conversation.Entry{Role: conversation.RoleTool, ToolCallID: id, ToolName: cl.Name, Content: conversation.Str(cl.Output)})
			}
			out = append(out, a)
			out = append(out, results...)
		}
	}
	return out
}

func callID(turn, step, k int) string { return fmt.Sprintf("call_%d_%d_%d", turn, step, k) }

// Run drives conversation c through the engine at the budget where its
// history is ratio times what fits, with the settings of variant (Default,
// Digest or Hybrid), and measures the requests. dir is a scratch folder.
func Run(ctx context.Context, c *Conversation, ratio float64, variant, dir string) (Outcome, error) {
	limit, history, _ := Budget(c, ratio)
	out := Outcome{Conversation: c.Name, Lang: c.Lang, Kind: c.Kind, Variant: variant, Ratio: ratio, Limit: limit, History: history,
		ByKind: map[string][2]int{}, ByDepth: map[string][2]int{}, NewestVerbatim: true}
	if variant == Newest {
		keepNewest(c, limit, &out)
		return out, nil
	}
	cs, err := convlog.Open(filepath.Join(dir, "data"), convlog.Options{Counter: counter.ForModel(Model)})
	if err != nil {
		return out, err
	}
	defer cs.Close()
	store := &countingStore{Store: cs}
	st := settings.Defaults()
	st.LLM.BaseURL, st.LLM.Model = "http://127.0.0.1:1/v1", Model
	st.Context.TokenBudget, st.Context.ReserveForResponse = limit, 0
	switch variant {
	case Digest:
		st.Context.RecallShare = 0
	case Hybrid:
		st.LLM.EmbeddingsModel = "fake-embeddings"
	}
	model := &scripted{store: store}
	host := &scriptedHost{Host: defsHost()}
	var ids atomic.Int64
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	svc, err := engine.New(engine.Options{Store: store, Settings: engine.StaticSettings(st), Counter: counter, Emitter: store,
		NewID: func() string { return fmt.Sprintf("m%07d", ids.Add(1)) },
		Now:   func() time.Time { return clock.Add(time.Duration(ids.Load()) * time.Second) },
		LLM:   func(settings.LLM) engine.LLM { return model },
		Tools: func(engine.ToolScope) (engine.ToolHost, error) { return host, nil }})
	if err != nil {
		return out, err
	}
	toolTokens := 0
	for _, d := range host.Tools() {
		toolTokens += toolDefTokens(d)
	}
	convID := ""
	var prev []byte
	prevComp := int64(0)
	trigger := st.Context.TriggerThreshold
	if trigger <= 0 || trigger >= 1 {
		trigger = compression.DefaultTrigger
	}
	// the event data of the last compaction of the turn before, when it
	// compacted
	var lastTurn *conversation.CompactionData
	// whether every message before this turn's user message is compacted
	lastTookAll := false
	for t := range c.Turns {
		turn := &c.Turns[t]
		user := turn.User
		if t == len(c.Turns)-1 {
			user = c.FinalFor(variant)
		}
		model.start(t, turn)
		host.start(t, turn)
		before := store.count()
		persistedBefore := len(store.persisted())
		res, err := svc.SendText(ctx, convID, user)
		if err != nil {
			return out, fmt.Errorf("turn %d: %w", t, err)
		}
		convID = res.ConversationID
		if res.Err != nil {
			out.Failures = append(out.Failures, fmt.Sprintf("turn %d: %s", t, res.Err.Error()))
		}
		out.Turns++
		if n := store.count(); n > before {
			out.Compactions += int(n - before)
			out.CompactedAt = append(out.CompactedAt, t)
		}
		done := store.persisted()[persistedBefore:]
		if len(done) > 0 && lastTurn != nil && len(out.CompactedAt) > 1 && out.CompactedAt[len(out.CompactedAt)-2] == t-1 {
			// what the request grew by since the compaction before, against
			// the room that compaction left below the trigger
			if grown := done[0].TokensBefore - lastTurn.TokensAfter; grown > int(trigger*float64(limit))-lastTurn.Target || (lastTookAll && lastTurn.TokensAfter > lastTurn.Target) {
				out.Forced++
			}
		}
		lastTurn, lastTookAll = nil, false
		if len(done) > 0 {
			lastTurn = &done[len(done)-1]
			if lastTookAll, err = tookAll(store.Store, convID); err != nil {
				return out, fmt.Errorf("turn %d: %w", t, err)
			}
		}
		reqs, comps := model.take()
		for i, req := range reqs {
			cur := serialize(req)
			if prev != nil {
				share := PrefixReuse(prev, cur)
				out.Prefix.add(share)
				if comps[i] > prevComp {
					out.PrefixComp.add(share)
				}
			}
			prev, prevComp = cur, comps[i]
			out.Requests++
			if err := validate(req.Messages); err == nil {
				out.Valid++
			} else {
				out.Failures = append(out.Failures, fmt.Sprintf("turn %d: invalid request: %v", t, err))
			}
			used := requestTokens(req.Messages) + toolTokens
			out.MaxUsed = max(out.MaxUsed, used)
			if used <= limit {
				out.WithinBudget++
			} else {
				out.Failures = append(out.Failures, fmt.Sprintf("turn %d: request of %d tokens over the limit of %d", t, used, limit))
			}
			if lastUser(req.Messages) != user {
				out.NewestVerbatim = false
			}
			if t == len(c.Turns)-1 {
				countFacts(c, requestText(req.Messages), &out)
			}
		}
	}
	if out.Facts == 0 {
		countFacts(c, "", &out) // the last request was never sent
	}
	out.CompactedTurns, out.Thrash = len(out.CompactedAt), consecutive(out.CompactedAt)
	return out, nil
}

// consecutive counts the turns of an ascending list that follow the turn
// before them.
func consecutive(turns []int) int {
	n := 0
	for i := 1; i < len(turns); i++ {
		if turns[i] == turns[i-1]+1 {
			n++
		}
	}
	return n
}

// countFacts counts the facts of c present in text (once: the first request
// of the last turn). A fact is kept when all its needles are in text; a
// knowledge update when its newest value is and no stale value appears
// without the newest after it.
func countFacts(c *Conversation, text string, out *Outcome) {
	if out.Facts > 0 {
		return
	}
	for _, f := range c.Facts {
		kept := true
		for _, n := range f.Needles {
			if !strings.Contains(text, n) {
				kept = false
			}
		}
		why := ""
		if f.Kind == KindUpdate {
			out.Updates++
			if kept {
				out.UpdatesNewest++
			}
			if Stale(text, f) {
				out.UpdatesStale++
				kept, why = false, " (stale value without its correction)"
			}
		}
		k, d := out.ByKind[f.Kind], out.ByDepth[f.Bucket()]
		k[1]++
		d[1]++
		out.Facts++
		if kept {
			k[0]++
			d[0]++
			out.Kept++
		} else {
			out.Missing = append(out.Missing, fmt.Sprintf("%s at %.2f: %s%s", f.Kind, f.Depth, strings.Join(f.Needles, " + "), why))
		}
		out.ByKind[f.Kind], out.ByDepth[f.Bucket()] = k, d
	}
}

// Stale reports whether text carries a stale value of update f without its
// correction after it or beside it: the newest value is absent, or the last
// mention of a stale value comes more than correctionReach bytes after the
// last mention of the newest (a correction names the old value next to the
// new one, "the cap is 4120, not 3875").
func Stale(text string, f Fact) bool {
	last := -1
	for _, n := range f.Needles {
		if i := strings.LastIndex(text, n); i >= 0 {
			last = max(last, i+len(n))
		}
	}
	for _, s := range f.Stale {
		if i := strings.LastIndex(text, s); i >= 0 && (last < 0 || i > last+correctionReach) {
			return true
		}
	}
	return false
}

// correctionReach is how far after the newest value a mention of the old
// one still counts as part of the correction.
const correctionReach = 160

// Reuse aggregates prefix-reuse shares.
type Reuse struct {
	Pairs int     `json:"pairs"`
	Sum   float64 `json:"sum"`
	Min   float64 `json:"min"`
}

func (r *Reuse) add(share float64) {
	if r.Pairs == 0 || share < r.Min {
		r.Min = share
	}
	r.Pairs++
	r.Sum += share
}

func (r *Reuse) merge(o Reuse) {
	if o.Pairs == 0 {
		return
	}
	if r.Pairs == 0 || o.Min < r.Min {
		r.Min = o.Min
	}
	r.Pairs += o.Pairs
	r.Sum += o.Sum
}

// Mean is the mean share (0 without pairs).
func (r Reuse) Mean() float64 {
	if r.Pairs == 0 {
		return 0
	}
	return r.Sum / float64(r.Pairs)
}

// serialize is the part of a request a provider's prompt cache keys on: the
// tools and the messages, as JSON, in order.
func serialize(req llm.Request) []byte {
	b, err := json.Marshal(struct {
		Tools    []llm.Tool
		Messages []llm.Message
	}{req.Tools, req.Messages})
	if err != nil {
		panic(err) // plain values
	}
	return b
}

// PrefixReuse is the share of the bytes of cur equal to the longest common
// prefix with prev: what an automatic prefix cache can reuse of cur.
func PrefixReuse(prev, cur []byte) float64 {
	if len(cur) == 0 {
		return 1
	}
	n := min(len(prev), len(cur))
	i := 0
	for i < n {
		// compare in chunks, then byte by byte in the first differing one
		k := min(n, i+4096)
		if bytes.Equal(prev[i:k], cur[i:k]) {
			i = k
			continue
		}
		for i < k && prev[i] == cur[i] {
			i++
		}
		break
	}
	return float64(i) / float64(len(cur))
}

// countingStore is the conversation store of a run and the engine's event
// sink; it counts compactions: those the engine announces (the meter's
// "compressing" status) and those it persists, whichever is more (a
// compaction persisted later than it is done counts once, when done).
// tookAll reports whether every message of the conversation before its
// newest user message is compacted: a compaction then took all it could,
// and only the turn in progress (never compacted) is left besides the
// summary.
func tookAll(st *convlog.Store, convID string) (bool, error) {
	entries, err := st.Load(convID)
	if err != nil {
		return false, err
	}
	last := -1
	for i, e := range entries {
		if e.IsMessage() && e.Role == conversation.RoleUser {
			last = i
		}
	}
	for _, e := range entries[:max(last, 0)] {
		if e.IsMessage() && !e.Compacted && e.Role != conversation.RoleSystem {
			return false, nil
		}
	}
	return true, nil
}

type countingStore struct {
	*convlog.Store
	compactions atomic.Int64
	announced   atomic.Int64
	mu          sync.Mutex
	data        []conversation.CompactionData // of the compactions persisted
}

// persisted returns the event data of the compactions persisted so far.
func (s *countingStore) persisted() []conversation.CompactionData {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.data)
}

func (s *countingStore) count() int64 { return max(s.compactions.Load(), s.announced.Load()) }

// Emit implements events.Emitter.
func (s *countingStore) Emit(name string, payload any) {
	if u, ok := payload.(engine.UsageEvent); ok && name == events.ContextUsage && u.Status == compression.StatusCompressing {
		s.announced.Add(1)
	}
}

// Compact implements engine.Store.
func (s *countingStore) Compact(id string, w convlog.CompactionWrite) error {
	s.compactions.Add(1)
	err := s.Store.Compact(id, w)
	if err == nil && w.Event != nil {
		var d conversation.CompactionData
		if json.Unmarshal(w.Event.Data, &d) == nil {
			s.mu.Lock()
			s.data = append(s.data, d)
			s.mu.Unlock()
		}
	}
	return err
}

// Append implements engine.Store (a compaction event appended on its own
// counts too).
func (s *countingStore) Append(id string, entries ...*conversation.Entry) error {
	for _, e := range entries {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			s.compactions.Add(1)
		}
	}
	return s.Store.Append(id, entries...)
}

func requestText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Content != nil {
			b.WriteString(*m.Content)
			b.WriteByte('\n')
		}
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.Function.Arguments)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// requestTokens counts a request with the tokenizer, independently of the
// engine's bookkeeping: per message 4 + content + tool calls + ids + name,
// plus 3 for the reply.
func requestTokens(msgs []llm.Message) int {
	n := 3
	for _, m := range msgs {
		n += 4
		if m.Content != nil {
			n += count(*m.Content)
		}
		for _, tc := range m.ToolCalls {
			n += count(tc.Function.Name) + count(tc.Function.Arguments)
		}
		n += count(m.ToolCallID) + count(m.Name)
	}
	return n
}

func lastUser(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == conversation.RoleUser && msgs[i].Content != nil {
			return *msgs[i].Content
		}
	}
	return ""
}

// validate checks the OpenAI chat protocol rules, independently of the
// context builder: system messages first, every assistant tool call answered
// right after it by exactly one tool message, no other tool message, user,
// system and tool messages with content.
func validate(msgs []llm.Message) error {
	if len(msgs) == 0 || msgs[0].Role != conversation.RoleSystem {
		return errors.New("the request does not start with a system message")
	}
	prefix := true
	seen := map[string]bool{}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		text := ""
		if m.Content != nil {
			text = *m.Content
		}
		if m.Role != conversation.RoleSystem {
			prefix = false
		}
		switch m.Role {
		case conversation.RoleSystem:
			if !prefix || text == "" {
				return fmt.Errorf("message %d: misplaced or empty system message", i)
			}
		case conversation.RoleUser:
			if text == "" {
				return fmt.Errorf("message %d: empty user message", i)
			}
		case conversation.RoleTool:
			return fmt.Errorf("message %d: tool message without its call", i)
		case conversation.RoleAssistant:
			if m.Content == nil && len(m.ToolCalls) == 0 {
				return fmt.Errorf("message %d: empty assistant message", i)
			}
			want := map[string]bool{}
			for _, tc := range m.ToolCalls {
				if tc.ID == "" || seen[tc.ID] {
					return fmt.Errorf("message %d: missing or repeated call id %q", i, tc.ID)
				}
				seen[tc.ID], want[tc.ID] = true, true
			}
			for range m.ToolCalls {
				i++
				if i >= len(msgs) || msgs[i].Role != conversation.RoleTool || !want[msgs[i].ToolCallID] || msgs[i].Content == nil || *msgs[i].Content == "" {
					return fmt.Errorf("message %d: a tool call is not answered right after it", i)
				}
				delete(want, msgs[i].ToolCallID)
			}
		default:
			return fmt.Errorf("message %d: role %q", i, m.Role)
		}
	}
	return nil
}

// keepNewest measures keep-newest truncation: the final user message and the
// newest messages of the history that fit the limit (tool groups whole).
func keepNewest(c *Conversation, limit int, out *Outcome) {
	_, _, fixed := Budget(c, 1)
	hist := logMessages(c, len(c.Turns)-1)
	final := conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(c.Final())}
	room := limit - fixed - counter.CountMessage(Model, &final)
	var kept []conversation.Entry
	for i := len(hist); i > 0; {
		// a unit: an assistant with calls and its results, or one message
		j := i - 1
		for j > 0 && hist[j].Role == conversation.RoleTool {
			j--
		}
		n := 0
		for k := j; k < i; k++ {
			n += counter.CountMessage(Model, &hist[k])
		}
		if n > room {
			break
		}
		room -= n
		kept = append(append([]conversation.Entry(nil), hist[j:i]...), kept...)
		i = j
	}
	var b strings.Builder
	for _, e := range append(kept, final) {
		b.WriteString(e.Text() + "\n")
		for _, tc := range e.ToolCalls {
			b.WriteString(tc.Function.Arguments + "\n")
		}
	}
	countFacts(c, b.String(), out)
	out.Requests, out.Valid, out.WithinBudget = 1, 1, 1
}

// scripted is the model of a run: it answers each request with the next
// step of the current turn and records the requests.
type scripted struct {
	mu    sync.Mutex
	store *countingStore
	turn  int
	steps []Step
	next  int
	reqs  []llm.Request
	comps []int64 // compactions done when each request was sent (countingStore.count)
}

func (m *scripted) start(t int, turn *Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turn, m.steps, m.next = t, turn.Steps, 0
}

func (m *scripted) take() ([]llm.Request, []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out, comps := m.reqs, m.comps
	m.reqs, m.comps = nil, nil
	return out, comps
}

// Stream implements engine.LLM.
func (m *scripted) Stream(ctx context.Context, req llm.Request, h llm.Handler) (*llm.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	m.comps = append(m.comps, m.store.count())
	if m.next >= len(m.steps) {
		return &llm.Result{Content: "(no more scripted steps)", FinishReason: "stop"}, nil
	}
	st := m.steps[m.next]
	s := m.next
	m.next++
	res := &llm.Result{Content: st.Text, FinishReason: "stop"}
	for k, c := range st.Calls {
		res.ToolCalls = append(res.ToolCalls, conversation.ToolCall{ID: callID(m.turn, s, k), Type: "function", Function: conversation.FunctionCall{Name: c.Name, Arguments: c.Args}})
		res.FinishReason = "tool_calls"
	}
	return res, nil
}

// Complete implements engine.LLM (summaries; not used by these variants).
func (m *scripted) Complete(ctx context.Context, req llm.Request) (*llm.Result, error) {
	return nil, &llm.Error{Code: llm.CodeNotConfigured, Message: "no summary model in the benchmark"}
}

// Embed implements the engine's embeddings client with the fake server's
// deterministic model.
func (m *scripted) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakellm.Embedding(t)
	}
	return out, nil
}

// scriptedHost answers the calls of the current turn with their scripted
// outputs; its definitions are the real tool host's.
type scriptedHost struct {
	*tools.Host
	mu      sync.Mutex
	outputs []Call // of the current turn, in the order the calls run
}

func (h *scriptedHost) start(t int, turn *Turn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.outputs = nil
	for _, st := range turn.Steps {
		h.outputs = append(h.outputs, st.Calls...)
	}
}

// Call implements engine.ToolHost: the next scripted output (the engine runs
// the calls in order).
func (h *scriptedHost) Call(ctx context.Context, name, args string) tools.Result {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.outputs) == 0 || h.outputs[0].Name != name || h.outputs[0].Args != args {
		return tools.Result{OK: false, Content: `{"ok":false,"error":{"code":"E_UNKNOWN_CALL","message":"not scripted"}}`,
			Error: &tools.ToolError{Code: "E_UNKNOWN_CALL", Message: "not scripted"}}
	}
	out := h.outputs[0].Output
	h.outputs = h.outputs[1:]
	return tools.Result{OK: true, Content: out}
}
