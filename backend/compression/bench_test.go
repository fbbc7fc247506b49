package compression

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

// benchLog returns n messages of an agent conversation (~1 KB each): user
// questions with a requirement now and then, tool calls with file and log
// outputs, answers with figures and paths.
func benchLog(n int) []conversation.Entry {
	var c convo
	words := []string{"export", "ledger", "invoice", "retry", "tenant", "quota", "schema", "cursor", "batch", "refund"}
	para := strings.Repeat("The importer reads every row, formats it and writes it to the ledger; buffering would help. ", 6)
	for i := 0; len(c.entries) < n; i++ {
		w := words[i%len(words)]
		if i%7 == 0 {
			c.user(fmt.Sprintf("Requirement %d: the %s job must finish within %d seconds and never touch tenant %d.", i, w, 30+i%300, 1000+i))
		} else {
			c.user(fmt.Sprintf("Can you look at the %s step in services/%s/%s_%d.go?", w, w, w, i))
		}
		c.tool("fs.read", fmt.Sprintf(`{"path":"@project/services/%s/%s_%d.go"}`, w, w, i),
			fmt.Sprintf(`{"ok":true,"content":"package %s\n\n// %s handles the %s rows.\nfunc Handle%d(rows []Row) error {\n\treturn nil\n}\n2026-03-02T01:00:0%dZ INFO %s: processed %d rows\n2026-03-02T01:00:0%dZ ERROR %s: timeout after %d ms"}`, w, w, w, i, i%10, w, i, i%10, w, 100+i))
		c.assistant(fmt.Sprintf("I looked at services/%s/%s_%d.go. %s It took %d ms for %d rows.", w, w, i, para, 10+i%500, 100+i))
	}
	c.user("Where are we?")
	return c.entries
}

// BenchmarkCompaction10k measures a compaction of 10 000 messages with the
// digest (no LLM): planning, extracting, merging and writing the summary
// (target: under 200 ms).
func BenchmarkCompaction10k(b *testing.B) {
	h := benchLog(10000)
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: h, Counter: counter, Model: testModel,
		Budget: contextbuilder.Budget{TokenBudget: 128000}})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Limit: res.Debug.TokenLimit, Counter: counter, Model: testModel}
	spans := Plan(res, h, cfg, true)
	if _, err := Compact(context.Background(), res, h, spans, cfg); err != nil { // warm the tokenizer
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := testkit.ProcessCPU()
	lines := 0
	for b.Loop() {
		spans := Plan(res, h, cfg, true)
		comp, err := Compact(context.Background(), res, h, spans, cfg)
		if err != nil {
			b.Fatal(err)
		}
		lines = comp.Lines
	}
	b.ReportMetric(float64(testkit.ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(lines), "digest-lines")
}

// The digest does not depend on how many cores found the lines of the
// messages: one core and all of them give the same summary and data, with
// and without a focus.
func TestDigestIsTheSameOnAnyNumberOfCores(t *testing.T) {
	h := benchLog(3000)
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: h, Counter: counter, Model: testModel,
		Budget: contextbuilder.Budget{TokenBudget: 128000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, focus := range []string{"", "tenant quota"} {
		cfg := Config{Limit: res.Debug.TokenLimit, Counter: counter, Model: testModel, Focus: focus}
		compact := func(procs int) *Compaction {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			comp, err := Compact(context.Background(), res, h, Plan(res, h, cfg, true), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return comp
		}
		one, many := compact(1), compact(4)
		if one.Summary != many.Summary || one.Lines != many.Lines || !reflect.DeepEqual(one.Data, many.Data) || len(one.Summary) < 1000 {
			t.Fatalf("focus %q: one core %d lines, four %d; summaries equal: %v", focus, one.Lines, many.Lines, one.Summary == many.Summary)
		}
	}
}
