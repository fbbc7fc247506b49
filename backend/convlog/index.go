package convlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// The index (conversations/index.json) is a JSON array of ConversationMeta.
// The logs are the source of truth for what can be derived from them; the
// index is checked against the folders whenever it is loaded:
//   - missing or unreadable: rebuilt from the conversation folders;
//   - a record whose folder is gone: dropped;
//   - a folder (named by a UUID) without a record: adopted, its record
//     rebuilt from its log — unless the log holds no entry at all: that is a
//     creation a crash interrupted before anything was written, and a
//     writable store removes it (conversations are created with their first
//     entries, see CreateWith; folders appear whole, see createLog);
//   - a log longer than the record's logSize (appends whose index update
//     had not been written before a crash): the lines after logSize are
//     read and counted; a log of another size, or without a logSize one
//     modified after index.json: message count, last activity, a default
//     title and missing checkpoints are recomputed from the whole log.
// Title, activeType, runs and selections set through the API live only in
// the index and are written durably before those calls return.

// flushIndex writes index.json atomically if it has unsaved changes.
func (s *Store) flushIndex() error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	if !s.dirty || s.readOnly {
		s.mu.Unlock()
		return nil
	}
	data, err := marshalIndex(s.index)
	s.dirty = false
	s.mu.Unlock()
	if err != nil {
		return err
	}
	path := indexPath(s.dir)
	s.own.begin(path)
	fi, err := writeFileAtomic(path, data, 0o644)
	if err != nil {
		s.own.abort(path)
		s.mu.Lock()
		s.dirty = true
		s.mu.Unlock()
		return fmt.Errorf("convlog: writing %s: %w", path, err)
	}
	s.own.end(path, fi)
	return nil
}

func marshalIndex(index map[string]*conversation.ConversationMeta) ([]byte, error) {
	recs := make([]*conversation.ConversationMeta, 0, len(index))
	for _, m := range index {
		recs = append(recs, m)
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].CreatedAt != recs[j].CreatedAt {
			return recs[i].CreatedAt < recs[j].CreatedAt
		}
		return recs[i].ID < recs[j].ID
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(recs); err != nil {
		return nil, fmt.Errorf("convlog: encoding index: %w", err)
	}
	return buf.Bytes(), nil
}

// loadIndex reads index.json, reconciles it with the folders and, for a
// writable store, saves the result if it changed.
func (s *Store) loadIndex() error {
	path := indexPath(s.dir)
	fi, statErr := os.Stat(path)
	data, err := os.ReadFile(path)
	var recs []*conversation.ConversationMeta
	rebuild := false
	switch {
	case errors.Is(err, fs.ErrNotExist):
		rebuild = true
	case err != nil:
		return fmt.Errorf("convlog: %w", err)
	default:
		if err := json.Unmarshal(data, &recs); err != nil {
			s.log.Warn("index.json is unreadable; rebuilding it from the conversation folders", "error", err)
			rebuild, recs = true, nil
		}
	}
	var indexTime time.Time
	if statErr == nil {
		indexTime = fi.ModTime()
	}
	index, changed := s.reconcile(recs, indexTime)
	s.mu.Lock()
	s.index = index
	if statErr == nil {
		s.indexStamp = fi
	} else {
		s.indexStamp = nil
	}
	if changed || rebuild {
		s.dirty = true
	}
	s.mu.Unlock()
	if s.readOnly {
		return nil
	}
	return s.flushIndex()
}

// refreshReadOnly reloads the index of a read-only store when index.json changed.
func (s *Store) refreshReadOnly() {
	if !s.readOnly {
		return
	}
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	fi, err := os.Stat(indexPath(s.dir))
	s.mu.Lock()
	old := s.indexStamp
	s.mu.Unlock()
	if err == nil && old != nil && os.SameFile(fi, old) && fi.Size() == old.Size() && fi.ModTime().Equal(old.ModTime()) {
		return
	}
	if err != nil && old == nil {
		return // still no index.json: the folders were read when the store opened
	}
	if lerr := s.loadIndex(); lerr != nil {
		s.log.Warn("reloading index.json", "error", lerr)
	}
}

// reconcile checks index records against the conversation folders (see the
// comment at the top of this file) and reports whether anything changed.
func (s *Store) reconcile(recs []*conversation.ConversationMeta, indexTime time.Time) (map[string]*conversation.ConversationMeta, bool) {
	index := make(map[string]*conversation.ConversationMeta, len(recs))
	changed := false
	for _, r := range recs {
		switch {
		case r == nil || !IsValidID(r.ID):
			s.log.Warn("dropping index record with an invalid id", "record", r)
			changed = true
		case index[r.ID] != nil:
			s.log.Warn("dropping duplicate index record", "conversation", r.ID)
			changed = true
		case !dirExists(convDir(s.dir, r.ID)):
			s.log.Warn("dropping index record of a conversation whose folder is gone", "conversation", r.ID)
			changed = true
		default:
			index[r.ID] = r
		}
	}
	adopted := map[string]bool{}
	if des, err := os.ReadDir(conversationsDir(s.dir)); err == nil {
		for _, de := range des {
			id := de.Name()
			if !de.IsDir() || !IsValidID(id) || index[id] != nil {
				continue
			}
			m := &conversation.ConversationMeta{ID: id}
			n, err := s.derive(m)
			if err != nil {
				s.log.Warn("cannot read conversation folder", "conversation", id, "error", err)
				continue
			}
			if n == 0 {
				// Neither a record nor an entry: a creation that a crash cut short
				// before the conversation was ever written. Nothing of it shows.
				s.removeUnborn(id)
				continue
			}
			if len(recs) > 0 {
				s.log.Info("adding conversation folder missing from index.json", "conversation", id)
			}
			index[id] = m
			adopted[id] = true
			changed = true
		}
	}
	for id, m := range index {
		if adopted[id] {
			continue
		}
		mod, size, isLog, ok := logStat(s.dir, id)
		if !ok {
			continue
		}
		var stale bool
		if isLog && m.LogSize > 0 {
			if size > m.LogSize {
				before := cloneMeta(m)
				if err := s.catchUp(m, size); err == nil {
					changed = changed || !metaEqual(&before, m)
					continue
				}
				*m = before
			}
			stale = size != m.LogSize
		} else if isLog && size > 0 {
			// a record without the size of a non-empty log was written
			// before the index kept it (and hasSummary): derived once
			stale = true
		} else {
			// a legacy messages.json or an empty log: the modification
			// times tell
			stale = indexTime.IsZero() || !mod.Before(indexTime) || (m.MessageCount == 0 && size > 0)
		}
		if stale {
			before := cloneMeta(m)
			if err := s.refreshDerived(m); err != nil {
				s.log.Warn("cannot read conversation log", "conversation", id, "error", err)
				continue
			}
			if !metaEqual(&before, m) {
				changed = true
			}
		}
	}
	return index, changed
}

// logStat returns the modification time and size of the conversation's log,
// or of its legacy file (isLog false).
func logStat(dir, id string) (mod time.Time, size int64, isLog, ok bool) {
	if fi, err := os.Stat(logPath(dir, id)); err == nil {
		return fi.ModTime(), fi.Size(), true, true
	}
	if fi, err := os.Stat(legacyPath(dir, id)); err == nil {
		return fi.ModTime(), fi.Size(), false, true
	}
	return time.Time{}, 0, false, false
}

// refreshDerived recomputes from the log what the index derives from it:
// message count, last activity, creation time (when unset), a default title,
// the active type (when unset), fork origin (when unset), checkpoints
// missing from the record and whether the log holds a summary.
func (s *Store) refreshDerived(m *conversation.ConversationMeta) error {
	_, err := s.derive(m)
	return err
}

// derive is refreshDerived that also returns how many entries the log holds.
func (s *Store) derive(m *conversation.ConversationMeta) (int, error) {
	var entries []*conversation.Entry
	data, err := os.ReadFile(logPath(s.dir, m.ID))
	switch {
	case err == nil:
		entries = parseLog(data, s.reporter(m.ID, LogFile))
		m.LogSize = int64(len(data))
	case errors.Is(err, fs.ErrNotExist):
		if entries, err = s.readAll(m.ID); err != nil {
			return 0, err
		}
		m.LogSize = 0
	default:
		return 0, fmt.Errorf("convlog: %w", err)
	}
	deriveMeta(m, entries, false)
	if m.CreatedAt == "" {
		if fi, err := os.Stat(convDir(s.dir, m.ID)); err == nil {
			m.CreatedAt = fsx.Stamp(fi.ModTime())
		} else {
			m.CreatedAt = fsx.Now()
		}
	}
	if m.LastActiveAt == "" {
		m.LastActiveAt = m.CreatedAt
	}
	return len(entries), nil
}

// removeUnborn removes the folder of a conversation that has no record and no entry (a
// writable store only; a read-only one just leaves it out).
func (s *Store) removeUnborn(id string) {
	if s.readOnly {
		return
	}
	s.log.Info("removing a conversation whose creation was interrupted (no entry, no record)", "conversation", id)
	if err := removeTree(convDir(s.dir, id)); err != nil {
		s.log.Warn("removing an interrupted conversation", "conversation", id, "error", err)
	}
}

// catchUp accounts for the lines appended after m.LogSize (the log is
// append-only and LogSize ends at a line boundary), reading only those.
func (s *Store) catchUp(m *conversation.ConversationMeta, size int64) error {
	f, err := os.Open(logPath(s.dir, m.ID))
	if err != nil {
		return err
	}
	defer f.Close()
	rest := make([]byte, size-m.LogSize+1)
	if _, err := f.ReadAt(rest, m.LogSize-1); err != nil {
		return err
	}
	if rest[0] != '\n' {
		return errors.New("recorded log size is not at a line boundary")
	}
	c := parseChunk(rest[1:], m.LogSize)
	for _, b := range c.bad {
		s.reporter(m.ID, LogFile)(b)
	}
	deriveMeta(m, c.entries, true)
	m.LogSize = size
	return nil
}

// deriveMeta sets what the index derives from log entries. With
// incremental, entries are the raw lines appended after the record was
// written: lines introducing a message add to MessageCount, a summary-class
// line sets HasSummary; otherwise they are the effective entries of the
// whole log.
func deriveMeta(m *conversation.ConversationMeta, entries []*conversation.Entry, incremental bool) {
	count := 0
	var first, last time.Time
	var firstRaw, lastRaw string
	title, forkTitle := "", ""
	mode := ""
	summary := false
	var usage *conversation.UsageTotals
	if incremental {
		usage = m.Usage
	}
	cps := map[string]bool{}
	for _, c := range m.Checkpoints {
		cps[c.Name] = true
	}
	for _, e := range entries {
		if t, err := time.Parse(time.RFC3339Nano, e.CreatedAt); err == nil {
			if first.IsZero() || t.Before(first) {
				first, firstRaw = t, e.CreatedAt
			}
			if t.After(last) {
				last, lastRaw = t, e.CreatedAt
			}
		}
		summary = summary || e.IsSummary()
		switch e.Type {
		case conversation.TypeMsg:
			if incremental && e.UpdatedAt != "" {
				continue
			}
			count++
			if e.Usage != nil {
				if usage == nil {
					usage = &conversation.UsageTotals{}
				}
				usage.Add(e.Model, *e.Usage)
			}
			if title == "" && e.Role == conversation.RoleUser && !e.IsMeta {
				title = titleFrom(e.Text())
			}
			if e.Mode != "" {
				mode = e.Mode
			}
		case conversation.TypeEvt:
			switch e.Event {
			case conversation.EventCheckpoint:
				var d checkpointData
				if json.Unmarshal(e.Data, &d) == nil && d.Name != "" && !cps[d.Name] {
					cps[d.Name] = true
					m.Checkpoints = append(m.Checkpoints, conversation.Checkpoint{Name: d.Name, MessageID: d.MessageID, CreatedAt: e.CreatedAt})
				}
			case conversation.EventForkOrigin:
				var d forkOriginData
				if json.Unmarshal(e.Data, &d) == nil {
					if forkTitle == "" {
						forkTitle = d.Title
					}
					if m.ParentID == "" {
						m.ParentID, m.ForkedFromMsgID, m.ForkedFromCheckpoint = d.ParentID, d.AtMessageID, d.Checkpoint
					}
				}
			}
		}
	}
	m.Usage = usage
	if incremental {
		m.MessageCount += count
		m.HasSummary = m.HasSummary || summary
	} else {
		m.MessageCount = count
		m.HasSummary = summary
	}
	if m.CreatedAt == "" && firstRaw != "" {
		m.CreatedAt = firstRaw
	}
	if lastRaw != "" {
		if cur, err := time.Parse(time.RFC3339Nano, m.LastActiveAt); err != nil || last.After(cur) {
			m.LastActiveAt = lastRaw
		}
	}
	if isDefaultTitle(m.Title) {
		m.Title = DefaultTitle
		if forkTitle != "" {
			m.Title = forkTitle
		} else if title != "" {
			m.Title = title
		}
	}
	if m.ActiveType == "" {
		switch mode {
		case conversation.ModeAgent:
			m.ActiveType = conversation.ActiveAgent
		case conversation.ModeRun:
			m.ActiveType = conversation.ActiveWorkflow
		default:
			m.ActiveType = conversation.ActiveChat
		}
	}
}

func metaEqual(a, b *conversation.ConversationMeta) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// sortMetas orders by last activity, newest first (then creation, then id).
func sortMetas(ms []conversation.ConversationMeta) {
	key := func(s string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, s)
		return t
	}
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := key(ms[i].LastActiveAt), key(ms[j].LastActiveAt)
		if !a.Equal(b) {
			return a.After(b)
		}
		a, b = key(ms[i].CreatedAt), key(ms[j].CreatedAt)
		if !a.Equal(b) {
			return a.After(b)
		}
		return ms[i].ID < ms[j].ID
	})
}

// adopt adds to the index the conversation folders another program created
// after the index was loaded (every folder not in the index when ids is nil)
// and reports whether it added any. Their records are derived from their logs.
func (s *Store) adopt(ids []string) bool {
	if ids == nil {
		des, err := os.ReadDir(conversationsDir(s.dir))
		if err != nil {
			return false
		}
		for _, de := range des {
			if de.IsDir() && IsValidID(de.Name()) {
				ids = append(ids, de.Name())
			}
		}
	}
	var found []*conversation.ConversationMeta
	for _, id := range ids {
		s.mu.Lock()
		known := s.index[id] != nil
		s.mu.Unlock()
		if known || !dirExists(convDir(s.dir, id)) {
			continue
		}
		m := &conversation.ConversationMeta{ID: id}
		n, err := s.derive(m)
		if err != nil {
			s.log.Warn("cannot read conversation folder", "conversation", id, "error", err)
			continue
		}
		if n == 0 {
			continue // being created, or an interrupted creation: not a conversation yet
		}
		found = append(found, m)
	}
	added := false
	s.mu.Lock()
	for _, m := range found {
		if s.index[m.ID] == nil {
			s.log.Info("adding conversation folder created outside this process", "conversation", m.ID)
			s.index[m.ID], s.dirty, added = m, true, true
		}
	}
	s.mu.Unlock()
	if added {
		if err := s.flushIndex(); err != nil {
			s.log.Warn("saving index.json", "error", err)
		}
	}
	return added
}
