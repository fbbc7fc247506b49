package convpage

import (
	"slices"
	"testing"

	"crewagent/backend/conversation"
)

func TestChangedViews(t *testing.T) {
	m := func(id, role, text string) *conversation.Entry {
		return &conversation.Entry{Type: conversation.TypeMsg, ID: id, Role: role, Content: conversation.Str(text)}
	}
	call := m("a1", conversation.RoleAssistant, "")
	call.ToolCalls = []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"a.md"}`}}}
	failed := m("t1", conversation.RoleTool, `{"ok":false}`)
	failed.ToolCallID, failed.ToolName, failed.IsError = "c1", "fs.read", true
	u1, u2 := m("u1", conversation.RoleUser, "read a"), m("u2", conversation.RoleUser, "again")
	branch := &conversation.Entry{Type: conversation.TypeEvt, ID: "b1", Event: conversation.EventBranch, Data: []byte(`{}`)}
	tests := []struct {
		name    string
		entries []*conversation.Entry // the newest entries, as read after the write
		written []*conversation.Entry
		want    []string // the ids published, in log order
		reload  bool
	}{
		{"nothing written", []*conversation.Entry{u1}, nil, []string{}, false},
		{"a message appended", []*conversation.Entry{u1, u2}, []*conversation.Entry{u2}, []string{"u2"}, false},
		// the call's words say it failed once its result is in
		{"a failed result changes its call", []*conversation.Entry{u1, call, failed}, []*conversation.Entry{failed}, []string{"a1", "t1"}, false},
		{"an entry older than the window", []*conversation.Entry{u2}, []*conversation.Entry{u1}, []string{}, true},
		{"a new version", []*conversation.Entry{u1, branch, u2}, []*conversation.Entry{branch, u2}, []string{"b1", "u2"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reload := changedViews(tt.entries, conversation.Views(tt.entries), tt.written, conversation.Views)
			ids := []string{}
			for _, v := range got {
				ids = append(ids, v.ID)
			}
			if !slices.Equal(ids, tt.want) || reload != tt.reload {
				t.Fatalf("published %v reload %v, want %v reload %v", ids, reload, tt.want, tt.reload)
			}
		})
	}
}

// When a task ends, the entries of a run go out again with their views: a
// step's number follows the run's state, which the log does not show.
func TestRunViews(t *testing.T) {
	mk := func(id, run string) *conversation.Entry {
		return &conversation.Entry{Type: conversation.TypeMsg, ID: id, Role: conversation.RoleAssistant, Content: conversation.Str("x"), RunID: run}
	}
	tests := []struct {
		name    string
		entries []*conversation.Entry
		want    []string
	}{
		{"no run", []*conversation.Entry{mk("a", ""), mk("b", "")}, []string{}},
		{"a run's entries among others", []*conversation.Entry{mk("a", ""), mk("b", "r1"), mk("c", "r1"), mk("d", "")}, []string{"b", "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			views := conversation.ViewsWith(tc.entries, conversation.ViewOptions{})
			got := []string{}
			for _, v := range runViews(tc.entries, views) {
				got = append(got, v.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
