package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// benchConversation writes a conversation of n messages (rounds of a
// question, a tool call with its result and an answer, ~1 KB each) the way a
// long session does: after every batch it runs what a send runs before its
// first LLM call, so the log is compacted whenever the request passes the
// trigger, as in production.
func benchConversation(b *testing.B, n int) (*ChatService, string, settings.Settings) {
	b.Helper()
	dir := b.TempDir()
	st, err := convlog.Open(filepath.Join(dir, "p"), convlog.Options{Counter: counter.ForModel(testModel), IndexFlushDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	meta, err := st.Create("", "")
	if err != nil {
		b.Fatal(err)
	}
	set := settings.Defaults()
	set.LLM.BaseURL, set.LLM.Model = "http://127.0.0.1:1/v1", testModel
	svc, err := New(Options{Store: st, Settings: StaticSettings(set), Counter: counter,
		Tools: NewToolHosts(tools.Roots{Project: dir, ToolResults: filepath.Join(dir, "tool-results")})})
	if err != nil {
		b.Fatal(err)
	}
	para := strings.Repeat("The quarterly plan needs a budget owner and a launch date. ", 14)
	const batch = 400
	for i := 0; i < n; {
		entries := make([]*conversation.Entry, 0, batch)
		for len(entries) < batch && i < n {
			call := fmt.Sprintf("call_%d", i)
			entries = append(entries,
				&conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(fmt.Sprintf("Question %d: must the report for region %d use the 2025 figures? %s", i, i%97, para[:300])), Mode: conversation.ModeChat},
				&conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: call, Type: "function",
					Function: conversation.FunctionCall{Name: "fs.read", Arguments: fmt.Sprintf(`{"path":"@project/docs/region-%d.md"}`, i%97)}}}, Mode: conversation.ModeChat},
				&conversation.Entry{Role: conversation.RoleTool, ToolCallID: call, ToolName: "fs.read", Content: conversation.Str(`{"ok":true,"content":"` + para + `"}`), Mode: conversation.ModeChat},
				&conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(fmt.Sprintf("Region %d: %s", i%97, para)), Mode: conversation.ModeChat, PartType: conversation.PartContent})
			i += 4
		}
		if err := st.Append(meta.ID, entries...); err != nil {
			b.Fatal(err)
		}
		p, err := svc.prepare(meta.ID, conversation.ModeChat, nil, set)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.contexter(p, meta.ID, true).next(context.Background(), ReasonThreshold); err != nil {
			b.Fatal(err)
		}
	}
	return svc, meta.ID, set
}

// BenchmarkSendContext measures what a send does before its first LLM call —
// reading the log since the last compaction, building the request, deciding
// about compaction, recall — in a conversation of 50 000 messages that was
// compacted along the way (target: under 10 ms).
func BenchmarkSendContext(b *testing.B) {
	svc, convID, set := benchConversation(b, 50000)
	meta, _ := svc.opts.Store.Get(convID)
	var loaded, msgs int
	cpu := testkit.ProcessCPU()
	b.ResetTimer()
	for b.Loop() {
		p, err := svc.prepare(convID, conversation.ModeChat, nil, set)
		if err != nil {
			b.Fatal(err)
		}
		res, err := svc.contexter(p, convID, true).next(context.Background(), ReasonThreshold)
		if err != nil {
			b.Fatal(err)
		}
		if res.Debug.OverBudget {
			b.Fatal("over budget")
		}
		loaded, msgs = len(p.history), len(res.Messages)
	}
	b.ReportMetric(float64(testkit.ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(meta.MessageCount), "log-messages")
	b.ReportMetric(float64(loaded), "entries-read")
	b.ReportMetric(float64(msgs), "request-messages")
}

// BenchmarkManualCompaction10k measures a manual compaction of a
// conversation of 10 000 uncompacted messages through the engine (digest,
// persisted marks, event and summary, recall index), no LLM.
func BenchmarkManualCompaction10k(b *testing.B) {
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		st, err := convlog.Open(filepath.Join(dir, "p"), convlog.Options{Counter: counter.ForModel(testModel), IndexFlushDelay: -1})
		if err != nil {
			b.Fatal(err)
		}
		meta, _ := st.Create("", "")
		para := strings.Repeat("The quarterly plan needs a budget owner and a launch date. ", 14)
		var entries []*conversation.Entry
		for i := 0; i < 10000; i += 2 {
			entries = append(entries,
				&conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(fmt.Sprintf("Question %d: the limit must stay at %d EUR. %s", i, 1000+i, para[:200]))},
				&conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(para), PartType: conversation.PartContent})
		}
		if err := st.Append(meta.ID, entries...); err != nil {
			b.Fatal(err)
		}
		set := settings.Defaults()
		set.Context.TokenBudget = 100_000_000 // nothing compacts on its own
		set.LLM.BaseURL, set.LLM.Model = "http://127.0.0.1:1/v1", testModel
		svc, err := New(Options{Store: st, Settings: StaticSettings(set), Counter: counter,
			Tools: NewToolHosts(tools.Roots{Project: dir, ToolResults: filepath.Join(dir, "tool-results")})})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC() // the garbage of the setup is not the compaction's
		b.StartTimer()
		c0 := testkit.ProcessCPU()
		res, err := svc.Compact(context.Background(), CompactRequest{ConversationID: meta.ID})
		cpu += testkit.ProcessCPU() - c0
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if res.CompactedMessages != 9998 { // all but the newest user message and its answer
			b.Fatalf("compacted %d", res.CompactedMessages)
		}
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
