// Package compression owns context compression: usage monitoring, the
// strategies (key-message extraction, LLM summary) and the threshold pipeline.
//
// A request built by contextbuilder is checked before every LLM call (and
// before every turn of a tool loop): when it uses more than the trigger
// threshold (80 %) of the budget, the pipeline runs its primary strategy to
// bring it down to the target (50 %), falling back to key-message extraction
// when the primary fails. Messages of the tool loop in progress (LoopStart
// onwards) are never compressed. Compression does not write anything: the
// Record it returns says what the caller persists (a "compaction" event, the
// compacted marks of the dropped messages, and for the LLM summary the summary
// message), so that the next build starts from the compressed state.
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

// Monitor measures requests against a budget.
type Monitor struct {
	// Budget is what a request may use in tokens (the model's window minus
	// the reserve for the reply: contextbuilder.Budget.TokenLimit()).
	Budget int
	// ToolTokens is what the tool definitions sent with each request cost.
	ToolTokens int
}

// Usage returns the usage of msgs: their stored per-message tokens, the reply
// priming and the tool definitions. Nothing is recounted.
func (m Monitor) Usage(msgs []Message) Usage {
	return m.usage(contextbuilder.TokensOf(msgs) + m.ToolTokens)
}

func (m Monitor) usage(used int) Usage {
	u := Usage{UsedTokens: used, TotalBudget: m.Budget}
	if m.Budget > 0 {
		u.UsagePercent = float64(used) * 100 / float64(m.Budget)
	} else if used > 0 {
		u.UsagePercent = 100
	}
	if r := m.Budget - used; r > 0 {
		u.Remaining = r
	}
	return u
}
