package contextbuilder

import (
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

// benchLog returns n entries of a long agent conversation: rounds of a user
// message, a tool-call group with two results, and an answer (~1 KB per
// message), plus some events. Token counts are stored, as the store does.
func benchLog(n int) []conversation.Entry {
	out := make([]conversation.Entry, 0, n)
	para := strings.Repeat("The quarterly plan needs a budget owner and a launch date. ", 16)
	add := func(e conversation.Entry) {
		e.Type = conversation.TypeMsg
		e.ID = fmt.Sprintf("b%06d", len(out))
		size := len(e.Text())
		for _, tc := range e.ToolCalls {
			size += len(tc.Function.Arguments)
		}
		e.Tokens = MessageOverhead + size/4
		out = append(out, e)
	}
	for i := 0; len(out) < n; i++ {
		add(conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(para[:200])})
		a, b := fmt.Sprintf("call_%d_a", i), fmt.Sprintf("call_%d_b", i)
		add(conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{
			{ID: a, Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/docs/a.md"}`}},
			{ID: b, Type: "function", Function: conversation.FunctionCall{Name: "fs.search", Arguments: `{"path":"@project","pattern":"budget"}`}},
		}})
		add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: a, ToolName: "fs.read", Content: conversation.Str(para)})
		add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: b, ToolName: "fs.search", Content: conversation.Str(para)})
		add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(para)})
		if i%10 == 0 {
			out = append(out, conversation.Entry{Type: conversation.TypeEvt, ID: fmt.Sprintf("e%06d", len(out)), Event: conversation.EventCheckpoint})
		}
	}
	return out[:n]
}

// BenchmarkBuild builds over a history that never compacted, far over the
// budget: every unit is grouped and measured and the safety net keeps the
// newest that fit. The engine compacts long before a log gets there;
// engine.BenchmarkSendContext measures what a send does on a 50 000-message
// conversation that compacted along the way.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{10000, 50000} {
		h := benchLog(n)
		for _, lim := range []struct {
			name   string
			budget Budget
		}{
			{"tokens128k", Budget{TokenBudget: 128000, MaxMessages: -1, MaxChars: -1}},
			{"defaults", Budget{TokenBudget: 128000}},
		} {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, lim.name), func(b *testing.B) {
				o := opts(conversation.ModeAgent, h)
				o.Budget = lim.budget
				if _, err := Build(o); err != nil { // warm the tokenizer
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu := testkit.ProcessCPU()
				for b.Loop() {
					res, err := Build(o)
					if err != nil {
						b.Fatal(err)
					}
					if res.Debug.OverBudget {
						b.Fatal("over budget")
					}
				}
				b.ReportMetric(float64(testkit.ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
