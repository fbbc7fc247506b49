package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"crewagent/backend/app"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/engine"
)

func cmdContext(e *env, rest []string) error {
	mode := e.args.get("mode")
	switch mode {
	case "", conversation.ModeChat, conversation.ModeAgent, conversation.ModeRun:
	default:
		return fmt.Errorf("--mode must be chat, agent or run, got %q", mode)
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	p, err := ws.Explain(e.ctx, app.ExplainRequest{ConversationID: rest[0], Mode: mode, AgentID: e.args.get("agent"), All: e.args.has("all")})
	if err != nil {
		return err
	}
	return e.print(p, func() { writePreview(e.stdout, p) })
}

// writePreview renders a preview for people: the request one line per
// message, the tools as sent, the usage, what happened to the rest of the
// conversation (summary, pins, recall, compactions), and the decisions with
// their reasons.
func writePreview(w io.Writer, p *engine.Preview) {
	agent := ""
	if p.AgentID != "" {
		agent = "  agent " + p.AgentID
	}
	fmt.Fprintf(w, "conversation %s  mode %s%s  model %s\n", p.ConversationID, p.Mode, agent, valueOrNone(p.Model))
	u := p.Usage
	fmt.Fprintf(w, "usage: %d of %d tokens (%.1f%%), %d remaining, status %s; tool definitions %d tokens\n",
		u.UsedTokens, u.TotalBudget, u.UsagePercent, u.Remaining, u.Status, p.ToolTokens)
	c := p.Conversation
	fmt.Fprintf(w, "conversation: %d messages in the log, %d compacted in %d compaction(s); %d entries read for this request\n",
		c.Messages, c.Compacted, len(c.Compactions), c.Loaded)
	if r := u.Reported; r != nil && r.Calls > 0 {
		fmt.Fprintf(w, "reported by the server: %d calls, %d prompt tokens, %d of them from its prompt cache (%.0f%%)",
			r.Calls, r.PromptTokens, r.CachedTokens, share(r.CachedTokens, r.PromptTokens))
		if l := r.Last; l != nil {
			fmt.Fprintf(w, "; the last call %d of %d (%.0f%%)", l.CachedTokens, l.PromptTokens, share(l.CachedTokens, l.PromptTokens))
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "\nrequest: %d messages\n", len(p.Messages))
	for _, m := range p.Messages {
		fmt.Fprintf(w, "  #%-3d %-9s %6d tok  %s\n", m.Index, m.Role, m.Tokens, firstLineOf(m))
		fmt.Fprintf(w, "        %s\n", m.Reason)
	}
	fmt.Fprintf(w, "tools (as sent): %s\n", valueOrNone(strings.Join(p.ToolNames, ", ")))

	if s := c.Summary; s != nil {
		fmt.Fprintf(w, "\nsummary %s (%d tokens):\n", s.ID, s.Tokens)
		lines := strings.Split(s.Text, "\n")
		for i, l := range lines {
			if i == 12 {
				fmt.Fprintf(w, "  … %d more lines (--json shows it whole)\n", len(lines)-i)
				break
			}
			fmt.Fprintf(w, "  %s\n", clipRunes(l, 120))
		}
	}
	if len(c.Pins) > 0 {
		fmt.Fprintf(w, "\npinned and carried: %d\n", len(c.Pins))
		for _, pin := range c.Pins {
			where := "quoted in the PINNED message"
			switch {
			case pin.Dropped:
				where = "left out (over the budget)"
			case pin.InHistory:
				where = "in the history"
			}
			fmt.Fprintf(w, "  - %s %s (%s, %s): %s\n", pin.ID, pin.Role, pin.Kind, where, clipRunes(oneLine(pin.Text), 80))
		}
	}
	if len(c.Recalled) > 0 {
		fmt.Fprintf(w, "\nrecalled (compacted messages relevant to the newest one): %d\n", len(c.Recalled))
		for _, r := range c.Recalled {
			fmt.Fprintf(w, "  - %s %s: %s\n", r.ID, r.Role, r.Why)
		}
	}
	if cp := p.Compression; cp != nil {
		fmt.Fprintf(w, "\ncompaction before this request (%s): %d -> %d tokens; %d messages compacted (%s)\n",
			cp.Strategy, cp.Before.UsedTokens, cp.After.UsedTokens, cp.Data.Count, cp.Reason)
	}
	if len(c.Compactions) > 0 {
		fmt.Fprintf(w, "\ncompactions:\n")
		for _, x := range c.Compactions {
			fmt.Fprintf(w, "  - %s: %d messages %s .. %s (%s) %s\n", x.EventID, x.Count, valueOrNone(x.From), valueOrNone(x.To), valueOrNone(x.Reason), x.CreatedAt)
		}
	}

	d := p.Build
	fmt.Fprintf(w, "\nread: %d messages, %d events; in the request %d, left out %d, shortened %d\n",
		d.Counts.Messages, d.Counts.Events, d.Counts.Kept, d.Counts.Dropped, d.Counts.Compressed)
	writeDecisions(w, "left out", d.Dropped)
	writeDecisions(w, "shortened", d.Compressed)
	if c.Full {
		fmt.Fprintf(w, "\nevery message:\n")
		for _, f := range c.Entries {
			by := ""
			if f.Compaction != "" {
				by = " (compaction " + f.Compaction + ")"
			}
			fmt.Fprintf(w, "  %s %-9s %-9s %s%s\n", f.ID, f.Role, f.Fate, f.Reason, by)
		}
	}
	for _, n := range append(append([]string{}, d.Notes...), p.Notes...) {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func writeDecisions(w io.Writer, title string, ds []contextbuilder.Decision) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, d := range ds {
		ids := d.SourceID
		if d.ThroughID != "" {
			ids += " .. " + d.ThroughID
		}
		role := d.Role
		if role == "" {
			role = "mixed"
		}
		fmt.Fprintf(w, "  - %d %s %s: %s\n", d.Count, role, ids, d.Reason)
	}
}

// firstLineOf returns the first line of a message (or its tool calls), cut to
// 80 characters.
func firstLineOf(m engine.PreviewMessage) string {
	s := ""
	if m.Content != nil {
		s = strings.TrimSpace(*m.Content)
	}
	if s == "" && len(m.ToolCalls) > 0 {
		var calls []string
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.Function.Name+" "+tc.Function.Arguments)
		}
		s = "-> " + strings.Join(calls, "; ")
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:80]) + "…"
	}
	return s
}

func valueOrNone(s string) string { return orDefault(s, "(none)") }

// share is part as a percentage of whole (0 when whole is 0).
func share(part, whole int) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
