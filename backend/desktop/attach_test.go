package desktop

import (
	"encoding/base64"
	"strings"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/errs"
)

// The composer sends files with a message: they reach the model, and the
// message's record lists them; what cannot be attached is refused in words.
func TestSendWithAttachments(t *testing.T) {
	srv := newFakeLLM(t)
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, err := a.Conversations.Create("")
	must(t, err)
	file := app.AttachmentInput{Name: "todo.md", Data: base64.StdEncoding.EncodeToString([]byte("- buy milk\n"))}
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "", Attachments: []app.AttachmentInput{file}}))
	waitIdle(t, w.rec, m.ID)
	reqs := srv.ChatRequests()
	var all strings.Builder
	for _, msg := range reqs[len(reqs)-1].Messages {
		all.WriteString(msg.Text() + "\n")
	}
	if !strings.Contains(all.String(), "Attached file todo.md:\n```\n- buy milk\n```") {
		for _, msg := range reqs[len(reqs)-1].Messages {
			t.Logf("%s %q", msg.Role, msg.Text())
		}
		t.Fatalf("request lacks the attachment")
	}
	views := viewsByID(t, a, m.ID)
	found := false
	for _, v := range views {
		found = found || (v.Role == "user" && len(v.Attachments) == 1 && v.Attachments[0].Name == "todo.md")
	}
	if !found {
		t.Fatal("the message's view does not list its attachment")
	}
	bad := app.AttachmentInput{Name: "x.bin", Data: "%%%"}
	if err := a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "hi", Attachments: []app.AttachmentInput{bad}}); codeOfErr(t, err) != errs.InvalidRequest {
		t.Fatalf("a broken attachment: %v", err)
	}
}
