package compression

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
)

// KeyMessageConfig tunes KeyMessages. Zero fields take the defaults.
type KeyMessageConfig struct {
	// RecentMessages is N: the newest N history messages before the current
	// loop are mandatory (default 10).
	RecentMessages int
	// Rounds is K of the last fallback: keep only the last K rounds (default 4).
	Rounds int
	// Keywords raise a message's score (default must, should, need, 必须, 需要).
	Keywords []string
	// RecordMarkers make a message an artifact/completion record, which is
	// mandatory (default ARTIFACT_SAVED, NODE_COMPLETE).
	RecordMarkers []string
	// PreviewHead and PreviewTail are the characters a tool preview keeps from
	// the start and the end of the result (defaults 400 and 200).
	PreviewHead, PreviewTail int
	// PreviewMinChars: tool results longer than this become previews in the
	// first fallback step (default 1000).
	PreviewMinChars int
	// TruncateMinChars: user and assistant texts longer than this are cut in
	// the second fallback step (default 1200).
	TruncateMinChars int
	// ScanBytes is how much of each message the scorer inspects (default 2048).
	ScanBytes int
}

func (c KeyMessageConfig) withDefaults() KeyMessageConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.RecentMessages, 10)
	def(&c.Rounds, 4)
	def(&c.PreviewHead, 400)
	def(&c.PreviewTail, 200)
	def(&c.PreviewMinChars, 1000)
	def(&c.TruncateMinChars, 1200)
	def(&c.ScanBytes, 2048)
	if c.Keywords == nil {
		c.Keywords = []string{"must", "should", "need", "必须", "需要"}
	}
	if c.RecordMarkers == nil {
		c.RecordMarkers = []string{"ARTIFACT_SAVED", "NODE_COMPLETE"}
	}
	return c
}

// KeyMessages is the v1 strategy: key-message extraction without an LLM.
//
//  1. Mark what must stay. Never dropped or changed ("hard"): the system prompt
//     and summary-class system messages, run blocks, the latest user message
//     and the current tool loop. Mandatory while the budget allows: the newest
//     N history messages and artifact/completion records.
//  2. Score every other unit (explainable, see Breakdown): keywords, file
//     paths, code blocks, numbers, recency decay, a penalty for big tool
//     results.
//  3. Greedy fill within the target: user messages newest first, then the
//     other units by score (ties: newer first). Tool groups stay whole.
//  4. When the mandatory set alone exceeds the target, fall back step by
//     step, each step applied to everything kept outside the hard set:
//     (1) tool results become previews, (2) long user/assistant texts are cut
//     to first paragraph + bullet lines + conclusion, (3) only the last K
//     rounds are kept (K = 4, then fewer), a round being a user message and
//     everything up to the next one. What remains is the hard set, which is
//     returned with OverTarget when it alone exceeds the target.
//
// So the output is always within the target unless the hard set alone is not.
type KeyMessages struct {
	cfg KeyMessageConfig
	sc  scorer
}

// NewKeyMessages returns the v1 strategy.
func NewKeyMessages(cfg KeyMessageConfig) *KeyMessages {
	cfg = cfg.withDefaults()
	return &KeyMessages{cfg: cfg, sc: newScorer(cfg.Keywords, cfg.ScanBytes)}
}

// Name implements Strategy.
func (k *KeyMessages) Name() string { return NameKeyMessages }

type tier uint8

const (
	tierScored tier = iota
	tierUser
	tierMandatory
	tierHard
)

// kunit is a unit of the input: msgs[first:end].
type kunit struct {
	first, end int
	tier       tier
	why        string
	tokens     [3]int // per level; -1 until computed (level 0 is the stored sum)
	estimate   [3]int // per level, from stored counts; -1 until computed
	breakdown  Breakdown
	score      float64
	rank       int // position in the score order (1 = best), 0 when not ranked
	toolTokens int
}

// variant caches the rewritten content of one message.
type variant struct {
	text   *string // nil: unchanged at this level
	tokens int
	done   bool
}

type kstate struct {
	k      *KeyMessages
	in     *Input
	msgs   []Message
	units  []kunit
	loop   int
	latest int          // index of the latest user message, -1
	vars   [3][]variant // per level 1 and 2 (index 0 unused)
}

// Compress implements Strategy.
func (k *KeyMessages) Compress(ctx context.Context, in Input) (*Output, error) {
	if in.Counter == nil {
		return nil, ErrNoCounter
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st := &kstate{k: k, in: &in, msgs: in.Messages, loop: in.loopStart()}
	st.group()
	before := contextbuilder.TokensOf(in.Messages)
	out := &Output{Strategy: k.Name(), TokensBefore: before, Target: in.Target}

	keep := make([]bool, len(st.units))
	reasons := make([]string, len(st.units))
	if before <= in.Target {
		for i := range keep {
			keep[i], reasons[i] = true, "kept: already within the target"
		}
		out.Notes = append(out.Notes, "already within the target; nothing compressed")
		return st.output(out, keep, reasons, 0), nil
	}
	st.score()
	steps := []string{
		"1: tool results replaced by previews",
		"2: long user/assistant texts truncated",
	}
	for level := 0; level <= 2; level++ {
		if level > 0 {
			out.Steps = append(out.Steps, steps[level-1])
		}
		if st.fill(level, keep, reasons) {
			return st.output(out, keep, reasons, level), nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	for rounds := k.cfg.Rounds; rounds >= 0; rounds-- {
		if st.lastRounds(rounds, keep, reasons) {
			if rounds == 0 {
				out.Steps = append(out.Steps, "minimal: only the messages that are never dropped")
			} else {
				out.Steps = append(out.Steps, fmt.Sprintf("3: only the last %d rounds kept", rounds))
			}
			return st.output(out, keep, reasons, 2), nil
		}
	}
	// Even the hard set alone exceeds the target: return it as it is.
	for i := range st.units {
		keep[i] = st.units[i].tier == tierHard
		reasons[i] = "dropped: the messages that are never dropped exceed the target"
		if keep[i] {
			reasons[i] = "kept: " + st.units[i].why + " (never dropped)"
		}
	}
	out.Steps = append(out.Steps, "minimal: only the messages that are never dropped")
	out.OverTarget = true
	out.Notes = append(out.Notes, "the system prompt, run blocks, latest user message and current tool loop alone exceed the target")
	return st.output(out, keep, reasons, 2), nil
}

// group splits the input into units and marks their tiers.
func (st *kstate) group() {
	msgs := st.msgs
	st.latest = -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == convlog.RoleUser && msgs[i].Kind != contextbuilder.KindInjection {
			st.latest = i
			break
		}
	}
	// The newest N history messages before the loop.
	recentFrom := 0
	for i, n := st.loop-1, 0; i >= 0; i-- {
		if m := &msgs[i]; m.Role != convlog.RoleSystem && m.Kind != contextbuilder.KindInjection && m.Kind != contextbuilder.KindSystem {
			n++
			if n == st.k.cfg.RecentMessages {
				recentFrom = i
				break
			}
		}
	}
	st.units = make([]kunit, 0, len(msgs)/2+1)
	for i := 0; i < len(msgs); {
		end := i + 1
		if m := &msgs[i]; m.Role == convlog.RoleAssistant && len(m.ToolCalls) > 0 {
			for end < len(msgs) && msgs[end].Role == convlog.RoleTool && hasCall(m.ToolCalls, msgs[end].ToolCallID) {
				end++
			}
		}
		u := kunit{first: i, end: end, tokens: [3]int{0, -1, -1}, estimate: [3]int{0, -1, -1}}
		for j := i; j < end; j++ {
			m := &msgs[j]
			u.tokens[0] += m.Tokens
			if m.Role == convlog.RoleTool {
				u.toolTokens += m.Tokens
			}
			if t, why := st.tierOf(j, recentFrom); u.why == "" || t > u.tier {
				u.tier, u.why = t, why
			}
		}
		u.estimate[0] = u.tokens[0]
		st.units = append(st.units, u)
		i = end
	}
}

func hasCall(calls []convlog.ToolCall, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// tierOf classifies message i.
func (st *kstate) tierOf(i, recentFrom int) (tier, string) {
	m := &st.msgs[i]
	switch {
	case m.Kind == contextbuilder.KindSystem:
		return tierHard, "system prompt"
	case m.Role == convlog.RoleSystem:
		return tierHard, "summary-class system message"
	case m.Kind == contextbuilder.KindInjection:
		return tierHard, "run block"
	case i == st.latest:
		return tierHard, "latest user message"
	case i >= st.loop:
		return tierHard, "current tool loop"
	}
	text := m.Text()
	for _, mk := range st.k.cfg.RecordMarkers {
		if strings.Contains(text, mk) {
			return tierMandatory, "artifact/completion record (" + mk + ")"
		}
	}
	if i >= recentFrom {
		return tierMandatory, fmt.Sprintf("recent message (newest %d)", st.k.cfg.RecentMessages)
	}
	if m.Role == convlog.RoleUser {
		return tierUser, "user message"
	}
	return tierScored, "scored"
}

// score fills the breakdown of every unit that is not mandatory.
func (st *kstate) score() {
	for ui := range st.units {
		u := &st.units[ui]
		if u.tier >= tierMandatory {
			continue
		}
		var matched uint64
		var path, code, nums bool
		for j := u.first; j < u.end; j++ {
			m := &st.msgs[j]
			p, c, n := st.k.sc.features(m.Text(), &matched)
			path, code, nums = path || p, code || c, nums || n
			for _, tc := range m.ToolCalls {
				p, c, n = st.k.sc.features(tc.Function.Arguments, &matched)
				path, code, nums = path || p, code || c, nums || n
			}
		}
		b := Breakdown{Recency: recency(len(st.units) - 1 - ui), LargeTool: largeToolPenalty(u.toolTokens)}
		if matched != 0 {
			b.Keywords = weightKeyword
			var names []string
			for i, kw := range st.k.sc.keywords {
				if matched&(1<<i) != 0 {
					names = append(names, kw)
				}
			}
			b.Matched = strings.Join(names, ",")
		}
		if path {
			b.FilePath = weightFilePath
		}
		if code {
			b.CodeBlock = weightCodeBlock
		}
		if nums {
			b.Numbers = weightNumbers
		}
		u.breakdown, u.score = b, b.Total()
	}
}

// rewrite returns the content of message i at level (nil: unchanged) and its
// tokens. Messages of hard units are never rewritten.
func (st *kstate) rewrite(i, level int) (*string, int) {
	m := &st.msgs[i]
	if level == 0 {
		return nil, m.Tokens
	}
	if st.vars[level] == nil {
		st.vars[level] = make([]variant, len(st.msgs))
	}
	v := &st.vars[level][i]
	if v.done {
		return v.text, v.tokens
	}
	v.done, v.tokens = true, m.Tokens
	cfg := &st.k.cfg
	switch {
	case m.Role == convlog.RoleTool:
		if p, ok := previewTool(m.Name, m.Text(), cfg.PreviewHead, cfg.PreviewTail, cfg.PreviewMinChars); ok {
			v.text = &p
		}
	case level >= 2 && (m.Role == convlog.RoleUser || m.Role == convlog.RoleAssistant) && m.Content != nil:
		if t, ok := truncateText(m.Text(), cfg.TruncateMinChars); ok {
			v.text = &t
		}
	}
	if v.text != nil {
		r := *m
		r.Content = v.text
		v.tokens = count(st.in, &r)
		if v.tokens >= m.Tokens { // not worth it
			v.text, v.tokens = nil, m.Tokens
		}
	}
	return v.text, v.tokens
}

// estimateAt returns an estimate of unit u's tokens at level from stored
// counts: a rewritten message is assumed to cost its stored tokens scaled by
// the length ratio, plus a little for the preview header.
func (st *kstate) estimateAt(u *kunit, level int) int {
	if u.estimate[level] >= 0 {
		return u.estimate[level]
	}
	cfg := &st.k.cfg
	n := 0
	for j := u.first; j < u.end; j++ {
		m := &st.msgs[j]
		chars := utf8.RuneCountInString(m.Text())
		keep := chars
		switch {
		case m.Role == convlog.RoleTool && chars > cfg.PreviewMinChars && chars > cfg.PreviewHead+cfg.PreviewTail+200:
			keep = cfg.PreviewHead + cfg.PreviewTail + 120
		case level >= 2 && m.Role != convlog.RoleTool && chars > cfg.TruncateMinChars:
			keep = min(chars, 1400)
		}
		if keep == chars || chars == 0 {
			n += m.Tokens
		} else {
			n += m.Tokens*keep/chars + 24
		}
	}
	u.estimate[level] = n
	return n
}

// tokensAt returns the exact tokens of unit u at level.
func (st *kstate) tokensAt(u *kunit, level int) int {
	if u.tier == tierHard {
		return u.tokens[0]
	}
	if u.tokens[level] < 0 {
		n := 0
		for j := u.first; j < u.end; j++ {
			_, t := st.rewrite(j, level)
			n += t
		}
		u.tokens[level] = n
	}
	return u.tokens[level]
}

// fill tries to keep every mandatory unit at level and fills the rest of the
// target greedily. It reports false when the mandatory units do not fit.
func (st *kstate) fill(level int, keep []bool, reasons []string) bool {
	used := contextbuilder.ReplyPriming
	for i := range st.units {
		if st.units[i].tier >= tierMandatory {
			used += st.tokensAt(&st.units[i], level)
		}
	}
	if used > st.in.Target {
		return false
	}
	for i := range st.units {
		u := &st.units[i]
		keep[i] = u.tier >= tierMandatory
		switch u.tier {
		case tierHard:
			reasons[i] = "kept: " + u.why + " (never dropped)"
		case tierMandatory:
			reasons[i] = "kept: mandatory, " + u.why
		}
	}
	try := func(i int) bool {
		u := &st.units[i]
		if rem := st.in.Target - used; st.estimateAt(u, level) > rem+rem/4 && st.estimateAt(u, level) > 0 {
			return false
		}
		t := st.tokensAt(u, level)
		if used+t > st.in.Target {
			return false
		}
		used += t
		keep[i] = true
		return true
	}
	for i := len(st.units) - 1; i >= 0; i-- {
		if st.units[i].tier != tierUser {
			continue
		}
		if try(i) {
			reasons[i] = "kept: user message (the budget allows)"
		} else {
			reasons[i] = "dropped: user message (no room left)"
		}
	}
	order := make([]int, 0, len(st.units))
	for i := range st.units {
		if st.units[i].tier == tierScored {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(st.units[b].score, st.units[a].score); c != 0 {
			return c
		}
		return cmp.Compare(b, a) // newer first
	})
	for rank, i := range order {
		st.units[i].rank = rank + 1
		if try(i) {
			reasons[i] = "kept: selected by score"
		} else {
			reasons[i] = "dropped: score too low for the remaining budget"
		}
	}
	return true
}

// lastRounds keeps the hard units and every unit of the last `rounds` rounds
// (at level 2), reporting whether that fits the target.
func (st *kstate) lastRounds(rounds int, keep []bool, reasons []string) bool {
	// from is the first unit of the rounds kept.
	from := len(st.units)
	if rounds > 0 {
		seen := 0
		for i := len(st.units) - 1; i >= 0; i-- {
			m := &st.msgs[st.units[i].first]
			if m.Role == convlog.RoleUser && m.Kind != contextbuilder.KindInjection {
				seen++
				if seen == rounds {
					from = i
					break
				}
			}
		}
		if seen < rounds {
			from = 0
		}
	}
	used := contextbuilder.ReplyPriming
	for i := range st.units {
		u := &st.units[i]
		if u.tier == tierHard || i >= from {
			used += st.tokensAt(u, 2)
			if used > st.in.Target {
				return false
			}
		}
	}
	within := fmt.Sprintf("kept: within the last %d rounds", rounds)
	outside := fmt.Sprintf("dropped: outside the last %d rounds", rounds)
	for i := range st.units {
		u := &st.units[i]
		keep[i] = u.tier == tierHard || i >= from
		switch {
		case u.tier == tierHard:
			reasons[i] = "kept: " + u.why + " (never dropped)"
		case keep[i]:
			reasons[i] = within
		default:
			reasons[i] = outside
		}
	}
	return true
}

// output writes the kept units at level into out.
func (st *kstate) output(out *Output, keep []bool, reasons []string, level int) *Output {
	out.Messages = make([]Message, 0, len(st.msgs))
	out.LoopStart = -1
	out.Explanation = make([]Explanation, 0, len(st.units))
	out.Dropped = []string{}
	out.Truncated = []string{}
	for i := range st.units {
		u := &st.units[i]
		ex := Explanation{Index: u.first, Count: u.end - u.first, SourceID: st.msgs[u.first].SourceID, Role: st.msgs[u.first].Role,
			Tokens: u.tokens[0], Reason: reasons[i], Score: u.score, Rank: u.rank, Breakdown: u.breakdown, Decision: "dropped"}
		if !keep[i] {
			out.Dropped = append(out.Dropped, sourceIDs(st.msgs[u.first:u.end])...)
			out.Explanation = append(out.Explanation, ex)
			continue
		}
		ex.Decision = "kept"
		var previewed, cut int
		for j := u.first; j < u.end; j++ {
			m := st.msgs[j]
			if j == st.loop {
				out.LoopStart = len(out.Messages)
			}
			if u.tier != tierHard {
				if text, tokens := st.rewrite(j, level); text != nil {
					m.Content, m.Tokens = text, tokens
					if m.Role == convlog.RoleTool {
						previewed++
					} else {
						cut++
					}
					if m.SourceID != "" {
						out.Truncated = append(out.Truncated, m.SourceID)
					}
				}
			}
			ex.TokensAfter += m.Tokens
			out.Messages = append(out.Messages, m)
		}
		if previewed > 0 {
			ex.Reason += fmt.Sprintf("; %d tool result(s) previewed", previewed)
		}
		if cut > 0 {
			ex.Reason += "; text truncated"
		}
		out.Explanation = append(out.Explanation, ex)
	}
	if out.LoopStart < 0 {
		out.LoopStart = len(out.Messages)
	}
	out.TokensAfter = contextbuilder.TokensOf(out.Messages)
	return out
}
