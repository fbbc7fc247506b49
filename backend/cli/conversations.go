package cli

import (
	"fmt"
	"io"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/export"
)

func cmdConversationsList(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	list, err := ws.ListConversations()
	if err != nil {
		return err
	}
	return e.print(list, func() {
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "no conversations in this project")
			return
		}
		for _, c := range list {
			fmt.Fprintf(e.stdout, "%s  %s  %-5s  %4d msgs  %s\n", c.ID, c.LastActiveAt, c.ActiveType, c.MessageCount, c.Title)
		}
	})
}

func cmdConversationsShow(e *env, rest []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	entries, err := ws.Entries(rest[0])
	if err != nil {
		return err
	}
	for _, en := range entries {
		if e.asJSON() {
			if err := e.printJSONLine(en); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(e.stdout, formatEntry(en))
	}
	return nil
}

// formatEntry renders one log entry for people: a header line and the text.
func formatEntry(en *conversation.Entry) string {
	var b strings.Builder
	if en.IsEvent() {
		fmt.Fprintf(&b, "-- %s event %s %s", en.CreatedAt, en.Event, strings.TrimSpace(string(en.Data)))
		return b.String()
	}
	fmt.Fprintf(&b, "[%s] %s", en.CreatedAt, en.Role)
	var tags []string
	if en.Mode != "" {
		tags = append(tags, en.Mode)
	}
	if en.PartType != "" && en.PartType != conversation.PartContent {
		tags = append(tags, en.PartType)
	}
	if en.ToolName != "" {
		tags = append(tags, "tool="+en.ToolName)
	}
	if en.RunID != "" {
		tags = append(tags, "run="+en.RunID)
	}
	if en.Compacted {
		tags = append(tags, "compacted")
	}
	if !en.InContext() {
		tags = append(tags, "not-in-context")
	}
	if len(tags) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(tags, ", "))
	}
	for _, tc := range en.ToolCalls {
		fmt.Fprintf(&b, "\n  -> %s %s", tc.Function.Name, tc.Function.Arguments)
	}
	if t := en.Text(); t != "" {
		b.WriteString("\n")
		b.WriteString(indent(t))
	}
	return b.String()
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func cmdConversationsDelete(e *env, rest []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	if _, err := ws.GetConversation(rest[0]); err != nil {
		return err
	}
	// Its workflow runs go first, then the conversation (app.Workspace.DeleteConversation).
	runIDs, err := ws.DeleteConversation(rest[0])
	if err != nil {
		return err
	}
	return e.print(map[string]any{"deleted": rest[0], "runs": nonNil(runIDs)}, func() {
		fmt.Fprintf(e.stdout, "deleted %s: its messages, tool outputs and %s\n", rest[0], runsPhrase(runIDs))
	})
}

// runsPhrase names the runs a deletion removed.
func runsPhrase(ids []string) string {
	switch len(ids) {
	case 0:
		return "no workflow runs"
	case 1:
		return "its workflow run " + ids[0] + " (state and execution log)"
	}
	return fmt.Sprintf("its %d workflow runs %s (states and execution logs)", len(ids), strings.Join(ids, ", "))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func cmdConversationsFork(e *env, rest []string) error {
	if e.args.has("at") && e.args.has("checkpoint") {
		return fmt.Errorf("give either --at or --checkpoint, not both")
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	meta, err := ws.ForkConversation(rest[0], e.args.get("at"), e.args.get("checkpoint"))
	if err != nil {
		return err
	}
	return e.print(meta, func() { fmt.Fprintln(e.stdout, meta.ID) })
}

func cmdConversationsCheckpoint(e *env, rest []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	cp, err := ws.CreateCheckpoint(rest[0], rest[1])
	if err != nil {
		return err
	}
	return e.print(cp, func() { fmt.Fprintf(e.stdout, "checkpoint %q recorded at %s\n", cp.Name, cp.MessageID) })
}

// cmdConversationsExport prints a conversation as Markdown (the default) or
// JSON (--format json, or --json without --format). Both are terminal-safe
// whatever --json says: JSON keeps every value exact (the C1 controls
// escaped as well), Markdown shows control characters as symbols.
func cmdConversationsExport(e *env, rest []string) error {
	format := e.args.get("format")
	if format == "" && e.asJSON() {
		format = export.JSON
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	x, err := ws.ExportConversation(rest[0], format)
	if err != nil {
		return err
	}
	var out interface {
		io.Writer
		Flush() error
	}
	switch {
	case format == export.JSON && !e.asJSON():
		out = &jsonWriter{w: e.stdout}
	case format != export.JSON && e.asJSON():
		out = newTermWriter(e.stdout)
	}
	if out == nil {
		_, err = io.WriteString(e.stdout, x.Content)
		return err
	}
	if _, err := io.WriteString(out, x.Content); err != nil {
		return err
	}
	return out.Flush()
}
