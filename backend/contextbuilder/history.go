package contextbuilder

import (
	"strconv"
	"strings"

	"crewagent/backend/conversation"
)

// SyntheticToolResult is the content of the tool result the builder adds for a
// tool call that has none in the log (the run stopped before the tool finished).
const SyntheticToolResult = "TOOL_RESULT_INTERRUPTED: the tool call did not complete (the run was interrupted); call it again if still needed."

// EmptyToolResult stands in for a tool result stored with empty content:
// clients drop an empty content field, which the API rejects.
const EmptyToolResult = "(empty result)"

// Summary-class prefixes: historical system messages starting with one of
// these are kept (they are written by compression).
const (
	SummaryPrefix             = conversation.SummaryPrefix
	ConversationSummaryPrefix = conversation.ConversationSummaryPrefix
)

// IsSummary reports whether a system message content is summary-class
// (conversation.IsSummaryText, which the store uses for ConversationMeta.HasSummary).
func IsSummary(content string) bool { return conversation.IsSummaryText(content) }

// requestRole returns the role an entry takes in the request: error parts
// become assistant messages (so "continue" resumes from them) and developer
// messages count as system messages.
func requestRole(e *conversation.Entry) string {
	if e.PartType == conversation.PartError && e.Role != conversation.RoleTool {
		return conversation.RoleAssistant
	}
	if e.Role == conversation.RoleDeveloper {
		return conversation.RoleSystem
	}
	return e.Role
}

// IsUIEvent reports whether e is a legacy UI entry for tool activity: an
// assistant message with partType tool_start or tool_result and no tool calls
// (the old messages.json format stored a tool's start and result that way,
// collapsed in the chat). Sent as is, the model would read them as its own
// plain-text answers.
func IsUIEvent(e *conversation.Entry) bool {
	return e.Role == conversation.RoleAssistant && len(e.ToolCalls) == 0 &&
		(e.PartType == conversation.PartToolStart || e.PartType == conversation.PartToolResult)
}

// Fates of log entries. Values from fateReason on index builder.reasons.
const (
	fateNone      uint16 = iota // events: counted, not listed
	fateCandidate               // may enter the request
	fateSummary                 // summary-class system message, decided on its own
	fateRecord                  // runtime record: quoted in the PINNED message
	fateRefill                  // compacted, may come back word for word (Options.Refill)
	fateKept
	fateReason
)

// item is one history message of a unit: a log entry, or a synthetic result
// for call `call` of the assistant entry `owner`.
type item struct {
	entry  int32  // index into History, -1 for a synthetic result
	owner  int32  // synthetic: the assistant entry
	call   int32  // synthetic: index into the assistant's calls
	callID string // result: tool_call_id when it differs from the stored one
}

// unit is what trimming keeps or drops whole: one message, or an assistant
// message with tool calls followed by one result per call.
type unit struct {
	items  []item
	tokens int
	chars  int
}

// filter is the first pass over the whole log: it classifies every entry
// (left out with a reason, candidate, or summary) and finds the newest user
// message. It allocates nothing per entry.
func (b *builder) filter() {
	h := b.opts.History
	dbg := &b.res.Debug
	b.fate = make([]uint16, len(h))
	b.anchor = -1
	meta := int32(-1)
	for i := range h {
		e := &h[i]
		if e.IsEvent() {
			dbg.Counts.Events++
			continue
		}
		if !e.IsMessage() {
			b.fate[i] = b.reason("excluded: not a message entry")
			continue
		}
		dbg.Counts.Messages++
		switch {
		case e.Compacted:
			if b.opts.Refill.Limit > 0 && refillable(e) {
				b.fate[i] = fateRefill
				b.refills++
				continue
			}
			b.fate[i] = b.reason(reasonCompacted)
			continue
		case !e.InContext():
			b.fate[i] = b.reason("excluded: includeInContext=false")
			continue
		case b.ended[e.ID]:
			b.fate[i] = b.reason("excluded: body of a skill that is no longer active")
			continue
		case e.PartType == conversation.PartThinking:
			b.fate[i] = b.reason("excluded: thinking part")
			continue
		case !b.opts.IncludeCollapsedUIEvents && IsUIEvent(e):
			b.fate[i] = b.reason("excluded: collapsed UI event (includeCollapsedUiEventsInContext is off)")
			continue
		}
		switch requestRole(e) {
		case conversation.RoleSystem:
			switch {
			case e.PartType == conversation.PartRecord:
				b.fate[i] = fateRecord // quoted in the PINNED message (collectPins)
			case IsSummary(e.Text()):
				b.fate[i] = fateSummary
				b.summaries = append(b.summaries, int32(i))
			default:
				b.fate[i] = b.reason("dropped: historical system message")
			}
		case conversation.RoleUser:
			if strings.TrimSpace(e.Text()) == "" && len(e.Attachments) == 0 {
				b.fate[i] = b.reason("dropped: empty user message")
				continue
			}
			b.fate[i] = fateCandidate
			if e.IsMeta {
				meta = int32(i)
			} else {
				b.anchor = int32(i)
			}
		case conversation.RoleAssistant, conversation.RoleTool:
			b.fate[i] = fateCandidate
		default:
			b.fate[i] = b.reason("dropped: unknown role " + strconv.Quote(e.Role))
		}
	}
	if b.anchor < 0 {
		b.anchor = meta
	}
}

// reasonCompacted is why a compacted message is not in the request.
const reasonCompacted = "excluded: compacted (replaced by a compaction)"

// refillable reports whether compacted entry e may come back word for word:
// a user, assistant or tool message of the conversation itself (not a
// summary, a runtime record, a meta message, a thinking part, a legacy UI
// entry, or a message left out of the context).
func refillable(e *conversation.Entry) bool {
	switch {
	case !e.InContext(), e.IsMeta, e.PartType == conversation.PartThinking, e.PartType == conversation.PartRecord, IsUIEvent(e):
		return false
	}
	switch requestRole(e) {
	case conversation.RoleUser:
		return strings.TrimSpace(e.Text()) != "" || len(e.Attachments) > 0
	case conversation.RoleAssistant, conversation.RoleTool:
		return true
	}
	return false
}

// reason interns a reason text and returns its fate value.
func (b *builder) reason(text string) uint16 {
	if v, ok := b.reasonIdx[text]; ok {
		return v
	}
	if b.reasonIdx == nil {
		b.reasonIdx = make(map[string]uint16)
	}
	v := fateReason + uint16(len(b.reasons))
	b.reasons = append(b.reasons, text)
	b.reasonIdx[text] = v
	return v
}

// groupUnit builds the unit of assistant entry i with tool calls: each kept
// call is paired with the newest result logged after it and before any newer
// call with the same id (waiting holds those results, filled by the backward
// scan). Calls without an id and repeated ids within the message are dropped;
// an id a newer message reuses gets a suffix so ids stay unique in the request.
// ok is false when nothing is left to send.
func (b *builder) groupUnit(i int32, waiting map[string]int32) (u unit, ok bool) {
	e := &b.opts.History[i]
	calls := e.ToolCalls
	changed := false
	for j, tc := range calls {
		if tc.ID == "" || tc.Type != "function" {
			changed = true
		}
		for _, prev := range calls[:j] {
			if prev.ID == tc.ID {
				changed = true
			}
		}
	}
	if changed {
		out := make([]conversation.ToolCall, 0, len(calls))
	next:
		for _, tc := range calls {
			if tc.ID == "" {
				b.callDrops = append(b.callDrops, callDrop{i, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "dropped: tool call " + tc.Function.Name + " without id"}})
				continue
			}
			for _, prev := range out {
				if prev.ID == tc.ID {
					b.callDrops = append(b.callDrops, callDrop{i, Decision{SourceID: e.ID, Count: 1, Role: e.Role, Reason: "dropped: tool call with duplicate id " + tc.ID}})
					continue next
				}
			}
			tc.Type = "function" // the only tool call type the request shape carries
			out = append(out, tc)
		}
		calls = out
	}
	if len(calls) == 0 && e.Text() == "" {
		return unit{}, false
	}
	u.items = make([]item, 1, 1+len(calls))
	u.items[0] = item{entry: i}
	var renamed []conversation.ToolCall
	for j, tc := range calls {
		id := tc.ID
		r, found := waiting[id]
		if found {
			delete(waiting, id)
		}
		if b.issued[id] {
			// A newer message uses the same id: rename this older pair.
			if renamed == nil {
				renamed = append([]conversation.ToolCall(nil), calls...)
			}
			for k := 2; ; k++ {
				alt := id + "-" + strconv.Itoa(k)
				if !b.issued[alt] {
					id = alt
					break
				}
			}
			renamed[j].ID = id
		}
		if b.issued == nil {
			b.issued = make(map[string]bool)
		}
		b.issued[id] = true
		if found {
			it := item{entry: r}
			if id != tc.ID {
				it.callID = id
			}
			u.items = append(u.items, it)
		} else {
			u.items = append(u.items, item{entry: -1, owner: i, call: int32(j)})
		}
	}
	if renamed != nil {
		calls = renamed
	}
	if changed || renamed != nil {
		if b.calls == nil {
			b.calls = make(map[int32][]conversation.ToolCall)
		}
		b.calls[i] = calls
	}
	return u, true
}

// callsOf returns the request tool calls of assistant entry i.
func (b *builder) callsOf(i int32) []conversation.ToolCall {
	e := &b.opts.History[i]
	if requestRole(e) != conversation.RoleAssistant || e.PartType == conversation.PartError {
		return nil
	}
	if c, ok := b.calls[i]; ok {
		return c
	}
	return e.ToolCalls
}

// aliasLine is appended to an externalised tool result whose stored preview
// does not already name its full-output alias path.
func aliasLine(e *conversation.Entry) string {
	p := e.FullOutputPath
	if e.Role != conversation.RoleTool || !strings.HasPrefix(p, "@") || strings.Contains(e.Text(), p) {
		return ""
	}
	return "\nFull output: " + p
}

// message materialises item it as a request message.
func (b *builder) message(it item) Message {
	if it.entry < 0 {
		tc := b.callsOf(it.owner)[it.call]
		m := Message{Role: conversation.RoleTool, Content: conversation.Str(SyntheticToolResult), ToolCallID: tc.ID, Name: tc.Function.Name, Kind: KindHistory}
		m.Tokens = CountMessage(b.opts.Counter, b.opts.Model, &m)
		return m
	}
	e := &b.opts.History[it.entry]
	m := Message{Role: requestRole(e), Content: e.Content, SourceID: e.ID, Kind: KindHistory}
	if len(e.Attachments) > 0 && m.Role == conversation.RoleUser {
		text := e.RequestText()
		m.Content, m.Images = &text, e.Images()
	}
	switch m.Role {
	case conversation.RoleAssistant:
		if calls := b.callsOf(it.entry); len(calls) > 0 {
			m.ToolCalls = append([]conversation.ToolCall(nil), calls...)
		}
		if m.Content != nil && *m.Content == "" && len(m.ToolCalls) > 0 {
			m.Content = nil
		}
	case conversation.RoleTool:
		m.ToolCallID = e.ToolCallID
		if it.callID != "" {
			m.ToolCallID = it.callID
		}
		m.Name = e.ToolName
		if p, ok := b.previews[it.entry]; ok {
			m.Content = conversation.Str(p.text)
		} else if b.omitted(it.entry) {
			m.Content = conversation.Str(omittedResult(e))
		} else if l := aliasLine(e); l != "" {
			text := e.Text() + l
			m.Content = &text
		} else if e.Text() == "" {
			m.Content = conversation.Str(EmptyToolResult)
		}
	}
	m.Tokens = b.itemTokens(it)
	return m
}

// itemTokens returns what item it costs: the stored count of its entry (plus
// what an appended alias line or a renamed call id adds), or the count of a
// synthetic result.
func (b *builder) itemTokens(it item) int {
	c, model := b.opts.Counter, b.opts.Model
	if it.entry < 0 {
		tc := b.callsOf(it.owner)[it.call]
		m := Message{Role: conversation.RoleTool, Content: conversation.Str(SyntheticToolResult), ToolCallID: tc.ID, Name: tc.Function.Name}
		return CountMessage(c, model, &m)
	}
	e := &b.opts.History[it.entry]
	if p, ok := b.previews[it.entry]; ok {
		return p.tokens
	}
	if b.omitted(it.entry) {
		return b.omittedTokens(it)
	}
	n := entryTokens(c, model, e)
	if l := aliasLine(e); l != "" {
		n += c.Count(model, l)
	}
	if e.Role == conversation.RoleTool && e.Text() == "" {
		n += c.Count(model, EmptyToolResult)
	}
	if it.callID != "" {
		n += c.Count(model, it.callID) - c.Count(model, e.ToolCallID)
	}
	return n
}

// itemChars returns the characters item it adds to the request.
func (b *builder) itemChars(it item) int {
	if it.entry < 0 {
		return len(SyntheticToolResult)
	}
	e := &b.opts.History[it.entry]
	if p, ok := b.previews[it.entry]; ok {
		return runeCount(p.text)
	}
	if b.omitted(it.entry) {
		return runeCount(omittedResult(e))
	}
	n := runeCount(e.Text()) + runeCount(aliasLine(e))
	if e.Role == conversation.RoleTool && e.Text() == "" {
		n += len(EmptyToolResult)
	}
	if requestRole(e) == conversation.RoleAssistant {
		for _, tc := range b.callsOf(it.entry) {
			n += runeCount(tc.Function.Name) + runeCount(tc.Function.Arguments)
		}
	}
	return n
}

// measure fills the tokens of u, and its characters when MaxChars is set
// (counting runes is the one cost proportional to the text of the history).
func (b *builder) measure(u *unit) {
	u.tokens, u.chars = 0, 0
	for _, it := range u.items {
		u.tokens += b.itemTokens(it)
		if b.budget.MaxChars > 0 {
			u.chars += b.itemChars(it)
		}
	}
}
