package conversation

// ConversationUsage is what one conversation's model calls used and cost.
type ConversationUsage struct {
	ID    string       `json:"id"`
	Title string       `json:"title"`
	Usage *UsageTotals `json:"usage,omitempty"`
	// Cost is priced with llm.prices (absent when no model used has a price).
	Cost *Cost `json:"cost,omitempty"`
}

// UsageReport is what a project's conversations used: each one that made
// calls, and the totals.
type UsageReport struct {
	Conversations []ConversationUsage `json:"conversations"`
	Total         UsageTotals         `json:"total"`
	Cost          *Cost               `json:"cost,omitempty"`
}

// Report adds up what the servers reported for the conversations of list
// (from their index records: no log is read), priced by price.
func Report(list []ConversationMeta, price func(*UsageTotals) *Cost) UsageReport {
	rep := UsageReport{Conversations: []ConversationUsage{}}
	for _, m := range list {
		if m.Usage == nil || m.Usage.Calls == 0 {
			continue
		}
		rep.Conversations = append(rep.Conversations, ConversationUsage{ID: m.ID, Title: m.Title, Usage: m.Usage, Cost: price(m.Usage)})
		rep.Total.Merge(m.Usage)
	}
	rep.Total.Last = nil // the newest call of one conversation says nothing of the project
	rep.Cost = price(&rep.Total)
	return rep
}
