package compression

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// Strategy names (the values of settings context.compressionStrategy).
const (
	NameKeyMessages = "key-messages"
	NameLLMSummary  = "llm-summary"
)

// Defaults of Config.
const (
	DefaultTrigger      = 0.95
	DefaultTarget       = 0.6
	DefaultSummaryShare = 0.5
	// MaxSummaryTokens caps the summary whatever the window.
	MaxSummaryTokens = 16000
)

// Config is what a compaction works with.
type Config struct {
	// Limit is what a request may use in tokens (window minus reply reserve).
	Limit int
	// Trigger is a share of Limit (0.95); Target a share of the room the
	// request's fixed part leaves (0.6), which landing lowers when the recent
	// turns are large.
	Trigger, Target float64
	// MaxMessages and MaxChars are further triggers (0: off): a request with
	// more messages or characters is compacted to Target of them.
	MaxMessages, MaxChars int
	// SummaryShare is the share of the room the request's fixed part leaves
	// (system prompt, tool definitions, instructions) that the summary may
	// take (0.5, at most
	// MaxSummaryTokens).
	SummaryShare float64
	// Strategy is NameKeyMessages (default) or NameLLMSummary.
	Strategy string
	// Summarizer writes LLM summaries (llm-summary; nil: the digest).
	Summarizer Summarizer
	// Focus steers what the summary keeps (a manual compaction's --focus).
	Focus   string
	Counter contextbuilder.Counter
	Model   string
	// Earlier loads the messages compacted before this compaction (the log's
	// messages marked compacted), in log order: when the summary must be
	// consolidated, the digest is written again from them and the messages
	// compacted now, ranked together, instead of from the summary's text.
	// Nil, an error or more than MaxRebuild messages: the summary's lines
	// are merged with the new ones.
	Earlier func() ([]conversation.Entry, error)
}

// MaxRebuild is the most messages a consolidated digest is written again
// from (Config.Earlier); a longer conversation merges the summary's lines,
// whose cost does not grow with the log.
const MaxRebuild = 20000

func (c Config) withDefaults() Config {
	if c.Trigger <= 0 || c.Trigger >= 1 {
		c.Trigger = DefaultTrigger
	}
	if c.Target <= 0 || c.Target >= 1 {
		c.Target = DefaultTarget
	}
	if c.Target >= c.Trigger {
		c.Target = c.Trigger * 5 / 8
	}
	if c.SummaryShare <= 0 || c.SummaryShare >= 1 {
		c.SummaryShare = DefaultSummaryShare
	}
	if c.Strategy == "" {
		c.Strategy = NameKeyMessages
	}
	return c
}

// SummaryBudget is the most a summary message may cost.
func (c Config) SummaryBudget() int {
	c = c.withDefaults()
	return max(64, min(MaxSummaryTokens, int(c.SummaryShare*float64(c.Limit))))
}

// RefillHeadroom is the least share of the limit left free when the
// compacted messages sent word for word are chosen again
// (contextbuilder.Refill), and RefillTurns how many of the largest recent
// turns that room must hold: they change about once in that many turns.
// With a summary larger than RefillMaxSummary of the limit, the history is
// many times what fits: nothing is chosen again once the messages sent no
// longer fit (they would not stay for long, and each change costs the
// prompt cache what follows the summary).
const (
	RefillHeadroom   = 0.15
	RefillTurns      = 3
	RefillMaxSummary = 0.2
)

// Refill is how a request built under c is filled with compacted messages
// sent word for word: up to the trigger (a request the compaction left
// below it has room for them; the recall block fits after), the same ones
// as the request before (from) while they fit.
func (c Config) Refill(from string) contextbuilder.Refill {
	c = c.withDefaults()
	return contextbuilder.Refill{Limit: int(c.Trigger * float64(c.Limit)), Headroom: int(RefillHeadroom * float64(c.Limit)), Turns: RefillTurns, From: from,
		MaxSummary: int(RefillMaxSummary * float64(c.Limit))}
}

// Over returns why the request built as res needs a compaction ("" when it
// does not): tokens over the trigger (without recall, every unit whole), or
// more messages or characters than a cap allows.
func Over(res *contextbuilder.Result, c Config) string {
	c = c.withDefaults()
	d := &res.Debug
	switch {
	case float64(d.FullTokens) > c.Trigger*float64(c.Limit):
		return fmt.Sprintf("the request needs %d tokens, over %.0f%% of the limit of %d", d.FullTokens, c.Trigger*100, c.Limit)
	case c.MaxMessages > 0 && d.FullMessages > c.MaxMessages:
		return fmt.Sprintf("the request has %d messages, over the cap of %d (context.maxMessages)", d.FullMessages, c.MaxMessages)
	case c.MaxChars > 0 && d.FullChars > c.MaxChars:
		return fmt.Sprintf("the request has %d characters, over the cap of %d (context.maxChars)", d.FullChars, c.MaxChars)
	}
	return ""
}

// Plan returns the spans of res (built over history) to compact: the oldest
// units before the newest user message, whole, until the request rebuilt
// with the summary in their place would be at the target (tokens, and the
// caps when set). The summary's growth is estimated from the digest lines
// the units hold. With all set it returns every such unit (a manual
// compaction). Nil: nothing can be compacted.
func Plan(res *contextbuilder.Result, history []conversation.Entry, c Config, all bool) []contextbuilder.Span {
	c = c.withDefaults()
	var before []contextbuilder.Span
	for _, s := range res.Spans {
		if s.Part == contextbuilder.PartBefore {
			before = append(before, s)
		}
	}
	if len(before) == 0 {
		return nil
	}
	if all {
		return before
	}
	d := &res.Debug
	byID := make(map[string]*conversation.Entry, len(history))
	for i := range history {
		if history[i].IsMessage() {
			byID[history[i].ID] = &history[i]
		}
	}
	sh := shapeOf(res, func(id string) *conversation.Entry { return byID[id] })
	oldSummary := sh.summary
	budget := c.budgetFor(sh)
	tokens, msgs, chars := d.FullTokens, d.FullMessages, d.FullChars
	target := c.landing(sh)
	lines := 0 // estimated tokens of the digest lines of the units so far
	if oldSummary == 0 {
		lines = 200 // header and task
	}
	spanTokens := 0
	for k, s := range before {
		tokens -= s.Tokens
		msgs -= s.Count
		chars -= s.Chars
		spanTokens += s.Tokens
		for _, id := range s.SourceIDs {
			if e := byID[id]; e != nil {
				for _, l := range candidates(e, nil, 0, nil) {
					// the first summary also keeps the lines that names and
					// figures rare in the whole span lift (they cannot be
					// told here: count them)
					if l.score >= minLineScore || oldSummary == 0 {
						lines += estimateTokens(l.text) + 8
					}
				}
			}
		}
		// the summary grows with what it replaces, up to its budget; a block
		// appended to it is written up to the block's own budget, which the
		// lines found here may not show (names and figures rare in the
		// whole span lift lines only there)
		grown := oldSummary + lines
		if room, ok := blockRoom(budget, oldSummary); oldSummary > 0 && ok {
			grown = oldSummary + max(lines, min(room, blockBudget(budget, spanTokens)))
		}
		summary := min(budget, grown)
		ok := tokens-oldSummary+summary <= target
		if c.MaxMessages > 0 && float64(msgs) > c.Target*float64(c.MaxMessages) {
			ok = false
		}
		if c.MaxChars > 0 && float64(chars) > c.Target*float64(c.MaxChars) {
			ok = false
		}
		if ok {
			return before[:k+1]
		}
	}
	return before
}

// shape is what a request holds besides the history a compaction can take:
// fixed is what no compaction changes (system prompt, tool definitions,
// project instructions, pins, run blocks), summary the summary in it, and
// largest the largest of its last few turns (a user message and
// everything after it).
type shape struct {
	fixed, summary, largest int
	// next is the largest of the recent turns before the newest: what the
	// turn after a compaction is likely to add.
	next int
}

// recentTurns is how many of the newest turns shapeOf looks at.
const recentTurns = 4

func shapeOf(res *contextbuilder.Result, entry func(id string) *conversation.Entry) shape {
	var sh shape
	history := 0
	var turns []int
	for _, s := range res.Spans {
		if s.Part == contextbuilder.PartRefill {
			continue // compacted already: not in FullTokens
		}
		history += s.Tokens // trimmed units too: FullTokens counts them
		if s.Trimmed {
			continue
		}
		if len(s.SourceIDs) == 1 {
			if e := entry(s.SourceIDs[0]); e != nil && e.Role == conversation.RoleUser && !e.IsMeta {
				turns = append(turns, 0)
			}
		}
		if len(turns) > 0 {
			turns[len(turns)-1] += s.Tokens
		}
	}
	if len(turns) > recentTurns {
		turns = turns[len(turns)-recentTurns:]
	}
	for k, t := range turns {
		sh.largest = max(sh.largest, t)
		if k < len(turns)-1 {
			sh.next = max(sh.next, t)
		}
	}
	for _, m := range res.Messages {
		if m.Kind == contextbuilder.KindSummary {
			sh.summary += m.Tokens
		}
	}
	sh.fixed = max(0, res.Debug.FullTokens-history-sh.summary)
	return sh
}

// room is what the history and the summary may use of the limit.
func (c Config) room(sh shape) int { return max(1, c.Limit-sh.fixed) }

// budgetFor is the most the summary may take in a request shaped sh:
// SummaryShare of the room the fixed part leaves, at most
// MaxSummaryTokens.
func (c Config) budgetFor(sh shape) int {
	c = c.withDefaults()
	return max(64, min(MaxSummaryTokens, int(c.SummaryShare*float64(c.room(sh)))))
}

// landing is the size in tokens a compaction brings a request shaped sh
// to: the fixed part and the target share of the room after it, lowered so
// that the turns that follow have room to grow before the trigger is
// reached again — three times the largest recent turn — but never below
// the fixed part and a quarter of the room. A compaction that lands there
// is not due again for at least three turns of that size, and the request
// keeps as much of the history word for word as that allows.
func (c Config) landing(sh shape) int {
	c = c.withDefaults()
	target := sh.fixed + int(c.Target*float64(c.room(sh)))
	if lim := int(c.Trigger*float64(c.Limit)) - 3*sh.largest; lim < target {
		target = max(lim, sh.fixed+c.room(sh)/4)
	}
	return target
}

// Compaction is a compaction ready to be persisted.
type Compaction struct {
	// MessageIDs are the messages to mark compacted: those of the spans and
	// the summaries the new one replaces.
	MessageIDs []string
	// Entries are the compacted log messages (not the old summaries), in log
	// order: what the recall index takes in.
	Entries []conversation.Entry
	// Summary is the content of the new summary message.
	Summary string
	// Data is the event's data, without what only the caller knows
	// (Summary id, KeptFrom, token figures, reason, mode).
	Data conversation.CompactionData
	// Lines is the number of digest lines kept (0 for an LLM summary).
	Lines int
}

// ErrNothingToCompact is returned when no history unit can be compacted.
var ErrNothingToCompact = errors.New("compression: nothing to compact: every message is part of the current turn")

// Compact writes the compaction of spans of the request res built over
// history: the summary that replaces them (merged with the summaries already
// in the request) and the messages carried word for word.
func Compact(ctx context.Context, res *contextbuilder.Result, history []conversation.Entry, spans []contextbuilder.Span, c Config) (*Compaction, error) {
	c = c.withDefaults()
	if len(spans) == 0 {
		return nil, ErrNothingToCompact
	}
	if c.Counter == nil {
		return nil, errors.New("compression: a token counter is required")
	}
	byID := make(map[string]int, len(history))
	for i := range history {
		if history[i].IsMessage() {
			byID[history[i].ID] = i
		}
	}
	// The compacted messages, in log order.
	set := map[string]bool{}
	var idx []int
	for _, s := range spans {
		for _, id := range s.SourceIDs {
			if i, ok := byID[id]; ok && !set[id] {
				set[id] = true
				idx = append(idx, i)
			}
		}
	}
	sortInts(idx)
	out := &Compaction{Entries: make([]conversation.Entry, 0, len(idx)), MessageIDs: make([]string, 0, len(idx)+1)}
	for _, i := range idx {
		out.Entries = append(out.Entries, history[i])
		out.MessageIDs = append(out.MessageIDs, history[i].ID)
	}
	// The summaries it replaces: those in the request and those the safety
	// net left out of it (a turn too large to fit beside them), which still
	// stand for what they cover — the oldest first.
	var previous []string
	left := map[string]bool{}
	for _, d := range res.Debug.Dropped {
		if strings.Contains(d.Reason, contextbuilder.SummaryLeftOut) {
			left[d.SourceID] = true
		}
	}
	for i := range history {
		if e := &history[i]; e.IsMessage() && left[e.ID] && e.Role == conversation.RoleSystem && contextbuilder.IsSummary(e.Text()) {
			previous = append(previous, e.Text())
			out.MessageIDs = append(out.MessageIDs, e.ID)
		}
	}
	for _, m := range res.Messages {
		if m.Kind == contextbuilder.KindSummary {
			previous = append(previous, m.Text())
			if m.SourceID != "" {
				out.MessageIDs = append(out.MessageIDs, m.SourceID)
			}
		}
	}
	total := len(out.Entries)
	if res.Compaction != nil {
		total += res.Compaction.CompactedTotal
	}
	first, last := spans[0].SourceIDs, spans[len(spans)-1].SourceIDs
	out.Data = conversation.CompactionData{Strategy: c.Strategy, Count: len(out.Entries), CompactedTotal: total,
		Focus: strings.TrimSpace(c.Focus), Pinned: carried(res, out.Entries)}
	if len(first) > 0 {
		out.Data.From = first[0]
	}
	if len(last) > 0 {
		out.Data.To = last[len(last)-1]
	}
	if res.Compaction != nil {
		prev := *res.Compaction
		out.Data.Earlier = append(append([]conversation.CompactionRef(nil), prev.Earlier...), conversation.CompactionRef{
			EventID: res.CompactionEvent, From: prev.From, To: prev.To, Count: prev.Count, Reason: prev.Reason})
		if n := len(out.Data.Earlier); n > 200 {
			out.Data.Earlier = out.Data.Earlier[n-200:]
		}
	}

	sh := shapeOf(res, func(id string) *conversation.Entry {
		if i, ok := byID[id]; ok {
			return &history[i]
		}
		return nil
	})
	budget := c.budgetFor(sh)
	out.Data.Target = c.landing(sh)
	skip := make(map[string]bool, len(out.Data.Pinned))
	for _, p := range out.Data.Pinned {
		skip[p.ID] = true
	}
	in := digestInput{entries: out.Entries, skip: skip, previous: previous, total: total, budget: budget, focus: c.Focus, counter: c.Counter, model: c.Model}
	// The summary grows by appending: the summary in the request stays byte
	// for byte at the start of the new one, and a block for the messages
	// compacted now follows it, so a provider's prompt cache keeps
	// everything up to the end of the old summary. Only when the blocks
	// outgrow the summary's budget are they consolidated into one digest
	// (written to leave room for the blocks that follow).
	base := ""
	spanTokens := 0
	for _, s := range spans {
		spanTokens += s.Tokens
	}
	// A compaction that cannot land at its target (the turn in progress is
	// large) would leave less room below the trigger than the next turn
	// takes: the digest is written again from every compacted message, as
	// large as leaves room for one more turn like the recent ones (at least a
	// third of the summary's budget), so that the next turn does not compact
	// again. Nothing is lost for good: the compaction after it, which takes
	// the large turn, writes the digest from the same messages at its full
	// size.
	prev, room, ok := appendable(previous, budget, c)
	squeeze := 0
	rebuild := c.Strategy == NameKeyMessages && c.Earlier != nil && len(previous) > 0
	if rebuild {
		base := res.Debug.FullTokens - spanTokens - sh.summary
		expected := consolidatedBudget(budget)
		if ok {
			expected = budget - room + min(room, blockBudget(budget, spanTokens))
		}
		left := int(c.Trigger*float64(c.Limit)) - base - sh.next - contextbuilder.MessageOverhead
		switch {
		case base+expected > out.Data.Target && left < expected && left >= budget/3:
			squeeze, ok = left, false
		case res.Compaction != nil && res.Compaction.Reduced && left >= consolidatedBudget(budget):
			// a digest written small: written again at its size once
			// there is room
			ok = false
		}
	}
	out.Data.Reduced = squeeze > 0 || ok && res.Compaction != nil && res.Compaction.Reduced
	if ok {
		base = prev
		in.previous, in.block, in.budget = nil, true, min(room, blockBudget(budget, spanTokens))
		out.Data.Appended = true
	} else if len(previous) > 0 {
		in.budget = consolidatedBudget(budget)
		if squeeze > 0 {
			in.budget = min(squeeze, budget)
		}
		if c.Strategy == NameKeyMessages {
			if earlier := c.earlier(set, total); earlier != nil {
				// One ranking over every message the summary stands for:
				// no line is lost for having lost once to the lines of its
				// own span, and how often a name or a figure recurs is
				// counted over the whole conversation.
				in.entries = append(earlier, out.Entries...)
				in.previous = nil
			}
		}
	}
	join := func(block string) string {
		if base == "" {
			return block
		}
		return base + "\n\n" + block
	}
	if c.Strategy == NameLLMSummary && c.Summarizer != nil {
		text, err := llmSummary(ctx, c, in)
		if err == nil {
			out.Summary = join(text)
			return out, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out.Data.SummaryError = err.Error()
		out.Data.Strategy = NameKeyMessages
	} else if c.Strategy == NameLLMSummary {
		out.Data.Strategy = NameKeyMessages
		out.Data.SummaryError = "no summary model is available"
	}
	dg := buildDigest(in)
	out.Summary = join(dg.text)
	out.Lines = len(dg.lines)
	return out, nil
}

// earlier returns the messages compacted before (Config.Earlier) that a
// digest reads, when no more than MaxRebuild messages are compacted in all — not the summaries, the records and skill instructions
// carried word for word, or the messages compacted now (in now) — or nil
// when they are not available.
func (c Config) earlier(now map[string]bool, total int) []conversation.Entry {
	if c.Earlier == nil || total > MaxRebuild {
		return nil // (total: the messages compacted so far, these included)
	}
	all, err := c.Earlier()
	if err != nil || len(all) == 0 || len(all) > MaxRebuild {
		return nil
	}
	out := make([]conversation.Entry, 0, len(all))
	for i := range all {
		e := &all[i]
		if !e.IsMessage() || !e.Compacted || !e.InContext() || now[e.ID] || e.IsMeta || e.PartType == conversation.PartRecord ||
			e.Role == conversation.RoleSystem && contextbuilder.IsSummary(e.Text()) {
			continue
		}
		out = append(out, *e)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// appendable reports whether the one summary in the request can take a
// block for the messages compacted now: it is a summary this package wrote
// and the summary's budget has room for a block of at least minBlock
// tokens. It returns the summary and the room left.
func appendable(previous []string, budget int, c Config) (string, int, bool) {
	if len(previous) != 1 || !strings.HasPrefix(previous[0], contextbuilder.ConversationSummaryPrefix) {
		return "", 0, false
	}
	room, ok := blockRoom(budget, c.Counter.Count(c.Model, previous[0]))
	if !ok {
		return "", 0, false
	}
	return previous[0], room, true
}

// blockRoom returns the room a summary of summaryTokens leaves in its
// budget for an appended block, and whether a block fits there (at least
// minBlock; with less the summary is consolidated).
func blockRoom(budget, summaryTokens int) (int, bool) {
	room := budget - summaryTokens - contextbuilder.MessageOverhead - 2
	return room, room >= minBlock(budget)
}

// blockBudget is the most one appended block may take of the summary's
// budget for messages of spanTokens: a third of what it replaces, at least
// minBlock and at most two fifths of the budget, so several blocks fit
// before the summary is consolidated.
func blockBudget(budget, spanTokens int) int {
	return max(minBlock(budget), min(budget*2/5, spanTokens/3))
}

// minBlock is the least room a block needs; with less the summary is
// consolidated.
func minBlock(budget int) int { return max(48, budget/8) }

// consolidatedBudget is what a consolidated summary may take: it leaves
// room for blocks appended by the compactions that follow.
func consolidatedBudget(budget int) int { return max(64, budget*7/10) }

// carried returns the messages the compaction carries word for word: the
// active pins (whether compacted now or still in the history, since their
// pin events may be older than what the next request loads), the records and
// meta messages carried before (less the bodies of skills that ended, which
// the request left out), and those among the compacted entries.
func carried(res *contextbuilder.Result, entries []conversation.Entry) []conversation.Carried {
	out := []conversation.Carried{}
	seen := map[string]bool{}
	for _, p := range res.Pins {
		if p.ID == "" || seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		out = append(out, p.Carried)
	}
	for i := range entries {
		e := &entries[i]
		if seen[e.ID] {
			continue
		}
		kind, text := "", conversation.ClipCarried(e.Text())
		switch {
		case e.PartType == conversation.PartRecord:
			kind = conversation.CarriedRecord
		case e.IsMeta:
			// The instructions of a skill: carried whole, since they apply
			// for as long as the skill is active (a SKILL.md is at most
			// 256 KiB).
			kind, text = conversation.CarriedMeta, e.Text()
		default:
			continue
		}
		seen[e.ID] = true
		out = append(out, conversation.Carried{ID: e.ID, Role: e.Role, Tool: e.ToolName, Kind: kind, Text: text})
	}
	return out
}

func sortInts(s []int) { slices.Sort(s) }

// Backfill writes the summary of messages compacted by an earlier version
// of the runtime, which compacted without a summary: the digest of those
// messages, merged with any summary the request holds. Its Data says what it
// covers (Count 0: nothing new is compacted; CompactedTotal the messages).
func Backfill(res *contextbuilder.Result, compacted []conversation.Entry, c Config) *Compaction {
	c = c.withDefaults()
	var previous []string
	for _, m := range res.Messages {
		if m.Kind == contextbuilder.KindSummary {
			previous = append(previous, m.Text())
		}
	}
	out := &Compaction{Entries: compacted}
	for _, m := range res.Messages {
		if m.Kind == contextbuilder.KindSummary && m.SourceID != "" {
			out.MessageIDs = append(out.MessageIDs, m.SourceID)
		}
	}
	out.Data = conversation.CompactionData{Strategy: NameKeyMessages, CompactedTotal: len(compacted), Pinned: carried(res, compacted)}
	if len(compacted) > 0 {
		out.Data.From, out.Data.To = compacted[0].ID, compacted[len(compacted)-1].ID
	}
	skip := make(map[string]bool, len(out.Data.Pinned))
	for _, p := range out.Data.Pinned {
		skip[p.ID] = true
	}
	dg := buildDigest(digestInput{entries: compacted, skip: skip, previous: previous, total: len(compacted),
		budget: c.SummaryBudget(), counter: c.Counter, model: c.Model})
	out.Summary, out.Lines = dg.text, len(dg.lines)
	return out
}
