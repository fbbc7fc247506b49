package app

import (
	"encoding/json"

	"crewagent/backend/conversation"
	"crewagent/backend/events"
)

// entriesWindow is how many of a conversation's newest entries are read to
// judge the views of what the store wrote (the window re-reads its page when
// a write reaches further back).
const entriesWindow = 120

// pageEnd says how a conversation ends, as a page of views read while a
// reply ran (streaming) or not shows it.
func (ws *Workspace) pageEnd(meta conversation.ConversationMeta, views []conversation.EntryView, streaming bool) events.EntriesEvent {
	out := events.EntriesEvent{WaitingFor: ws.waitingView(meta)}
	if !streaming && out.WaitingFor == nil {
		// A fork cut at a message ends there on purpose.
		ending, canContinue := conversation.Ending(views, meta.ForkedFromMsgID)
		out.Unfinished, out.Awaiting = ending == conversation.EndUnfinished, ending == conversation.EndAwaiting
		out.Stopped = ending == conversation.EndStopped
		out.CanContinue = canContinue
	}
	out.Settled = !streaming
	return out
}

// publishEntries sends conversation:entries for the lines the store wrote
// to a conversation (none: its state alone changed): each written entry
// with its view, read back, and every other entry among the newest whose
// view the written ones change (a call's result, a failure that is no
// longer the latest), then how the conversation ends.
func (ws *Workspace) publishEntries(id string, written []*conversation.Entry, streaming bool) {
	meta, err := ws.store.Get(id)
	if err != nil {
		return
	}
	page, err := ws.store.Page(id, entriesWindow)
	if err != nil {
		return
	}
	views := ws.views(page.Entries)
	ev := ws.pageEnd(meta, views, streaming)
	ev.ConversationID, ev.Conversation = id, meta
	ev.Entries, ev.Reload = changedViews(page.Entries, views, written, ws.views)
	if len(written) == 0 {
		// The views of a run's entries also follow its state (a step's number
		// once the run records it complete), which changes outside the log:
		// when a task ends they go out again.
		ev.Entries = append(ev.Entries, runViews(page.Entries, views)...)
	}
	ev.Agents = map[string]events.Speaker{}
	for k, a := range ws.speakers(ev.Entries) {
		ev.Agents[k] = events.Speaker(a)
	}
	ws.emitter.Emit(events.ConversationEntries, ev)
}

// changedViews returns, in log order, the views of the written entries and
// of the other entries whose view differs without them (judged again by
// viewsOf over the entries less the written ones). reload is true when a
// written entry is not among entries (older than the window) or chooses or
// makes a version: the reader's other entries may change.
func changedViews(entries []*conversation.Entry, views []conversation.EntryView, written []*conversation.Entry,
	viewsOf func([]*conversation.Entry) []conversation.EntryView) (out []conversation.EntryView, reload bool) {
	out = []conversation.EntryView{}
	if len(written) == 0 {
		return out, false
	}
	ids := map[string]bool{}
	for _, e := range written {
		ids[e.ID] = true
		if e.IsEvent() && (e.Event == conversation.EventBranch || e.Event == conversation.EventBranchSwitch) {
			reload = true
		}
	}
	others := make([]*conversation.Entry, 0, len(entries))
	found := 0
	for _, e := range entries {
		if ids[e.ID] {
			found++
		} else {
			others = append(others, e)
		}
	}
	if found < len(ids) {
		reload = true
	}
	// Both sets of views hold the same entries: only what they say of them
	// can differ.
	before := map[string][]byte{}
	for _, v := range viewsOf(others) {
		before[v.ID], _ = json.Marshal(v.View)
	}
	for _, v := range views {
		if !ids[v.ID] {
			now, _ := json.Marshal(v.View)
			if string(now) == string(before[v.ID]) {
				continue
			}
		}
		out = append(out, v)
	}
	return out, reload
}

// runViews are the views of the entries of a workflow run.
func runViews(entries []*conversation.Entry, views []conversation.EntryView) []conversation.EntryView {
	inRun := map[string]bool{}
	for _, e := range entries {
		if e.RunID != "" {
			inRun[e.ID] = true
		}
	}
	out := []conversation.EntryView{}
	for _, v := range views {
		if inRun[v.ID] {
			out = append(out, v)
		}
	}
	return out
}
