package fidelity

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// BenchmarkFidelity runs the whole benchmark once per iteration and reports,
// per budget (1.5x, 3x, 10x the history over what fits) and variant, the
// share of planted facts kept, of requests protocol-valid and within the
// budget, and of conversations whose newest message was sent verbatim.
// Run it with -benchtime 1x (one pass takes a few minutes on two cores);
// sub-benchmarks a and b are the two corpora (see CorpusB).
func BenchmarkFidelity(b *testing.B) {
	for _, style := range []struct {
		name  string
		convs []Conversation
	}{{"a", Corpus(8, 90)}, {"b", CorpusB(8, 90)}} {
		b.Run(style.name, func(b *testing.B) { benchCorpus(b, style.convs) })
	}
}

func benchCorpus(b *testing.B, convs []Conversation) {
	var rows []Row
	for b.Loop() {
		outs, err := Measure(context.Background(), convs, []float64{1.5, 3, 10}, Variants)
		if err != nil {
			b.Fatal(err)
		}
		rows = Summarize(outs)
	}
	for _, r := range rows {
		name := fmt.Sprintf("%s-%gx", r.Variant, r.Ratio)
		b.ReportMetric(r.Kept*100, name+"-facts%")
		if r.Variant != Newest {
			b.ReportMetric(r.Valid*100, name+"-valid%")
			b.ReportMetric(r.WithinBudget*100, name+"-budget%")
			b.ReportMetric(r.Verbatim*100, name+"-verbatim%")
		}
	}
	Print(os.Stdout, rows)
}

// The generator is deterministic and plants what it says.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(42, "en", "agent", 60), Generate(42, "en", "agent", 60)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations of one seed differ")
	}
	for _, c := range Corpus(4, 60) {
		if len(c.Facts) < 20 || len(c.Facts) > 27 {
			t.Errorf("%s: %d facts", c.Name, len(c.Facts))
		}
		var all strings.Builder
		for _, turn := range c.Turns[:len(c.Turns)-1] {
			all.WriteString(turn.User + "\n")
			for _, st := range turn.Steps {
				all.WriteString(st.Text + "\n")
				for _, call := range st.Calls {
					all.WriteString(call.Output + "\n")
				}
			}
		}
		for _, f := range c.Facts {
			for _, n := range f.Needles {
				if strings.Count(all.String(), n) == 0 {
					t.Errorf("%s: fact %d (%s) is not in the conversation", c.Name, f.ID, n)
				}
			}
		}
	}
}

// One short conversation through the engine: every request valid and
// within the budget, the newest message verbatim, and the digest keeps
// more than keep-newest truncation.
func TestRunSmall(t *testing.T) {
	c := Generate(7, "zh", "agent", 40)
	got, err := Run(context.Background(), &c, 3, Default, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got.Requests == 0 || got.Valid != got.Requests || got.WithinBudget != got.Requests || !got.NewestVerbatim || len(got.Failures) > 0 {
		t.Fatalf("outcome: %+v", got)
	}
	newest, _ := Run(context.Background(), &c, 3, Newest, t.TempDir())
	if got.Kept <= newest.Kept {
		t.Fatalf("default kept %d facts, keep-newest %d", got.Kept, newest.Kept)
	}
}
