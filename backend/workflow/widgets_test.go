package workflow

import (
	"fmt"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
)

// The pending question of a run is found from the newest entries, and from the whole log
// when other talk came after the run's last message.
func TestPendingWidgetIn(t *testing.T) {
	const run = "r1"
	ask := func(id string) []*conversation.Entry {
		return []*conversation.Entry{
			{ID: "a-" + id, Role: conversation.RoleAssistant, RunID: run, Mode: conversation.ModeRun,
				ToolCalls: []conversation.ToolCall{{ID: "k-" + id, Type: "function", Function: conversation.FunctionCall{Name: "ui.ask_user", Arguments: `{}`}}}},
			{ID: "t-" + id, Role: conversation.RoleTool, RunID: run, Mode: conversation.ModeRun, ToolCallID: "k-" + id, ToolName: "ui.ask_user",
				Content: conversation.Str(`{"ok":true,"pending":true}`), Widget: []byte(`{"widgetId":"` + id + `","type":"confirmation","prompt":"Go?"}`)},
		}
	}
	answer := &conversation.Entry{ID: "u-answer", Role: conversation.RoleUser, RunID: run, Mode: conversation.ModeRun, Content: conversation.Str("yes")}
	chat := func(n int) []*conversation.Entry {
		var out []*conversation.Entry
		for i := 0; i < n; i++ {
			out = append(out, &conversation.Entry{ID: fmt.Sprintf("c%d", i), Role: conversation.RoleUser, Mode: conversation.ModeChat, Content: conversation.Str("chat")})
		}
		return out
	}
	cases := []struct {
		name string
		log  []*conversation.Entry
		want string
	}{
		{"pending, newest", ask("w1"), "w1"},
		{"pending, then more chat than the window", append(ask("w1"), chat(widgetWindow+50)...), "w1"},
		{"answered, then more chat than the window", append(append(ask("w1"), answer), chat(widgetWindow+50)...), ""},
		{"answered", append(ask("w1"), answer), ""},
		{"none", chat(10), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := convlog.Open(t.TempDir(), convlog.Options{IndexFlushDelay: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			m, err := st.Create("", conversation.ActiveWorkflow)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.log {
				e.Type = conversation.TypeMsg
			}
			if err := st.Append(m.ID, tc.log...); err != nil {
				t.Fatal(err)
			}
			s := &Service{cfg: Config{Store: st}}
			w, err := s.pendingWidgetIn(m.ID, run)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if w != nil {
				got = w.ID
			}
			if got != tc.want {
				t.Fatalf("pending widget %q, want %q", got, tc.want)
			}
		})
	}
}
