package cli

import (
	"fmt"
	"strings"

	"crewagent/backend/convlog"
	"crewagent/backend/events"
)

func cmdConversationsList(e *env, rest []string) error {
	if err := e.checkArgs(rest, 0); err != nil {
		return err
	}
	w, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer w.close()
	list, err := w.store.List()
	if err != nil {
		return err
	}
	if e.args.has("json") {
		if list == nil {
			list = []convlog.ConversationMeta{}
		}
		return e.printJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no conversations in this project")
		return nil
	}
	for _, c := range list {
		fmt.Fprintf(e.stdout, "%s  %s  %-5s  %4d msgs  %s\n", c.ID, c.LastActiveAt, c.ActiveType, c.MessageCount, c.Title)
	}
	return nil
}

func cmdConversationsShow(e *env, rest []string) error {
	if err := e.checkArgs(rest, 1); err != nil {
		return err
	}
	w, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer w.close()
	entries, err := w.store.Load(rest[0])
	if err != nil {
		return err
	}
	if e.args.has("json") {
		for _, en := range entries {
			if err := e.printJSONLine(en); err != nil {
				return err
			}
		}
		return nil
	}
	for _, en := range entries {
		fmt.Fprintln(e.stdout, formatEntry(en))
	}
	return nil
}

// formatEntry renders one log entry for people: a header line and the text.
func formatEntry(en *convlog.Entry) string {
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
	if en.PartType != "" && en.PartType != convlog.PartContent {
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
	if err := e.checkArgs(rest, 1); err != nil {
		return err
	}
	w, err := e.openWorkspace(true)
	if err != nil {
		return err
	}
	defer w.close()
	if _, err := w.store.Get(rest[0]); err != nil {
		return err
	}
	// Its workflow runs go first (see DeleteConversationRuns), then the conversation.
	runs, err := w.runService(events.Nop{})
	if err != nil {
		return err
	}
	runIDs, err := runs.DeleteConversationRuns(rest[0])
	if err != nil {
		return err
	}
	if err := w.store.Delete(rest[0]); err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(map[string]any{"deleted": rest[0], "runs": nonNil(runIDs)})
	}
	fmt.Fprintf(e.stdout, "deleted %s: its messages, tool outputs and %s\n", rest[0], runsPhrase(runIDs))
	return nil
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
	if err := e.checkArgs(rest, 1, "at", "checkpoint"); err != nil {
		return err
	}
	if e.args.has("at") && e.args.has("checkpoint") {
		return fmt.Errorf("give either --at or --checkpoint, not both")
	}
	w, err := e.openWorkspace(true)
	if err != nil {
		return err
	}
	defer w.close()
	meta, err := w.store.Fork(rest[0], convlog.ForkOptions{AtMessageID: e.args.get("at"), Checkpoint: e.args.get("checkpoint")})
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(meta)
	}
	fmt.Fprintln(e.stdout, meta.ID)
	return nil
}

func cmdConversationsCheckpoint(e *env, rest []string) error {
	if err := e.checkArgs(rest, 2); err != nil {
		return err
	}
	w, err := e.openWorkspace(true)
	if err != nil {
		return err
	}
	defer w.close()
	cp, err := w.store.Checkpoint(rest[0], rest[1])
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(cp)
	}
	fmt.Fprintf(e.stdout, "checkpoint %q recorded at %s\n", cp.Name, cp.MessageID)
	return nil
}
