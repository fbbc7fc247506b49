package compression

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/llm/fakellm"
)

// persist applies a Record to a log the way the engine does with the store:
// compacted:true on every compacted id (an update line: the last one wins)
// and the summary message and compaction event appended.
func persist(h []convlog.Entry, r Record) []convlog.Entry {
	out := slices.Clone(h)
	for i := range out {
		if slices.Contains(r.CompactedIDs, out[i].ID) {
			out[i].Compacted = true
		}
	}
	n := 0
	summary, event := r.Entries(func() string { n++; return fmt.Sprintf("z%03d", n) }, "2026-01-28T12:00:00.000Z")
	if summary != nil {
		summary.Tokens = counter.CountMessage(testModel, summary)
		out = append(out, *summary)
	}
	return append(out, event)
}

func TestCompactionRoundTrip(t *testing.T) {
	srv, c := fakeServer(t)
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Text("Goals: answer questions about the brief sections.")
	})
	for _, strategy := range []Strategy{NewKeyMessages(KeyMessageConfig{}), NewLLMSummary(llmSummarizer{c}, nil, 0)} {
		t.Run(strategy.Name(), func(t *testing.T) {
			cv, msgs, budget := longConversation(t, 40)
			p := pipeline(budget, strategy)
			res, err := p.CompressIfNeeded(context.Background(), msgs, 0)
			if err != nil || res == nil {
				t.Fatalf("not compressed: %v", err)
			}
			if len(res.Output.Truncated) != 0 {
				t.Fatalf("scenario expects no truncation")
			}
			cv.entries = persist(cv.entries, res.Record)
			// The next request, built from the log, is what compression produced.
			next := request(t, cv, convlog.ModeChat)
			if got, want := contextbuilder.TokensOf(next), contextbuilder.TokensOf(res.Output.Messages); got != want {
				t.Fatalf("rebuilt request costs %d, compressed one %d", got, want)
			}
			for i := range next {
				a, b := next[i], res.Output.Messages[i]
				if a.Role != b.Role || a.Text() != b.Text() || (b.SourceID != "" && a.SourceID != b.SourceID) {
					t.Fatalf("message %d differs:\n%s\nvs\n%s", i, dump(next), dump(res.Output.Messages))
				}
			}
			if p.ShouldCompress(next) {
				t.Fatal("the rebuilt request triggers compression again")
			}
		})
	}
}
