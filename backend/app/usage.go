package app

import (
	"crewagent/backend/conversation"
	"crewagent/backend/events"
)

// publishUsage sends context:usage: the engine's measure of each request of
// a reply (and "compressing" while it compacts) and, after a reply, a run
// turn or a compaction, the measure of the next request (emitNextUsage).
func (ws *Workspace) publishUsage(u events.UsageEvent) {
	ws.emitter.Emit(events.ContextUsage, u)
}

// ConversationUsage is what one conversation's model calls used and cost.
type ConversationUsage struct {
	ID    string                    `json:"id"`
	Title string                    `json:"title"`
	Usage *conversation.UsageTotals `json:"usage,omitempty"`
	// Cost is priced with llm.prices (absent when no model used has a price).
	Cost *conversation.Cost `json:"cost,omitempty"`
}

// UsageReport is what the project's conversations used: each one that made
// calls, and the totals.
type UsageReport struct {
	Conversations []ConversationUsage      `json:"conversations"`
	Total         conversation.UsageTotals `json:"total"`
	Cost          *conversation.Cost       `json:"cost,omitempty"`
}

// Usage adds up what the servers reported for every conversation of the
// project (from the index: no log is read), priced where llm.prices has the
// models.
func (ws *Workspace) Usage() (UsageReport, error) {
	list, err := ws.store.List()
	if err != nil {
		return UsageReport{}, err
	}
	l := ws.rt.Effective().LLM
	rep := UsageReport{Conversations: []ConversationUsage{}}
	for _, m := range list {
		if m.Usage == nil || m.Usage.Calls == 0 {
			continue
		}
		rep.Conversations = append(rep.Conversations, ConversationUsage{ID: m.ID, Title: m.Title, Usage: m.Usage, Cost: l.CostOf(m.Usage)})
		rep.Total.Merge(m.Usage)
	}
	rep.Total.Last = nil // the newest call of one conversation says nothing of the project
	rep.Cost = l.CostOf(&rep.Total)
	return rep, nil
}

// ConversationCost prices a conversation's usage (nil when none of its
// models has a price).
func (ws *Workspace) ConversationCost(meta conversation.ConversationMeta) *conversation.Cost {
	return ws.rt.Effective().LLM.CostOf(meta.Usage)
}
