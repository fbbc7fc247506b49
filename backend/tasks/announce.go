package tasks

import (
	"crewagent/backend/errs"
	"crewagent/backend/events"
)

// Announcement is the task event of ev, by name (task:started, task:complete
// or task:aborted), with its payload; the conversation's title is left to
// the caller.
func (ev Event) Announcement() (string, events.TaskEvent) {
	te := events.TaskEvent{ConversationID: ev.Task.ConversationID, TaskID: ev.Task.ID, Kind: ev.Task.Kind, Chain: ev.Task.Chain,
		Depth: ev.Task.Depth, Tool: ev.Task.Tool, Continues: ev.Task.Continues, ParentID: ev.Task.For}
	if ev.Phase != Ended {
		return events.TaskStarted, te
	}
	name := events.TaskComplete
	if ev.Reason != Completed {
		name, te.Reason = events.TaskAborted, ev.Reason
	}
	if ev.Err != nil {
		e := errs.From(ev.Err)
		te.Error = &events.Error{Code: e.Code, Message: e.Message}
	}
	return name, te
}
