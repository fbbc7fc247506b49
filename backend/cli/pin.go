package cli

import "fmt"

func cmdConversationsPin(e *env, rest []string) error   { return pinCommand(e, rest, true) }
func cmdConversationsUnpin(e *env, rest []string) error { return pinCommand(e, rest, false) }

func pinCommand(e *env, rest []string, pin bool) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	do, verb := ws.PinMessage, "pinned"
	if !pin {
		do, verb = ws.UnpinMessage, "unpinned"
	}
	if err := do(rest[0], rest[1]); err != nil {
		return err
	}
	return e.print(map[string]any{"conversationId": rest[0], "messageId": rest[1], "pinned": pin},
		func() { fmt.Fprintf(e.stdout, "%s %s in %s\n", verb, rest[1], rest[0]) })
}
