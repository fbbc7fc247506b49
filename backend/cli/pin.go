package cli

import (
	"fmt"

	"crewagent/backend/events"
)

const (
	pinUsage   = "conversations pin ID MESSAGE_ID"
	unpinUsage = "conversations unpin ID MESSAGE_ID"
)

func cmdConversationsPin(e *env, rest []string) error   { return pinCommand(e, rest, true) }
func cmdConversationsUnpin(e *env, rest []string) error { return pinCommand(e, rest, false) }

func pinCommand(e *env, rest []string, pin bool) error {
	if err := e.checkArgs(rest, 2); err != nil {
		return err
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
	do, verb := svc.Pin, "pinned"
	if !pin {
		do, verb = svc.Unpin, "unpinned"
	}
	if err := do(rest[0], rest[1]); err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(map[string]any{"conversationId": rest[0], "messageId": rest[1], "pinned": pin})
	}
	fmt.Fprintf(e.stdout, "%s %s in %s\n", verb, rest[1], rest[0])
	return nil
}
