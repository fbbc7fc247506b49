package conversation

import (
	"encoding/json"
	"unicode/utf8"
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
	// Appended is true when the summary is the one before with a block for
	// the messages compacted now appended (its text starts with the earlier
	// summary's, byte for byte); false when it was written whole.
	Appended bool `json:"appended,omitempty"`
	// Reduced is true while the summary holds a digest written smaller than
	// its budget so that the compaction could leave room for the next turn;
	// the next consolidation writes it at its full size.
	Reduced bool `json:"reduced,omitempty"`
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
