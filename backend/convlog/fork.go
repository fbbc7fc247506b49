package convlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// Fork copies a conversation into a new one (a new UUID) and returns its
// record. The copy is the whole conversation, or the entries up to and
// including opts.AtMessageID, or the log as it was at checkpoint
// opts.Checkpoint. The new log starts with a "fork_origin" event (data:
// parentId, parentTitle, title, atMessageId, checkpoint), followed by the copied
// entries with their ids, times and token counts. Tool-result files the
// copied entries refer to are copied to the new conversation and the entries
// point to the copies, so the fork does not depend on its parent. The record
// has ParentID and ForkedFromMsgID/ForkedFromCheckpoint set, inherits the
// parent's active type and selections, and the checkpoints whose events were
// copied. Its title is the parent's with " (fork)" appended (or taken from
// its first user message when the parent has the default title); a title
// already in use gets a number instead ("Title (fork 2)"), and a fork of a
// fork is numbered after the same title rather than "(fork) (fork)".
func (s *Store) Fork(id string, opts ForkOptions) (conversation.ConversationMeta, error) {
	if err := checkConvID(id); err != nil {
		return conversation.ConversationMeta{}, err
	}
	if opts.AtMessageID != "" && opts.Checkpoint != "" {
		return conversation.ConversationMeta{}, fmt.Errorf("%w: fork at a message or at a checkpoint, not both", ErrInvalidArgument)
	}
	release, err := s.begin(true)
	if err != nil {
		return conversation.ConversationMeta{}, err
	}
	defer release()
	parent, entries, err := s.forkSource(id, opts)
	if err != nil {
		return conversation.ConversationMeta{}, err
	}
	newID := uuid.NewString()

	// 1. tool-result files, so the log never refers to a missing file
	copied := make([]*conversation.Entry, 0, len(entries)+1)
	oldPrefix, newPrefix := conversation.ToolResultAliasPrefix+id+"/", conversation.ToolResultAliasPrefix+newID+"/"
	for _, e := range entries {
		c := *e
		c.UpdatedAt = ""
		c.Usage = nil // the LLM calls were the parent's: the fork's totals start at zero
		if msg, ok := strings.CutPrefix(c.FullOutputPath, oldPrefix); ok {
			msg = strings.TrimSuffix(msg, ".json")
			if !IsValidMessageID(msg) {
				s.log.Warn("not copying a tool result with an invalid path", "conversation", id, "path", c.FullOutputPath)
			} else if err := s.copyToolResult(id, newID, msg); err != nil {
				s.log.Warn("cannot copy tool result to the fork; the entry keeps pointing to the parent's file", "conversation", id, "message", c.ID, "error", err)
			} else {
				c.FullOutputPath = newPrefix + msg + ".json"
				if c.Content != nil {
					c.Content = conversation.Str(strings.ReplaceAll(*c.Content, oldPrefix+msg+".", newPrefix+msg+"."))
				}
			}
		}
		s.copyCommandOutputs(id, newID, &c)
		copied = append(copied, &c)
	}

	// 2. the conversation folder and its log
	now := fsx.Now()
	title := ""
	if !isDefaultTitle(parent.Title) {
		title = s.forkTitle(parent.Title)
	}
	raw, _ := json.Marshal(forkOriginData{ParentID: id, ParentTitle: parent.Title, Title: title, AtMessageID: opts.AtMessageID, Checkpoint: opts.Checkpoint})
	origin := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: now, Event: conversation.EventForkOrigin, Data: raw}
	var buf bytes.Buffer
	if err := encodeEntries(&buf, append([]*conversation.Entry{origin}, copied...)); err != nil {
		return conversation.ConversationMeta{}, err
	}
	if err := s.createLog(newID, buf.Bytes()); err != nil {
		os.RemoveAll(toolResultsDir(s.dir, newID))
		return conversation.ConversationMeta{}, err
	}

	// the recall index of what the fork holds compacted
	s.copyRecall(id, newID, copied)

	// 3. the index record
	m := &conversation.ConversationMeta{
		ID:                   newID,
		EntryType:            parent.EntryType,
		ActiveType:           parent.ActiveType,
		CreatedAt:            now,
		LastActiveAt:         now,
		ParentID:             id,
		ForkedFromMsgID:      opts.AtMessageID,
		ForkedFromCheckpoint: opts.Checkpoint,
		SelectedAgentID:      parent.SelectedAgentID,
		SelectedWorkflowID:   parent.SelectedWorkflowID,
		// A fork of a child works as its parent did, as a conversation of its own.
		Instructions: parent.Instructions.Clone(),
	}
	deriveMeta(m, append([]*conversation.Entry{origin}, copied...), false)
	m.LogSize = int64(buf.Len())
	m.LastActiveAt = now
	return s.addRecord(m)
}

// forkSource reads the parent's record and the entries a fork copies.
func (s *Store) forkSource(id string, opts ForkOptions) (conversation.ConversationMeta, []*conversation.Entry, error) {
	l := s.convLock(id)
	l.RLock()
	defer l.RUnlock()
	parent, err := s.lookup(id)
	if err != nil {
		return parent, nil, err
	}
	switch {
	case opts.Checkpoint != "":
		var cp *conversation.Checkpoint
		for i := range parent.Checkpoints {
			if parent.Checkpoints[i].Name == opts.Checkpoint {
				cp = &parent.Checkpoints[i]
			}
		}
		if cp == nil {
			return parent, nil, fmt.Errorf("convlog: conversation %s: checkpoint %q: %w", id, opts.Checkpoint, ErrNotFound)
		}
		data, err := os.ReadFile(logPath(s.dir, id))
		if err == nil {
			entries, found := parsePrefix(data, func(e *conversation.Entry) bool {
				if e.Type != conversation.TypeEvt || e.Event != conversation.EventCheckpoint {
					return false
				}
				var d checkpointData
				return json.Unmarshal(e.Data, &d) == nil && d.Name == opts.Checkpoint
			}, s.reporter(id, LogFile))
			if found {
				return parent, entries, nil
			}
		} else if !os.IsNotExist(err) {
			return parent, nil, fmt.Errorf("convlog: %w", err)
		}
		// The event is not in the log (an index written by another tool):
		// fork at the entry the checkpoint names.
		s.log.Warn("checkpoint event missing from the log; forking at its message", "conversation", id, "checkpoint", cp.Name)
		all, err := s.readAll(id)
		if err != nil {
			return parent, nil, err
		}
		if cp.MessageID == "" {
			return parent, nil, nil
		}
		return parent, uncompactLater(cutAt(all, cp.MessageID)), nil
	case opts.AtMessageID != "":
		all, err := s.readAll(id)
		if err != nil {
			return parent, nil, err
		}
		cut := cutAt(all, opts.AtMessageID)
		if cut == nil {
			return parent, nil, fmt.Errorf("convlog: conversation %s: entry %s: %w", id, opts.AtMessageID, ErrNotFound)
		}
		return parent, uncompactLater(cut), nil
	default:
		all, err := s.readAll(id)
		return parent, all, err
	}
}

// cutAt returns the entries up to and including msgID, or nil when it is absent.
func cutAt(all []*conversation.Entry, msgID string) []*conversation.Entry {
	for i, e := range all {
		if e.ID == msgID {
			return all[:i+1]
		}
	}
	return nil
}

// forkSuffix is the end of a fork's title: " (fork)" or " (fork N)".
var forkSuffix = regexp.MustCompile(` \(fork(?: [0-9]+)?\)$`)

// forkTitle is the title of a new fork of a conversation titled parent: the
// parent's title without its own fork suffix, then " (fork)", or " (fork N)"
// with the smallest N from 2 that no conversation has.
func (s *Store) forkTitle(parent string) string {
	base := forkSuffix.ReplaceAllString(parent, "")
	s.mu.Lock()
	defer s.mu.Unlock()
	used := make(map[string]bool, len(s.index))
	for _, m := range s.index {
		used[m.Title] = true
	}
	title := base + " (fork)"
	for n := 2; used[title]; n++ {
		title = fmt.Sprintf("%s (fork %d)", base, n)
	}
	return title
}
