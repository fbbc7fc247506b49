package compression

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// Summarizer writes a summary with an LLM: the engine implements it with the
// LLM client (the configured summary model, or the main model), sending the
// messages SummaryRequest returns.
type Summarizer interface {
	Summarize(ctx context.Context, msgs []Message) (string, error)
}

// SummaryPrompt is the system prompt of a summary request. It asks for the
// classes of facts the digest keeps.
const SummaryPrompt = `You compress the older part of a conversation between a user and CrewAgent, a desktop agent runtime, so the work can continue without it. What you write replaces those messages for good: anything you leave out is lost.

Keep, as short plain-text bullet points in the language of the conversation, every:
- requirement and constraint the user stated (must, never, always, limits, deadlines, budgets), in the user's own words;
- decision that was made, and what it replaced;
- file path, alias path (@project/…), command, URL and identifier that matters;
- number with its context: amounts with currency, dates, versions, ports, sizes, limits, counts;
- name of a person, team, product, service or component;
- error, failure and finding, including facts that only a tool's output showed;
- open question and the next step that was pending.

Start each bullet with the id of the message it comes from, as given in the transcript (#xxxxxxxx). Under these headings: Requirements and decisions, Errors and findings, Facts, files and numbers, Open items. If the transcript starts with an earlier summary, merge it in and keep what is still true. Do not invent anything, do not address the user, and output only the summary.`

// SummaryRequest returns the messages of a summary request: SummaryPrompt
// (with the focus and the length the summary may take) and a transcript of
// at most maxChars characters (0 = 48000). Long messages are cut; when the
// transcript is too long, its middle is left out.
func SummaryRequest(msgs []Message, focus string, maxWords, maxChars int) []Message {
	if maxChars <= 0 {
		maxChars = 48000
	}
	prompt := SummaryPrompt
	if maxWords > 0 {
		prompt += fmt.Sprintf("\n\nUse at most %d words.", maxWords)
	}
	if f := strings.TrimSpace(focus); f != "" {
		prompt += "\n\nThe user asked this compaction to focus on: " + oneLineText(f) + ". Keep everything about it in full detail."
	}
	t := Transcript(msgs, maxChars)
	return []Message{
		{Role: conversation.RoleSystem, Content: conversation.Str(prompt), Kind: contextbuilder.KindSystem},
		{Role: conversation.RoleUser, Content: &t, Kind: contextbuilder.KindHistory},
	}
}

// Transcript renders msgs as plain text for a summary, within maxChars: one
// paragraph per message, "[#id role] text".
func Transcript(msgs []Message, maxChars int) string {
	const perMessage = 2000
	lines := make([]string, 0, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		label := m.Role
		switch {
		case m.Role == conversation.RoleTool && m.Name != "":
			label = "tool " + m.Name + " result"
		case m.Role == conversation.RoleSystem:
			label = "earlier summary"
		}
		if m.SourceID != "" {
			label = contextbuilder.Cite(m.SourceID) + " " + label
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

// tailRunes returns the last n runes of s.
func tailRunes(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// llmSummary writes the summary with the summarizer: the same header and
// task as the digest, then the model's text, cut at a line boundary to the
// budget.
func llmSummary(ctx context.Context, c Config, in digestInput) (string, error) {
	var msgs []Message
	for _, p := range in.previous {
		p := parseDigest(p)
		var b strings.Builder
		for _, l := range p.lines {
			b.WriteString(renderLine(&l) + "\n")
		}
		if b.Len() > 0 {
			msgs = append(msgs, Message{Role: conversation.RoleSystem, Content: conversation.Str(b.String())})
		}
	}
	var tk *task
	if in.block {
		tk = &task{} // the first block has it
	}
	for _, p := range in.previous {
		if t := parseDigest(p).task; t != nil {
			tk = t
			break
		}
	}
	for i := range in.entries {
		e := &in.entries[i]
		if in.skip[e.ID] {
			continue
		}
		if tk == nil && e.Role == conversation.RoleUser && !e.IsMeta && strings.TrimSpace(e.Text()) != "" {
			tk = &task{cite: contextbuilder.Cite(e.ID), text: strings.TrimSpace(e.Text())}
		}
		m := Message{Role: e.Role, Content: e.Content, ToolCalls: e.ToolCalls, Name: e.ToolName, SourceID: e.ID}
		if e.Role == conversation.RoleTool {
			m.Content = conversation.Str(unwrapJSON(e.Text()))
		}
		msgs = append(msgs, m)
	}
	count := func(s string) int { return c.Counter.Count(c.Model, s) }
	if tk != nil && count(tk.text) > min(in.budget/3, 2000) {
		tk = &task{cite: tk.cite, text: clip(tk.text, in.budget/3*3), keyLines: true}
	}
	var header string
	if in.block {
		header = renderBlockHeader(in.entries, in.focus) + "\n\n" + llmBodyTitle
	} else {
		header = renderHeader(in.total, in.focus, tk) + "\n\n" + llmBodyTitle
	}
	room := in.budget - count(header) - contextbuilder.MessageOverhead - 2
	if room < 32 {
		return "", errors.New("no room for a summary")
	}
	text, err := c.Summarizer.Summarize(ctx, SummaryRequest(msgs, in.focus, room*2/3, 0))
	if err != nil {
		return "", err
	}
	text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), contextbuilder.ConversationSummaryPrefix))
	if text == "" {
		return "", errors.New("the summary is empty")
	}
	lines := strings.Split(text, "\n")
	for len(lines) > 0 && count(strings.Join(lines, "\n")) > room {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return "", errors.New("the summary does not fit its budget")
	}
	return header + "\n" + strings.Join(lines, "\n"), nil
}
