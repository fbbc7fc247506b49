package contextbuilder

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

// refillLog is a conversation whose first 16 exchanges (each with a tool
// group) were compacted into a summary, followed by 4 uncompacted exchanges
// and the newest user message.
func refillLog(reason string) []conversation.Entry {
	var l logBuilder
	boundary := 0
	for i := 0; i < 20; i++ {
		l.user(fmt.Sprintf("question %d about the ledger export %s", i, strings.Repeat("detail ", 30)))
		l.calls(fmt.Sprintf("c%d", i))
		l.result(fmt.Sprintf("c%d", i), fmt.Sprintf("contents %d %s", i, strings.Repeat("line ", 40)))
		l.assistant(fmt.Sprintf("answer %d %s", i, strings.Repeat("word ", 30)))
		if i == 15 {
			boundary = len(l.entries)
			ev := l.event(conversation.EventCompaction)
			data, _ := json.Marshal(conversation.CompactionData{Reason: reason, Pinned: []conversation.Carried{}})
			ev.Data = data
			l.system(ConversationSummaryPrefix + "\nDigest of the earlier messages: the ledger export, questions 0 to 15.")
		}
	}
	l.user("what next?")
	for i := range l.entries[:boundary] {
		l.entries[i].Compacted = true
	}
	return l.entries
}

// refilled returns the source ids of the request's compacted messages sent
// word for word, checking they carry the refill reason and come right after
// the summary, before every uncompacted message.
func refilled(t *testing.T, res *Result, h []conversation.Entry) []string {
	t.Helper()
	compacted := map[string]bool{}
	for _, e := range h {
		compacted[e.ID] = e.Compacted && e.Role != conversation.RoleSystem
	}
	var out []string
	sawPlain := false
	for _, r := range res.Debug.Rows {
		if r.Kind != KindHistory {
			continue
		}
		if compacted[r.SourceID] {
			if r.Reason != ReasonRefill || sawPlain {
				t.Fatalf("compacted %s sent as %q after an uncompacted message", r.SourceID, r.Reason)
			}
			out = append(out, r.SourceID)
		} else {
			sawPlain = true
		}
	}
	return out
}

func TestRefillSendsTheNewestCompactedMessagesThatFit(t *testing.T) {
	base := mustBuild(t, opts(conversation.ModeChat, refillLog("threshold")))
	used := base.Debug.UsedTokens
	unit := 0 // tokens of one compacted exchange (two units: user, tool group, answer)
	h := refillLog("threshold")
	for _, e := range h[:4] {
		unit += e.Tokens
	}
	tests := []struct {
		name    string
		reason  string
		refill  Refill
		minSent int // messages
		maxSent int
	}{
		{"off", "threshold", Refill{}, 0, 0},
		{"room for about two exchanges", "threshold", Refill{Limit: used + 2*unit + 10}, 5, 8},
		{"headroom leaves one", "threshold", Refill{Limit: used + 2*unit + 10, Headroom: unit}, 2, 4},
		{"room for all", "threshold", Refill{Limit: used + 40*unit}, 64, 64},
		{"not after a manual compaction", "manual", Refill{Limit: used + 40*unit, Except: "manual"}, 0, 0},
		{"a large summary stops a fresh choice", "threshold", Refill{Limit: used + 40*unit, MaxSummary: 5}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := refillLog(tt.reason)
			o := opts(conversation.ModeChat, h)
			o.Budget.TokenBudget = used + 40*unit
			o.Refill = tt.refill
			res := mustBuild(t, o)
			sent := refilled(t, res, h)
			if len(sent) < tt.minSent || len(sent) > tt.maxSent {
				t.Fatalf("%d compacted messages sent, want %d-%d\n%s", len(sent), tt.minSent, tt.maxSent, dump(res.Messages))
			}
			if res.Debug.FullTokens != base.Debug.FullTokens {
				t.Fatalf("FullTokens %d, want %d without the refill", res.Debug.FullTokens, base.Debug.FullTokens)
			}
			if tt.refill.Limit > 0 && res.Debug.UsedTokens > tt.refill.Limit {
				t.Fatalf("used %d over the refill limit %d", res.Debug.UsedTokens, tt.refill.Limit)
			}
			if res.Debug.Counts.Refilled != len(sent) {
				t.Fatalf("Counts.Refilled %d, sent %d", res.Debug.Counts.Refilled, len(sent))
			}
			if len(sent) > 0 {
				// the newest compacted messages, contiguous up to the last one
				var all []string
				for _, e := range h {
					if e.Compacted && e.Role != conversation.RoleSystem {
						all = append(all, e.ID)
					}
				}
				if !slices.Equal(sent, all[len(all)-len(sent):]) || res.Debug.RefillFrom != sent[0] {
					t.Fatalf("sent %v (from %q), want the newest of %v", sent, res.Debug.RefillFrom, all)
				}
				for _, sp := range res.Spans {
					if sp.Part == PartRefill && slices.Contains(sp.SourceIDs, sent[0]) {
						return
					}
				}
				t.Fatalf("no refill span: %+v", res.Spans)
			}
		})
	}
}

// The compacted messages sent stay the same from one request to the next
// while they fit, even when a fresh choice would send others; once they no
// longer fit, the newest that fit under the limit less the headroom are sent.
func TestRefillKeepsItsStartWhileItFits(t *testing.T) {
	h := refillLog("threshold")
	o := opts(conversation.ModeChat, h)
	base := mustBuild(t, o).Debug.UsedTokens
	unit := 0
	for _, e := range h[:4] {
		unit += e.Tokens
	}
	o.Budget.TokenBudget = base + 40*unit
	o.Refill = Refill{Limit: base + 4*unit, Headroom: 2 * unit}
	first := mustBuild(t, o)
	if first.Debug.RefillFrom == "" {
		t.Fatal("nothing sent")
	}
	n := first.Debug.Counts.Refilled

	// the next request: same start, although a fresh choice (with the
	// headroom) would send fewer
	o.Refill.From = first.Debug.RefillFrom
	o.Refill.Limit = base + 4*unit
	next := mustBuild(t, o)
	if next.Debug.RefillFrom != first.Debug.RefillFrom || next.Debug.Counts.Refilled != n {
		t.Fatalf("start %q (%d), want %q (%d)", next.Debug.RefillFrom, next.Debug.Counts.Refilled, first.Debug.RefillFrom, n)
	}
	// the request grew: they no longer fit, fewer are chosen again
	o.Refill.Limit = base + n*unit/4 - 1
	o.Refill.Headroom = 0
	later := mustBuild(t, o)
	if later.Debug.Counts.Refilled >= n || later.Debug.UsedTokens > o.Refill.Limit {
		t.Fatalf("%d sent (%d tokens), want fewer than %d within %d", later.Debug.Counts.Refilled, later.Debug.UsedTokens, n, o.Refill.Limit)
	}
}
