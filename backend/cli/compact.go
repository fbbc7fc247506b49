package cli

import (
	"fmt"
	"strings"
)

// compactOutput is the --json output of "conversations compact" (contracts).
type compactOutput struct {
	ConversationID    string `json:"conversationId"`
	CompactedMessages int    `json:"compactedMessages"`
	UsedTokensBefore  int    `json:"usedTokensBefore"`
	UsedTokensAfter   int    `json:"usedTokensAfter"`
	SummaryID         string `json:"summaryId"`
}

func cmdConversationsCompact(e *env, rest []string) error {
	if e.args.has("focus") && strings.TrimSpace(e.args.get("focus")) == "" {
		return fmt.Errorf("--focus needs a text: what the summary should keep")
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	res, err := ws.CompactConversation(e.ctx, rest[0], e.args.get("focus"))
	if err != nil {
		return err
	}
	out := compactOutput{ConversationID: res.ConversationID, CompactedMessages: res.CompactedMessages,
		UsedTokensBefore: res.UsedTokensBefore, UsedTokensAfter: res.UsedTokensAfter, SummaryID: res.SummaryID}
	return e.print(out, func() {
		if res.CompactedMessages == 0 {
			fmt.Fprintf(e.stdout, "nothing to compact in %s: only the newest exchange is left (%d of %d tokens)\n",
				res.ConversationID, res.UsedTokensBefore, res.TotalBudget)
			return
		}
		fmt.Fprintf(e.stdout, "compacted %d messages of %s into summary %s (%s)\n", res.CompactedMessages, res.ConversationID, res.SummaryID, res.Strategy)
		fmt.Fprintf(e.stdout, "usage: %d -> %d of %d tokens\n", res.UsedTokensBefore, res.UsedTokensAfter, res.TotalBudget)
		if res.SummaryError != "" {
			fmt.Fprintf(e.stdout, "note: the LLM summary failed (%s); the digest was written instead\n", oneLine(res.SummaryError))
		}
	})
}
