//go:build linux

package app_test

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/oauth"
)

// answeringEmitter records the events and answers each form a server asks for the way
// the window's card does (through Elicitations.Answer), with answer's action and fields.
type answeringEmitter struct {
	events.Recorder
	mu      sync.Mutex
	elicit  *app.Elicitations
	action  string
	content map[string]any
	asked   []events.MCPElicitationEvent
	pending int
}

func (a *answeringEmitter) Emit(name string, payload any) {
	a.Recorder.Emit(name, payload)
	if name != events.MCPElicitation {
		return
	}
	ev := payload.(events.MCPElicitationEvent)
	a.mu.Lock()
	a.asked = append(a.asked, ev)
	a.pending = len(a.elicit.Pending())
	action, content := a.action, a.content
	a.mu.Unlock()
	go func() { _ = a.elicit.Answer(ev.ID, action, content) }()
}

// The composer's MCP side against server-everything: its prompts and resources are
// listed, a prompt with arguments is filled in as the message's text, a resource is read
// as an attachment the message then carries, and a form the server asks for during a
// call is answered from the window (accepted, declined), the call going on with it.
func TestComposerUsesTheServersPromptsResourcesAndForms(t *testing.T) {
	p := newMCPProject(t, map[string]any{"enabled": true, "startOnOpen": true}, nil)
	p.writeSettings(t, map[string]any{"enabled": true, "startOnOpen": true}, map[string]any{"everything": p.npm.Everything("composer-ev", nil)})
	em := &answeringEmitter{action: "accept", content: map[string]any{"name": "Ada Lovelace", "check": true, "integer": 7}}
	em.elicit = app.NewElicitations(em)
	ws, err := app.Open(p.home, p.root, app.Options{Emitter: em, MCP: mcp.Options{Elicit: em.elicit.Ask, StopGrace: 300 * time.Millisecond}},
		app.OpenOptions{StartMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	testkit.Until(t, 30*time.Second, "the server to be ready", func() bool { return slices.Contains(ws.ReadyMCPServers(), "everything") })

	offer := ws.ComposerMCP(context.Background())
	if len(offer.Problems) > 0 {
		t.Fatalf("problems: %v", offer.Problems)
	}
	i := slices.IndexFunc(offer.Prompts, func(p mcp.Prompt) bool { return p.Name == "args-prompt" })
	if i < 0 || offer.Prompts[i].Server != "everything" || len(offer.Prompts[i].Arguments) != 2 || !offer.Prompts[i].Arguments[0].Required {
		t.Fatalf("prompts %+v", offer.Prompts)
	}
	if len(offer.Resources) == 0 {
		t.Fatal("no resources listed")
	}

	for _, tc := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{"city": "Paris"}, "What's weather in Paris?"},
		{map[string]string{"city": "Austin", "state": "Texas"}, "What's weather in Austin, Texas?"},
	} {
		got, err := ws.ComposePrompt(context.Background(), "everything", "args-prompt", tc.args)
		if err != nil || got.Text != tc.want || len(got.Attachments) != 0 {
			t.Fatalf("%v: %+v, %v", tc.args, got, err)
		}
	}
	if _, err := ws.ComposePrompt(context.Background(), "everything", "no-such-prompt", nil); err == nil {
		t.Fatal("an unknown prompt was filled in")
	}

	res := offer.Resources[0]
	a, err := ws.ResourceAttachment(context.Background(), res.Server, res.URI)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := base64.StdEncoding.DecodeString(a.Data)
	contents, _ := ws.ReadMCPResource(context.Background(), res.Server, res.URI)
	if len(data) == 0 || len(contents) != 1 || string(data) != contents[0].Text || strings.ContainsAny(a.Name, "/:") || !strings.Contains(a.Name, ".") {
		t.Fatalf("attachment %q (%d bytes) of %s", a.Name, len(data), res.URI)
	}
	if _, err := ws.ResourceAttachment(context.Background(), "everything", "demo://resource/nowhere"); err == nil {
		t.Fatal("a resource that does not exist was attached")
	}
	for _, tc := range []struct {
		action string
		want   []string
	}{
		{"accept", []string{"Name: Ada Lovelace", "Agreed to terms: true", "Favorite Integer: 7", "Favorite Number: 3.14"}},
		{"decline", []string{"declined"}},
	} {
		em.mu.Lock()
		em.action, em.asked = tc.action, nil
		em.mu.Unlock()
		p.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
			if r.LastMessage().Role == "tool" {
				return fakellm.Text("done")
			}
			return fakellm.Tools(fakellm.ToolCall{ID: "c_form", Name: "mcp__everything__trigger-elicitation-request", Arguments: `{}`})
		})
		out, err := ws.Chat(context.Background(), engine.SendRequest{Mode: "chat", Text: "ask me " + tc.action})
		if err != nil {
			t.Fatal(err)
		}
		text := lastTool(t, ws, out.ConversationID).Text()
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Fatalf("%s: the result %s lacks %q", tc.action, text, w)
			}
		}
		em.mu.Lock()
		asked, pending := em.asked, em.pending
		em.mu.Unlock()
		if len(asked) != 1 || asked[0].Server != "everything" || !strings.Contains(string(asked[0].Schema), `"name"`) || pending != 1 {
			t.Fatalf("%s: asked %+v (pending %d)", tc.action, asked, pending)
		}
		if len(em.Named(events.MCPElicitationDone)) == 0 || len(em.elicit.Pending()) != 0 {
			t.Fatalf("%s: the form is still pending", tc.action)
		}
	}
}

// Settings → MCP lists the servers a token is kept for, and signing out forgets it.
func TestSignedInServersAndSignOut(t *testing.T) {
	home := t.TempDir()
	rt := app.New(home, app.Options{})
	if got := rt.SignedInMCPServers(); len(got) != 0 {
		t.Fatalf("%v", got)
	}
	if err := oauth.NewStore(home).Put("notes", oauth.Entry{URL: "http://127.0.0.1:1/mcp"}); err != nil {
		t.Fatal(err)
	}
	if got := rt.SignedInMCPServers(); !slices.Equal(got, []string{"notes"}) {
		t.Fatalf("%v", got)
	}
	s := app.NewSession(rt)
	r, err := s.SignOutMCPServer("notes")
	if err != nil || !r.SignedIn {
		t.Fatalf("%+v, %v", r, err)
	}
	if got := rt.SignedInMCPServers(); len(got) != 0 {
		t.Fatalf("still signed in: %v", got)
	}
}
