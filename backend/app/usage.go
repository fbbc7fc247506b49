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

// UsageReport is what the project's conversations used (conversation.Report).
type UsageReport = conversation.UsageReport

// Usage adds up what the servers reported for every conversation of the
// project (from the index: no log is read), priced where llm.prices has the
// models.
func (ws *Workspace) Usage() (UsageReport, error) {
	list, err := ws.store.List()
	if err != nil {
		return UsageReport{}, err
	}
	return conversation.Report(list, ws.rt.Effective().LLM.CostOf), nil
}

// ConversationCost prices a conversation's usage (nil when none of its
// models has a price).
func (ws *Workspace) ConversationCost(meta conversation.ConversationMeta) *conversation.Cost {
	return ws.rt.Effective().LLM.CostOf(meta.Usage)
}
