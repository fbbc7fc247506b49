package compression

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
)

// benchRequest returns a request of n messages: a system prompt and rounds
// of a user message, a tool-call group with two results and an answer (~1 KB
// per message, a big result every 25 rounds), with stored token counts.
func benchRequest(n int) []Message {
	para := strings.Repeat("The quarterly plan needs a budget owner and a launch date. ", 16)
	msgs := make([]Message, 0, n)
	add := func(m Message) {
		m.Kind = contextbuilder.KindHistory
		m.SourceID = fmt.Sprintf("b%06d", len(msgs))
		m.Tokens = contextbuilder.MessageOverhead + len(m.Text())/4
		for _, tc := range m.ToolCalls {
			m.Tokens += len(tc.Function.Arguments) / 4
		}
		msgs = append(msgs, m)
	}
	msgs = append(msgs, Message{Role: convlog.RoleSystem, Content: convlog.Str("You are CrewAgent."), Kind: contextbuilder.KindSystem, Tokens: 600})
	for i := 0; len(msgs) < n-1; i++ {
		add(Message{Role: convlog.RoleUser, Content: convlog.Str(fmt.Sprintf("Question %d: %s", i, para[:200]))})
		a, b := fmt.Sprintf("call_%d_a", i), fmt.Sprintf("call_%d_b", i)
		add(Message{Role: convlog.RoleAssistant, ToolCalls: []convlog.ToolCall{
			{ID: a, Type: "function", Function: convlog.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/docs/a.md"}`}},
			{ID: b, Type: "function", Function: convlog.FunctionCall{Name: "fs.search", Arguments: `{"path":"@project","pattern":"budget"}`}},
		}})
		result := para
		if i%25 == 0 {
			result = strings.Repeat(para, 20)
		}
		add(Message{Role: convlog.RoleTool, ToolCallID: a, Name: "fs.read", Content: convlog.Str(result)})
		add(Message{Role: convlog.RoleTool, ToolCallID: b, Name: "fs.search", Content: convlog.Str(para)})
		add(Message{Role: convlog.RoleAssistant, Content: convlog.Str("You must check " + para)})
	}
	msgs = msgs[:n-1]
	for msgs[len(msgs)-1].Role == convlog.RoleAssistant && len(msgs[len(msgs)-1].ToolCalls) > 0 {
		msgs = msgs[:len(msgs)-1]
	}
	add(Message{Role: convlog.RoleUser, Content: convlog.Str("What is the next step?")})
	return msgs
}

func BenchmarkCompress(b *testing.B) {
	// 111pct is a request at 111 % of the 128k budget, what the engine sees
	// when compression triggers; 10k and 50k are whole long logs.
	for _, n := range []int{715, 10000, 50000} {
		msgs := benchRequest(n)
		p := NewPipeline(Config{Budget: 128000, Counter: counter, Model: testModel})
		name := fmt.Sprintf("%dk", n/1000)
		if n < 1000 {
			name = fmt.Sprintf("%.0fpct", p.Usage(msgs).UsagePercent)
		}
		b.Run(name, func(b *testing.B) {
			if _, err := p.Compress(context.Background(), msgs, 0); err != nil { // warm the tokenizer
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				res, err := p.Compress(context.Background(), msgs, 0)
				if err != nil {
					b.Fatal(err)
				}
				if res.After.UsagePercent > 50 {
					b.Fatalf("usage %.1f%%", res.After.UsagePercent)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
