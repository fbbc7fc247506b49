package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/convtools"
	"crewagent/backend/llm/fakellm"
)

// scriptByConversation answers each request by the first user message of
// the conversation it comes from.
func scriptByConversation(srv *fakellm.Server, script map[string]func(r fakellm.RecordedRequest) fakellm.Response) {
	srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		for _, m := range r.Messages {
			if m.Role == "user" {
				if f := script[m.Text()]; f != nil {
					return f(r)
				}
				return fakellm.Response{Text: "no script for " + m.Text()}
			}
		}
		return fakellm.Response{Text: "no user message"}
	})
}

func lastIsTool(r fakellm.RecordedRequest) bool { return r.LastMessage().Role == "tool" }

func convCall(id, name string, args map[string]any) fakellm.ToolCall {
	b, _ := json.Marshal(args)
	return fakellm.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

// chat prints the child's answer under a header that names it, then the
// parent's continuation; --json lists the tasks that ran.
func TestChatShowsHandedOverTurns(t *testing.T) {
	c := newChatEnv(t)
	scriptByConversation(c.srv, map[string]func(fakellm.RecordedRequest) fakellm.Response{
		"Write the summary": func(r fakellm.RecordedRequest) fakellm.Response {
			if lastIsTool(r) {
				return fakellm.Response{Text: "The summary is ready."}
			}
			return fakellm.Response{Text: "Asking a reviewer.", ToolCalls: []fakellm.ToolCall{convCall("x1", "conv.create",
				map[string]any{"user_instruction": "Review the summary", "title": "Reviewer"})}}
		},
		"Review the summary": func(r fakellm.RecordedRequest) fakellm.Response {
			return fakellm.Response{Text: "Looks good to me."}
		},
	})
	r := c.run(t, "", "chat", "Write the summary")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []string{"Asking a reviewer.", "", "── “Reviewer” (conv.create, conversation ", "Looks good to me.", "", "── back in “Write the summary” ──", "The summary is ready."}
	if len(lines) != len(want) {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Fatalf("line %d %q, want %q…\n%s", i, lines[i], want[i], r.stdout)
		}
	}

	scriptByConversation(c.srv, map[string]func(fakellm.RecordedRequest) fakellm.Response{
		"Again, as JSON": func(r fakellm.RecordedRequest) fakellm.Response {
			if lastIsTool(r) {
				return fakellm.Response{Text: "done"}
			}
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{convCall("x2", "conv.create", map[string]any{"user_instruction": "Sub-task"})}}
		},
		"Sub-task": func(r fakellm.RecordedRequest) fakellm.Response { return fakellm.Response{Text: "sub done"} },
	})
	r = c.run(t, "", "chat", "--json", "Again, as JSON")
	var o struct {
		Text  string `json:"text"`
		Tasks []struct {
			Title     string `json:"title"`
			Tool      string `json:"tool"`
			Continues bool   `json:"continues"`
			Outcome   string `json:"outcome"`
			Text      string `json:"text"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &o); err != nil || r.code != ExitOK {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	if o.Text != "done" || len(o.Tasks) != 3 || o.Tasks[1].Tool != "conv.create" || o.Tasks[1].Text != "sub done" || !o.Tasks[2].Continues {
		t.Fatalf("json %+v", o)
	}
}

// The process is killed (SIGKILL) while the child answers. After a restart
// every log is complete: the waiting call has a result that says why there
// is no answer, the child's message waits for a retry, and both go on.
func TestChainSurvivesSIGKILL(t *testing.T) {
	c := newChatEnv(t)
	scriptByConversation(c.srv, map[string]func(fakellm.RecordedRequest) fakellm.Response{
		"Start the long job": func(r fakellm.RecordedRequest) fakellm.Response {
			if lastIsTool(r) {
				return fakellm.Response{Text: "should not run before the restart"}
			}
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{convCall("k1", "conv.create", map[string]any{"user_instruction": "The long job", "title": "Long job"})}}
		},
		"The long job": func(r fakellm.RecordedRequest) fakellm.Response {
			return fakellm.Response{Text: "partial work", Chunks: 3, StallAfter: 2, Stall: fakellm.StallForever}
		},
	})
	b, _ := json.Marshal([]string{"chat", "Start the long job", "--home", c.home, "--project", c.root})
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), cliArgsEnv+"="+string(b))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		n := 0
		for _, r := range c.srv.ChatRequests() {
			if r.LastUserText() == "The long job" {
				n++
			}
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child's request never came")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // a chunk is on its way
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	// The restart: any command that opens the project for writing recovers.
	list := c.run(t, "", "conversations", "list", "--json")
	var metas []conversation.ConversationMeta
	if err := json.Unmarshal([]byte(list.stdout), &metas); err != nil || len(metas) != 2 {
		t.Fatalf("list: %v %s", err, list.stdout)
	}
	var root, child conversation.ConversationMeta
	for _, m := range metas {
		if m.IsChild() {
			child = m
		} else {
			root = m
		}
	}
	scriptByConversation(c.srv, map[string]func(fakellm.RecordedRequest) fakellm.Response{
		"Start the long job": func(r fakellm.RecordedRequest) fakellm.Response {
			return fakellm.Response{Text: "Resumed after the crash."}
		},
		"The long job": func(r fakellm.RecordedRequest) fakellm.Response {
			return fakellm.Response{Text: "The long job is done."}
		},
	})
	// The parent goes on when the user says so (opening the project for
	// writing has closed the waiting call).
	r := c.run(t, "", "chat", "--conversation", root.ID, "continue")
	if r.code != ExitOK || strings.TrimSpace(r.stdout) != "Resumed after the crash." {
		t.Fatalf("continue: %d %q %s", r.code, r.stdout, r.stderr)
	}
	pes := c.messages(t, root.ID)
	checkComplete(t, pes)
	var result string
	for _, e := range pes {
		if e.ToolCallID == "k1" {
			result = e.Text()
		}
	}
	h, ok := convtools.Decode(result)
	if !ok || h.Status != convtools.StatusInterrupted || h.ConversationID != child.ID || !strings.Contains(h.Message, "Long job") {
		t.Fatalf("the waiting call's result after the crash: %s", result)
	}
	// The child's message waits for a retry, which answers it.
	r = c.run(t, "", "chat", "--conversation", child.ID, "--retry")
	if r.code != ExitOK || strings.TrimSpace(r.stdout) != "The long job is done." {
		t.Fatalf("retry in the child: %d %q %s", r.code, r.stdout, r.stderr)
	}
	checkComplete(t, c.messages(t, child.ID))
}

// checkComplete fails when a tool call of the log has no result.
func checkComplete(t *testing.T, es []*conversation.Entry) {
	t.Helper()
	open := map[string]bool{}
	for _, e := range es {
		if !e.InContext() {
			continue
		}
		if e.PartType != conversation.PartError {
			for _, c := range e.ToolCalls {
				open[c.ID] = true
			}
		}
		if e.Role == conversation.RoleTool {
			delete(open, e.ToolCallID)
		}
	}
	if len(open) > 0 {
		t.Fatalf("tool calls without a result: %v", open)
	}
}
