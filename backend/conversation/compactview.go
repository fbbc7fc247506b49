package conversation

import (
	"encoding/json"
	"strings"
)

// Pins and compactions as the screen shows them.

// Event names of pins (a pin event's ref_msg_id names the message).
const (
	eventPin   = "pin"
	eventUnpin = "unpin"
)

// Compaction reasons (the engine's).
const compactionManual = "manual"

// Compaction strategies.
const (
	strategyDigest = "key-messages"
	strategyLLM    = "llm-summary"
)

// CompactionView is a compaction as a card of the conversation: how many
// messages went into the summary, whether the user asked for it (and with
// which focus), the usage before and after, how the summary was written, the
// summary itself and the messages kept word for word.
type CompactionView struct {
	Count        int    `json:"count"`
	Manual       bool   `json:"manual,omitempty"`
	Focus        string `json:"focus,omitempty"`
	TokensBefore int    `json:"tokensBefore,omitempty"`
	TokensAfter  int    `json:"tokensAfter,omitempty"`
	// Method says in words how the summary was written.
	Method string `json:"method"`
	// Summary is the summary as the screen shows it ("" when its message
	// is not among the entries read).
	Summary string       `json:"summary,omitempty"`
	Pinned  []PinnedView `json:"pinned"`
}

// PinnedView is a message a compaction kept word for word: who wrote it, in
// words, and its text.
type PinnedView struct {
	ID   string `json:"id"`
	Who  string `json:"who"`
	Text string `json:"text"`
}

// compactionData is the part of a compaction event's data the screen reads
// (the whole of it is convlog.CompactionData).
type compactionData struct {
	Summary      string `json:"summary"`
	Strategy     string `json:"strategy"`
	Count        int    `json:"count"`
	Reason       string `json:"reason"`
	Focus        string `json:"focus"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
	SummaryError string `json:"summaryError"`
	Pinned       []struct {
		ID   string `json:"id"`
		Role string `json:"role"`
		Tool string `json:"tool"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"pinned"`
}

// markPins sets View.Pinned on the messages whose last pin event pins them
// (views reach the end of the log, where every later event of a message
// read is).
func markPins(views []EntryView) {
	pinned := map[string]bool{}
	for _, v := range views {
		if v.IsEvent() && v.RefMsgID != "" {
			switch v.Event {
			case eventPin:
				pinned[v.RefMsgID] = true
			case eventUnpin:
				pinned[v.RefMsgID] = false
			}
		}
	}
	if len(pinned) == 0 {
		return
	}
	for i := range views {
		if views[i].IsMessage() && pinned[views[i].ID] {
			views[i].View.Pinned = true
		}
	}
}

// describeCompactions sets View.Compaction on compaction events.
func describeCompactions(views []EntryView, summary func(string) string) {
	byID := map[string]int{}
	for i, v := range views {
		if v.IsMessage() && v.IsSummary() {
			byID[v.ID] = i
		}
	}
	for i := range views {
		v := &views[i]
		if !v.IsEvent() || v.Event != EventCompaction {
			continue
		}
		var d compactionData
		_ = json.Unmarshal(v.Data, &d) // an event without data is still a compaction
		c := &CompactionView{Count: d.Count, Manual: d.Reason == compactionManual, Focus: strings.TrimSpace(d.Focus),
			TokensBefore: d.TokensBefore, TokensAfter: d.TokensAfter, Method: compactionMethod(d), Pinned: []PinnedView{}}
		if j, ok := byID[d.Summary]; ok {
			text := views[j].Text()
			if summary != nil {
				c.Summary = summary(text)
			} else {
				c.Summary = withoutMarker(text)
			}
		}
		for _, p := range d.Pinned {
			text := p.Text
			if p.Kind == "record" {
				text = RecordWords(text)
			}
			c.Pinned = append(c.Pinned, PinnedView{ID: p.ID, Who: carriedWho(p.Kind, p.Role, p.Tool), Text: text})
		}
		v.View.Compaction = c
	}
}

// compactionMethod says how a compaction's summary was written.
func compactionMethod(d compactionData) string {
	switch {
	case d.Strategy == strategyLLM:
		return "summarised by the model"
	case d.SummaryError != "":
		return "the model's summary failed, so the key lines were kept instead"
	case d.Strategy == strategyDigest || d.Strategy == "":
		return "the key lines kept, without calling the model"
	}
	return "summarised (" + d.Strategy + ")"
}

// carriedWho says in words whose message a compaction carried.
func carriedWho(kind, role, tool string) string {
	switch {
	case kind == "record":
		return "Run record"
	case kind == "meta":
		return "Instructions"
	case role == RoleUser:
		return "You"
	case role == RoleTool && tool != "":
		return "Result of " + tool
	case role == RoleTool:
		return "Tool result"
	case role == RoleAssistant:
		return "Assistant"
	}
	return "Note"
}

// withoutMarker drops the marker line of a summary (CONVERSATION_SUMMARY).
func withoutMarker(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, p := range []string{ConversationSummaryPrefix, SummaryPrefix} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			if i := strings.IndexByte(rest, '\n'); i >= 0 && strings.TrimSpace(rest[:i]) == "" {
				return strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return strings.TrimSpace(text)
}
