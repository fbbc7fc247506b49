package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
)

// chatEnv is a runtime home, a project folder and a fake LLM server that the
// CREWAGENT_LLM_* variables point to.
// llmEnv is a runtime home and a project folder whose LLM settings (through
// the environment) point at a fake OpenAI server.
type llmEnv struct {
	home, root string
	srv        *fakellm.Server
}

func newLLMEnv(t *testing.T) *llmEnv {
	t.Helper()
	c := &llmEnv{home: t.TempDir(), root: t.TempDir(), srv: fakellm.New()}
	t.Cleanup(c.srv.Close)
	t.Setenv("CREWAGENT_HOME", "")
	t.Setenv("CREWAGENT_LLM_BASE_URL", c.srv.URL())
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	t.Setenv("CREWAGENT_LLM_API_KEY", "")
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	return c
}

// runStdin runs a command in the environment's home and project.
func (c *llmEnv) runStdin(t *testing.T, stdin string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	args = append(args, "--home", c.home, "--project", c.root)
	code := Run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return runResult{code, out.String(), errb.String()}
}

// chatEnv is an llmEnv whose project holds a plan.md.
type chatEnv struct{ *llmEnv }

func newChatEnv(t *testing.T) *chatEnv {
	t.Helper()
	c := &chatEnv{newLLMEnv(t)}
	if err := os.WriteFile(filepath.Join(c.root, "plan.md"), []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *chatEnv) run(t *testing.T, stdin string, args ...string) runResult {
	t.Helper()
	return c.runStdin(t, stdin, args...)
}

func (c *chatEnv) messages(t *testing.T, convID string) []*conversation.Entry {
	t.Helper()
	p, err := project.Open(c.home, c.root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := convlog.OpenReadOnly(p.DataDir, convlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	all, err := st.Load(convID)
	if err != nil {
		t.Fatal(err)
	}
	var out []*conversation.Entry
	for _, e := range all {
		if e.IsMessage() {
			out = append(out, e)
		}
	}
	return out
}

func TestChatCommandStreamsToolLoopAndContinues(t *testing.T) {
	c := newChatEnv(t)
	c.srv.Enqueue(
		fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "fs.list", Arguments: `{"path":"@project"}`}),
		fakellm.TextChunks("There is one file: plan.md", 5, 0),
	)
	r := c.run(t, "", "chat", "what is in my project?")
	if r.code != ExitOK || r.stdout != "There is one file: plan.md\n" || !strings.HasPrefix(r.stderr, "conversation ") {
		t.Fatalf("chat: %+v", r)
	}
	convID := strings.TrimSpace(strings.TrimPrefix(r.stderr, "conversation "))
	msgs := c.messages(t, convID)
	if len(msgs) != 4 || msgs[2].Role != conversation.RoleTool || msgs[2].ToolCallID != "call_1" {
		t.Fatalf("log: %d messages", len(msgs))
	}

	c.srv.Enqueue(fakellm.Text("It holds the plan."))
	r = c.run(t, "", "--json", "chat", "--conversation", convID, "what does it hold?")
	if r.code != ExitOK || r.stderr != "" {
		t.Fatalf("chat --json: %+v", r)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("not one JSON object: %q", r.stdout)
	}
	for _, k := range []string{"conversationId", "text", "usage", "context"} {
		if _, ok := out[k]; !ok {
			t.Fatalf("--json lacks %s: %s", k, r.stdout)
		}
	}
	var ctx map[string]any
	_ = json.Unmarshal(out["context"], &ctx)
	for _, k := range []string{"usedTokens", "totalBudget", "usagePercent", "compressed"} {
		if _, ok := ctx[k]; !ok {
			t.Fatalf("context lacks %s: %s", k, out["context"])
		}
	}
	if string(out["conversationId"]) != `"`+convID+`"` || string(out["text"]) != `"It holds the plan."` {
		t.Fatalf("--json: %s", r.stdout)
	}
	reqs := c.srv.ChatRequests()
	last := reqs[len(reqs)-1]
	var roles []string
	for _, m := range last.Messages {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []string{"system", "system", "system", "user", "assistant", "tool", "assistant", "user"}) {
		t.Fatalf("history not sent: %v", roles)
	}
}

func TestChatCommandReadsStdin(t *testing.T) {
	c := newChatEnv(t)
	c.srv.Enqueue(fakellm.Text("ok"))
	r := c.run(t, "a message\nover two lines\n", "chat", "-")
	if r.code != ExitOK {
		t.Fatalf("chat -: %+v", r)
	}
	if got := c.srv.ChatRequests()[0].LastUserText(); got != "a message\nover two lines" {
		t.Fatalf("sent %q", got)
	}
}

func TestChatCommandLLMFailureExits2(t *testing.T) {
	c := newChatEnv(t)
	c.srv.Enqueue(fakellm.Unauthorized())
	r := c.run(t, "", "chat", "hello")
	if r.code != ExitLLMFailed || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "LLM_AUTH") || !strings.Contains(r.stderr, "continue") {
		t.Fatalf("chat: %+v", r)
	}
	convID := r.stderr[strings.Index(r.stderr, "conversation ")+len("conversation ") : strings.Index(r.stderr, ";")]
	msgs := c.messages(t, convID)
	if len(msgs) != 2 || msgs[0].Text() != "hello" || msgs[1].PartType != conversation.PartError || !strings.HasPrefix(msgs[1].Text(), "LLM_ERROR") {
		t.Fatalf("the failure was not persisted: %+v", msgs)
	}

	// The error line says how to retry; a retry answers "hello" again.
	if !strings.Contains(r.stderr, "--conversation "+convID+" --retry") {
		t.Fatalf("no retry hint: %q", r.stderr)
	}
	c.srv.Enqueue(fakellm.Text("Hello to you."))
	if r := c.run(t, "", "chat", "--conversation", convID, "--retry"); r.code != ExitOK || r.stdout != "Hello to you.\n" {
		t.Fatalf("retry: %+v", r)
	}
	msgs = c.messages(t, convID)
	if len(msgs) != 3 || msgs[0].Text() != "hello" || msgs[1].InContext() || msgs[2].Text() != "Hello to you." {
		t.Fatalf("log after the retry: %+v", msgs)
	}
	for _, args := range [][]string{{"chat", "--retry"}, {"chat", "--conversation", convID, "--retry", "again"}} {
		if r := c.run(t, "", args...); r.code != ExitError || !strings.Contains(r.stderr, "give --conversation ID and no message") {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	if r := c.run(t, "", "chat", "--conversation", convID, "--retry"); r.code != ExitError || !strings.Contains(r.stderr, "already has an answer") {
		t.Fatalf("retry of an answered message: %+v", r)
	}

	c.srv.Enqueue(fakellm.Unauthorized())
	r = c.run(t, "", "chat", "--json", "hello")
	var out chatOutput
	if r.code != ExitLLMFailed || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Error == nil || out.Error.Code != "LLM_AUTH" || out.ConversationID == "" {
		t.Fatalf("chat --json failure: %+v", r)
	}
}

func TestChatCommandOtherErrorsExit1(t *testing.T) {
	c := newChatEnv(t)
	t.Setenv("CREWAGENT_LLM_BASE_URL", "")
	r := c.run(t, "", "chat", "hello")
	if r.code != ExitError || !strings.Contains(r.stderr, "CREWAGENT_LLM_BASE_URL") || !strings.Contains(r.stderr, "settings.json") {
		t.Fatalf("no LLM: %+v", r)
	}
	t.Setenv("CREWAGENT_LLM_BASE_URL", c.srv.URL())
	for _, args := range [][]string{
		{"chat"},
		{"chat", "--mode", "run", "hi"},
		{"chat", "--conversation", "5a0f0c7e-9a44-4b8e-8d7c-0c6b5b1f2a11", "hi"},
		{"chat", "--agent", "analyst", "hi"}, // no package installed
	} {
		if r := c.run(t, "", args...); r.code != ExitError || strings.Count(r.stderr, "\n") != 1 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	r = c.run(t, "", "conversations", "list")
	if !strings.Contains(r.stdout, "no conversations") {
		t.Fatalf("failed commands created conversations: %+v", r)
	}
	if len(c.srv.ChatRequests()) != 0 {
		t.Fatal("the LLM was called")
	}
}

func TestChatCommandAgentMode(t *testing.T) {
	c := newChatEnv(t)
	if _, err := packages.NewManager(c.home).EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	c.srv.Enqueue(fakellm.Text("Let us find the real need."))
	r := c.run(t, "", "chat", "--mode", "agent", "--agent", "analyst", "I need a CRM")
	if r.code != ExitOK {
		t.Fatalf("agent chat: %+v", r)
	}
	sys := ""
	for _, m := range c.srv.ChatRequests()[0].Messages {
		if m.Role == "system" {
			sys += m.Text()
		}
	}
	if !strings.Contains(sys, "PERSONA") || !strings.Contains(sys, "agent id: analyst") || !strings.Contains(sys, "active: agent") {
		t.Fatalf("system prompt:\n%s", sys)
	}
	// Errors name the agents there are.
	if r := c.run(t, "", "chat", "--agent", "nobody", "hi"); r.code != ExitError ||
		!strings.Contains(r.stderr, `agent "nobody" not found: the agents here are analyst, writer`) {
		t.Fatalf("unknown agent: %+v", r)
	}
	if r := c.run(t, "", "chat", "--mode", "agent", "hi"); r.code != ExitError ||
		!strings.Contains(r.stderr, "agent mode needs an agent id; the agents here are analyst, writer") {
		t.Fatalf("no agent: %+v", r)
	}
	// A conversation in agent mode keeps its agent when none is named.
	conv := c.run(t, "", "conversations", "list", "--json")
	var metas []conversation.ConversationMeta
	if err := json.Unmarshal([]byte(conv.stdout), &metas); err != nil || len(metas) != 1 {
		t.Fatalf("list: %v %+v", err, conv)
	}
	c.srv.Enqueue(fakellm.Text("Still the analyst."))
	if r := c.run(t, "", "chat", "--conversation", metas[0].ID, "--mode", "agent", "go on"); r.code != ExitOK {
		t.Fatalf("agent chat without --agent in an agent conversation: %+v", r)
	}
	if n := len(c.srv.ChatRequests()); n != 2 {
		t.Fatalf("want 2 LLM requests, got %d", n)
	}
}

func TestContextCommand(t *testing.T) {
	c := newChatEnv(t)
	c.srv.Enqueue(
		fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "fs.list", Arguments: `{"path":"@project"}`}),
		fakellm.Text("One file."),
	)
	r := c.run(t, "", "chat", "list files")
	convID := strings.TrimSpace(strings.TrimPrefix(r.stderr, "conversation "))
	before := len(c.srv.Requests())

	r = c.run(t, "", "context", convID)
	if r.code != ExitOK {
		t.Fatalf("context: %+v", r)
	}
	for _, want := range []string{"mode chat", "request: 7 messages", "system prompt: base rules (chat)", "kept: newest user message",
		"-> fs_list", "tools (as sent): fs_list, fs_read", "usage: ", "status normal", "conversation: 4 messages in the log, 0 compacted"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("context output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = c.run(t, "", "context", convID, "--json")
	var p struct {
		Messages []struct {
			Role   string `json:"role"`
			Tokens int    `json:"tokens"`
			Reason string `json:"reason"`
		} `json:"messages"`
		ToolNames []string       `json:"toolNames"`
		Usage     map[string]any `json:"usage"`
		Build     map[string]any `json:"build"`
	}
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &p) != nil || len(p.Messages) != 7 || len(p.ToolNames) == 0 || p.Usage["status"] != "normal" || p.Build["kept"] == nil {
		t.Fatalf("context --json: %+v", r)
	}
	if r := c.run(t, "", "context", convID, "--mode", "run"); r.code != ExitError || !strings.Contains(r.stderr, "run") {
		t.Fatalf("run mode: %+v", r)
	}
	if len(c.srv.Requests()) != before {
		t.Fatal("context called the LLM")
	}
}

func TestChatCommandCompressesWithASmallTokenBudget(t *testing.T) {
	c := newChatEnv(t)
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "8000") // below the default reply reserve
	p, err := project.Open(c.home, c.root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := convlog.Open(p.DataDir, convlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := st.Create("", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		text := strings.Repeat("we discussed item "+string(rune('a'+i%26))+" at length. ", 12)
		if err := st.Append(meta.ID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(text)},
			&conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(text)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	c.srv.Enqueue(fakellm.Text("ok"))
	r := c.run(t, "", "chat", "--json", "--conversation", meta.ID, "where are we?")
	var out chatOutput
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("chat: %+v", r)
	}
	if !out.Context.Compressed || out.Context.TotalBudget != 6000 || out.Context.UsagePercent > 80 {
		t.Fatalf("context: %+v", out.Context)
	}
	r = c.run(t, "", "conversations", "show", meta.ID)
	if !strings.Contains(r.stdout, "event compaction") {
		t.Fatalf("no compaction in the log:\n%s", r.stdout)
	}
}
