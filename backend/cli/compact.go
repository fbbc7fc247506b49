package cli

import (
	"fmt"
	"strings"

	"crewagent/backend/engine"
	"crewagent/backend/events"
)

const compactUsage = "conversations compact ID [--focus TEXT]"

// compactOutput is the --json output of "conversations compact" (contracts).
type compactOutput struct {
	ConversationID    string `json:"conversationId"`
	CompactedMessages int    `json:"compactedMessages"`
	UsedTokensBefore  int    `json:"usedTokensBefore"`
	UsedTokensAfter   int    `json:"usedTokensAfter"`
	SummaryID         string `json:"summaryId"`
}

func cmdConversationsCompact(e *env, rest []string) error {
	if err := e.checkArgs(rest, 1, "focus"); err != nil {
		return err
	}
	if e.args.has("focus") && strings.TrimSpace(e.args.get("focus")) == "" {
		return fmt.Errorf("--focus needs a text: what the summary should keep")
	}
	w, err := e.openWorkspace(true)
	if err != nil {
		return err
	}
	defer w.close()
	svc, err := w.chatService(events.Nop{})
	if err != nil {
		return err
	}
	req := engine.CompactRequest{ConversationID: rest[0], Focus: e.args.get("focus")}
	if req.Run, err = w.runSetupFor(rest[0], ""); err != nil {
		return err
	}
	res, err := svc.Compact(e.ctx, req)
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(compactOutput{ConversationID: res.ConversationID, CompactedMessages: res.CompactedMessages,
			UsedTokensBefore: res.UsedTokensBefore, UsedTokensAfter: res.UsedTokensAfter, SummaryID: res.SummaryID})
	}
	if res.CompactedMessages == 0 {
		fmt.Fprintf(e.stdout, "nothing to compact in %s: only the newest exchange is left (%d of %d tokens)\n",
			res.ConversationID, res.UsedTokensBefore, res.TotalBudget)
		return nil
	}
	fmt.Fprintf(e.stdout, "compacted %d messages of %s into summary %s (%s)\n", res.CompactedMessages, res.ConversationID, res.SummaryID, res.Strategy)
	fmt.Fprintf(e.stdout, "usage: %d -> %d of %d tokens\n", res.UsedTokensBefore, res.UsedTokensAfter, res.TotalBudget)
	if res.SummaryError != "" {
		fmt.Fprintf(e.stdout, "note: the LLM summary failed (%s); the digest was written instead\n", oneLine(res.SummaryError))
	}
	return nil
}
