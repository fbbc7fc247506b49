package contextbuilder

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"crewagent/backend/convlog"
)

// withoutSummaries returns a copy of h whose summary-class messages before
// index k are plain (historical) system messages: the tail guarantee assumes
// the entries older than the tail hold no summary.
func withoutSummaries(h []convlog.Entry, k int) []convlog.Entry {
	out := slices.Clone(h)
	for i := range out[:k] {
		if e := &out[i]; e.IsMessage() && requestRole(e) == convlog.RoleSystem && IsSummary(e.Text()) {
			e.Content = convlog.Str("old system prompt")
		}
	}
	return out
}

// decisions lists every per-entry decision of res ("kept|id|reason",
// "dropped|id|reason", runs expanded over h) for the entries of h from index
// k on, sorted.
func decisions(res *Result, h []convlog.Entry, k int) []string {
	pos := make(map[string]int, len(h))
	for i := range h {
		pos[h[i].ID] = i
	}
	var out []string
	add := func(kind string, i int, reason string) {
		if i >= k {
			out = append(out, kind+"|"+h[i].ID+"|"+reason)
		}
	}
	for _, d := range res.Debug.Kept {
		add("kept", pos[d.SourceID], d.Reason)
	}
	for _, d := range res.Debug.Compressed {
		add("compressed", pos[d.SourceID], d.Reason)
	}
	for _, d := range res.Debug.Dropped {
		if d.ThroughID == "" {
			add("dropped", pos[d.SourceID], d.Reason)
			continue
		}
		for i := pos[d.SourceID]; i <= pos[d.ThroughID]; i++ {
			if !h[i].IsEvent() {
				add("dropped", i, d.Reason)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sameRequest fails unless tail (built from h[k:]) equals whole (built from
// h) in everything but the accounting of the entries before k.
func sameRequest(t *testing.T, whole, tail *Result, h []convlog.Entry, k int) {
	t.Helper()
	if !reflect.DeepEqual(whole.Messages, tail.Messages) {
		t.Fatalf("messages differ\nwhole:\n%s\ntail from %d:\n%s", dump(whole.Messages), k, dump(tail.Messages))
	}
	if !reflect.DeepEqual(whole.ToolNames, tail.ToolNames) || !reflect.DeepEqual(whole.Debug.Rows, tail.Debug.Rows) ||
		!reflect.DeepEqual(whole.Debug.Kept, tail.Debug.Kept) || !reflect.DeepEqual(whole.Debug.Compressed, tail.Debug.Compressed) {
		t.Fatalf("tool names, rows, kept or compressed differ:\n%+v\n%+v", whole.Debug.Rows, tail.Debug.Rows)
	}
	w, d := whole.Debug, tail.Debug
	if w.UsedTokens != d.UsedTokens || w.UsedChars != d.UsedChars || w.TokenLimit != d.TokenLimit || w.Budget != d.Budget ||
		w.OverBudget != d.OverBudget || !slices.Equal(w.Notes, d.Notes) || w.Mode != d.Mode {
		t.Fatalf("usage differs: %+v vs %+v", w, d)
	}
	if a, b := decisions(whole, h, k), decisions(tail, h[k:], 0); !slices.Equal(a, b) {
		t.Fatalf("decisions on the tail differ:\nwhole: %v\ntail:  %v", a, b)
	}
}

// TestPropertyTailBuild: whenever a build over a suffix of a log reports that
// it does not depend on older entries, it equals the build over the whole log.
func TestPropertyTailBuild(t *testing.T) {
	independent, dependent := 0, 0
	for seed := int64(1); seed <= 500; seed++ {
		r := rand.New(rand.NewSource(seed))
		h := randomLog(r, 1+r.Intn(200))
		o := randomOptions(r, h)
		o.Counter = quarterCounter{} // structure is under test here, not tokenizer speed
		for try := 0; try < 3; try++ {
			k := r.Intn(len(h) + 1)
			hk := withoutSummaries(h, k)
			t.Run(fmt.Sprintf("%d/%d", seed, k), func(t *testing.T) {
				wo, to := o, o
				wo.History, to.History = hk, hk[k:]
				tail, err := Build(to)
				if err != nil {
					t.Fatal(err)
				}
				if tail.DependsOnOlder {
					dependent++
					return
				}
				independent++
				whole, err := Build(wo)
				if err != nil {
					t.Fatal(err)
				}
				sameRequest(t, whole, tail, hk, k)
				if whole.DependsOnOlder {
					t.Fatalf("the whole log depends on older entries, its tail from %d does not", k)
				}
			})
		}
	}
	// Both outcomes must be common, or the property says little.
	if independent < 200 || dependent < 200 {
		t.Fatalf("%d independent and %d dependent tails", independent, dependent)
	}
}

func TestDependsOnOlder(t *testing.T) {
	many := func(l *logBuilder, n int) {
		for i := 0; i < n; i++ {
			l.user(fmt.Sprintf("question %d", i))
			l.assistant(fmt.Sprintf("answer %d", i))
		}
	}
	tests := []struct {
		name   string
		log    func(l *logBuilder)
		budget Budget
		want   bool
	}{
		{"trimmed by maxMessages", func(l *logBuilder) { many(l, 20) }, Budget{MaxMessages: 10}, false},
		{"trimmed by tokens, messages unlimited", func(l *logBuilder) { many(l, 200) }, Budget{TokenBudget: 2000, MaxMessages: -1, MaxChars: -1}, false},
		{"trimmed by chars", func(l *logBuilder) { many(l, 200) }, Budget{MaxChars: 500}, false},
		{"everything fits", func(l *logBuilder) { many(l, 5) }, Budget{}, true},
		{"no user message", func(l *logBuilder) {
			for i := 0; i < 30; i++ {
				l.assistant("working")
			}
		}, Budget{MaxMessages: 10}, true},
		{"only meta user messages", func(l *logBuilder) {
			for i := 0; i < 30; i++ {
				l.add(convlog.Entry{Role: convlog.RoleUser, Content: convlog.Str("note"), IsMeta: true})
				l.assistant("ok")
			}
		}, Budget{MaxMessages: 10}, true},
		{"current turn trimmed", func(l *logBuilder) {
			l.user("go")
			for i := 0; i < 30; i++ {
				l.calls(fmt.Sprintf("c%d", i))
				l.result(fmt.Sprintf("c%d", i), "{}")
			}
		}, Budget{MaxMessages: 10}, false},
		{"tool results waiting for an older call", func(l *logBuilder) {
			l.user("go")
			l.result("c1", "{}")
			l.result("c2", "{}")
		}, Budget{MaxMessages: 10}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l logBuilder
			tt.log(&l)
			o := opts(convlog.ModeChat, l.entries)
			o.Budget = tt.budget
			if got := mustBuild(t, o).DependsOnOlder; got != tt.want {
				t.Errorf("DependsOnOlder = %v, want %v", got, tt.want)
			}
		})
	}
}
