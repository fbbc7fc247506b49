package settings

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"crewagent/backend/conversation"
)

// Price is what a model costs, per million tokens, in llm.currency.
// CachedInput prices prompt tokens read from the server's prompt cache
// (0: the Input price).
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cachedInput,omitempty"`
	Output      float64 `json:"output"`
}

// DefaultCurrency is shown with costs when llm.currency is empty.
const DefaultCurrency = "USD"

// CostOf prices usage with llm.prices; nil when no model used has a price.
func (l LLM) CostOf(u *conversation.UsageTotals) *conversation.Cost {
	if u == nil || len(l.Prices) == 0 {
		return nil
	}
	c := &conversation.Cost{Currency: l.Currency}
	if c.Currency == "" {
		c.Currency = DefaultCurrency
	}
	priced := false
	names := make([]string, 0, len(u.Models))
	for name := range u.Models {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m := u.Models[name]
		p, ok := l.Prices[name]
		if !ok {
			if m.PromptTokens+m.CompletionTokens > 0 {
				c.Unpriced = append(c.Unpriced, name)
			}
			continue
		}
		priced = true
		cached := min(m.CachedTokens, m.PromptTokens)
		cachedPrice := p.CachedInput
		if cachedPrice == 0 {
			cachedPrice = p.Input
		}
		c.Amount += (float64(m.PromptTokens-cached)*p.Input + float64(cached)*cachedPrice + float64(m.CompletionTokens)*p.Output) / 1e6
	}
	if !priced {
		return nil
	}
	c.Amount = math.Round(c.Amount*1e6) / 1e6
	return c
}

// validatePrices adds the problems of llm.prices.
func (l LLM) validatePrices(add func(field, format string, args ...any)) {
	names := make([]string, 0, len(l.Prices))
	for name := range l.Prices {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := l.Prices[name]
		at := fmt.Sprintf("llm.prices[%q]", name)
		if name == "" {
			add(at, "needs a model name")
		}
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 {
			add(at, "prices must be 0 or more (per million tokens)")
		}
	}
}
