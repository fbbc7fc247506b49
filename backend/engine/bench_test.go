package engine

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"crewagent/backend/convlog"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// BenchmarkSendHistory measures what a send does before its first LLM call
// (reading the history and building the request) in a conversation of 50 000
// short messages that never compacted (the default maxMessages, 80, keeps the
// request small, so compression never runs): "whole" reads back to the last
// compaction event, i.e. the whole log; "tail" reads from the end only as far
// as the request can use. "tail" reports the ratio as whole/tail-x.
func BenchmarkSendHistory(b *testing.B) {
	dir := b.TempDir()
	st, err := convlog.Open(filepath.Join(dir, "p"), convlog.Options{Counter: counter.ForModel(testModel)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	meta, err := st.Create("", "")
	if err != nil {
		b.Fatal(err)
	}
	const messages, batch = 50000, 5000
	for i := 0; i < messages; i += batch {
		entries := make([]*convlog.Entry, 0, batch)
		for j := i; j < i+batch; j += 2 {
			entries = append(entries,
				&convlog.Entry{Role: convlog.RoleUser, Content: convlog.Str(fmt.Sprintf("question %d: what about item %d?", j, j%97)), Mode: convlog.ModeChat},
				&convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(fmt.Sprintf("answer %d: item %d is fine.", j, j%97)), Mode: convlog.ModeChat, PartType: convlog.PartContent})
		}
		if err := st.Append(meta.ID, entries...); err != nil {
			b.Fatal(err)
		}
	}
	set := settings.Defaults()
	set.LLM.BaseURL, set.LLM.Model = "http://127.0.0.1:1/v1", testModel
	svc, err := New(Options{Store: st, Settings: StaticSettings(set), Counter: counter,
		Tools: NewToolHosts(tools.Roots{Project: dir, ToolResults: filepath.Join(dir, "tool-results")})})
	if err != nil {
		b.Fatal(err)
	}
	prepare := func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, err := svc.prepare(meta.ID, convlog.ModeChat, nil, set)
			if err != nil {
				b.Fatal(err)
			}
			if len(p.built.Messages) != 80 {
				b.Fatalf("%d messages", len(p.built.Messages))
			}
		}
	}
	var whole time.Duration
	b.Run("whole", func(b *testing.B) {
		svc.history = referenceHistory
		prepare(b)
		whole = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("tail", func(b *testing.B) {
		svc.history = loadHistory
		prepare(b)
		if tail := b.Elapsed() / time.Duration(b.N); whole > 0 && tail > 0 {
			b.ReportMetric(float64(whole)/float64(tail), "whole/tail-x")
		}
	})
}
