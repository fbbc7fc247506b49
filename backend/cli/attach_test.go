package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// A text file and an image attached to a message: the text inside the
// request, the image as an image part; a model that refuses images gets the
// request again at once with a note instead, and never an image again.
func TestChatWithAttachments(t *testing.T) {
	c := newChatEnv(t)
	dir := t.TempDir()
	notes, shot := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "shot.png")
	if err := os.WriteFile(notes, []byte("the dev server sits on port 6851\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, tinyPNG, 0o644); err != nil {
		t.Fatal(err)
	}
	var out chatOutput
	r := c.run(t, "", "chat", "--json", "--attach", notes+","+shot, "what port, and what is on the screenshot?")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("chat: %d %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := c.srv.ChatRequests()
	last := reqs[len(reqs)-1].Messages
	user := last[len(last)-1]
	if !strings.Contains(user.Text(), "Attached file notes.txt:\n```\nthe dev server sits on port 6851\n```") || len(user.Images) != 1 || !strings.HasPrefix(user.Images[0], "data:image/png;base64,") {
		t.Fatalf("the request's user message: %q, images %v", user.Text(), user.Images)
	}
	var logged *conversation.Entry
	for _, e := range c.messages(t, out.ConversationID) {
		if e.IsMessage() && e.Role == conversation.RoleUser {
			logged = e
		}
	}
	if logged == nil || len(logged.Attachments) != 2 || logged.Text() != "what port, and what is on the screenshot?" || logged.Tokens < conversation.ImageTokens {
		t.Fatalf("logged: %+v", logged)
	}
	for _, a := range logged.Attachments {
		if !strings.HasPrefix(a.Path, conversation.ToolResultAliasPrefix+out.ConversationID+"/att-") {
			t.Fatalf("saved at %q", a.Path)
		}
	}

	// A model without vision.
	c.srv.SetTextOnly("fake-model")
	before := len(c.srv.ChatRequests())
	if r := c.run(t, "", "chat", "--conversation", out.ConversationID, "--attach", shot, "and this one?"); r.code != 0 {
		t.Fatalf("text-only model: %d %s", r.code, r.stderr)
	}
	reqs = c.srv.ChatRequests()[before:]
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the refused one and one without images", len(reqs))
	}
	for _, m := range reqs[1].Messages {
		if len(m.Images) > 0 {
			t.Fatal("an image went to a model that refused images")
		}
	}
	if !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text(), "this model does not take images") {
		t.Fatal("no note in place of the image")
	}

	// What cannot be attached is refused before anything is sent.
	bin := filepath.Join(dir, "a.out")
	if err := os.WriteFile(bin, []byte("\x7fELF\x02\x01\x01\x00\x00\xff\xfe\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = len(c.srv.ChatRequests())
	r = c.run(t, "", "chat", "--conversation", out.ConversationID, "--attach", bin, "read this")
	if r.code == 0 || !strings.Contains(r.stderr, "neither text nor an image") || len(c.srv.ChatRequests()) != before {
		t.Fatalf("binary: %d %q", r.code, r.stderr)
	}
	if r := c.run(t, "", "chat", "--attach", filepath.Join(dir, "missing.txt"), "x"); r.code == 0 || !strings.Contains(r.stderr, "missing.txt") {
		t.Fatalf("missing file: %d %q", r.code, r.stderr)
	}
}
