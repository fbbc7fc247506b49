package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
)

// waitReplies waits until n replies have ended in the conversation.
func waitReplies(t *testing.T, rec *events.Recorder, id string, n int) {
	t.Helper()
	testkit.Wait(t, "the replies to end", func() bool {
		ended := 0
		for _, c := range changes(rec) {
			if c.ConversationID == id && c.Streaming != nil && !*c.Streaming {
				ended++
			}
		}
		return ended >= n
	})
}

// shown is the conversation as the screen shows it: the text of each message
// on the version shown, with the switchers ("text[2/3]").
func shown(t *testing.T, a *App, id string) string {
	t.Helper()
	page, err := a.Conversations.Load(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Entries {
		if !e.IsMessage() || e.View.Inactive {
			continue
		}
		s := e.Text()
		if b := e.View.Branch; b != nil {
			s += "[" + string(rune('0'+b.Index)) + "/" + string(rune('0'+b.Count)) + "]"
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

// lastRequest is the text of the messages the model was sent last.
func lastRequest(srv *fakellm.Server) string {
	reqs := srv.Requests()
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "user" || m.Role == "assistant" {
			if m.Content != nil {
				out = append(out, *m.Content)
			}
		}
	}
	return strings.Join(out, " | ")
}

func TestEditRegenerateAndSwitchVersions(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: "Paris."}, fakellm.Response{Text: "Paris, on the Seine."},
		fakellm.Response{Text: "Rome."}, fakellm.Response{Text: "Two."})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "Capital of France?"}))
	waitReplies(t, w.rec, m.ID, 1)

	// Regenerate the answer: a second version, the first kept.
	page, _ := a.Conversations.Load(m.ID, 0)
	answer := page.Entries[len(page.Entries)-1].ID
	must(t, a.Chat.Regenerate(app.RegenerateRequest{ConversationID: m.ID, MessageID: answer}))
	waitReplies(t, w.rec, m.ID, 2)
	if got := shown(t, a, m.ID); got != "Capital of France? | Paris, on the Seine.[2/2]" {
		t.Fatalf("after regenerating: %s", got)
	}
	if got := lastRequest(srv); got != "Capital of France?" {
		t.Fatalf("the regeneration sent %q", got)
	}

	// Edit the question: a new version of the whole conversation.
	page, _ = a.Conversations.Load(m.ID, 0)
	must(t, a.Chat.Edit(app.EditRequest{ConversationID: m.ID, MessageID: page.Entries[0].ID, Text: "Capital of Italy?"}))
	waitReplies(t, w.rec, m.ID, 3)
	if got := shown(t, a, m.ID); got != "Capital of Italy?[2/2] | Rome." {
		t.Fatalf("after editing: %s", got)
	}
	if got := lastRequest(srv); got != "Capital of Italy?" {
		t.Fatalf("the edit sent %q", got)
	}

	// Back to the first question: its chosen answer comes with it, and the
	// next message continues that version.
	must(t, a.Conversations.SwitchBranch(m.ID, "", 0))
	if got := shown(t, a, m.ID); got != "Capital of France?[1/2] | Paris, on the Seine.[2/2]" {
		t.Fatalf("after switching: %s", got)
	}
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "How many bridges?"}))
	waitReplies(t, w.rec, m.ID, 5) // the switch is a task of its own
	if got := lastRequest(srv); got != "Capital of France? | Paris, on the Seine. | How many bridges?" {
		t.Fatalf("the next request after a switch: %q", got)
	}

	// Everything is still in the log, appended.
	data, err := os.ReadFile(filepath.Join(w.info.DataDir, "conversations", m.ID, "messages.jsonl"))
	must(t, err)
	log := string(data)
	for _, want := range []string{`"Paris."`, `"Rome."`, `"event":"branch"`, `"event":"branch_switch"`, `"editOf":"` + page.Entries[0].ID + `"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s", want)
		}
	}

	// Refusals: an unknown version, an edit of an answer, a run's messages.
	if err := a.Conversations.SwitchBranch(m.ID, "", 7); codeOfErr(t, err) != errs.InvalidArgument {
		t.Errorf("switch to version 8: %v", err)
	}
	page, _ = a.Conversations.Load(m.ID, 0)
	last := page.Entries[len(page.Entries)-1].ID
	if err := a.Chat.Edit(app.EditRequest{ConversationID: m.ID, MessageID: last, Text: "x"}); codeOfErr(t, err) != errs.InvalidArgument {
		t.Errorf("edit of an answer: %v", err)
	}
	if err := a.Chat.Regenerate(app.RegenerateRequest{ConversationID: m.ID, MessageID: last, Mode: "run"}); codeOfErr(t, err) != errs.InvalidRequest {
		t.Errorf("regenerate in run mode: %v", err)
	}
	if err := a.Chat.Edit(app.EditRequest{ConversationID: m.ID, MessageID: last, Text: "  "}); codeOfErr(t, err) != errs.InvalidRequest {
		t.Errorf("an empty edit: %v", err)
	}
}

func TestForkAtAMessageIsNotAnInterruptedReply(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: "Hello."}, fakellm.Response{Text: "Hello again."})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "Hi"}))
	waitReplies(t, w.rec, m.ID, 1)
	page, _ := a.Conversations.Load(m.ID, 0)
	fork, err := a.Conversations.Fork(m.ID, page.Entries[0].ID, "")
	must(t, err)
	page, _ = a.Conversations.Load(fork.ID, 0)
	if page.Unfinished || !page.Awaiting || page.CanContinue {
		t.Fatalf("a fork at a message: unfinished %v, awaiting %v, canContinue %v", page.Unfinished, page.Awaiting, page.CanContinue)
	}
	// Retry answers it; the fork then ends settled.
	must(t, a.Chat.Send(app.SendRequest{ConversationID: fork.ID, Retry: true}))
	waitReplies(t, w.rec, fork.ID, 1)
	page, _ = a.Conversations.Load(fork.ID, 0)
	if page.Unfinished || page.Awaiting || page.Entries[len(page.Entries)-1].Text() != "Hello again." {
		t.Fatalf("after the answer: %+v", page)
	}
	// A conversation whose reply was cut off (the user message and nothing
	// after it, as a crash leaves it) is unfinished, with nothing to continue.
	cut, _ := a.Conversations.Create("")
	must(t, w.store(t).Append(cut.ID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("a question")}))
	page, _ = a.Conversations.Load(cut.ID, 0)
	if !page.Unfinished || page.Awaiting || page.CanContinue {
		t.Fatalf("a reply cut off: %+v", page)
	}
}

func TestExportToFile(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: "An **answer**."})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("Notes: week 1")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "A question"}))
	waitReplies(t, w.rec, m.ID, 1)

	dir := t.TempDir()
	var filters []FileFilter
	a.Conversations.dialogs = fakeDialogs{saveDir: dir, filters: &filters}
	path, err := a.Conversations.ExportToFile(m.ID, "md")
	must(t, err)
	if path != filepath.Join(dir, "Notes week 1.md") || len(filters) != 1 || filters[0].Pattern != "*.md" {
		t.Fatalf("saved to %q with %v", path, filters)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "# Notes: week 1\n") || !strings.Contains(string(data), "### You") || !strings.Contains(string(data), "An **answer**.") {
		t.Fatalf("export:\n%s", data)
	}
	path, err = a.Conversations.ExportToFile(m.ID, "json")
	must(t, err)
	if data, _ := os.ReadFile(path); !strings.HasSuffix(path, ".json") || !strings.Contains(string(data), `"entries": [`) {
		t.Fatalf("json export %q:\n%s", path, data)
	}
	// Cancelled: nothing written.
	a.Conversations.dialogs = fakeDialogs{}
	if path, err := a.Conversations.ExportToFile(m.ID, "md"); path != "" || err != nil {
		t.Fatalf("cancelled: %q, %v", path, err)
	}
}

func TestRepliesSayWhoAnswered(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: "Tell me about the idea."}, fakellm.Response{Text: "A plain answer."})
	w := startedTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "Hi", Mode: "agent", AgentID: "analyst"}))
	waitReplies(t, w.rec, m.ID, 1)
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "And in chat?", Mode: "chat"}))
	waitReplies(t, w.rec, m.ID, 2)
	page, err := a.Conversations.Load(m.ID, 0)
	must(t, err)
	if ag, ok := page.Agents["analyst"]; !ok || ag.Name != "Mara" || ag.Icon != "🔍" || ag.Title != "Product Analyst" || len(page.Agents) != 1 {
		t.Fatalf("agents of the page: %+v", page.Agents)
	}
	var speakers []string
	for _, e := range page.Entries {
		if e.IsMessage() && e.Role == "assistant" {
			speakers = append(speakers, e.Mode+":"+e.AgentID)
		}
	}
	if strings.Join(speakers, " ") != "agent:analyst chat:" {
		t.Fatalf("replies: %v", speakers)
	}
	// The export names the agent too.
	x, err := a.Conversations.Export(m.ID, "md")
	must(t, err)
	if !strings.Contains(x.Content, "### 🔍 Mara") || !strings.Contains(x.Content, "### Assistant") {
		t.Fatalf("export:\n%s", x.Content)
	}
}
