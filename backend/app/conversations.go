package app

import (
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/convpage"
	"crewagent/backend/events"
	"crewagent/backend/export"
	"crewagent/backend/tools"
)

// ListConversations returns the conversations, most recently active first.
func (ws *Workspace) ListConversations() ([]conversation.ConversationMeta, error) {
	list, err := ws.store.List()
	if list == nil && err == nil {
		list = []conversation.ConversationMeta{}
	}
	return list, err
}

// GetConversation returns the index record of one conversation.
func (ws *Workspace) GetConversation(id string) (conversation.ConversationMeta, error) {
	return ws.store.Get(id)
}

// CreateConversation adds an empty conversation (an empty title becomes the
// default, later replaced by the first user message).
func (ws *Workspace) CreateConversation(title string) (conversation.ConversationMeta, error) {
	return ws.store.Create(title, conversation.ActiveChat)
}

// RenameConversation sets a conversation's title and returns its record.
func (ws *Workspace) RenameConversation(id, title string) (conversation.ConversationMeta, error) {
	if err := ws.store.Rename(id, title); err != nil {
		return conversation.ConversationMeta{}, err
	}
	return ws.store.Get(id)
}

// DeleteConversation stops the conversation's task and waits for it, then
// removes its workflow runs (their runsIndex.json rows, state files and
// execution logs), its tool-result files, its folder and its index record. It
// returns the ids of the runs removed. The runs go first: a crash in between
// leaves a conversation without its runs, never a run without its
// conversation.
//
// A conversation that waits for another one's answer (conv.create,
// conv.send) takes that work with it: it is stopped first.
func (ws *Workspace) DeleteConversation(id string) ([]string, error) {
	// The work it waits in stops; a conversation that answers for another
	// one is gone for it from now on (its continuation may start as soon as
	// the stop below ends).
	defer ws.coord.Deleting(id)()
	ws.tasks.StopAndWait(id)
	runIDs, err := ws.runs.DeleteConversationRuns(id)
	if err != nil {
		return nil, err
	}
	if err := ws.store.Delete(id); err != nil {
		return runIDs, err
	}
	if ws.checkpoints != nil {
		if err := ws.checkpoints.DeleteConversation(id); err != nil {
			return runIDs, err
		}
	}
	return runIDs, nil
}

// ForkConversation copies a conversation into a new one: the whole log, the
// entries up to and including atMessageID, or the log as it was at the named
// checkpoint (give at most one of the two).
func (ws *Workspace) ForkConversation(id, atMessageID, checkpoint string) (conversation.ConversationMeta, error) {
	return ws.store.Fork(id, convlog.ForkOptions{AtMessageID: atMessageID, Checkpoint: checkpoint})
}

// CreateCheckpoint records a named position at the end of a conversation.
func (ws *Workspace) CreateCheckpoint(id, name string) (conversation.Checkpoint, error) {
	return ws.store.Checkpoint(id, name)
}

// Entries returns every effective entry of a conversation.
func (ws *Workspace) Entries(id string) ([]*conversation.Entry, error) { return ws.store.Load(id) }

// SearchConversations finds conversations by title and message text
// (convlog.Store.Search).
func (ws *Workspace) SearchConversations(query string) ([]convlog.SearchHit, error) {
	return ws.store.Search(query)
}

// ConversationPage is a stretch of a conversation's entries as the screen
// shows them (convpage.Page).
type ConversationPage = convpage.Page

// LoadConversation returns the newest limit entries of a conversation
// (convlog.PageLimit).
func (ws *Workspace) LoadConversation(id string, limit int) (ConversationPage, error) {
	return ws.pages.Load(id, limit)
}

// LoadOlderEntries returns up to limit entries that come before the entry
// beforeID (the oldest one the reader has).
func (ws *Workspace) LoadOlderEntries(id, beforeID string, limit int) (ConversationPage, error) {
	return ws.pages.Older(id, beforeID, limit)
}

// publishEntries sends conversation:entries for the lines the store wrote
// to a conversation (convpage.Reader.Entries).
func (ws *Workspace) publishEntries(id string, written []*conversation.Entry, streaming bool) {
	if ev, ok := ws.pages.Entries(id, written, streaming); ok {
		ws.emitter.Emit(events.ConversationEntries, ev)
	}
}

// ToolResultView is the full output of a tool result that the log keeps as a
// preview (tools.ToolResultView).
type ToolResultView = tools.ToolResultView

// ReadToolResult reads the full output of a tool-result message, through the
// sandbox tools read it with (tools.ReadToolResult).
func (ws *Workspace) ReadToolResult(conversationID, messageID string) (ToolResultView, error) {
	return tools.ReadToolResult(ws.roots, conversationID, messageID)
}

// Export is a conversation rendered for outside the app.
type Export struct {
	// FileName is a file name for it (the title and the format's extension).
	FileName string `json:"fileName"`
	Content  string `json:"content"`
}

// ExportConversation renders a conversation as Markdown ("md", the version
// shown, for people) or JSON ("json": its record and every effective entry),
// with times in the local zone.
func (ws *Workspace) ExportConversation(id, format string) (Export, error) {
	meta, err := ws.store.Get(id)
	if err != nil {
		return Export{}, err
	}
	entries, err := ws.store.Load(id)
	if err != nil {
		return Export{}, err
	}
	agents := map[string]export.Agent{}
	for id, a := range ws.pages.Speakers(conversation.Views(entries)) {
		agents[id] = export.Agent{Name: a.Name, Icon: a.Icon}
	}
	name, content, err := export.Conversation(format, meta, entries, export.Options{Agents: agents, Location: time.Local})
	return Export{FileName: name, Content: content}, err
}

// WriteExport writes an export to the file path (atomically; the folder
// must exist).
func WriteExport(path string, x Export) error { return export.Write(path, x.Content) }
