package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/llm/fakellm"
)

// What a conversation that was handed a turn (conv.create) wrote belongs to
// the turn that created it: rewinding the parent to before its message takes
// back the child's file too; deleting the parent deletes the records.
func TestRewindTakesBackWhatAHandedTurnChanged(t *testing.T) {
	w := newConvWorld(t, "")
	w.on("Plan a weekend in Lyon", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "conv.create"); ok {
			return fakellm.Response{Text: "Done."}
		}
		if _, ok := afterTool(r, "fs.write"); ok {
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("call-create", "conv.create",
				map[string]any{"user_instruction": "Find three hotels in Lyon", "title": "Hotels"})}}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("w-parent", "fs.write", map[string]any{"path": "@project/plan.md", "content": "weekend\n"})}}
	})
	w.on("Find three hotels in Lyon", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "fs.write"); ok {
			return fakellm.Response{Text: "Three hotels are in hotels.md."}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("w-child", "fs.write", map[string]any{"path": "@project/hotels.md", "content": "Bellecour\n"})}}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Plan a weekend in Lyon"})
	if err != nil || res.Result == nil || res.Result.Text != "Done." {
		t.Fatalf("chat: %+v, %v", res, err)
	}
	parent := res.Result.ConversationID
	for _, f := range []string{"plan.md", "hotels.md"} {
		if _, err := os.Stat(filepath.Join(w.root, f)); err != nil {
			t.Fatalf("%s was not written: %v", f, err)
		}
	}
	entries, err := w.ws.Entries(parent)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for _, e := range entries {
		if e.IsMessage() && e.Role == conversation.RoleUser && first == "" {
			first = e.ID
		}
	}
	rw, err := w.ws.Rewind(app.RewindRequest{ConversationID: parent, To: first, What: app.RewindFiles})
	if err != nil {
		t.Fatal(err)
	}
	if rw.Files == nil || strings.Join(rw.Files.Restored, ",") != "hotels.md,plan.md" {
		t.Fatalf("restored %+v", rw.Files)
	}
	for _, f := range []string{"plan.md", "hotels.md"} {
		if _, err := os.Stat(filepath.Join(w.root, f)); !os.IsNotExist(err) {
			t.Fatalf("%s is still there: %v", f, err)
		}
	}
	journal := filepath.Join(w.ws.Project().DataDir, "checkpoints", "journal.jsonl")
	if b, err := os.ReadFile(journal); err != nil || !strings.Contains(string(b), `"toolCallId":"w-child"`) {
		t.Fatalf("journal: %v\n%s", err, b)
	}
	if _, err := w.ws.DeleteConversation(parent); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(journal); err != nil || len(b) != 0 {
		t.Fatalf("the records outlived their conversation: %v\n%s", err, b)
	}
}

// "Undo this change" on the card of a write made in a conversation a turn
// was handed to: only that write is undone (its record names the creator's
// turn); a planned undo changes nothing; the undo's id redoes it.
func TestUndoChangeOfAHandedTurn(t *testing.T) {
	w := newConvWorld(t, "")
	w.on("Plan a weekend in Lyon", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "conv.create"); ok {
			return fakellm.Response{Text: "Done."}
		}
		if _, ok := afterTool(r, "fs.write"); ok {
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("call-create", "conv.create",
				map[string]any{"user_instruction": "Find three hotels in Lyon", "title": "Hotels"})}}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("w-parent", "fs.write", map[string]any{"path": "@project/plan.md", "content": "weekend\n"})}}
	})
	w.on("Find three hotels in Lyon", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "fs.write"); ok {
			return fakellm.Response{Text: "Three hotels are in hotels.md."}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("w-child", "fs.write", map[string]any{"path": "@project/hotels.md", "content": "Bellecour\n"})}}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Plan a weekend in Lyon"})
	if err != nil || res.Result == nil {
		t.Fatalf("chat: %+v, %v", res, err)
	}
	parent := res.Result.ConversationID
	list, err := w.ws.ListConversations()
	if err != nil {
		t.Fatal(err)
	}
	child := ""
	for _, m := range list {
		if m.ParentID == parent {
			child = m.ID
		}
	}
	if child == "" {
		t.Fatalf("no child conversation in %+v", list)
	}
	exists := func(f string) bool { _, err := os.Stat(filepath.Join(w.root, f)); return err == nil }

	plan, err := w.ws.UndoChange(app.UndoChangeRequest{ConversationID: child, ToolCallID: "w-child", DryRun: true})
	if err != nil || strings.Join(plan.Restored, ",") != "hotels.md" || !exists("hotels.md") {
		t.Fatalf("plan %+v, %v; hotels.md there: %v", plan, err, exists("hotels.md"))
	}
	undo, err := w.ws.UndoChange(app.UndoChangeRequest{ConversationID: child, ToolCallID: "w-child"})
	if err != nil || strings.Join(undo.Restored, ",") != "hotels.md" {
		t.Fatalf("undo %+v, %v", undo, err)
	}
	if exists("hotels.md") || !exists("plan.md") {
		t.Fatalf("after the undo: hotels.md %v, plan.md %v", exists("hotels.md"), exists("plan.md"))
	}
	if _, err := w.ws.UndoChange(app.UndoChangeRequest{ConversationID: child, ToolCallID: "w-child"}); err == nil {
		t.Fatal("undoing twice: no error")
	}
	if _, err := w.ws.UndoChange(app.UndoChangeRequest{ConversationID: child, ToolCallID: "w-nothing"}); err == nil {
		t.Fatal("an unknown call: no error")
	}
	redo, err := w.ws.Rewind(app.RewindRequest{ConversationID: child, To: undo.RewindID, What: app.RewindFiles})
	if err != nil || redo.Files == nil || !exists("hotels.md") {
		t.Fatalf("redo %+v, %v", redo, err)
	}
}
