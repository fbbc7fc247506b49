package convlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
)

// Compaction, pins and runtime records.
//
// A compaction appends, in one write: a copy of every compacted message with
// "compacted":true (and "updatedAt"), then the "compaction" event, then the
// summary message it names (a system message whose content starts with
// CONVERSATION_SUMMARY). Nothing is deleted. The event's data is a
// CompactionData; readers take what they do not know as it is.
//
// A pin is an event {"event":"pin","ref_msg_id":<message>,"data":PinData};
// "unpin" with the same ref_msg_id removes it. The pin's data carries the
// message text, so a pinned message that was compacted long ago can be put
// back into a request without reading the log up to it; every compaction
// carries the pins active at that moment in its data ("pinned"), so a reader
// only needs the pin events after the last compaction event.
//
// Runtime records (ARTIFACT_SAVED, NODE_COMPLETE, written by workflow runs)
// are system messages with "partType":"record": hidden in the chat, quoted to
// the model in the request's PINNED message, and carried verbatim by every
// compaction.

// Event names of pins.
const (
	EventPin   = "pin"
	EventUnpin = "unpin"
)

// PartRecord is the part type of a runtime record message.
const PartRecord = "record"

// Prefixes of runtime records (aliases of backend/conversation).
const (
	RecordNodeComplete  = conversation.RecordNodeComplete
	RecordArtifactSaved = conversation.RecordArtifactSaved
)

// Kinds of carried messages.
const (
	CarriedPin    = "pin"    // pinned by the user
	CarriedRecord = "record" // a runtime record (artifact saved, step completed)
	CarriedMeta   = "meta"   // an is_meta message (a skill's body, say)
)

// MaxCarriedChars caps the text a pin or a carried record keeps (runes); a
// meta message (a skill's instructions) is carried whole.
const MaxCarriedChars = 8000

// Carried is a message a compaction keeps word for word: the request shows
// it in the PINNED block once the message itself is compacted.
type Carried struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Tool string `json:"tool,omitempty"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// CompactionRef is one earlier compaction, as later compaction events list
// them (so an explanation of the whole conversation needs only the last event).
type CompactionRef struct {
	EventID   string `json:"eventId"`
	From      string `json:"from"`
	To        string `json:"to"`
	Count     int    `json:"count"`
	CreatedAt string `json:"createdAt,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// CompactionData is the data of a compaction event this runtime writes.
type CompactionData struct {
	// From and To are the first and last compacted messages (request order).
	From string `json:"from"`
	To   string `json:"to"`
	// Summary is the id of the summary message appended with the event.
	Summary  string `json:"summary,omitempty"`
	Strategy string `json:"strategy"`
	// Count is the number of messages compacted by this event;
	// CompactedTotal counts every compaction of the conversation so far.
	Count          int `json:"count"`
	CompactedTotal int `json:"compactedTotal"`
	// KeptFrom is the oldest log entry the next request still needs: a
	// reader loads the log from there (the event and summary follow it).
	KeptFrom     string `json:"keptFrom"`
	Reason       string `json:"reason,omitempty"`
	Focus        string `json:"focus,omitempty"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
	Target       int    `json:"target"`
	Mode         string `json:"mode,omitempty"`
	RunID        string `json:"runId,omitempty"`
	WorkflowID   string `json:"workflowId,omitempty"`
	// SummaryError says why the configured summary failed and the digest
	// was used instead.
	SummaryError string `json:"summaryError,omitempty"`
	// Pinned are the messages carried word for word: active pins, runtime
	// records and meta messages, in log order.
	Pinned []Carried `json:"pinned"`
	// Earlier lists the compactions before this one (oldest first, the
	// newest 200).
	Earlier []CompactionRef `json:"earlier,omitempty"`
	// RecallDocs is how many messages the recall index holds after this
	// compaction.
	RecallDocs int `json:"recallDocs,omitempty"`
	// Skills is the state of the conversation's skills when it was compacted
	// (skills.Snapshot): a reader that starts at this event knows which
	// skills are active without the older entries.
	Skills json.RawMessage `json:"skills,omitempty"`
}

// ParseCompactionData decodes the data of a compaction event. ok is false
// when it is not an object.
func ParseCompactionData(raw json.RawMessage) (d CompactionData, ok bool) {
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil {
		return CompactionData{}, false
	}
	return d, true
}

// PinData is the data of a pin event.
type PinData struct {
	Role string `json:"role"`
	Tool string `json:"tool,omitempty"`
	Text string `json:"text"`
}

// ClipCarried cuts a carried text to MaxCarriedChars runes.
func ClipCarried(s string) string {
	if utf8.RuneCountInString(s) <= MaxCarriedChars {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxCarriedChars {
			return s[:i] + " […]"
		}
		n++
	}
	return s
}

// CompactionWrite is what Store.Compact appends.
type CompactionWrite struct {
	// MessageIDs are marked compacted (each must exist).
	MessageIDs []string
	// Event is the compaction event (Type, Event and Data are filled in;
	// an empty ID gets one).
	Event *Entry
	// Summary is the summary message (nil: none).
	Summary *Entry
}

// Compact records a compaction in one write: the compacted marks, the event,
// then the summary message (see the comment at the top of this file).
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
	cur, err := s.latest(id, ids)
	if err != nil {
		return err
	}
	now := Now()
	lines := make([]*Entry, 0, len(ids)+2)
	for _, x := range ids {
		c := *cur[x]
		c.Compacted = true
		c.UpdatedAt = now
		lines = append(lines, &c)
	}
	ev := w.Event
	ev.Type, ev.Event, ev.UpdatedAt = TypeEvt, EventCompaction, ""
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
		sum.Type, sum.UpdatedAt = TypeMsg, ""
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

// Pin records a pin of message msgID (which must exist): an event carrying
// the message's role and text. Pinning a pinned message records it again
// (the newest text wins).
func (s *Store) Pin(id, msgID string) (*Entry, error) {
	return s.pinEvent(id, msgID, EventPin)
}

// Unpin records that message msgID is no longer pinned.
func (s *Store) Unpin(id, msgID string) (*Entry, error) {
	return s.pinEvent(id, msgID, EventUnpin)
}

func (s *Store) pinEvent(id, msgID, event string) (*Entry, error) {
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
	data := PinData{Role: m.Role, Tool: m.ToolName, Text: ClipCarried(m.Text())}
	if event == EventUnpin {
		data = PinData{Role: m.Role}
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	ev := &Entry{Type: TypeEvt, ID: uuid.NewString(), CreatedAt: Now(), Event: event, Data: raw, RefMsgID: msgID}
	if err := s.commit(id, []*Entry{ev}); err != nil {
		return nil, err
	}
	return ev, nil
}

// Sidecar files kept beside a conversation's log (the recall index and its
// cached embeddings). They are derived data: a missing or damaged one is
// rebuilt or ignored, never needed to read the conversation.
const (
	RecallFile       = "recall.jsonl"
	embeddingsPrefix = "embeddings-"
)

// EmbeddingsFile is the sidecar holding the vectors of one embeddings model
// (key is a short hash of the model name).
func EmbeddingsFile(key string) string { return embeddingsPrefix + key + ".bin" }

func checkSidecar(name string) error {
	if name == RecallFile {
		return nil
	}
	if k, ok := strings.CutPrefix(name, embeddingsPrefix); ok {
		k, ok = strings.CutSuffix(k, ".bin")
		if ok && k != "" && IsValidMessageID(k) {
			return nil
		}
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
	rec := ToolResultFile{ConversationID: id, MessageID: msgID, ToolCallID: toolCallID, ToolName: toolName, Content: full}
	if err := s.writeToolResult(id, msgID, rec, ReadableOutput(full)); err != nil {
		return "", err
	}
	return alias, nil
}

// LoadBackTo returns the effective entries introduced from entry from on
// (same update semantics as LoadTail), reading the log backwards in one pass
// only as far as that entry's first line. When from is not in the log the
// whole conversation is returned.
func (s *Store) LoadBackTo(id, from string) ([]*Entry, error) {
	return s.readBack(id, func(f *os.File, size int64, report func(badLine)) ([]*Entry, error) {
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
	}, func(all []*Entry) []*Entry {
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
func uncompactLater(entries []*Entry) []*Entry {
	pos := make(map[string]int, len(entries))
	for i, e := range entries {
		pos[e.ID] = i
	}
	limit := -1
	for _, e := range entries {
		if e.IsEvent() && e.Event == EventCompaction {
			d, _ := ParseCompactionData(e.Data)
			if p, ok := pos[d.To]; ok && p > limit {
				limit = p
			}
		}
	}
	out := make([]*Entry, len(entries))
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
func (s *Store) copyRecall(from, to string, entries []*Entry) {
	want := map[string]bool{}
	for _, e := range entries {
		if e.Compacted {
			want[e.ID] = true
		}
	}
	if len(want) == 0 {
		return
	}
	data, err := os.ReadFile(filepath.Join(convDir(s.dir, from), RecallFile))
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
	path := filepath.Join(convDir(s.dir, to), RecallFile)
	s.own.begin(path)
	if _, err := writeFileAtomic(path, out.Bytes(), 0o644); err != nil {
		s.own.abort(path)
		s.log.Warn("cannot copy the recall index to the fork", "conversation", from, "error", err)
		return
	}
	s.own.endStat(path)
}
