package app_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
)

// entriesReader is what the window holds of one conversation: a page read
// once, then kept up to date by conversation:entries alone.
type entriesReader struct {
	id      string
	entries []conversation.EntryView
	end     events.EntriesEvent
	seen    int // events of the recorder applied so far
	reloads int // events that asked for the page again
}

// follow applies the conversation:entries events recorded since the last
// call: a known id is replaced, a new one appended.
func (r *entriesReader) follow(rec *events.Recorder) {
	all := rec.Named(events.ConversationEntries)
	for _, p := range all[r.seen:] {
		ev := p.(events.EntriesEvent)
		if ev.ConversationID != r.id {
			continue
		}
		if ev.Reload {
			r.reloads++
		}
		at := map[string]int{}
		for i, v := range r.entries {
			at[v.ID] = i
		}
		for _, v := range ev.Entries {
			if i, ok := at[v.ID]; ok {
				r.entries[i] = v
			} else {
				at[v.ID] = len(r.entries)
				r.entries = append(r.entries, v)
			}
		}
		r.end = ev
	}
	r.seen = len(all)
}

// same fails unless the reader holds what a page read now gives.
func (r *entriesReader) same(t *testing.T, ws *app.Workspace, when string) {
	t.Helper()
	page, err := ws.LoadConversation(r.id, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r.entries)
	want, _ := json.Marshal(page.Entries)
	if string(got) != string(want) {
		t.Fatalf("%s: the events give\n%s\na read gives\n%s", when, got, want)
	}
	if !r.end.Settled || r.end.Unfinished != page.Unfinished || r.end.Awaiting != page.Awaiting || r.end.CanContinue != page.CanContinue ||
		r.end.Stopped != page.Stopped || r.end.Conversation.Title != page.Conversation.Title {
		t.Fatalf("%s: the events end with %+v, a read with %+v", when, r.end, page)
	}
}

// A reply with tool calls reaches the window as the entries the store wrote,
// with their views: applied by id to the page read before, they give what a
// page read after gives, without a read. A compaction does too; an edit,
// which makes a new version, asks for the page again.
func TestPublishedEntriesGiveWhatAPageReadGives(t *testing.T) {
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	home, root := t.TempDir(), t.TempDir()
	for k, v := range map[string]string{"CREWAGENT_HOME": "", "CREWAGENT_APPROVE": "", "CREWAGENT_LLM_BASE_URL": srv.URL(),
		"CREWAGENT_LLM_MODEL": "fake-model", "CREWAGENT_LLM_API_KEY": "", "CREWAGENT_TOKEN_BUDGET": ""} {
		t.Setenv(k, v)
	}
	testkit.WriteFile(t, filepath.Join(root, "notes.md"), "# Notes\nship on friday\n")
	testkit.WriteFile(t, filepath.Join(root, "todo.md"), "- book the room\n")
	rec := &events.Recorder{}
	ws, err := app.Open(home, root, app.Options{Emitter: rec}, app.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	meta, err := ws.CreateConversation("")
	if err != nil {
		t.Fatal(err)
	}
	r := &entriesReader{id: meta.ID}
	page, err := ws.LoadConversation(meta.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.entries = page.Entries
	settledAfter := func(n int) bool {
		all := rec.Named(events.ConversationEntries)
		for _, p := range all[n:] {
			if ev := p.(events.EntriesEvent); ev.ConversationID == meta.ID && ev.Settled {
				return true
			}
		}
		return false
	}
	reply := func(what string, send func() error) {
		t.Helper()
		n := len(rec.Named(events.ConversationEntries))
		if err := send(); err != nil {
			t.Fatal(err)
		}
		testkit.Wait(t, what, func() bool { return !ws.Tasks().Busy(meta.ID) && settledAfter(n) })
		r.follow(rec)
	}

	srv.Enqueue(
		fakellm.Tools(fakellm.ToolCall{ID: "r1", Name: "fs.read", Arguments: `{"path":"@project/notes.md"}`},
			fakellm.ToolCall{ID: "r2", Name: "fs.read", Arguments: `{"path":"@project/todo.md"}`}),
		fakellm.Tools(fakellm.ToolCall{ID: "r3", Name: "fs.read", Arguments: `{"path":"@project/missing.md"}`}),
		fakellm.Text("Ship on friday; the room is still to book."))
	reply("the reply", func() error {
		_, err := ws.Send(app.SendRequest{ConversationID: meta.ID, Text: "What is planned?"})
		return err
	})
	if r.reloads != 0 {
		t.Fatalf("the reply asked for %d page reads", r.reloads)
	}
	calls := 0
	for _, v := range r.entries {
		calls += len(v.ToolCalls)
	}
	if calls != 3 {
		t.Fatalf("the events hold %d tool calls, want 3", calls)
	}
	r.same(t, ws, "after the reply")

	// A second reply ends in a failure: the first reply's views stay, the
	// failure is the latest.
	srv.Enqueue(fakellm.Response{Status: 400, Body: fakellm.ErrorBody("invalid_request_error", "", "The request was refused.")})
	reply("the failure", func() error {
		_, err := ws.Send(app.SendRequest{ConversationID: meta.ID, Text: "And then?"})
		return err
	})
	r.same(t, ws, "after the failure")

	// An edit makes a new version: the entries shown before it change.
	user := ""
	for _, v := range r.entries {
		if v.View.Kind == conversation.ViewUser && !v.View.Inactive && !v.Compacted {
			user = v.ID
		}
	}
	srv.Enqueue(fakellm.Text("Friday it is."))
	reply("the edit", func() error {
		return ws.Edit(app.EditRequest{ConversationID: meta.ID, MessageID: user, Text: "When do we ship?"})
	})
	if r.reloads == 0 {
		t.Fatal("the edit did not ask for the page again")
	}
	// The window reads the page again, as asked.
	page, err = ws.LoadConversation(meta.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.entries, r.reloads = page.Entries, 0
	r.same(t, ws, "after the edit")

	srv.Enqueue(fakellm.Text("Summary: ship on friday, book the room."))
	res, err := ws.CompactConversation(context.Background(), meta.ID, "")
	if err != nil || res.CompactedMessages == 0 {
		t.Fatalf("compaction: %+v %v", res, err)
	}
	r.follow(rec)
	if r.reloads != 0 {
		t.Fatalf("the compaction asked for %d page reads", r.reloads)
	}
	r.same(t, ws, "after the compaction")

}
