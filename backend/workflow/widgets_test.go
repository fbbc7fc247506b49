package workflow

import (
	"fmt"
	"testing"

	"crewagent/backend/convlog"
)

// The pending question of a run is found from the newest entries, and from the whole log
// when other talk came after the run's last message.
func TestPendingWidgetIn(t *testing.T) {
	const run = "r1"
	ask := func(id string) []*convlog.Entry {
		return []*convlog.Entry{
			{ID: "a-" + id, Role: convlog.RoleAssistant, RunID: run, Mode: convlog.ModeRun,
				ToolCalls: []convlog.ToolCall{{ID: "k-" + id, Type: "function", Function: convlog.FunctionCall{Name: "ui.ask_user", Arguments: `{}`}}}},
			{ID: "t-" + id, Role: convlog.RoleTool, RunID: run, Mode: convlog.ModeRun, ToolCallID: "k-" + id, ToolName: "ui.ask_user",
				Content: convlog.Str(`{"ok":true,"pending":true}`), Widget: []byte(`{"widgetId":"` + id + `","type":"confirmation","prompt":"Go?"}`)},
		}
	}
	answer := &convlog.Entry{ID: "u-answer", Role: convlog.RoleUser, RunID: run, Mode: convlog.ModeRun, Content: convlog.Str("yes")}
	chat := func(n int) []*convlog.Entry {
		var out []*convlog.Entry
		for i := 0; i < n; i++ {
			out = append(out, &convlog.Entry{ID: fmt.Sprintf("c%d", i), Role: convlog.RoleUser, Mode: convlog.ModeChat, Content: convlog.Str("chat")})
		}
		return out
	}
	cases := []struct {
		name string
		log  []*convlog.Entry
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
			m, err := st.Create("", convlog.ActiveWorkflow)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.log {
				e.Type = convlog.TypeMsg
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
