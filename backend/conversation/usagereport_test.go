package conversation

import "testing"

// The report lists the conversations that made calls, adds them up without a project
// "last call", and prices each and the total.
func TestReport(t *testing.T) {
	a := &UsageTotals{Calls: 2, PromptTokens: 100, CompletionTokens: 10, Last: &Usage{PromptTokens: 60}}
	b := &UsageTotals{Calls: 1, PromptTokens: 5, CompletionTokens: 1}
	list := []ConversationMeta{
		{ID: "a", Title: "A", Usage: a},
		{ID: "none", Title: "no calls"},
		{ID: "zero", Title: "zero calls", Usage: &UsageTotals{}},
		{ID: "b", Title: "B", Usage: b},
	}
	priced := 0
	price := func(u *UsageTotals) *Cost {
		priced++
		return &Cost{Amount: float64(u.PromptTokens), Currency: "USD"}
	}
	rep := Report(list, price)
	if len(rep.Conversations) != 2 || rep.Conversations[0].ID != "a" || rep.Conversations[1].ID != "b" {
		t.Fatalf("conversations %+v", rep.Conversations)
	}
	if rep.Conversations[0].Cost.Amount != 100 || rep.Conversations[1].Cost.Amount != 5 {
		t.Fatalf("costs %+v %+v", rep.Conversations[0].Cost, rep.Conversations[1].Cost)
	}
	if rep.Total.Calls != 3 || rep.Total.PromptTokens != 105 || rep.Total.CompletionTokens != 11 || rep.Total.Last != nil {
		t.Fatalf("total %+v", rep.Total)
	}
	if rep.Cost == nil || rep.Cost.Amount != 105 || priced != 3 {
		t.Fatalf("total cost %+v after %d pricings", rep.Cost, priced)
	}
	if empty := Report(nil, price); empty.Conversations == nil || len(empty.Conversations) != 0 {
		t.Fatalf("an empty project: %+v", empty)
	}
}
