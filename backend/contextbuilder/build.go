// Package contextbuilder owns how one LLM request is built from the conversation
// log for chat, agent and run modes: system prompt, summary, pins, recall,
// history, run blocks, and the token budget's safety net.
//
// Build composes, in this order:
//
//  1. the system prompt, never persisted, one system message per section: base
//     rules (chat rules for chat and agent, run rules for run), tool policy,
//     persona (agent and run only) and the mode banner;
//  2. the summary-class system messages of the log that are not compacted
//     (CONVERSATION_SUMMARY / SUMMARY), moved here — a compaction writes one
//     and compacts the one before, so normally there is one;
//  3. the PINNED system message: the runtime's records of workflow runs
//     (system messages with partType "record"), and the messages kept word
//     for word (pins, meta messages — see conversation.Carried) once compacted. Items 1-3 are the request's prefix: they change
//     only when the mode, the tools, a compaction or a pin changes, so a
//     provider's prompt cache keeps working between turns;
//  4. the compacted messages sent word for word while they fit
//     (Options.Refill): the newest, whole units, contiguous with the history
//     that follows, the same ones from one request to the next until they no
//     longer fit under Refill.Limit;
//  5. the history in log order: events, compacted messages, includeInContext=false
//     messages, thinking parts, legacy collapsed UI events and other
//     historical system messages are left out; error parts enter as assistant
//     messages; each assistant message with tool calls is directly followed
//     by exactly one result per call (the last one logged, moved next to its
//     call; a synthetic TOOL_RESULT_INTERRUPTED result when none was logged);
//     results without a call are dropped;
//  6. the RECALLED_CONTEXT user message (Options.Recall, as many as fit the
//     recall budget and the room left), then, in run mode, the injector's
//     blocks as user messages, both right before the newest user message (so
//     that message stays the last user turn and a tool loop that follows it
//     stays intact), or at the end of the request when the history has no
//     user message (recall is then left out);
//  7. the newest user message and the current turn after it.
//
// The newest user message is the last user message not marked is_meta (or the
// last user message when all are meta).
//
// Nothing is cut to fit a message or character count: Budget.MaxMessages and
// MaxChars are compaction triggers for the engine, which reads FullMessages,
// FullChars and FullTokens (the request with every unit whole, without
// recall) to decide whether to compact. History beyond the budget goes through
// compaction (compression.Compact), which turns the oldest units into the
// summary. Only when the request still exceeds the token limit does the safety
// net act, and everything it does is listed (Compressed, Dropped, Notes,
// SafetyNet): tool results older than the newest user message become previews
// with their full-output path, oldest first; then the oldest of those units
// are left out whole; then the tool results of the current turn become
// previews, oldest first; then quoted pins, then summaries are left out. The
// system prompt, the run blocks, the newest user message and the messages of
// the current turn are never left out: when they do not fit, Debug.OverBudget
// is set and the request must not be sent.
//
// Pairing tool results: scanning from the newest entry, each result belongs to
// the nearest call with its id before it (servers that number calls per
// response reuse ids such as "call_0"); of several results for one call the
// last is kept; an older call whose id a newer one reuses is renamed
// ("call_0-2", with its result) so ids stay unique in the request. Tool calls
// without an id are dropped. Empty user messages are dropped and empty tool
// results become EmptyToolResult, because clients omit an empty content field
// and the API then rejects the request.
//
// Token counts of log entries are the stored Entry.Tokens when they were made
// with the request model's encoding and are plausible for the entry's size;
// otherwise the entry is counted again (EntryTokens).
//
// With Options.OmitToolResults, each tool result logged before the newest user
// message enters as a one-line TOOL_RESULT_OMITTED stub (status, size, and
// the alias path to fs.read the full output from when it has one); the
// message itself stays, so every call is still answered.
//
// Pins: the active pins are the "pinned" list of the last compaction event of
// History (conversation.CompactionData) with the pin and unpin events after it
// applied. A pinned message still in the history stays where it is; one that
// was compacted is quoted in the PINNED message.
package contextbuilder

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"crewagent/backend/conversation"
)

type builder struct {
	opts   Options
	budget Budget
	res    *Result
	sys    []Message
	inj    []Message

	fate      []uint16 // per History entry: fateNone, fateCandidate, ... or a reason
	reasons   []string
	reasonIdx map[string]uint16
	summaries []int32 // summary-class system entries, log order
	anchor    int32   // entry of the newest user message, -1 when none

	issued    map[string]bool                   // call ids claimed by newer messages
	calls     map[int32][]conversation.ToolCall // request calls of assistants whose stored calls changed
	callDrops []callDrop                        // single tool calls dropped from messages
	stubCost  map[int32]int                     // tokens of omitted tool results, counted once

	ids      map[string]int32 // message id -> entry index (messages only)
	pins     []Pin
	previews map[int32]preview // safety-net previews of tool results

	skillBody map[string]string // body message id -> active skill (Options.Skills.Bodies)
	ended     map[string]bool   // body messages of skills that ended

	refills int // entries with fateRefill
}

type preview struct {
	text   string
	tokens int
}

// Build builds the request for opts. It fails only on invalid options.
func Build(opts Options) (*Result, error) {
	switch opts.Mode {
	case conversation.ModeChat, conversation.ModeAgent, conversation.ModeRun:
	default:
		return nil, &Error{Code: CodeInvalidMode, Message: fmt.Sprintf("mode must be chat, agent or run, got %q", opts.Mode)}
	}
	if opts.Counter == nil {
		return nil, ErrNoCounter
	}
	if opts.Mode != conversation.ModeChat && opts.Agent == nil {
		return nil, &Error{Code: CodePersonaRequired, Message: opts.Mode + " mode needs a persona"}
	}
	if opts.Mode == conversation.ModeRun && opts.Run == nil {
		return nil, ErrRunInjectorRequired
	}
	b := &builder{opts: opts, budget: opts.Budget.withDefaults(), res: &Result{Anchor: -1}}
	b.res.Debug.Mode = opts.Mode
	b.res.Debug.Budget = b.budget
	b.res.Debug.TokenLimit = b.budget.TokenLimit()
	b.res.Debug.Counts.Entries = len(opts.History)
	b.res.ToolNames = opts.ToolNames
	if len(b.res.ToolNames) == 0 {
		b.res.ToolNames = opts.ToolPolicy.Enabled
	}
	if b.res.ToolNames == nil {
		b.res.ToolNames = []string{}
	}

	parts, err := composeSystem(opts.Mode, opts.Agent, opts.Instructions, opts.Memory, opts.ToolPolicy, b.res.ToolNames, opts.Skills.Registry)
	if err != nil {
		return nil, err
	}
	reasons := make([]string, 0, len(parts)+4)
	for _, p := range parts {
		m := Message{Role: conversation.RoleSystem, Content: conversation.Str(p.text), Kind: KindSystem}
		m.Tokens = CountMessage(opts.Counter, opts.Model, &m)
		b.sys = append(b.sys, m)
		reasons = append(reasons, p.name)
	}
	if opts.Mode == conversation.ModeRun {
		for _, block := range opts.Run.Blocks() {
			if strings.TrimSpace(block) == "" {
				continue
			}
			m := Message{Role: conversation.RoleUser, Content: conversation.Str(block), Kind: KindInjection}
			m.Tokens = CountMessage(opts.Counter, opts.Model, &m)
			b.inj = append(b.inj, m)
		}
	}

	b.skillSets()
	b.filter()
	b.collectPins()
	sel := b.collect()
	b.fit(&sel)
	b.assemble(sel, reasons)
	b.markSkillRows()
	return b.res, nil
}

// usage is a running total of a request's size (characters only when
// counted: Budget.MaxChars is set).
type usage struct {
	tokens, msgs, chars int
	countChars          bool
}

func (u *usage) add(m *Message) {
	u.tokens += m.Tokens
	u.msgs++
	if u.countChars {
		u.chars += CharsOf(m)
	}
}

func (u *usage) addUnit(un *unit) {
	u.tokens += un.tokens
	u.msgs += len(un.items)
	u.chars += un.chars
}

// selection is what the request holds, each part in log order.
type selection struct {
	summaries []int32
	pinBlock  *Message
	before    []unit // before the newest user message
	anchor    *unit
	after     []unit // after it (the current turn)
	// refill are the compacted units that may come back word for word
	// (Options.Refill), oldest first; those from refillFrom on are sent.
	refill     []unit
	refillFrom int
	recall     *Message
	trimmed    []bool // per before unit: left out by the safety net
	dropSum    []bool // per summary: left out by the safety net
}

// collect scans the log backward from the newest entry and builds every unit
// of the history (see the package doc for the pairing rules).
func (b *builder) collect() selection {
	h := b.opts.History
	var sel selection
	if b.anchor >= 0 {
		u := unit{items: []item{{entry: b.anchor}}}
		b.measure(&u)
		sel.anchor = &u
		b.fate[b.anchor] = fateKept
	}
	var waiting map[string]int32 // call id -> newest result not yet paired
	current := b.anchor >= 0     // scanning the current turn (after the anchor)
	turnStart := int32(-1)
	if b.anchor < 0 && b.opts.TurnStart != "" {
		if i, ok := b.ids[b.opts.TurnStart]; ok {
			turnStart, current = i, true
		}
	}
	for i := int32(len(h)) - 1; i >= 0; i-- {
		if i == b.anchor {
			current = false
			continue
		}
		if turnStart >= 0 && i < turnStart {
			current = false
		}
		if b.fate[i] != fateCandidate {
			continue
		}
		e := &h[i]
		var u unit
		switch role := requestRole(e); {
		case role == conversation.RoleTool:
			id := e.ToolCallID
			if id == "" {
				b.fate[i] = b.reason("dropped: orphan tool result (no matching tool call)")
				continue
			}
			if _, dup := waiting[id]; dup {
				b.fate[i] = b.reason("dropped: duplicate tool result (the last one is kept)")
				continue
			}
			if waiting == nil {
				waiting = make(map[string]int32)
			}
			waiting[id] = i
			continue
		case role == conversation.RoleAssistant && len(e.ToolCalls) > 0 && e.PartType != conversation.PartError:
			var ok bool
			if u, ok = b.groupUnit(i, waiting); !ok {
				b.fate[i] = b.reason("dropped: empty assistant message")
				continue
			}
		case role == conversation.RoleAssistant && e.Text() == "":
			b.fate[i] = b.reason("dropped: empty assistant message")
			continue
		default:
			u = unit{items: []item{{entry: i}}}
		}
		b.measure(&u)
		for _, it := range u.items {
			if it.entry >= 0 {
				b.fate[it.entry] = fateKept
			}
		}
		if current {
			sel.after = append(sel.after, u)
		} else {
			sel.before = append(sel.before, u)
		}
	}
	for _, r := range waiting {
		b.fate[r] = b.reason("dropped: orphan tool result (no matching tool call)")
	}
	reverse(sel.after)
	reverse(sel.before)
	sel.refill = b.collectRefill()
	sel.refillFrom = len(sel.refill)
	for _, i := range b.summaries {
		b.fate[i] = fateKept
	}
	sel.summaries = b.summaries
	sel.trimmed = make([]bool, len(sel.before))
	sel.dropSum = make([]bool, len(sel.summaries))
	for k := range b.pins {
		p := &b.pins[k]
		if i, ok := b.ids[p.ID]; ok && b.fate[i] == fateKept {
			p.InHistory = true
		}
	}
	sel.pinBlock = b.pinBlock()
	return sel
}

// collectRefill builds the units of the compacted messages that may come
// back word for word (fateRefill), scanning backward from the newest like
// collect, and returns them oldest first. The scan stops at a unit that
// cannot come back (a pinned message, quoted in the PINNED message): the
// units sent are always the newest, contiguous with the uncompacted history.
func (b *builder) collectRefill() []unit {
	if b.refills == 0 {
		return nil
	}
	h := b.opts.History
	var out []unit
	var waiting map[string]int32
	stopped := false
	for i := int32(len(h)) - 1; i >= 0; i-- {
		if b.fate[i] != fateRefill {
			continue
		}
		e := &h[i]
		if stopped {
			b.fate[i] = b.reason(reasonCompacted)
			continue
		}
		var u unit
		switch role := requestRole(e); {
		case role == conversation.RoleTool:
			if e.ToolCallID == "" {
				b.fate[i] = b.reason(reasonCompacted)
				continue
			}
			if _, dup := waiting[e.ToolCallID]; dup {
				b.fate[i] = b.reason(reasonCompacted)
				continue
			}
			if waiting == nil {
				waiting = make(map[string]int32)
			}
			waiting[e.ToolCallID] = i
			continue
		case role == conversation.RoleAssistant && len(e.ToolCalls) > 0 && e.PartType != conversation.PartError:
			var ok bool
			if u, ok = b.groupUnit(i, waiting); !ok {
				b.fate[i] = b.reason(reasonCompacted)
				continue
			}
		case role == conversation.RoleAssistant && e.Text() == "":
			b.fate[i] = b.reason(reasonCompacted)
			continue
		default:
			u = unit{items: []item{{entry: i}}}
		}
		if b.unitPinned(&u) {
			stopped = true
			for _, it := range u.items {
				if it.entry >= 0 {
					b.fate[it.entry] = b.reason(reasonCompacted)
				}
			}
			continue
		}
		b.measure(&u)
		out = append(out, u)
	}
	for _, r := range waiting {
		b.fate[r] = b.reason(reasonCompacted)
	}
	reverse(out)
	return out
}

// refill sends the newest compacted units that fit (Options.Refill): those
// sent last time while they fit under the limit, else the newest that fit
// under it less the headroom. used is what the request uses without them;
// refill returns what it uses with them.
func (b *builder) refill(sel *selection, used int) int {
	r := b.opts.Refill
	k := len(sel.refill)
	if c := b.res.Compaction; r.Limit > 0 && !b.res.Debug.SafetyNet && (c == nil || r.Except == "" || c.Reason != r.Except) {
		if k = b.refillSince(sel, r.From); k < len(sel.refill) {
			total := 0
			for _, un := range sel.refill[k:] {
				total += un.tokens
			}
			if used+total > r.Limit {
				k = len(sel.refill)
			}
		}
		summary := 0
		for _, i := range sel.summaries {
			summary += b.summaryTokens(i)
		}
		if k == len(sel.refill) && (r.MaxSummary <= 0 || summary <= r.MaxSummary) {
			room := r.Limit - max(r.Headroom, r.Turns*largestTurn(b, sel)) - used
			for k > 0 && sel.refill[k-1].tokens <= room {
				k--
				room -= sel.refill[k].tokens
			}
		}
	}
	sel.refillFrom = k
	for j, un := range sel.refill {
		for _, it := range un.items {
			if it.entry < 0 {
				continue
			}
			if j >= k {
				b.fate[it.entry] = fateKept
			} else {
				b.fate[it.entry] = b.reason(reasonCompacted)
			}
		}
	}
	dbg := &b.res.Debug
	dbg.Counts.Refilled, dbg.RefillFrom = 0, ""
	for j, un := range sel.refill[k:] {
		if j == 0 {
			dbg.RefillFrom = b.opts.History[un.items[0].entry].ID
		}
		dbg.Counts.Refilled += len(un.items)
		used += un.tokens
	}
	return used
}

// refillSince returns the index of the refill unit that starts with message
// id (len(sel.refill) when none does).
func (b *builder) refillSince(sel *selection, id string) int {
	if id == "" {
		return len(sel.refill)
	}
	for k, un := range sel.refill {
		if b.opts.History[un.items[0].entry].ID == id {
			return k
		}
	}
	return len(sel.refill)
}

// recentTurns is how many of the newest turns largestTurn looks at.
const recentTurns = 4

// largestTurn returns the tokens of the largest of the recent turns of the
// request (a user message and everything after it up to the next one).
func largestTurn(b *builder, sel *selection) int {
	var turns []int
	add := func(u *unit, user bool) {
		if user {
			turns = append(turns, 0)
		}
		if len(turns) > 0 {
			turns[len(turns)-1] += u.tokens
		}
	}
	isUser := func(u *unit) bool {
		if len(u.items) != 1 || u.items[0].entry < 0 {
			return false
		}
		e := &b.opts.History[u.items[0].entry]
		return e.Role == conversation.RoleUser && !e.IsMeta
	}
	for k := range sel.before {
		if !sel.trimmed[k] {
			add(&sel.before[k], isUser(&sel.before[k]))
		}
	}
	if sel.anchor != nil {
		add(sel.anchor, true)
	}
	for k := range sel.after {
		add(&sel.after[k], false)
	}
	largest := 0
	for _, t := range turns[max(0, len(turns)-recentTurns):] {
		largest = max(largest, t)
	}
	return largest
}

// summaryTokens returns what summary entry i costs.
func (b *builder) summaryTokens(i int32) int {
	return entryTokens(b.opts.Counter, b.opts.Model, &b.opts.History[i])
}

// fit measures the request and, when it exceeds the token limit, applies the
// safety net (see the package doc); then it adds the recall block within the
// room left.
func (b *builder) fit(sel *selection) {
	dbg := &b.res.Debug
	limit := dbg.TokenLimit
	u := usage{countChars: b.budget.MaxChars > 0}
	u.tokens = ReplyPriming + b.opts.ToolTokens
	for _, ms := range [][]Message{b.sys, b.inj} {
		for i := range ms {
			u.add(&ms[i])
		}
	}
	for _, i := range sel.summaries {
		u.tokens += b.summaryTokens(i)
		u.msgs++
		if b.budget.MaxChars > 0 {
			u.chars += runeCount(b.opts.History[i].Text())
		}
	}
	if sel.pinBlock != nil {
		u.add(sel.pinBlock)
	}
	if sel.anchor != nil {
		u.addUnit(sel.anchor)
	}
	for _, us := range [][]unit{sel.before, sel.after} {
		for k := range us {
			u.addUnit(&us[k])
		}
	}
	dbg.FullTokens, dbg.FullMessages, dbg.FullChars = u.tokens, u.msgs, u.chars
	over := func() bool { return u.tokens > limit }

	if over() {
		dbg.SafetyNet = true
		// 1. the history before the newest user message, newest first: units
		// that fit stay whole, the unit at the edge may keep its tool results
		// as previews, everything older is left out (pinned units come back
		// when there is room).
		room := limit - u.tokens
		for k := range sel.before {
			room += sel.before[k].tokens
		}
		edge := -1 // units at edge and older are left out
		for k := len(sel.before) - 1; k >= 0; k-- {
			un := &sel.before[k]
			if un.tokens <= room {
				room -= un.tokens
				continue
			}
			var pu usage
			pu.tokens = un.tokens
			b.previewUnit(un, func() bool { return pu.tokens > room }, &pu)
			if un.tokens <= room {
				room -= un.tokens
				continue
			}
			edge = k
			break
		}
		trim := func(k int) {
			un := &sel.before[k]
			sel.trimmed[k] = true
			reason := b.reason("dropped: over the token budget (safety net: compaction did not make room)")
			for _, it := range un.items {
				if it.entry >= 0 {
					b.fate[it.entry] = reason
				}
			}
			dbg.Counts.Trimmed += len(un.items)
		}
		for k := 0; k <= edge; k++ {
			if un := &sel.before[k]; b.unitPinned(un) && un.tokens <= room {
				room -= un.tokens
				continue
			}
			trim(k)
		}
		u.tokens = limit - room
		// 3. previews of the current turn's tool results, oldest first
		for k := 0; k < len(sel.after) && over(); k++ {
			b.previewUnit(&sel.after[k], over, &u)
		}
		// 4. quoted pins, oldest first (the bodies of active skills last)
		for over() && sel.pinBlock != nil {
			dropped := false
			if k := b.nextPinToDrop(); k >= 0 {
				b.pins[k].Dropped, dropped = true, true
			}
			u.tokens -= sel.pinBlock.Tokens
			u.chars -= CharsOf(sel.pinBlock)
			u.msgs--
			sel.pinBlock = b.pinBlock()
			if sel.pinBlock != nil {
				u.add(sel.pinBlock)
			}
			if !dropped {
				break
			}
		}
		// 5. summaries, oldest first
		for k := 0; k < len(sel.summaries) && over(); k++ {
			i := sel.summaries[k]
			sel.dropSum[k] = true
			u.tokens -= b.summaryTokens(i)
			u.msgs--
			b.fate[i] = b.reason("dropped: over the token budget (" + SummaryLeftOut + ")")
			dbg.Counts.Trimmed++
		}
		if over() {
			dbg.OverBudget = true
			dbg.Notes = append(dbg.Notes, fmt.Sprintf("the system prompt, run blocks, newest user message and current turn alone need %d tokens, over the limit of %d; the request cannot be sent", u.tokens, limit))
		} else {
			dbg.Notes = append(dbg.Notes, fmt.Sprintf("over the token limit (%d of %d tokens with everything whole): the safety net shortened or left out what is listed", dbg.FullTokens, limit))
		}
	}
	u.tokens = b.refill(sel, u.tokens)
	if !dbg.OverBudget && sel.anchor != nil && len(b.opts.Recall) > 0 && b.opts.RecallBudget > 0 {
		room := min(b.opts.RecallBudget, limit-u.tokens)
		sel.recall = b.recallBlock(room, sel)
	}
}

// unitPinned reports whether a unit holds a pinned message.
func (b *builder) unitPinned(u *unit) bool {
	for _, it := range u.items {
		if it.entry >= 0 && b.isPinned(b.opts.History[it.entry].ID) {
			return true
		}
	}
	return false
}

func (b *builder) isPinned(id string) bool {
	if _, ok := b.skillBody[id]; ok {
		return true
	}
	for k := range b.pins {
		if b.pins[k].ID == id {
			return true
		}
	}
	return false
}

// previewUnit replaces the tool results of un by previews while over reports
// true, updating the unit's and the request's totals.
func (b *builder) previewUnit(un *unit, over func() bool, u *usage) {
	for _, it := range un.items {
		if !over() {
			break
		}
		if it.entry < 0 || b.omitted(it.entry) {
			continue
		}
		e := &b.opts.History[it.entry]
		if e.Role != conversation.RoleTool {
			continue
		}
		text, ok := PreviewToolResult(e)
		if !ok {
			continue
		}
		before := b.itemTokens(it)
		chars := 0
		if b.budget.MaxChars > 0 {
			chars = b.itemChars(it)
		}
		m := Message{Role: conversation.RoleTool, Content: &text, ToolCallID: e.ToolCallID, Name: e.ToolName}
		if it.callID != "" {
			m.ToolCallID = it.callID
		}
		p := preview{text: text, tokens: CountMessage(b.opts.Counter, b.opts.Model, &m)}
		if p.tokens >= before {
			continue
		}
		if b.previews == nil {
			b.previews = make(map[int32]preview)
		}
		b.previews[it.entry] = p
		d := before - p.tokens
		u.tokens -= d
		un.tokens -= d
		if b.budget.MaxChars > 0 {
			dc := chars - runeCount(text)
			un.chars -= dc
			u.chars -= dc
		}
	}
}

// Cite is how a summary, the PINNED and the RECALLED_CONTEXT messages name a
// log message: "#" and the first 8 characters of its id.
func Cite(id string) string {
	if len(id) > 8 {
		id = id[:8]
	}
	return "#" + id
}

// SummaryLeftOut is in the reason of a summary the safety net left out of
// the request.
const SummaryLeftOut = "safety net: summary left out"

// ReasonRefill is the reason of a compacted message sent word for word
// (Options.Refill).
const ReasonRefill = "kept: compacted, sent word for word while it fits (the summary covers it too)"

// Prefixes of the blocks the builder composes.
const (
	PinnedPrefix = "PINNED"
	RecallPrefix = "RECALLED_CONTEXT"
)

// pinBlock renders the PINNED message for the quoted pins (nil when none).
func (b *builder) pinBlock() *Message {
	var sb strings.Builder
	n := 0
	for k := range b.pins {
		p := &b.pins[k]
		if p.InHistory || p.Dropped {
			continue
		}
		if n == 0 {
			sb.WriteString(PinnedPrefix + "\nMessages kept word for word (pinned by the user, or recorded by the runtime); the messages themselves were compacted.")
		}
		n++
		who := p.Role
		if p.Kind == conversation.CarriedRecord {
			who = "runtime"
		}
		if name, ok := b.skillBody[p.ID]; ok {
			who = "active skill " + name
		}
		if p.Tool != "" {
			who += " " + p.Tool
		}
		fmt.Fprintf(&sb, "\n[%s %s, %s] %s", Cite(p.ID), who, p.Kind, strings.TrimSpace(p.Text))
	}
	if n == 0 {
		return nil
	}
	m := &Message{Role: conversation.RoleSystem, Content: conversation.Str(sb.String()), Kind: KindPinned}
	m.Tokens = CountMessage(b.opts.Counter, b.opts.Model, m)
	return m
}

// recallBlock renders the RECALLED_CONTEXT message with the recall items that
// fit room tokens (nil when none does).
func (b *builder) recallBlock(room int, sel *selection) *Message {
	const header = RecallPrefix + "\nOlder messages of this conversation that were compacted and look relevant to the newest message, quoted for reference (they are not new instructions):"
	c, model := b.opts.Counter, b.opts.Model
	base := MessageOverhead + c.Count(model, header)
	if base >= room {
		return nil
	}
	used := base
	var lines []string
	var kept []RecallItem
	seen := map[string]bool{}
	inRequest := b.requestText(sel)
	for _, it := range b.opts.Recall {
		if said(it.Text, inRequest) {
			continue // its figures are in the request: a newer message repeats or corrects them
		}
		if !newWords(it.Text, inRequest) {
			continue // every word of it is in the request already
		}
		if it.ID == "" || seen[it.ID] || strings.TrimSpace(it.Text) == "" {
			continue
		}
		if i, ok := b.ids[it.ID]; ok && b.fate[i] == fateKept {
			continue // in the request already
		}
		if b.isPinned(it.ID) {
			continue
		}
		who := it.Role
		if it.Tool != "" {
			who += " " + it.Tool
		}
		line := "\n[" + Cite(it.ID) + " " + who + "] " + strings.TrimSpace(it.Text)
		t := c.Count(model, line)
		if used+t > room {
			continue
		}
		seen[it.ID] = true
		used += t
		lines = append(lines, line)
		kept = append(kept, it)
	}
	for len(lines) > 0 {
		text := header + strings.Join(lines, "")
		m := &Message{Role: conversation.RoleUser, Content: &text, Kind: KindRecall}
		m.Tokens = CountMessage(c, model, m)
		if m.Tokens <= room {
			b.res.Debug.Recalled = kept
			return m
		}
		lines, kept = lines[:len(lines)-1], kept[:len(kept)-1]
	}
	return nil
}

// requestText is the text of what the request holds besides the recall
// block: summaries, the PINNED message, the history.
func (b *builder) requestText(sel *selection) string {
	var sb strings.Builder
	for _, i := range sel.summaries {
		sb.WriteString(b.opts.History[i].Text())
		sb.WriteByte('\n')
	}
	if sel.pinBlock != nil {
		sb.WriteString(sel.pinBlock.Text())
	}
	units := func(us []unit) {
		for k := range us {
			for _, it := range us[k].items {
				if it.entry < 0 {
					continue
				}
				e := &b.opts.History[it.entry]
				sb.WriteString(e.Text())
				sb.WriteByte('\n')
				for _, tc := range e.ToolCalls {
					sb.WriteString(tc.Function.Arguments)
					sb.WriteByte('\n')
				}
			}
		}
	}
	units(sel.refill[sel.refillFrom:])
	for k := range sel.before {
		if !sel.trimmed[k] {
			units(sel.before[k : k+1])
		}
	}
	if sel.anchor != nil {
		units([]unit{*sel.anchor})
	}
	units(sel.after)
	return sb.String()
}

// said reports whether the figures of a recalled text (numbers, dates,
// versions, codes: runs of four characters or more with a digit) are all in
// the request already. Such a message brings nothing the request lacks, and
// when a newer message corrected one of its values it would state the stale
// value again after the correction.
func said(text, request string) bool {
	n := 0
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '_' || r == ':')
	}) {
		f = strings.Trim(f, ".:-_")
		if len(f) < 4 || strings.IndexFunc(f, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
			continue
		}
		if !strings.Contains(request, f) {
			return false
		}
		n++
	}
	return n > 0
}

// newWords reports whether text has a word of four letters or more (with
// figures, paths and names), or a pair of Chinese characters, that request
// does not have.
func newWords(text, request string) bool {
	prev := -1 // start of the previous Chinese character
	for i, r := range text {
		if r < 0x2E80 || unicode.IsPunct(r) || r >= 0xFF00 && r <= 0xFFEF {
			prev = -1
			continue
		}
		if prev >= 0 && !strings.Contains(request, text[prev:i+utf8.RuneLen(r)]) {
			return true
		}
		prev = i
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r == '/' || r == '@' || r == '-' || r == '.')
	}) {
		f = strings.Trim(f, ".-_/")
		if len(f) >= 4 && !strings.Contains(request, f) {
			return true
		}
	}
	return false
}

// collectPins finds the active pins (see the package doc) and indexes the
// message ids of the history.
func (b *builder) collectPins() {
	h := b.opts.History
	b.ids = make(map[string]int32, len(h))
	last := -1
	for i := range h {
		if h[i].IsMessage() {
			b.ids[h[i].ID] = int32(i)
		} else if h[i].IsEvent() && h[i].Event == conversation.EventCompaction {
			last = i
		}
	}
	set := func(c conversation.Carried) {
		for k := range b.pins {
			if b.pins[k].ID == c.ID {
				b.pins[k].Carried = c
				return
			}
		}
		b.pins = append(b.pins, Pin{Carried: c})
	}
	if last >= 0 {
		b.res.CompactionEvent = h[last].ID
		if d, ok := conversation.ParseCompactionData(h[last].Data); ok {
			b.res.Compaction = &d
			for _, c := range d.Pinned {
				if c.ID != "" {
					set(c)
				}
			}
		}
	}
	for i := last + 1; i < len(h); i++ {
		e := &h[i]
		if e.IsMessage() && b.fate[i] == fateRecord {
			set(conversation.Carried{ID: e.ID, Role: e.Role, Kind: conversation.CarriedRecord, Text: conversation.ClipCarried(e.Text())})
			continue
		}
		if !e.IsEvent() || e.RefMsgID == "" {
			continue
		}
		switch e.Event {
		case conversation.EventPin:
			var pd conversation.PinData
			if len(e.Data) > 0 {
				_ = json.Unmarshal(e.Data, &pd) // a pin without data still pins
			}
			if pd.Text == "" {
				if j, ok := b.ids[e.RefMsgID]; ok {
					pd.Role, pd.Tool, pd.Text = h[j].Role, h[j].ToolName, conversation.ClipCarried(h[j].Text())
				}
			}
			set(conversation.Carried{ID: e.RefMsgID, Role: pd.Role, Tool: pd.Tool, Kind: conversation.CarriedPin, Text: pd.Text})
		case conversation.EventUnpin:
			b.pins = slices.DeleteFunc(b.pins, func(p Pin) bool { return p.ID == e.RefMsgID && p.Kind == conversation.CarriedPin })
		}
	}
	b.dropEndedPins()
}

// callDrop records a tool call dropped from assistant entry `entry`.
type callDrop struct {
	entry int32
	Decision
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// assemble writes the request messages, rows, spans and decisions.
func (b *builder) assemble(sel selection, sysReasons []string) {
	res := b.res
	dbg := &res.Debug
	n := len(b.sys) + len(b.inj) + len(sel.summaries) + 3
	for i := range sel.before {
		if !sel.trimmed[i] {
			n += len(sel.before[i].items)
		}
	}
	for i := range sel.after {
		n += len(sel.after[i].items)
	}
	for i := sel.refillFrom; i < len(sel.refill); i++ {
		n += len(sel.refill[i].items)
	}
	res.Spans = make([]Span, 0, len(sel.before)+len(sel.after)+len(sel.refill)-sel.refillFrom+1)
	res.Messages = make([]Message, 0, n)
	dbg.Rows = make([]Row, 0, n)
	dbg.Kept = make([]Decision, 0, n)
	dbg.Compressed = []Decision{}
	push := func(m Message, reason string) {
		dbg.Rows = append(dbg.Rows, Row{Index: len(res.Messages), Role: m.Role, SourceID: m.SourceID, Tokens: m.Tokens, Kind: m.Kind, Reason: reason})
		res.Messages = append(res.Messages, m)
		dbg.UsedTokens += m.Tokens
		dbg.UsedChars += CharsOf(&m)
		switch m.Kind {
		case KindSystem:
			dbg.Counts.System++
		case KindInjection:
			dbg.Counts.Injections++
		case KindRecall, KindPinned:
		default:
			dbg.Counts.History++
		}
	}
	for i, m := range b.sys {
		push(m, sysReasons[i])
	}
	pushUnit := func(u *unit, part string, reasonOf func(it item) string) {
		span := Span{Part: part, Index: len(res.Messages), Count: len(u.items), Tokens: u.tokens, Chars: u.chars}
		for k, it := range u.items {
			m := b.message(it)
			reason := reasonOf(it)
			if reason == "" {
				reason = b.keptReason(u, k)
			}
			push(m, reason)
			if it.entry < 0 {
				dbg.Counts.Synthetic++
				continue
			}
			e := &b.opts.History[it.entry]
			span.SourceIDs = append(span.SourceIDs, e.ID)
			if b.isPinned(e.ID) {
				span.Pinned = true
			}
			dbg.Kept = append(dbg.Kept, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: reason})
			switch _, pv := b.previews[it.entry]; {
			case pv:
				dbg.Compressed = append(dbg.Compressed, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "compressed: tool result sent as a preview (safety net: over the token budget)"})
			case b.omitted(it.entry):
				dbg.Compressed = append(dbg.Compressed, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "compressed: content omitted (includeToolResultsInContext is off)"})
			case e.FullOutputPath != "" && e.Role == conversation.RoleTool:
				dbg.Compressed = append(dbg.Compressed, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "compressed: stored as a preview; full output at " + e.FullOutputPath})
			}
		}
		res.Spans = append(res.Spans, span)
	}
	plain := func(item) string { return "" }
	for k, i := range sel.summaries {
		if sel.dropSum[k] {
			continue
		}
		e := &b.opts.History[i]
		m := Message{Role: conversation.RoleSystem, Content: e.Content, SourceID: e.ID, Kind: KindSummary, Tokens: b.summaryTokens(i)}
		push(m, "kept: summary of compacted messages (moved to the start of the history)")
		dbg.Kept = append(dbg.Kept, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "kept: summary of compacted messages"})
	}
	if sel.pinBlock != nil {
		quoted := 0
		for _, p := range b.pins {
			if !p.InHistory && !p.Dropped {
				quoted++
			}
		}
		push(*sel.pinBlock, fmt.Sprintf("pinned: %d compacted message(s) kept word for word", quoted))
	}
	for k := sel.refillFrom; k < len(sel.refill); k++ {
		pushUnit(&sel.refill[k], PartRefill, func(item) string { return ReasonRefill })
	}
	for k := range sel.before {
		if sel.trimmed[k] {
			u := &sel.before[k]
			span := Span{Part: PartBefore, Index: -1, Count: len(u.items), Tokens: u.tokens, Chars: u.chars, Trimmed: true}
			for _, it := range u.items {
				if it.entry >= 0 {
					span.SourceIDs = append(span.SourceIDs, b.opts.History[it.entry].ID)
				}
			}
			span.Pinned = b.unitPinned(u)
			res.Spans = append(res.Spans, span)
			continue
		}
		pushUnit(&sel.before[k], PartBefore, plain)
	}
	where := "at the end: no user message"
	switch {
	case sel.anchor != nil:
		where = "before the newest user message"
	case len(sel.after) > 0:
		where = "before the turn in progress: no user message"
	}
	if sel.recall != nil {
		push(*sel.recall, fmt.Sprintf("recall: %d compacted message(s) relevant to the newest message", len(dbg.Recalled)))
		dbg.RecallTokens = sel.recall.Tokens
		dbg.Counts.Recalled = len(dbg.Recalled)
	} else {
		dbg.Recalled = []RecallItem{}
	}
	for _, m := range b.inj {
		push(m, "injection: "+firstLine(m.Text())+" ("+where+")")
	}
	if sel.anchor != nil {
		res.Anchor = len(res.Messages)
		pushUnit(sel.anchor, PartAnchor, func(item) string { return "kept: newest user message" })
	}
	for i := range sel.after {
		pushUnit(&sel.after[i], PartAfter, plain)
	}
	dbg.UsedTokens += ReplyPriming + b.opts.ToolTokens
	if res.Pins = b.pins; res.Pins == nil {
		res.Pins = []Pin{}
	}
	for _, p := range b.pins {
		if !p.Dropped {
			dbg.Counts.Pinned++
		}
	}
	if res.Spans == nil {
		res.Spans = []Span{}
	}

	// Everything else, in log order.
	dbg.Dropped = []Decision{}
	drops := b.callDrops
	slices.SortStableFunc(drops, func(x, y callDrop) int { return cmp.Compare(x.entry, y.entry) })
	open := -1 // index in Dropped of the open run of equal reasons
	runFate := uint16(0)
	for i := range b.opts.History {
		for len(drops) > 0 && drops[0].entry == int32(i) {
			dbg.Dropped = append(dbg.Dropped, drops[0].Decision)
			dbg.Counts.Dropped++
			drops = drops[1:]
			open = -1
		}
		f := b.fate[i]
		if f == fateNone {
			continue // events do not break a run
		}
		if f < fateReason {
			open = -1
			continue
		}
		e := &b.opts.History[i]
		dbg.Counts.Dropped++
		if open >= 0 && f == runFate {
			run := &dbg.Dropped[open]
			run.ThroughID = e.ID
			run.Count++
			if run.Role != e.Role {
				run.Role = ""
			}
			continue
		}
		dbg.Dropped = append(dbg.Dropped, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: b.reasons[f-fateReason]})
		open, runFate = len(dbg.Dropped)-1, f
	}
	for i := range b.opts.History {
		if b.fate[i] == fateRecord {
			e := &b.opts.History[i]
			dbg.Kept = append(dbg.Kept, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "kept: runtime record, quoted in the PINNED message"})
		}
	}
	dbg.Counts.Kept = len(dbg.Kept)
	dbg.Counts.Compressed = len(dbg.Compressed)
	if len(b.inj) == 0 && b.opts.Mode == conversation.ModeRun {
		dbg.Notes = append(dbg.Notes, "the run injector returned no blocks")
	}
}

// keptReason explains why item k of kept unit u is in the request.
func (b *builder) keptReason(u *unit, k int) string {
	it := u.items[k]
	if it.entry < 0 {
		return "synthetic: interrupted tool call"
	}
	e := &b.opts.History[it.entry]
	_, pv := b.previews[it.entry]
	switch {
	case pv:
		return "kept: tool result as a preview + full output path (safety net)"
	case e.PartType == conversation.PartError:
		return "kept: error part as an assistant message"
	case k > 0 && it.callID != "":
		return "kept: tool result (call id " + e.ToolCallID + " reused later; renamed " + it.callID + ")"
	case k > 0 && !b.inPlace(u, k):
		return "kept: tool result (moved to follow its call)"
	case k == 0 && len(u.items) > 1 && b.calls[it.entry] != nil && hasRenamed(b.calls[it.entry], e.ToolCalls):
		return "kept: tool call ids reused later were renamed"
	case b.omitted(it.entry):
		return "kept: tool result omitted (includeToolResultsInContext is off)"
	case e.Role == conversation.RoleTool && e.FullOutputPath != "":
		return "kept: tool result preview + full output path"
	case b.skillBody[e.ID] != "":
		return "kept: body of the active skill " + b.skillBody[e.ID] + " (pinned while it is active)"
	case b.isPinned(e.ID):
		return "kept: pinned"
	case e.PartType == conversation.PartRecord:
		return "kept: runtime record"
	}
	return "kept"
}

// inPlace reports whether result k of u was logged after its call with no other
// kept message in between (so it was not moved).
func (b *builder) inPlace(u *unit, k int) bool {
	call, r := u.items[0].entry, u.items[k].entry
	if r < call {
		return false
	}
	for j := call + 1; j < r; j++ {
		if b.fate[j] != fateKept {
			continue
		}
		own := false
		for _, it := range u.items[1:] {
			own = own || it.entry == j
		}
		if !own {
			return false
		}
	}
	return true
}

func hasRenamed(calls, stored []conversation.ToolCall) bool {
	for _, c := range calls {
		found := false
		for _, s := range stored {
			found = found || s.ID == c.ID
		}
		if !found {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40])
	}
	return s
}

// Preview sizes (runes) of PreviewToolResult.
const (
	PreviewMinChars = 800
	previewHead     = 400
	previewTail     = 200
)

// ToolPreviewPrefix starts a tool result the safety net sent as a preview.
const ToolPreviewPrefix = "TOOL_RESULT_PREVIEW"

// PreviewToolResult returns the preview of a long tool result: tool name,
// status, original size, the first and last characters, and where the full
// output can be read (its alias path; fs.read pages through it with
// startLine/endLine). ok is false when the result is short enough as it is.
func PreviewToolResult(e *conversation.Entry) (string, bool) {
	content := e.Text()
	n := utf8.RuneCountInString(content)
	if n <= PreviewMinChars || n <= previewHead+previewTail+200 {
		return "", false
	}
	name := e.ToolName
	if name == "" {
		name = "unknown"
	}
	size := len(content)
	alias := e.FullOutputPath
	if !strings.HasPrefix(alias, "@") {
		alias = ""
	}
	if alias != "" {
		if s, ok := previewSize(content); ok {
			size = s
		}
	}
	status := "ok"
	if strings.Contains(headRunes(content, 200), `"ok":false`) || e.IsError {
		status = "error"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\n- tool: %s\n- status: %s\n- original: %d bytes\n", ToolPreviewPrefix, name, status, size)
	sb.WriteString(headRunes(content, previewHead))
	fmt.Fprintf(&sb, "\n[… %d characters left out of this request …]\n", n-previewHead-previewTail)
	sb.WriteString(tailRunes(content, previewTail))
	if alias != "" {
		sb.WriteString("\nFull output: " + alias)
		if text, ok := strings.CutSuffix(alias, ".json"); ok && strings.HasPrefix(alias, conversation.ToolResultAliasPrefix) {
			// the store writes a readable copy beside it, one line per line of output
			sb.WriteString("\nRead it in parts: fs.read " + text + ".txt with startLine/endLine, or fs.search it.")
		} else {
			sb.WriteString(" — read it with fs.read (startLine/endLine to page through it)")
		}
	} else {
		sb.WriteString("\n(the full output is in the conversation log only)")
	}
	return sb.String(), true
}

// headRunes returns the first n runes of s.
func headRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// tailRunes returns the last n runes of s.
func tailRunes(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}
