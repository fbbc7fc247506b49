package compression

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
)

// Summarizer writes a summary of messages. The engine implements it with the
// LLM client (the configured summary model, or the main model); SummaryRequest
// builds the request it should send.
type Summarizer interface {
	Summarize(ctx context.Context, msgs []Message) (string, error)
}

// LLMSummary is the v2 strategy: key-message extraction decides what is
// dropped, and an LLM summary of the dropped messages (merged with any earlier
// summary, which it replaces) enters as a CONVERSATION_SUMMARY system message
// at the start of the history, right after the system prompt. When the
// summarizer fails, the key-message result is returned (Output.SummaryError
// says why).
type LLMSummary struct {
	summarizer Summarizer
	base       *KeyMessages
	// reserve is the room kept for the summary (0: min(1024, target/4)).
	reserve int
}

// NewLLMSummary returns the v2 strategy. base may be nil (default v1);
// reserve is the number of tokens set aside for the summary (0 = default).
func NewLLMSummary(s Summarizer, base *KeyMessages, reserve int) *LLMSummary {
	if base == nil {
		base = NewKeyMessages(KeyMessageConfig{})
	}
	return &LLMSummary{summarizer: s, base: base, reserve: reserve}
}

// Name implements Strategy.
func (l *LLMSummary) Name() string { return NameLLMSummary }

// isOldSummary reports whether m is a summary-class system message of the history.
func isOldSummary(m *Message) bool {
	return m.Role == convlog.RoleSystem && m.Kind != contextbuilder.KindSystem && contextbuilder.IsSummary(m.Text())
}

// Compress implements Strategy.
func (l *LLMSummary) Compress(ctx context.Context, in Input) (*Output, error) {
	if in.Counter == nil {
		return nil, ErrNoCounter
	}
	if contextbuilder.TokensOf(in.Messages) <= in.Target {
		out, err := l.base.Compress(ctx, in)
		if out != nil {
			out.Strategy = l.Name()
		}
		return out, err
	}
	reserve := l.reserve
	if reserve <= 0 {
		reserve = min(1024, in.Target/4)
	}
	narrowed := in
	narrowed.Target = in.Target - reserve
	v1, err := l.base.Compress(ctx, narrowed)
	if err != nil {
		return nil, err
	}

	// What the summary replaces: earlier summaries and every dropped unit.
	var old []int
	for i := range in.Messages {
		if isOldSummary(&in.Messages[i]) {
			old = append(old, i)
		}
	}
	var toSummarise []Message
	for _, i := range old {
		toSummarise = append(toSummarise, in.Messages[i])
	}
	dropped := 0
	for _, ex := range v1.Explanation {
		if ex.Decision == "dropped" {
			toSummarise = append(toSummarise, in.Messages[ex.Index:ex.Index+ex.Count]...)
			dropped += ex.Count
		}
	}
	if dropped == 0 {
		v1.Strategy = l.Name()
		v1.Notes = append(v1.Notes, "nothing was dropped; no summary needed")
		return v1, nil
	}

	text, err := l.summarizer.Summarize(ctx, toSummarise)
	text = strings.TrimSpace(text)
	if err == nil && text == "" {
		err = errors.New("the summary is empty")
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return l.fallback(ctx, in, err)
	}
	text = strings.TrimSpace(strings.TrimPrefix(text, contextbuilder.ConversationSummaryPrefix))

	// Replace the earlier summaries by the new one, after the system prompt.
	msgs := make([]Message, 0, len(v1.Messages)+1)
	var oldIDs []string
	loop := v1.LoopStart
	for i := range v1.Messages {
		if isOldSummary(&v1.Messages[i]) {
			if id := v1.Messages[i].SourceID; id != "" {
				oldIDs = append(oldIDs, id)
			}
			if i < v1.LoopStart {
				loop--
			}
			continue
		}
		msgs = append(msgs, v1.Messages[i])
	}
	at := 0
	for at < len(msgs) && msgs[at].Kind == contextbuilder.KindSystem {
		at++
	}
	room := in.Target - contextbuilder.TokensOf(msgs)
	summary, ok := l.fit(&in, text, room)
	if !ok {
		return l.fallback(ctx, in, fmt.Errorf("no room for the summary (%d tokens left)", room))
	}
	msgs = append(msgs[:at], append([]Message{summary}, msgs[at:]...)...)
	if at <= loop {
		loop++
	}

	out := *v1
	out.Strategy = l.Name()
	out.Messages = msgs
	out.LoopStart = loop
	out.Target = in.Target
	out.Notes = append([]string{}, v1.Notes...)
	out.SummaryText = strings.TrimPrefix(summary.Text(), contextbuilder.ConversationSummaryPrefix+"\n")
	out.Dropped = append(append([]string{}, v1.Dropped...), oldIDs...)
	out.TokensAfter = contextbuilder.TokensOf(msgs)
	// Only the narrowed target may have been missed; the summary fits the real one.
	out.OverTarget = out.TokensAfter > in.Target
	if v1.OverTarget && !out.OverTarget {
		out.Notes = []string{fmt.Sprintf("the key-message pass aimed at %d tokens to leave room for the summary", narrowed.Target)}
	}
	out.Notes = append(out.Notes, fmt.Sprintf("summary of %d messages inserted at index %d", len(toSummarise), at))
	return &out, nil
}

// fit returns the summary message, shortened until it costs at most room tokens.
func (l *LLMSummary) fit(in *Input, text string, room int) (Message, bool) {
	for try := 0; try < 6; try++ {
		content := contextbuilder.ConversationSummaryPrefix + "\n" + text
		m := Message{Role: convlog.RoleSystem, Content: &content, Kind: contextbuilder.KindHistory}
		m.Tokens = count(in, &m)
		if m.Tokens <= room {
			return m, true
		}
		n := utf8.RuneCountInString(text)
		keep := n * room / m.Tokens * 9 / 10
		if keep < 40 {
			break
		}
		text = headRunes(text, keep) + " …"
	}
	return Message{}, false
}

// fallback returns the key-message result for the full target, noting why the
// summary is missing.
func (l *LLMSummary) fallback(ctx context.Context, in Input, cause error) (*Output, error) {
	out, err := l.base.Compress(ctx, in)
	if err != nil {
		return nil, err
	}
	out.SummaryError = cause.Error()
	out.Notes = append(out.Notes, "summary failed ("+cause.Error()+"); used the key-message result")
	return out, nil
}

// SummaryPrompt is the system prompt of a summary request.
const SummaryPrompt = `You compress a conversation between a user and CrewAgent, a desktop agent runtime, so the work can continue without the full history.

Write 200 to 500 words in the language of the conversation, as short plain-text bullet points under these headings:
- Goals and requirements: what the user wants, with exact names, values, numbers and file paths.
- Decisions: what was decided and why.
- Files and artifacts: alias paths read, written or saved, and what they contain.
- Workflow progress: completed and current nodes, if a workflow run is involved.
- Open items: unanswered questions, errors, and the next step that was pending.

If the transcript starts with an earlier CONVERSATION_SUMMARY, merge it in and keep what is still true. Do not invent anything, do not address the user, and output only the summary.`

// SummaryRequest returns the messages to send to the LLM to summarise msgs:
// SummaryPrompt and a transcript of at most maxChars characters
// (0 = 48000). Long messages are cut; when the transcript is too long, its
// middle is left out.
func SummaryRequest(msgs []Message, maxChars int) []Message {
	if maxChars <= 0 {
		maxChars = 48000
	}
	t := Transcript(msgs, maxChars)
	return []Message{
		{Role: convlog.RoleSystem, Content: convlog.Str(SummaryPrompt), Kind: contextbuilder.KindSystem},
		{Role: convlog.RoleUser, Content: &t, Kind: contextbuilder.KindHistory},
	}
}

// Transcript renders msgs as plain text for a summary, within maxChars.
func Transcript(msgs []Message, maxChars int) string {
	const perMessage = 2000
	lines := make([]string, 0, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		label := m.Role
		switch {
		case m.Role == convlog.RoleTool && m.Name != "":
			label = "tool " + m.Name + " result"
		case m.Role == convlog.RoleSystem:
			label = "earlier summary"
		}
		var b strings.Builder
		if text := strings.TrimSpace(m.Text()); text != "" {
			fmt.Fprintf(&b, "[%s] %s", label, clip(text, perMessage))
		}
		for _, tc := range m.ToolCalls {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "[%s calls %s] %s", label, tc.Function.Name, clip(tc.Function.Arguments, 400))
		}
		if b.Len() > 0 {
			lines = append(lines, b.String())
		}
	}
	total := 0
	for _, l := range lines {
		total += utf8.RuneCountInString(l) + 2
	}
	if total <= maxChars {
		return strings.Join(lines, "\n\n")
	}
	// Keep the start and the end, leave out the middle.
	var head, tail []string
	budget := maxChars - 80
	for i, j := 0, len(lines)-1; i <= j; {
		l := lines[i]
		if len(head) > len(tail) {
			l = lines[j]
		}
		n := utf8.RuneCountInString(l) + 2
		if n > budget {
			break
		}
		budget -= n
		if len(head) > len(tail) {
			tail = append(tail, l)
			j--
		} else {
			head = append(head, l)
			i++
		}
	}
	omitted := len(lines) - len(head) - len(tail)
	for a, b := 0, len(tail)-1; a < b; a, b = a+1, b-1 {
		tail[a], tail[b] = tail[b], tail[a]
	}
	parts := append(head, fmt.Sprintf("[… %d messages left out …]", omitted))
	return strings.Join(append(parts, tail...), "\n\n")
}

// clip shortens s to about n characters, keeping its start and end.
func clip(s string, n int) string {
	c := utf8.RuneCountInString(s)
	if c <= n {
		return s
	}
	head := n * 3 / 4
	tail := n - head
	return headRunes(s, head) + fmt.Sprintf(" […%d chars…] ", c-head-tail) + tailRunes(s, tail)
}
