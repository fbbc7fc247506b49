package skills

import (
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// TestEntriesMakeAValidRequest builds a request with the context builder
// from a log holding a model activation: the body enters as a user message
// after the tool result that answers the call (which stays right after its
// call), and the event itself is left out.
func TestEntriesMakeAValidRequest(t *testing.T) {
	cat, _ := treeCatalog(t)
	act, err := cat.Activate(NewState(), Request{Name: "pdf-processing", By: ByModel, ToolCallID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	log := []conversation.Entry{
		msg("u1", conversation.RoleUser, "Fill in this PDF form"),
		{Type: conversation.TypeMsg, ID: "a1", Role: conversation.RoleAssistant, PartType: conversation.PartToolStart,
			ToolCalls: []conversation.ToolCall{{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: conversation.ToolSkillActivate, Arguments: `{"name":"pdf-processing"}`}}}},
		{Type: conversation.TypeMsg, ID: "t1", Role: conversation.RoleTool, ToolCallID: "call_1", ToolName: conversation.ToolSkillActivate, Content: conversation.Str(act.Result().JSON())},
	}
	log = append(log, act.Entries...)
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: log, Counter: counter, Model: model,
		ToolNames: []string{"fs.read", conversation.ToolSkillActivate, conversation.ToolSkillDeactivate}})
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range res.Messages {
		if m.Kind == contextbuilder.KindHistory {
			roles = append(roles, m.Role+":"+m.SourceID)
		}
	}
	want := "user:u1 assistant:a1 tool:t1 user:" + act.Entries[1].ID
	if got := strings.Join(roles, " "); got != want {
		t.Fatalf("history %s, want %s", got, want)
	}
	last := res.Messages[len(res.Messages)-1]
	if !strings.HasPrefix(last.Text(), `<skill name="pdf-processing"`) || !strings.Contains(last.Text(), "# PDF processing") {
		t.Errorf("body message: %s", last.Text())
	}
}
