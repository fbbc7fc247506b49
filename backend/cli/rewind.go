package cli

import (
	"fmt"
	"strings"

	"crewagent/backend/app"
)

// cmdConversationsRewind restores the project's files to their state before a
// user message and/or forks the conversation just before it.
func cmdConversationsRewind(e *env, rest []string) error {
	what := ""
	for _, w := range []string{app.RewindFiles, app.RewindConversation, app.RewindBoth} {
		if e.args.has(w) {
			if what != "" {
				return fmt.Errorf("give one of --files, --conversation and --both")
			}
			what = w
		}
	}
	if !e.args.has("to") || strings.TrimSpace(e.args.get("to")) == "" {
		return fmt.Errorf("give the message to go back to: --to MESSAGE_ID")
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	res, err := ws.Rewind(app.RewindRequest{ConversationID: rest[0], To: e.args.get("to"), What: what, Force: e.args.has("force")})
	if err != nil {
		return err
	}
	return e.print(res, func() {
		if f := res.Files; f != nil {
			fmt.Fprintf(e.stdout, "restored %d file(s)\n", len(f.Restored))
			for _, p := range f.Restored {
				fmt.Fprintf(e.stdout, "  %s\n", p)
			}
			if len(f.Kept) > 0 {
				fmt.Fprintf(e.stdout, "kept %d file(s) changed since (--force restores them too):\n", len(f.Kept))
				for _, p := range f.Kept {
					fmt.Fprintf(e.stdout, "  %s\n", p)
				}
			}
			if len(f.Unrestorable) > 0 {
				fmt.Fprintf(e.stdout, "could not restore %d file(s) too big to have been kept:\n", len(f.Unrestorable))
				for _, p := range f.Unrestorable {
					fmt.Fprintf(e.stdout, "  %s\n", p)
				}
			}
			if f.RewindID != "" {
				fmt.Fprintf(e.stdout, "undo this rewind: crewagent conversations rewind %s --to %s --files\n", res.ConversationID, f.RewindID)
			}
		}
		for _, n := range res.Notes {
			fmt.Fprintln(e.stdout, n)
		}
		if res.NewConversationID != "" {
			fmt.Fprintf(e.stdout, "new conversation: %s\n", res.NewConversationID)
		}
	})
}
