package convlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// CompactionWrite is what Store.Compact appends.
type CompactionWrite struct {
	// MessageIDs are marked compacted (each must exist).
	MessageIDs []string
	// Versions are the messages of MessageIDs as the caller read them from
	// this store (their latest versions, unchanged), and ReadAt the log's
	// size (LogSize) taken before that read: the store then reads only the
	// lines written after ReadAt for newer versions instead of the whole log
	// again. Without them (or when the log was rewritten since), it reads
	// the latest versions itself.
	Versions []*conversation.Entry
	ReadAt   int64
	// Event is the compaction event (Type, Event and Data are filled in;
	// an empty ID gets one).
	Event *conversation.Entry
	// Summary is the summary message (nil: none).
	Summary *conversation.Entry
}

// Compact records a compaction in one write: the compacted marks, the event,
// then the summary message (see conversation/compaction.go).
func (s *Store) Compact(id string, w CompactionWrite) error {
	if err := checkConvID(id); err != nil {
		return err
	}
	if w.Event == nil {
		return fmt.Errorf("%w: a compaction needs its event", ErrInvalidArgument)
	}
	_, release, err := s.beginWrite(id)
	if err != nil {
		return err
	}
	defer release()
	if err := s.migrate(id); err != nil {
		return err
	}
	ids := uniqueStrings(w.MessageIDs)
	cur, err := s.latestSince(id, ids, w.Versions, w.ReadAt)
	if err != nil {
		return err
	}
	now := fsx.Now()
	lines := make([]*conversation.Entry, 0, len(ids)+2)
	for _, x := range ids {
		c := *cur[x]
		c.Compacted = true
		c.UpdatedAt = now
		lines = append(lines, &c)
	}
	ev := w.Event
	ev.Type, ev.Event, ev.UpdatedAt = conversation.TypeEvt, conversation.EventCompaction, ""
	if ev.ID == "" {
		ev.ID = uuid.NewString()
	}
	if ev.CreatedAt == "" {
		ev.CreatedAt = now
	}
	if err := validateEntry(ev); err != nil {
		return err
	}
	lines = append(lines, ev)
	if sum := w.Summary; sum != nil {
		sum.Type, sum.UpdatedAt = conversation.TypeMsg, ""
		if sum.ID == "" {
			sum.ID = uuid.NewString()
		}
		if sum.CreatedAt == "" {
			sum.CreatedAt = now
		}
		if err := validateEntry(sum); err != nil {
			return err
		}
		s.count(sum)
		lines = append(lines, sum)
	}
	return s.commit(id, lines)
}

// LogSize returns the size of conversation id's log (0 when it has none
// yet): taken before a read, it tells Compact which lines came after it.
func (s *Store) LogSize(id string) (int64, error) {
	if err := checkConvID(id); err != nil {
		return 0, err
	}
	fi, err := os.Stat(logPath(s.dir, id))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("convlog: %w", err)
	}
	return fi.Size(), nil
}

// latestSince returns the latest version of each of ids: those of versions
// (read by the caller when the log was readAt bytes long), replaced by any
// newer line written since. It reads the whole log (latest) when versions
// do not cover ids or the log no longer starts with what was read: shorter
// than readAt, or readAt not at the end of a line.
func (s *Store) latestSince(id string, ids []string, versions []*conversation.Entry, readAt int64) (map[string]*conversation.Entry, error) {
	if len(versions) == 0 || readAt <= 0 {
		return s.latest(id, ids)
	}
	given := make(map[string]*conversation.Entry, len(ids))
	for _, e := range versions {
		if e != nil {
			given[e.ID] = e
		}
	}
	for _, x := range ids {
		if given[x] == nil {
			return s.latest(id, ids)
		}
	}
	f, err := os.Open(logPath(s.dir, id))
	if err != nil {
		return s.latest(id, ids)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("convlog: %w", err)
	}
	var last [1]byte
	if size := fi.Size(); size < readAt {
		return s.latest(id, ids)
	} else if _, err := f.ReadAt(last[:], readAt-1); err != nil || last[0] != '\n' {
		return s.latest(id, ids)
	} else if size > readAt {
		newer, err := findLatest(io.NewSectionReader(f, readAt, size-readAt), size-readAt, ids)
		if err != nil {
			return nil, fmt.Errorf("convlog: %w", err)
		}
		for k, e := range newer {
			given[k] = e
		}
	}
	out := make(map[string]*conversation.Entry, len(ids))
	for _, x := range ids {
		out[x] = given[x]
	}
	return out, nil
}

// Pin records a pin of message msgID (which must exist): an event carrying
// the message's role and text. Pinning a pinned message records it again
// (the newest text wins).
func (s *Store) Pin(id, msgID string) (*conversation.Entry, error) {
	return s.pinEvent(id, msgID, conversation.EventPin)
}

// Unpin records that message msgID is no longer pinned.
func (s *Store) Unpin(id, msgID string) (*conversation.Entry, error) {
	return s.pinEvent(id, msgID, conversation.EventUnpin)
}

func (s *Store) pinEvent(id, msgID, event string) (*conversation.Entry, error) {
	if err := checkConvID(id); err != nil {
		return nil, err
	}
	if err := checkMsgID(msgID); err != nil {
		return nil, err
	}
	_, release, err := s.beginWrite(id)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := s.migrate(id); err != nil {
		return nil, err
	}
	cur, err := s.latest(id, []string{msgID})
	if err != nil {
		return nil, err
	}
	m := cur[msgID]
	if !m.IsMessage() {
		return nil, fmt.Errorf("%w: %s is an event, not a message", ErrInvalidArgument, msgID)
	}
	data := conversation.PinData{Role: m.Role, Tool: m.ToolName, Text: conversation.ClipCarried(m.Text())}
	if event == conversation.EventUnpin {
		data = conversation.PinData{Role: m.Role}
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	ev := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: fsx.Now(), Event: event, Data: raw, RefMsgID: msgID}
	if err := s.commit(id, []*conversation.Entry{ev}); err != nil {
		return nil, err
	}
	return ev, nil
}

func checkSidecar(name string) error {
	if name == conversation.RecallFile {
		return nil
	}
	if k, ok := conversation.EmbeddingsKey(name); ok && IsValidMessageID(k) {
		return nil
	}
	return fmt.Errorf("%w: %q is not a sidecar file of a conversation", ErrInvalidArgument, name)
}

// SidecarPath returns the path of a sidecar file of conversation id.
func (s *Store) SidecarPath(id, name string) (string, error) {
	if err := checkConvID(id); err != nil {
		return "", err
	}
	if err := checkSidecar(name); err != nil {
		return "", err
	}
	return filepath.Join(convDir(s.dir, id), name), nil
}

// AppendSidecar appends data (whole records) to a sidecar file of
// conversation id, creating it when needed. The write is the store's own (a
// watcher does not report it as a change by someone else).
func (s *Store) AppendSidecar(id, name string, data []byte) error {
	path, err := s.SidecarPath(id, name)
	if err != nil {
		return err
	}
	release, err := s.begin(true)
	if err != nil {
		return err
	}
	defer release()
	l := s.convLock(id)
	l.Lock()
	defer l.Unlock()
	if _, err := s.lookup(id); err != nil {
		return err
	}
	if err := os.MkdirAll(convDir(s.dir, id), 0o755); err != nil {
		return fmt.Errorf("convlog: %w", err)
	}
	s.own.begin(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		s.own.abort(path)
		return fmt.Errorf("convlog: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	s.own.endStat(path)
	if werr != nil {
		return fmt.Errorf("convlog: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("convlog: %w", cerr)
	}
	return nil
}

// SaveToolOutput makes sure the full output of tool result msgID of
// conversation id is in its tool-results file and returns the alias the
// tools read it under. full is the complete output (the message's content
// when the log holds it whole). An existing file is kept.
func (s *Store) SaveToolOutput(id, msgID, toolCallID, toolName, full string) (string, error) {
	if err := checkConvID(id); err != nil {
		return "", err
	}
	if err := checkMsgID(msgID); err != nil {
		return "", err
	}
	release, err := s.begin(true)
	if err != nil {
		return "", err
	}
	defer release()
	alias := ToolResultAlias(id, msgID)
	if _, err := os.Stat(toolResultPath(s.dir, id, msgID)); err == nil {
		return alias, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("convlog: %w", err)
	}
	rec := conversation.ToolResultFile{ConversationID: id, MessageID: msgID, ToolCallID: toolCallID, ToolName: toolName, Content: full}
	if err := s.writeToolResult(id, msgID, rec, ReadableOutput(full)); err != nil {
		return "", err
	}
	return alias, nil
}

// LoadBackTo returns the effective entries introduced from entry from on
// (same update semantics as LoadTail), reading the log backwards in one pass
// only as far as that entry's first line. When from is not in the log the
// whole conversation is returned.
func (s *Store) LoadBackTo(id, from string) ([]*conversation.Entry, error) {
	return s.readBack(id, func(f *os.File, size int64, report func(badLine)) ([]*conversation.Entry, error) {
		t := newTailSet()
		whole := true
		err := scanBackward(f, size, func(line []byte, off int64, terminated bool) bool {
			t.addLine(line, off, terminated, report)
			if it := t.items[from]; it != nil && it.anchored {
				whole = false
				return false
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		out := t.result(whole, 0, report)
		if !whole {
			for i, e := range out {
				if e.ID == from {
					return out[i:], nil
				}
			}
		}
		return out, nil
	}, func(all []*conversation.Entry) []*conversation.Entry {
		for i, e := range all {
			if e.ID == from {
				return all[i:]
			}
		}
		return all
	})
}

// uncompactLater returns entries (a prefix of a log's effective entries, as
// a fork at a message copies them) without the compacted marks that
// compaction events outside the prefix made: those entries were part of the
// history at the fork point. A compaction compacts the oldest part of the
// history, so what the prefix's own events compacted lies at or before the
// last one's "to"; anything compacted after it was compacted later.
func uncompactLater(entries []*conversation.Entry) []*conversation.Entry {
	pos := make(map[string]int, len(entries))
	for i, e := range entries {
		pos[e.ID] = i
	}
	limit := -1
	for _, e := range entries {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			d, _ := conversation.ParseCompactionData(e.Data)
			if p, ok := pos[d.To]; ok && p > limit {
				limit = p
			}
		}
	}
	out := make([]*conversation.Entry, len(entries))
	for i, e := range entries {
		out[i] = e
		if e.Compacted && i > limit {
			c := *e
			c.Compacted = false
			out[i] = &c
		}
	}
	return out
}

// copyRecall copies the recall documents of the entries a fork holds
// compacted from the parent's index to the fork's. Failures only cost
// recall: they are logged.
func (s *Store) copyRecall(from, to string, entries []*conversation.Entry) {
	want := map[string]bool{}
	for _, e := range entries {
		if e.Compacted {
			want[e.ID] = true
		}
	}
	if len(want) == 0 {
		return
	}
	data, err := os.ReadFile(filepath.Join(convDir(s.dir, from), conversation.RecallFile))
	if err != nil {
		return
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(data, []byte("\n")) {
		var d struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(line, &d) == nil && want[d.ID] {
			out.Write(line)
			out.WriteByte('\n')
		}
	}
	if out.Len() == 0 {
		return
	}
	path := filepath.Join(convDir(s.dir, to), conversation.RecallFile)
	s.own.begin(path)
	if _, err := writeFileAtomic(path, out.Bytes(), 0o644); err != nil {
		s.own.abort(path)
		s.log.Warn("cannot copy the recall index to the fork", "conversation", from, "error", err)
		return
	}
	s.own.endStat(path)
}
