package compression

import (
	"context"
	"errors"

	"crewagent/backend/contextbuilder"
)

// Strategy names (the values of settings context.compressionStrategy).
const (
	NameKeyMessages = "key-messages"
	NameLLMSummary  = "llm-summary"
)

// Strategy compresses a request.
type Strategy interface {
	Name() string
	Compress(ctx context.Context, in Input) (*Output, error)
}

// Input is what a strategy compresses.
type Input struct {
	// Messages is the request: system prompt, history, run blocks and the
	// messages of the current tool loop, each with its source id and tokens.
	Messages []Message
	// Target is the most contextbuilder.TokensOf(output messages) may be.
	Target int
	// LoopStart is the index of the first message of the tool loop in
	// progress: messages from there on are never changed or dropped. A value
	// <= 0 or >= len(Messages) means no loop is running (index 0 is always the
	// system prompt).
	LoopStart int
	// Counter counts the texts a strategy writes (previews, cut texts,
	// summaries); stored counts are never recomputed.
	Counter contextbuilder.Counter
	Model   string
}

// loopStart returns the effective loop start (len(Messages) when none).
func (in *Input) loopStart() int {
	if in.LoopStart <= 0 || in.LoopStart > len(in.Messages) {
		return len(in.Messages)
	}
	return in.LoopStart
}

// ErrNoCounter is returned when Input.Counter is nil.
var ErrNoCounter = errors.New("compression: a token counter is required")

// Output is a compressed request and its explanation.
type Output struct {
	Messages []Message `json:"-"`
	// LoopStart is the index of the first current-loop message in Messages
	// (len(Messages) when no loop is running).
	LoopStart int `json:"loopStart"`
	// Dropped lists the source ids of history messages left out.
	Dropped []string `json:"dropped"`
	// Truncated lists the source ids of messages kept in a shortened form
	// (tool previews, cut texts); the log keeps them whole.
	Truncated []string `json:"truncated"`
	// SummaryText is the summary of the dropped messages (llm-summary only).
	SummaryText string `json:"summaryText,omitempty"`
	// SummaryError says why the LLM summary is missing when llm-summary fell
	// back to the key-message result.
	SummaryError string `json:"summaryError,omitempty"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
	Target       int    `json:"target"`
	Strategy     string `json:"strategy"`
	// Steps lists the fallback steps that were needed, in order.
	Steps []string `json:"steps,omitempty"`
	// OverTarget is true when even the messages that are never dropped
	// exceed the target; the output is then that minimal set.
	OverTarget  bool          `json:"overTarget"`
	Notes       []string      `json:"notes,omitempty"`
	Explanation []Explanation `json:"explanation"`
}

// Explanation is one row of a compression explanation: a unit (one message,
// or an assistant message with its tool results) and what happened to it.
type Explanation struct {
	Index       int       `json:"index"` // input index of the first message
	Count       int       `json:"count"` // messages in the unit
	SourceID    string    `json:"sourceId,omitempty"`
	Role        string    `json:"role"`
	Tokens      int       `json:"tokens"`
	TokensAfter int       `json:"tokensAfter"`
	Decision    string    `json:"decision"` // kept | dropped
	Reason      string    `json:"reason"`
	Score       float64   `json:"score"`
	Rank        int       `json:"rank,omitempty"` // position in the score order (1 = best)
	Breakdown   Breakdown `json:"breakdown"`
}

// sourceIDs returns the non-empty source ids of msgs.
func sourceIDs(msgs []Message) []string {
	var out []string
	for i := range msgs {
		if msgs[i].SourceID != "" {
			out = append(out, msgs[i].SourceID)
		}
	}
	return out
}

// count returns the request cost of a rewritten message.
func count(in *Input, m *Message) int {
	return contextbuilder.CountMessage(in.Counter, in.Model, m)
}
