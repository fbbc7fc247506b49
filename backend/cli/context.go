package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

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
	p, err := ws.Preview(e.ctx, rest[0], mode, e.args.get("agent"))
	if err != nil {
		return err
	}
	return e.print(p, func() { writePreview(e.stdout, p) })
}

// writePreview renders a preview for people: the request one line per
// message, the tools, the usage, and the decisions with their reasons.
func writePreview(w io.Writer, p *engine.Preview) {
	agent := ""
	if p.AgentID != "" {
		agent = "  agent " + p.AgentID
	}
	fmt.Fprintf(w, "conversation %s  mode %s%s  model %s\n", p.ConversationID, p.Mode, agent, valueOrNone(p.Model))
	u := p.Usage
	fmt.Fprintf(w, "usage: %d of %d tokens (%.1f%%), %d remaining, status %s; tool definitions %d tokens\n",
		u.UsedTokens, u.TotalBudget, u.UsagePercent, u.Remaining, u.Status, p.ToolTokens)

	fmt.Fprintf(w, "\nrequest: %d messages\n", len(p.Messages))
	for _, m := range p.Messages {
		fmt.Fprintf(w, "  #%-3d %-9s %6d tok  %s\n", m.Index, m.Role, m.Tokens, firstLineOf(m))
		fmt.Fprintf(w, "        %s\n", m.Reason)
	}
	fmt.Fprintf(w, "tools: %s\n", valueOrNone(strings.Join(p.ToolNames, ", ")))

	d := p.Build
	fmt.Fprintf(w, "\nlog: %d messages, %d events; kept %d, dropped %d, compressed %d\n",
		d.Counts.Messages, d.Counts.Events, d.Counts.Kept, d.Counts.Dropped, d.Counts.Compressed)
	writeDecisions(w, "dropped", d.Dropped)
	writeDecisions(w, "compressed", d.Compressed)

	if c := p.Compression; c != nil {
		fmt.Fprintf(w, "\ncompression (%s): %d -> %d tokens (target %d); %d messages dropped, %d shortened\n",
			c.Strategy, c.Before.UsedTokens, c.After.UsedTokens, c.Output.Target, len(c.Output.Dropped), len(c.Output.Truncated))
		for _, s := range c.Output.Steps {
			fmt.Fprintf(w, "  step %s\n", s)
		}
		for _, x := range c.Output.Explanation {
			if x.Decision != "dropped" {
				continue
			}
			fmt.Fprintf(w, "  - dropped %s (%s, %d messages, %d tok): %s\n", valueOrNone(x.SourceID), x.Role, x.Count, x.Tokens, x.Reason)
		}
	}
	for _, n := range append(append([]string{}, d.Notes...), p.Notes...) {
		fmt.Fprintf(w, "note: %s\n", n)
	}
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
