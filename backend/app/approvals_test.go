package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/approval"
	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
)

type approvalsEnv struct {
	home, root string
	srv        *fakellm.Server
	rec        *events.Recorder
	ws         *app.Workspace
}

func newApprovalsEnv(t *testing.T) *approvalsEnv {
	t.Helper()
	e := &approvalsEnv{home: t.TempDir(), root: t.TempDir(), srv: fakellm.New(), rec: &events.Recorder{}}
	t.Cleanup(e.srv.Close)
	t.Setenv("CREWAGENT_HOME", "")
	t.Setenv("CREWAGENT_APPROVE", "")
	t.Setenv("CREWAGENT_LLM_BASE_URL", e.srv.URL())
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	t.Setenv("CREWAGENT_LLM_API_KEY", "")
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	testkit.WriteFile(t, filepath.Join(e.root, "notes.md"), "# Notes\nship on friday\n")
	e.open(t)
	return e
}

func (e *approvalsEnv) open(t *testing.T) {
	t.Helper()
	ws, err := app.Open(e.home, e.root, app.Options{Emitter: e.rec}, app.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.ws = ws
	t.Cleanup(func() { ws.Close() })
}

func (e *approvalsEnv) create(t *testing.T) string {
	t.Helper()
	meta, err := e.ws.Store().Create("", conversation.ActiveChat)
	if err != nil {
		t.Fatal(err)
	}
	return meta.ID
}

func (e *approvalsEnv) requests() []events.ApprovalEvent {
	var out []events.ApprovalEvent
	for _, p := range e.rec.Named(events.ApprovalRequested) {
		out = append(out, p.(events.ApprovalEvent))
	}
	return out
}

func (e *approvalsEnv) notes(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(e.root, "notes.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The window's flow: a reply in the background waits for the card's
// answer; "always in this project" writes a rule that the next
// conversation's write runs under.
func TestWindowApprovalAlwaysInThisProject(t *testing.T) {
	e := newApprovalsEnv(t)
	id := e.create(t)
	if m, err := e.ws.ApprovalMode(id); err != nil || m.Mode != approval.Ask || m.Source != "default" {
		t.Fatalf("%+v %v", m, err)
	}
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/notes.md","content":"monday\n"}`}), fakellm.Text("Done."))
	if _, err := e.ws.Send(app.SendRequest{ConversationID: id, Text: "move it to monday"}); err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the request", func() bool { return len(e.requests()) == 1 })
	ev := e.requests()[0]
	if !strings.Contains(ev.Approval.Diff, "-ship on friday\n+monday\n") || e.notes(t) != "# Notes\nship on friday\n" {
		t.Fatalf("%+v", ev.Approval)
	}
	// Only the known answers are taken.
	if err := e.ws.AnswerApproval(id, ev.ToolCallID, approval.Answer{Decision: "yes please"}); err == nil {
		t.Fatal("an unknown answer was taken")
	}
	if err := e.ws.AnswerApproval(id, ev.ToolCallID, approval.Answer{Decision: approval.AnswerProject}); err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the reply", func() bool { return !e.ws.Tasks().Busy(id) })
	if e.notes(t) != "monday\n" {
		t.Fatalf("%q", e.notes(t))
	}
	if err := e.ws.AnswerApproval(id, ev.ToolCallID, approval.Answer{Decision: approval.AnswerAllow}); err == nil {
		t.Fatal("a request was answered twice")
	}
	st, err := approval.NewStore(e.home, e.ws.Project().ID).Load()
	if err != nil || len(st.Allow) != 1 || st.Allow[0] != "fs.write" {
		t.Fatalf("%+v %v", st, err)
	}

	// Another conversation: the project rule lets the write run.
	other := e.create(t)
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w2", Name: "fs.write", Arguments: `{"path":"@project/notes.md","content":"tuesday\n"}`}), fakellm.Text("Done."))
	if _, err := e.ws.Send(app.SendRequest{ConversationID: other, Text: "tuesday then"}); err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the second reply", func() bool { return e.notes(t) == "tuesday\n" && !e.ws.Tasks().Busy(other) })
	if n := len(e.requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}

// A conversation's mode is an event of its log: it survives a restart and
// decides its calls.
func TestConversationApprovalModeIsRecorded(t *testing.T) {
	e := newApprovalsEnv(t)
	id := e.create(t)
	if err := e.ws.SetApprovalMode(id, "sometimes"); err == nil {
		t.Fatal("an unknown mode was taken")
	}
	if err := e.ws.SetApprovalMode(id, "read-only"); err != nil {
		t.Fatal(err)
	}
	e.ws.Close()
	e.open(t)
	if m, err := e.ws.ApprovalMode(id); err != nil || m.Mode != approval.ReadOnly || m.Source != "conversation" {
		t.Fatalf("%+v %v", m, err)
	}
	entries, err := e.ws.Store().Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Event != conversation.EventApprovalMode || !strings.Contains(string(entries[0].Data), "read-only") {
		t.Fatalf("%+v", entries)
	}
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/notes.md","content":"gone"}`}), fakellm.Text("I could not."))
	if _, err := e.ws.Send(app.SendRequest{ConversationID: id, Text: "wipe the notes"}); err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the reply", func() bool { return !e.ws.Tasks().Busy(id) && len(e.srv.ChatRequests()) == 2 })
	if e.notes(t) != "# Notes\nship on friday\n" || len(e.requests()) != 0 {
		t.Fatal("a read-only conversation wrote or asked")
	}
	// A new conversation still gets the default.
	if m, _ := e.ws.ApprovalMode(e.create(t)); m.Mode != approval.Ask {
		t.Fatalf("%+v", m)
	}
}

// A damaged rules file refuses what would have run: a file meant to narrow
// never silently does nothing.
func TestDamagedProjectRulesRefuse(t *testing.T) {
	e := newApprovalsEnv(t)
	t.Setenv("CREWAGENT_APPROVE", "full-auto")
	testkit.WriteFile(t, filepath.Join(e.root, ".crewagent", "permissions.json"), `{"deny": [`)
	id := e.create(t)
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/notes.md","content":"gone"}`}), fakellm.Text("ok"))
	if _, err := e.ws.Send(app.SendRequest{ConversationID: id, Text: "wipe"}); err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the reply", func() bool { return !e.ws.Tasks().Busy(id) && len(e.srv.ChatRequests()) == 2 })
	if e.notes(t) == "gone" {
		t.Fatal("written")
	}
	if r := e.ws.ApprovalRules(); r.Error == "" {
		t.Fatalf("%+v", r)
	}
	last := e.srv.ChatRequests()[1].Messages
	if txt := last[len(last)-1].Text(); !strings.Contains(txt, "approval rules cannot be read") {
		t.Fatalf("%s", txt)
	}
}

// The app closes while a call waits: the request stays waiting in the log,
// is there again after a restart, and its answer then runs the call once
// and the reply goes on.
func TestApprovalWaitingSurvivesARestart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  approval.Answer
		notes   string
		inModel string
	}{
		{"allow", approval.Answer{Decision: approval.AnswerAllow}, "monday\n", `"ok":true`},
		{"deny", approval.Answer{Decision: approval.AnswerDeny, Reason: "friday is fine"}, "# Notes\nship on friday\n", "their reason: friday is fine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newApprovalsEnv(t)
			id := e.create(t)
			e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/notes.md","content":"monday\n"}`}))
			if _, err := e.ws.Send(app.SendRequest{ConversationID: id, Text: "move it to monday"}); err != nil {
				t.Fatal(err)
			}
			testkit.Wait(t, "the request", func() bool { return len(e.requests()) == 1 })
			ev := e.requests()[0]
			e.ws.Close()

			e.open(t)
			entries, err := e.ws.Store().Load(id)
			if err != nil {
				t.Fatal(err)
			}
			last := entries[len(entries)-1]
			if last.ID != ev.ResultMessageID || !last.Approval.Waiting() || !strings.Contains(last.Approval.Diff, "+monday") {
				t.Fatalf("after the restart: %+v", last)
			}
			e.srv.Enqueue(fakellm.Text("Done."))
			if err := e.ws.AnswerApproval(id, "w1", tc.answer); err != nil {
				t.Fatal(err)
			}
			testkit.Wait(t, "the reply", func() bool { return !e.ws.Tasks().Busy(id) && len(e.srv.ChatRequests()) == 2 })
			testkit.Wait(t, "the answer", func() bool {
				entries, _ := e.ws.Store().Load(id)
				return entries[len(entries)-1].Text() == "Done."
			})
			if e.notes(t) != tc.notes {
				t.Fatalf("%q", e.notes(t))
			}
			msgs := e.srv.ChatRequests()[1].Messages
			if got := msgs[len(msgs)-1]; got.ToolCallID != "w1" || !strings.Contains(got.Text(), tc.inModel) {
				t.Fatalf("the model got %q", got.Text())
			}
			// Answered once: a second answer is refused and nothing runs again.
			if err := e.ws.AnswerApproval(id, "w1", approval.Answer{Decision: approval.AnswerAllow}); err == nil {
				t.Fatal("answered twice")
			}
			var results int
			entries, _ = e.ws.Store().Load(id)
			for _, m := range entries {
				if m.ToolCallID == "w1" {
					results++
				}
			}
			if results != 1 {
				t.Fatalf("%d results", results)
			}
		})
	}
}

// A conversation created by another one takes the mode and the grants of
// the nearest one up its line that has them, until it chooses its own.
func TestChildConversationTakesItsParentsMode(t *testing.T) {
	e := newApprovalsEnv(t)
	parent := e.create(t)
	if err := e.ws.SetApprovalMode(parent, "auto-edit"); err != nil {
		t.Fatal(err)
	}
	first := &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str("hi")}
	child, err := e.ws.Store().CreateRecord(conversation.ConversationMeta{ActiveType: conversation.ActiveChat, ParentID: parent,
		Origin: &conversation.Origin{ConversationID: parent, ToolCallID: "k1"}}, first)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := e.ws.ApprovalMode(child.ID); err != nil || m.Mode != approval.AutoEdit || m.Source != "conversation" {
		t.Fatalf("%+v %v", m, err)
	}
	if err := e.ws.SetApprovalMode(child.ID, "read-only"); err != nil {
		t.Fatal(err)
	}
	if m, _ := e.ws.ApprovalMode(child.ID); m.Mode != approval.ReadOnly {
		t.Fatalf("%+v", m)
	}
	if m, _ := e.ws.ApprovalMode(parent); m.Mode != approval.AutoEdit {
		t.Fatalf("the parent changed: %+v", m)
	}
}
