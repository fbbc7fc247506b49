package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// A local model whose chat template takes no system role and strictly
// alternating turns (Gemma under vLLM or LM Studio) answers a chat with
// project instructions and a tool loop: the request is reshaped on the wire,
// the log keeps what was said as it was said.
func TestChatWithAStrictTemplate(t *testing.T) {
	for _, tmpl := range []string{fakellm.TemplateAlternating, fakellm.TemplateNoSystem} {
		t.Run(tmpl, func(t *testing.T) {
			f := newFixture(t, nil)
			if err := os.WriteFile(filepath.Join(f.root, "AGENTS.md"), []byte("Answer in one sentence.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f.srv.SetTemplate(tmpl)
			f.srv.Enqueue(
				fakellm.Response{ToolCalls: []fakellm.ToolCall{{Name: "fs.read", Arguments: `{"path":"@project/notes.md"}`}}},
				fakellm.Text("We ship on Friday."),
				fakellm.Text("Yes, Friday."),
			)
			first := f.send(SendRequest{Text: "when do we ship?"})
			if first.Err != nil || first.Text != "We ship on Friday." {
				t.Fatalf("first turn: %q, %v", first.Text, first.Err)
			}
			second := f.send(SendRequest{ConversationID: first.ConversationID, Text: "sure?"})
			if second.Err != nil || second.Text != "Yes, Friday." {
				t.Fatalf("second turn: %q, %v", second.Text, second.Err)
			}
			chat := f.srv.ChatRequests()
			last := chat[len(chat)-1]
			joined := strings.Join(texts(last), "\n")
			for _, want := range []string{"Answer in one sentence.", "when do we ship?", "ship on friday", "We ship on Friday.", "sure?"} {
				if !strings.Contains(joined, want) {
					t.Fatalf("the last request lacks %q:\n%s", want, joined)
				}
			}
			if tmpl == fakellm.TemplateNoSystem && systemText(last) != "" {
				t.Fatalf("a system message went to a template without one:\n%s", joined)
			}
			for _, e := range f.load(first.ConversationID) {
				if e.IsMessage() && e.Role == conversation.RoleUser && strings.Contains(e.Text(), "Answer in one sentence.") {
					t.Fatal("the project instructions were written into the log as the user's words")
				}
			}
		})
	}
}
