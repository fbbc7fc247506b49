package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
)

const contextUsage = "context ID [--mode chat|agent|run] [--agent ID]"

func cmdContext(e *env, rest []string) error {
	if err := e.checkArgs(rest, 1, "mode", "agent"); err != nil {
		return err
	}
	mode := e.args.get("mode")
	switch mode {
	case "", convlog.ModeChat, convlog.ModeAgent, convlog.ModeRun:
	default:
		return fmt.Errorf("--mode must be chat, agent or run, got %q", mode)
	}
	w, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer w.close()
	svc, err := w.chatService(events.Nop{})
	if err != nil {
		return err
	}
	req := engine.PreviewRequest{ConversationID: rest[0], Mode: mode, AgentID: e.args.get("agent")}
	if req.Run, err = w.runSetupFor(rest[0], mode); err != nil {
		return err
	}
	p, err := svc.Preview(e.ctx, req)
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(p)
	}
	writePreview(e.stdout, p)
	return nil
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

// runSetupFor returns the setup of the conversation's latest workflow run
// when the preview is of run mode (asked for, or the conversation's active
// mode); nil otherwise.
func (w *workspace) runSetupFor(convID, mode string) (*engine.RunSetup, error) {
	if mode == "" {
		meta, err := w.store.Get(convID)
		if err != nil {
			return nil, err
		}
		mode = meta.ActiveType
	}
	if mode != convlog.ModeRun && mode != convlog.ActiveWorkflow {
		return nil, nil
	}
	svc, err := w.runService(events.Nop{})
	if err != nil {
		return nil, err
	}
	run, err := svc.LatestRun(convID)
	if err != nil {
		return nil, err
	}
	setup, err := svc.NextSetup(run.RunID)
	if err != nil {
		return nil, err
	}
	return &engine.RunSetup{AgentID: setup.AgentID, Persona: setup.Persona, Injector: setup.Injector, Tools: setup.Tools}, nil
}
