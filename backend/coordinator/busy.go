package coordinator

import (
	"errors"
	"fmt"

	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/tasks"
)

// Busy says which conversation keeps a new reply from starting: one task
// runs at a time in a project.
func (c *Coordinator) Busy(err error, conversationID string) error {
	if !errors.Is(err, tasks.ErrBusy) && !errors.Is(err, engine.ErrConversationBusy) {
		return err
	}
	for _, t := range append(c.tasks.All(), c.tasks.Queued()...) {
		if t.ConversationID == conversationID {
			break
		}
		if m, gerr := c.store.Get(t.ConversationID); gerr == nil {
			return errs.Wrap(errs.Busy, err, fmt.Sprintf("%q is being answered: one reply runs at a time in a project; wait for it or stop it", m.Title))
		}
	}
	return err
}
