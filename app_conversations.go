package main

import (
	"encoding/json"
	"fmt"
	"os"

	"crewagent/backend/convlog"
	"crewagent/backend/watcher"
)

// Page sizes of LoadConversation / LoadOlderEntries.
const (
	defaultPageSize = 300
	maxPageSize     = 5000
)

// maxToolResultChars caps what ReadToolResult returns to the window; the file
// itself is never changed.
const maxToolResultChars = 2 << 20

// ListConversations returns the open project's conversations, most recently
// active first.
func (a *App) ListConversations() ([]convlog.ConversationMeta, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	list, err := ws.store.List()
	if list == nil && err == nil {
		list = []convlog.ConversationMeta{}
	}
	return list, toAppError(err)
}

// GetConversation returns the index record of one conversation.
func (a *App) GetConversation(id string) (convlog.ConversationMeta, error) {
	ws, err := a.workspace()
	if err != nil {
		return convlog.ConversationMeta{}, err
	}
	m, err := ws.store.Get(id)
	return m, toAppError(err)
}

// CreateConversation adds an empty conversation (an empty title becomes the
// default, later replaced by the first user message).
func (a *App) CreateConversation(title string) (convlog.ConversationMeta, error) {
	ws, err := a.workspace()
	if err != nil {
		return convlog.ConversationMeta{}, err
	}
	m, err := ws.store.Create(title, convlog.ActiveChat)
	if err != nil {
		return convlog.ConversationMeta{}, toAppError(err)
	}
	a.changed(m.ID, watcher.Created)
	return m, nil
}

// RenameConversation sets a conversation's title and returns its record.
func (a *App) RenameConversation(id, title string) (convlog.ConversationMeta, error) {
	ws, err := a.workspace()
	if err != nil {
		return convlog.ConversationMeta{}, err
	}
	if err := ws.store.Rename(id, title); err != nil {
		return convlog.ConversationMeta{}, toAppError(err)
	}
	a.changed(id, watcher.Updated)
	m, err := ws.store.Get(id)
	return m, toAppError(err)
}

// DeleteConversation stops the conversation's stream, then removes its
// workflow runs, its tool-result files, its folder and its index record.
func (a *App) DeleteConversation(id string) error {
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	ws.chat.stopAndWait(id)
	if _, err := ws.runs.DeleteConversationRuns(id); err != nil {
		return toAppError(err)
	}
	if err := ws.store.Delete(id); err != nil {
		return toAppError(err)
	}
	a.changed(id, watcher.Deleted)
	return nil
}

// ForkConversation copies a conversation into a new one: the whole log, the
// entries up to and including atMessageID, or the log as it was at the named
// checkpoint (give at most one of the two).
func (a *App) ForkConversation(id, atMessageID, checkpoint string) (convlog.ConversationMeta, error) {
	ws, err := a.workspace()
	if err != nil {
		return convlog.ConversationMeta{}, err
	}
	m, err := ws.store.Fork(id, convlog.ForkOptions{AtMessageID: atMessageID, Checkpoint: checkpoint})
	if err != nil {
		return convlog.ConversationMeta{}, toAppError(err)
	}
	a.changed(m.ID, watcher.Created)
	return m, nil
}

// CreateCheckpoint records a named position at the end of a conversation.
func (a *App) CreateCheckpoint(id, name string) (convlog.Checkpoint, error) {
	ws, err := a.workspace()
	if err != nil {
		return convlog.Checkpoint{}, err
	}
	cp, err := ws.store.Checkpoint(id, name)
	if err != nil {
		return convlog.Checkpoint{}, toAppError(err)
	}
	a.changed(id, watcher.Updated)
	return cp, nil
}

// ConversationPage is a slice of a conversation's effective entries, oldest
// first, with its record.
type ConversationPage struct {
	Conversation convlog.ConversationMeta `json:"conversation"`
	Entries      []*convlog.Entry         `json:"entries"`
	// HasMore is true when older entries exist before Entries[0].
	HasMore bool `json:"hasMore"`
	// Streaming is true while a reply is being generated in this conversation.
	Streaming bool `json:"streaming"`
}

// LoadConversation returns the newest limit effective entries (messages and
// events) of a conversation (limit <= 0: defaultPageSize). Only the end of
// the log is read; LoadOlderEntries pages backwards from there.
func (a *App) LoadConversation(id string, limit int) (ConversationPage, error) {
	ws, err := a.workspace()
	if err != nil {
		return ConversationPage{}, err
	}
	limit = pageSize(limit)
	meta, err := ws.store.Get(id)
	if err != nil {
		return ConversationPage{}, toAppError(err)
	}
	// Asked before and after the entries are read: "not streaming" then
	// means no reply ran while they were read, so they end where the log ends
	// (a reply that starts or ends meanwhile is reported as running; its end
	// is announced by conversation:changed).
	streaming := ws.chat.streaming(id)
	// One more than asked tells whether older entries exist.
	tail, err := ws.store.LoadTail(id, limit+1)
	if err != nil {
		return ConversationPage{}, toAppError(err)
	}
	streaming = streaming || ws.chat.streaming(id)
	more := len(tail) > limit
	if more {
		tail = tail[1:]
	}
	return ConversationPage{Conversation: meta, Entries: nonNil(tail), HasMore: more, Streaming: streaming}, nil
}

// LoadOlderEntries returns up to limit effective entries that come before the
// entry beforeID (the oldest one the window has).
func (a *App) LoadOlderEntries(id, beforeID string, limit int) (ConversationPage, error) {
	ws, err := a.workspace()
	if err != nil {
		return ConversationPage{}, err
	}
	limit = pageSize(limit)
	meta, err := ws.store.Get(id)
	if err != nil {
		return ConversationPage{}, toAppError(err)
	}
	// Read a growing tail until it holds beforeID and limit entries before it
	// (entries appended meanwhile push beforeID back).
	for n := 2*limit + 1; ; n *= 2 {
		tail, err := ws.store.LoadTail(id, n)
		if err != nil {
			return ConversationPage{}, toAppError(err)
		}
		whole := len(tail) < n
		at := -1
		for i, e := range tail {
			if e.ID == beforeID {
				at = i
				break
			}
		}
		switch {
		case at < 0 && whole:
			return ConversationPage{}, &AppError{Code: convlog.ErrNotFound.Code, Message: fmt.Sprintf("entry %s is not in conversation %s; reload it", beforeID, id)}
		case at < 0 || (at < limit && !whole):
			continue
		}
		start := max(0, at-limit)
		return ConversationPage{Conversation: meta, Entries: nonNil(tail[start:at]), HasMore: start > 0 || !whole, Streaming: ws.chat.streaming(id)}, nil
	}
}

func pageSize(limit int) int {
	switch {
	case limit <= 0:
		return defaultPageSize
	case limit > maxPageSize:
		return maxPageSize
	}
	return limit
}

func nonNil(es []*convlog.Entry) []*convlog.Entry {
	if es == nil {
		return []*convlog.Entry{}
	}
	return es
}

// ToolResultView is the full output of a tool result that the log keeps as a
// preview (logs/tool-results/<conversationId>/<messageId>.json).
type ToolResultView struct {
	convlog.ToolResultFile
	// Size is the length of the full output in bytes; Truncated is true when
	// Content holds only its first maxToolResultChars bytes.
	Size      int  `json:"size"`
	Truncated bool `json:"truncated"`
}

// ReadToolResult reads the externalised output of a tool-result message.
func (a *App) ReadToolResult(conversationID, messageID string) (ToolResultView, error) {
	ws, err := a.workspace()
	if err != nil {
		return ToolResultView{}, err
	}
	path, err := convlog.ToolResultHostPath(ws.store.DataDir(), convlog.ToolResultAlias(conversationID, messageID))
	if err != nil {
		return ToolResultView{}, toAppError(err)
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ToolResultView{}, &AppError{Code: convlog.ErrNotFound.Code, Message: fmt.Sprintf("the full output of message %s is no longer on disk", messageID)}
	}
	if err != nil {
		return ToolResultView{}, toAppError(err)
	}
	var rec convlog.ToolResultFile
	if err := json.Unmarshal(data, &rec); err != nil {
		return ToolResultView{}, &AppError{Code: CodeInternal, Message: fmt.Sprintf("the tool-result file %s is not valid JSON: %v", path, err)}
	}
	v := ToolResultView{ToolResultFile: rec, Size: len(rec.Content)}
	if len(v.Content) > maxToolResultChars {
		cut := maxToolResultChars
		for cut > 0 && v.Content[cut]&0xC0 == 0x80 {
			cut--
		}
		v.Content, v.Truncated = v.Content[:cut], true
	}
	return v, nil
}
