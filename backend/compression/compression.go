// Package compression owns context compaction: when a request fills its
// budget, the oldest part of the history becomes a summary, persisted, so
// that nothing leaves the context silently and every later request is built
// from the summary plus the uncompacted tail.
//
// The order is build → compact → build, never truncate-then-compress: the
// context builder builds the request with every history unit whole (its
// Debug.Full* figures); when that is over the trigger (Config.Trigger, 95 %
// of the token limit, or over a message/character cap) Plan picks the oldest
// units before the newest user message — whole tool groups, never the newest
// user message or the current tool loop — until the rebuilt request would be
// at the landing size (landing: the fixed part and 60 % of the room after
// it, lowered so that the next turns have room before the trigger); Compact
// writes the summary that
// replaces them; the caller persists it (convlog.Store.Compact: the
// compacted marks, the "compaction" event, the summary message) and builds
// again.
//
// What a compaction took but still fits is sent word for word anyway
// (Config.Refill, contextbuilder.Refill): the request holds the newest
// compacted messages up to the trigger, the same ones from one request to
// the next while they fit, so that no request keeps less of the recent
// history than keep-newest truncation would while the summary adds what is
// older.
//
// The request stays cache-friendly: the summary grows by appending a block
// for each compaction (the earlier summary's bytes stay at its start, so a
// provider's prefix cache keeps them), and is consolidated into one digest
// only when the blocks outgrow the summary's budget.
//
// Strategies: key-messages (the default, no LLM) writes an extractive digest
// (digest.go); llm-summary asks the summary model for the same classes of
// facts (SummaryPrompt) and falls back to the digest when that fails. Both
// keep the first user message (the task) and carry the pinned messages,
// runtime records and meta messages word for word (conversation.Carried), which
// the builder quotes in its PINNED message once they are compacted.
package compression

import (
	"crewagent/backend/contextbuilder"
)

// Message is a request message (with its source id, tokens and kind).
type Message = contextbuilder.Message

// Usage statuses (contracts: context:usage).
const (
	StatusNormal      = "normal"
	StatusWarning     = "warning"
	StatusCritical    = "critical"
	StatusCompressing = "compressing"
)

// Usage is how much of the budget a request uses.
type Usage struct {
	UsedTokens   int     `json:"usedTokens"`
	TotalBudget  int     `json:"totalBudget"`
	UsagePercent float64 `json:"usagePercent"` // 0-100 (above 100 when over budget)
	Remaining    int     `json:"remaining"`    // never negative
}

// Status returns the indicator status of a usage percentage: normal below
// 60, warning from 60 to 80, critical above 80.
func Status(percent float64) string {
	switch {
	case percent > 80:
		return StatusCritical
	case percent >= 60:
		return StatusWarning
	}
	return StatusNormal
}

// Status returns the indicator status of u.
func (u Usage) Status() string { return Status(u.UsagePercent) }

// UsageOf returns the usage of used tokens against a limit.
func UsageOf(used, limit int) Usage {
	u := Usage{UsedTokens: used, TotalBudget: limit}
	if limit > 0 {
		u.UsagePercent = float64(used) * 100 / float64(limit)
	} else if used > 0 {
		u.UsagePercent = 100
	}
	if r := limit - used; r > 0 {
		u.Remaining = r
	}
	return u
}
