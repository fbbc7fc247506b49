// Package contextbuilder owns how one LLM request is built from the conversation
// log for chat, agent and run modes: system prompt, history, run blocks, budget.
//
// Build composes, in this order:
//
//  1. the system prompt, never persisted, one system message per section: base
//     rules (chat rules for chat and agent, run rules for run), tool policy,
//     persona (agent and run only) and the mode banner;
//  2. the summary-class system messages of the log (CONVERSATION_SUMMARY /
//     SUMMARY), moved to the start of the history;
//  3. the history in log order: events, compacted messages, includeInContext=false
//     messages, thinking parts and other historical system messages are left
//     out; error parts enter as assistant messages; each assistant message with
//     tool calls is directly followed by exactly one result per call (the last
//     one logged, moved next to its call; a synthetic TOOL_RESULT_INTERRUPTED
//     result when none was logged); results without a call are dropped;
//  4. in run mode, the injector's blocks as user messages placed immediately
//     before the newest user message (so that message stays the last user turn
//     and a tool loop that follows it stays intact), or at the end of the
//     request when the history has no user message.
//
// The newest user message is the last user message not marked is_meta (or the
// last user message when all are meta). When the request exceeds
// Budget.MaxMessages, Budget.MaxChars or TokenBudget-ReserveForResponse, the
// oldest history is trimmed first, a whole unit (one message, or one tool-call
// group) at a time: first the units before the newest user message (oldest
// first; once one is trimmed, every older one is too, so the history kept is
// one unbroken stretch), then summaries, then the units of the current turn
// after the newest user message (oldest first). The system prompt, the run
// blocks and the newest user message are never trimmed. Trimming is the
// safety net that keeps every request valid and in budget; the compression
// package does the actual reduction of long histories. Only the window that is
// kept is grouped and measured, so a build costs one cheap pass over the rest
// of the log.
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
// Token counts of log entries are the stored Entry.Tokens (an entry stored
// with 0 is counted once per build); only texts composed here are counted.
//
// With Options.OmitToolResults, each tool result logged before the newest user
// message enters as a one-line TOOL_RESULT_OMITTED stub (status, size, and
// the alias path to fs.read the full output from when it has one); the
// message itself stays, so every call is still answered.
//
// Reading only the end of a log: a build over the newest entries of a log
// equals the build over the whole log when the newest user message is a
// non-meta one among them and the backward scan stopped at one of their units
// for breaking a limit (everything older is then trimmed, tool results waiting
// for an older call included), provided no older entry is a summary-class
// message (summaries are kept wherever they are). Result.DependsOnOlder is
// false exactly then, so a caller can read the log from its end and stop.
package contextbuilder

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"crewagent/backend/convlog"
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

	issued    map[string]bool              // call ids claimed by newer messages
	calls     map[int32][]convlog.ToolCall // request calls of assistants whose stored calls changed
	callDrops []callDrop                   // single tool calls dropped from messages
	stubCost  map[int32]int                // tokens of omitted tool results, counted once
}

// Build builds the request for opts. It fails only on invalid options.
func Build(opts Options) (*Result, error) {
	switch opts.Mode {
	case convlog.ModeChat, convlog.ModeAgent, convlog.ModeRun:
	default:
		return nil, &Error{Code: CodeInvalidMode, Message: fmt.Sprintf("mode must be chat, agent or run, got %q", opts.Mode)}
	}
	if opts.Counter == nil {
		return nil, ErrNoCounter
	}
	if opts.Mode != convlog.ModeChat && opts.Agent == nil {
		return nil, &Error{Code: CodePersonaRequired, Message: opts.Mode + " mode needs a persona"}
	}
	if opts.Mode == convlog.ModeRun && opts.Run == nil {
		return nil, ErrRunInjectorRequired
	}
	b := &builder{opts: opts, budget: opts.Budget.withDefaults(), res: &Result{}}
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

	parts, err := composeSystem(opts.Mode, opts.Agent, opts.ToolPolicy, b.res.ToolNames)
	if err != nil {
		return nil, err
	}
	reasons := make([]string, 0, len(parts)+4)
	for _, p := range parts {
		m := Message{Role: convlog.RoleSystem, Content: convlog.Str(p.text), Kind: KindSystem}
		m.Tokens = CountMessage(opts.Counter, opts.Model, &m)
		b.sys = append(b.sys, m)
		reasons = append(reasons, p.name)
	}
	if opts.Mode == convlog.ModeRun {
		for _, block := range opts.Run.Blocks() {
			if strings.TrimSpace(block) == "" {
				continue
			}
			m := Message{Role: convlog.RoleUser, Content: convlog.Str(block), Kind: KindInjection}
			m.Tokens = CountMessage(opts.Counter, opts.Model, &m)
			b.inj = append(b.inj, m)
		}
	}

	b.filter()
	sel := b.selectHistory()
	b.assemble(sel, reasons)
	return b.res, nil
}

// usage is a running total checked against the three limits.
type usage struct{ tokens, msgs, chars int }

// exceeds returns the limit u breaks, or "".
func (b *builder) exceeds(u usage) string {
	switch {
	case b.budget.MaxMessages > 0 && u.msgs > b.budget.MaxMessages:
		return "maxMessages"
	case b.budget.MaxChars > 0 && u.chars > b.budget.MaxChars:
		return "maxChars"
	case u.tokens > b.res.Debug.TokenLimit:
		return "token budget"
	}
	return ""
}

// plus returns u with unit un added.
func (b *builder) plus(u usage, un *unit) usage {
	u.msgs += len(un.items)
	u.tokens += un.tokens
	u.chars += un.chars
	return u
}

// selection is what selectHistory keeps, each part in log order.
type selection struct {
	summaries []int32
	before    []unit // before the newest user message
	anchor    *unit
	after     []unit // after it (the current turn)
}

// selectHistory scans the log backward from the newest entry, building units
// and keeping them while they fit (see the package doc for the order), and
// stops building at the first unit that does not fit: everything older is
// trimmed. Only the kept window is grouped and measured, so the cost of a long
// log beyond the window is one cheap pass.
func (b *builder) selectHistory() selection {
	h := b.opts.History
	var sel selection
	used := usage{tokens: ReplyPriming + b.opts.ToolTokens}
	for _, ms := range [][]Message{b.sys, b.inj} {
		for i := range ms {
			used.tokens += ms[i].Tokens
			used.msgs++
			if b.budget.MaxChars > 0 {
				used.chars += CharsOf(&ms[i])
			}
		}
	}
	if b.anchor >= 0 {
		u := unit{items: []item{{entry: b.anchor}}}
		b.measure(&u)
		used = b.plus(used, &u)
		sel.anchor = &u
		b.fate[b.anchor] = fateKept
	}
	if limit := b.exceeds(used); limit != "" {
		b.res.Debug.OverBudget = true
		b.res.Debug.Notes = append(b.res.Debug.Notes, "the system prompt, run blocks and newest user message alone exceed the "+limit+"; the request is over budget")
	}

	var waiting map[string]int32 // call id -> newest result not yet paired
	stop := ""
	current := b.anchor >= 0          // scanning the current turn (after the anchor)
	var trimCurrent, trimOlder uint16 // fates of trimmed entries, once stop is set
	trimmed := func() uint16 {
		if trimOlder == 0 {
			trimCurrent = b.reason("trimmed: over " + stop + " (current turn)")
			trimOlder = b.reason("trimmed: over " + stop)
		}
		if current {
			return trimCurrent
		}
		return trimOlder
	}
	keepSummaries := func() {
		for k := len(b.summaries) - 1; k >= 0; k-- {
			i := b.summaries[k]
			u := unit{items: []item{{entry: i}}}
			b.measure(&u)
			next := b.plus(used, &u)
			if limit := b.exceeds(next); limit != "" {
				b.fate[i] = b.reason("trimmed: over " + limit + " (summary)")
				continue
			}
			used = next
			b.fate[i] = fateKept
			sel.summaries = append(sel.summaries, i)
		}
		reverse(sel.summaries)
	}
	if !current {
		keepSummaries()
	}
	for i := int32(len(h)) - 1; i >= 0; i-- {
		if b.fate[i] != fateCandidate && i != b.anchor {
			continue
		}
		if i == b.anchor {
			current = false
			keepSummaries()
			continue
		}
		if stop != "" {
			b.fate[i] = trimmed()
			continue
		}
		e := &h[i]
		var u unit
		switch role := requestRole(e); {
		case role == convlog.RoleTool:
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
		case role == convlog.RoleAssistant && len(e.ToolCalls) > 0 && e.PartType != convlog.PartError:
			var ok bool
			if u, ok = b.groupUnit(i, waiting); !ok {
				b.fate[i] = b.reason("dropped: empty assistant message")
				continue
			}
		case role == convlog.RoleAssistant && e.Text() == "":
			b.fate[i] = b.reason("dropped: empty assistant message")
			continue
		default:
			u = unit{items: []item{{entry: i}}}
		}
		b.measure(&u)
		next := b.plus(used, &u)
		if stop = b.exceeds(next); stop != "" {
			for _, it := range u.items {
				if it.entry >= 0 {
					b.fate[it.entry] = trimmed()
				}
			}
			for _, r := range waiting {
				b.fate[r] = trimmed()
			}
			waiting = nil
			continue
		}
		used = next
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
	b.res.DependsOnOlder = stop == "" || b.anchor < 0 || h[b.anchor].IsMeta
	reverse(sel.after)
	reverse(sel.before)
	return sel
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

// assemble writes the request messages, rows and decisions.
func (b *builder) assemble(sel selection, sysReasons []string) {
	res := b.res
	dbg := &res.Debug
	n := len(b.sys) + len(b.inj) + len(sel.summaries)
	for _, us := range [][]unit{sel.before, sel.after} {
		for i := range us {
			n += len(us[i].items)
		}
	}
	if sel.anchor != nil {
		n++
	}
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
		default:
			dbg.Counts.History++
		}
	}
	for i, m := range b.sys {
		push(m, sysReasons[i])
	}
	pushUnit := func(u *unit, reasonOf func(it item) string) {
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
			dbg.Kept = append(dbg.Kept, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: reason})
			switch {
			case b.omitted(it.entry):
				dbg.Compressed = append(dbg.Compressed, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "compressed: content omitted (includeToolResultsInContext is off)"})
			case e.FullOutputPath != "" && e.Role == convlog.RoleTool:
				dbg.Compressed = append(dbg.Compressed, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "compressed: stored as a preview; full output at " + e.FullOutputPath})
			}
		}
	}
	plain := func(item) string { return "" }
	for _, i := range sel.summaries {
		pushUnit(&unit{items: []item{{entry: i}}}, func(item) string {
			return "kept: summary-class system message (moved to the start of the history)"
		})
	}
	for i := range sel.before {
		pushUnit(&sel.before[i], plain)
	}
	where := "at the end: no user message"
	if sel.anchor != nil {
		where = "before the newest user message"
	}
	for _, m := range b.inj {
		push(m, "injection: "+firstLine(m.Text())+" ("+where+")")
	}
	if sel.anchor != nil {
		pushUnit(sel.anchor, func(item) string { return "kept: newest user message" })
	}
	for i := range sel.after {
		pushUnit(&sel.after[i], plain)
	}
	dbg.UsedTokens += ReplyPriming + b.opts.ToolTokens

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
	dbg.Counts.Kept = len(dbg.Kept)
	dbg.Counts.Compressed = len(dbg.Compressed)
	if len(b.inj) == 0 && b.opts.Mode == convlog.ModeRun {
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
	switch {
	case e.PartType == convlog.PartError:
		return "kept: error part as an assistant message"
	case k > 0 && it.callID != "":
		return "kept: tool result (call id " + e.ToolCallID + " reused later; renamed " + it.callID + ")"
	case k > 0 && !b.inPlace(u, k):
		return "kept: tool result (moved to follow its call)"
	case k == 0 && len(u.items) > 1 && b.calls[it.entry] != nil && hasRenamed(b.calls[it.entry], e.ToolCalls):
		return "kept: tool call ids reused later were renamed"
	case b.omitted(it.entry):
		return "kept: tool result omitted (includeToolResultsInContext is off)"
	case e.Role == convlog.RoleTool && e.FullOutputPath != "":
		return "kept: tool result preview + full output path"
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

func hasRenamed(calls, stored []convlog.ToolCall) bool {
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
