package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
	"crewagent/backend/workflow"
)

// llmSettings is a settings.json pointing at a fake server.
func llmSettings(url, key string) string {
	return fmt.Sprintf(`{"llm": {"baseUrl": %q, "model": "gpt-4o-mini", "apiKey": %q, "maxRetries": 0}}`, url, key)
}

func newFakeLLM(t *testing.T) *fakellm.Server {
	t.Helper()
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	return srv
}

// waitIdle waits for the conversation:changed event with streaming=false
// that SendMessage emits when the reply has ended, and returns it.
func waitIdle(t *testing.T, rec *events.Recorder, id string) events.ChangeEvent {
	t.Helper()
	var got events.ChangeEvent
	testkit.Wait(t, "the reply to end", func() bool {
		for _, c := range changes(rec) {
			if c.ConversationID == id && c.Streaming != nil && !*c.Streaming {
				got = c
				return true
			}
		}
		return false
	})
	return got
}

func TestGetAndSaveSettings(t *testing.T) {
	w := openTestProject(t, `{"llm": {"baseUrl": "http://127.0.0.1:9/v1", "model": "m", "apiKey": "sk-secret-key-1234"}}`)
	a := w.app
	v, err := a.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	if v.Settings.LLM.APIKey != "••••1234" || !v.HasAPIKey || !v.LLMConfigured || len(v.Overrides) != 0 || v.Path != filepath.Join(w.home, "settings.json") {
		t.Fatalf("GetSettings = %+v", v)
	}
	// saving what the UI shows keeps the stored key
	in := v.Settings
	in.Theme = settings.ThemeDark
	in.Context.TokenBudget = 32000
	v, err = a.Settings.Save(in)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(w.home, "settings.json"))
	var file settings.Settings
	must(t, json.Unmarshal(data, &file))
	if file.LLM.APIKey != "sk-secret-key-1234" || file.Theme != "dark" || file.Context.TokenBudget != 32000 {
		t.Fatalf("saved file: %s", data)
	}
	if fi, _ := os.Stat(filepath.Join(w.home, "settings.json")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings.json mode %v", fi.Mode().Perm())
	}
	if v.Settings.Theme != "dark" || v.Settings.LLM.APIKey != "••••1234" {
		t.Fatalf("view after save: %+v", v.Settings)
	}
	// invalid values are refused with the field named
	bad := v.Settings
	bad.Context.TokenBudget = 0
	if _, err := a.Settings.Save(bad); codeOfErr(t, err) != settings.CodeInvalid || !strings.Contains(err.Error(), "context.tokenBudget") {
		t.Fatalf("invalid save: %v", err)
	}
}

func TestSettingsOverriddenByTheEnvironment(t *testing.T) {
	w := openTestProject(t, "")
	t.Setenv("CREWAGENT_LLM_MODEL", "env-model")
	a := NewApp(w.home, fakeDialogs{}, nil) // reads the environment afresh
	v, err := a.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	if v.Settings.LLM.Model != "env-model" || len(v.Overrides) != 1 || v.Overrides[0].Variable != "CREWAGENT_LLM_MODEL" {
		t.Fatalf("view %+v", v)
	}
	if _, err := a.Settings.Save(v.Settings); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(w.home, "settings.json"))
	if strings.Contains(string(data), "env-model") {
		t.Fatalf("the environment value was written to settings.json: %s", data)
	}
}

func TestTestConnection(t *testing.T) {
	ok := newFakeLLM(t)
	ok.RequireAPIKey("sk-stored-key-9876")
	w := openTestProject(t, llmSettings(ok.URL(), "sk-stored-key-9876"))
	a := w.app
	v, _ := a.Settings.Get()

	res, err := a.Settings.TestConnection(v.Settings) // masked key: the stored one is used
	if err != nil || !res.OK || res.Model != "gpt-4o-mini" || !strings.Contains(res.Message, "gpt-4o-mini") {
		t.Fatalf("TestConnection = %+v, %v", res, err)
	}
	wrongKey := v.Settings
	wrongKey.LLM.APIKey = "sk-typed-but-wrong"
	if res, _ := a.Settings.TestConnection(wrongKey); res.OK || res.Code != llm.CodeAuth {
		t.Fatalf("a wrong key: %+v", res)
	}
	down := newFakeLLM(t)
	downURL := down.URL()
	down.Close()
	unreachable := v.Settings
	unreachable.LLM.BaseURL = downURL
	if res, _ := a.Settings.TestConnection(unreachable); res.OK || res.Code != llm.CodeNetwork || res.Message == "" {
		t.Fatalf("a closed server: %+v", res)
	}
	empty := v.Settings
	empty.LLM.BaseURL = ""
	if res, _ := a.Settings.TestConnection(empty); res.OK || res.Code != llm.CodeNotConfigured || !strings.Contains(res.Message, "llm.baseUrl") {
		t.Fatalf("no base URL: %+v", res)
	}
}

func TestSendMessageStreamsAToolLoop(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(
		fakellm.Response{ToolCalls: []fakellm.ToolCall{{Name: "fs.list", Arguments: `{"path":"@project"}`}}},
		fakellm.Response{Text: "The folder holds notes.md.", Chunks: 5},
	)
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	must(t, os.WriteFile(filepath.Join(w.root, "notes.md"), []byte("# notes\n"), 0o644))
	a := w.app
	m, _ := a.Conversations.Create("")
	if err := a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "what is in the folder?"}); err != nil {
		t.Fatal(err)
	}
	end := waitIdle(t, w.rec, m.ID)
	if end.Error != nil {
		t.Fatalf("the reply ended with %+v", end.Error)
	}
	started := false
	for _, c := range changes(w.rec) {
		if c.ConversationID == m.ID && c.Streaming != nil && *c.Streaming {
			started = true
		}
	}
	if !started {
		t.Fatal("no streaming=true event")
	}
	for _, name := range []string{events.StreamStart, events.StreamChunk, events.StreamEnd, events.StreamToolStart, events.StreamToolEnd, events.ContextUsage} {
		if len(w.rec.Named(name)) == 0 {
			t.Errorf("no %s event", name)
		}
	}
	var text strings.Builder
	for _, p := range w.rec.Named(events.StreamChunk) {
		if c, ok := p.(engine.StreamChunkEvent); ok && c.ConversationID == m.ID {
			text.WriteString(c.Delta)
		}
	}
	if text.String() != "The folder holds notes.md." {
		t.Fatalf("streamed text %q", text.String())
	}
	page, err := a.Conversations.Load(m.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, e := range page.Entries {
		if e.IsMessage() {
			roles = append(roles, e.Role)
		}
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant" || page.Streaming {
		t.Fatalf("log roles %v, streaming %v", roles, page.Streaming)
	}
	if page.Conversation.Title != "what is in the folder?" {
		t.Fatalf("title %q", page.Conversation.Title)
	}
	if active, _ := a.Chat.Streaming(); len(active) != 0 {
		t.Fatalf("still streaming: %v", active)
	}
}

func TestStopStreamingKeepsThePartialAnswer(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: strings.Repeat("word ", 200), Chunks: 200, ChunkDelay: 20 * time.Millisecond})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "talk slowly"}))
	testkit.Wait(t, "the first chunk", func() bool { return len(w.rec.Named(events.StreamChunk)) > 0 })
	if err := a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "again"}); codeOfErr(t, err) != errs.Busy {
		t.Fatalf("a second send while streaming: %v", err)
	}
	if active, _ := a.Chat.Streaming(); len(active) != 1 || active[0] != m.ID {
		t.Fatalf("StreamingConversations = %v", active)
	}
	stopped, err := a.Chat.Stop(m.ID)
	if err != nil || !stopped {
		t.Fatalf("StopStreaming = %v, %v", stopped, err)
	}
	waitIdle(t, w.rec, m.ID)
	entries, err := w.store(t).Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := entries[len(entries)-1]
	if last.PartType != conversation.PartError || !strings.Contains(last.Text(), "word") || !strings.Contains(last.Text(), llm.ErrorBlockHeader) || !strings.Contains(last.Text(), llm.CodeAborted) {
		t.Fatalf("last entry after stop: %+v", last)
	}
	if stopped, _ := a.Chat.Stop(m.ID); stopped {
		t.Fatal("StopStreaming reported a reply when none was running")
	}
}

func TestSendMessageRefusals(t *testing.T) {
	w := openTestProject(t, "")
	a := w.app
	m, _ := a.Conversations.Create("")
	tests := []struct {
		name string
		req  app.SendRequest
		code string
	}{
		{"no LLM configured", app.SendRequest{ConversationID: m.ID, Text: "hi"}, settings.CodeLLMNotConfigured},
		{"empty text", app.SendRequest{ConversationID: m.ID, Text: "  "}, engine.CodeInvalidRequest},
		{"unknown mode", app.SendRequest{ConversationID: m.ID, Text: "hi", Mode: "sideways"}, errs.InvalidMode},
		{"agent mode without an agent", app.SendRequest{ConversationID: m.ID, Text: "hi", Mode: "agent"}, engine.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := a.Chat.Send(tt.req); codeOfErr(t, err) != tt.code {
				t.Fatalf("SendMessage: %v, want %s", err, tt.code)
			}
		})
	}
	// nothing was written
	if entries, _ := w.store(t).Load(m.ID); len(entries) != 0 {
		t.Fatalf("a refused send wrote %d entries", len(entries))
	}
	srv := newFakeLLM(t)
	w2 := openTestProject(t, llmSettings(srv.URL(), ""))
	if err := w2.app.Chat.Send(app.SendRequest{ConversationID: "6f0c3a52-8e0b-4b43-9d52-3c7d1f0e9a11", Text: "hi"}); codeOfErr(t, err) != convlog.ErrNotFound.Code {
		t.Fatalf("unknown conversation: %v", err)
	}
	m2, _ := w2.app.Conversations.Create("")
	if err := w2.app.Chat.Send(app.SendRequest{ConversationID: m2.ID, Text: "hi", Mode: "run"}); codeOfErr(t, err) != workflow.CodeRunNotFound {
		t.Fatalf("run mode without a run: %v", err)
	}
	if len(srv.ChatRequests()) != 0 {
		t.Fatal("a refused send called the LLM")
	}
}

func TestLLMFailureIsPersistedAndContinueResumes(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(
		fakellm.Response{Text: "partial answer that breaks", Chunks: 4, Cut: true, CutAfter: 3},
		fakellm.Response{Text: "resumed and finished"},
	)
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "answer please"}))
	waitIdle(t, w.rec, m.ID)
	page, _ := a.Conversations.Load(m.ID, 0)
	last := page.Entries[len(page.Entries)-1]
	if last.PartType != conversation.PartError || !strings.Contains(last.Text(), "LLM_ERROR") {
		t.Fatalf("failure not persisted: %+v", last)
	}
	before := len(changes(w.rec))
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "continue"}))
	testkit.Wait(t, "the continued reply to end", func() bool {
		for _, c := range changes(w.rec)[before:] {
			if c.ConversationID == m.ID && c.Streaming != nil && !*c.Streaming {
				return true
			}
		}
		return false
	})
	page, _ = a.Conversations.Load(m.ID, 0)
	if got := page.Entries[len(page.Entries)-1].Text(); got != "resumed and finished" {
		t.Fatalf("after continue: %q", got)
	}
}

func TestSetModeAndPreviewContext(t *testing.T) {
	srv := newFakeLLM(t)
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, w.store(t).Append(m.ID, msg("u1", "user", "hello"), msg("a1", "assistant", "hi")))

	meta, err := a.Chat.SetMode(m.ID, "run", "")
	if err != nil || meta.ActiveType != conversation.ActiveWorkflow {
		t.Fatalf("SetMode run = %+v, %v", meta, err)
	}
	if _, err := a.Chat.Preview(m.ID, "run", ""); codeOfErr(t, err) != workflow.CodeRunNotFound {
		t.Fatalf("preview in run mode without a run: %v", err)
	}
	if _, err := a.Chat.SetMode(m.ID, "agent", ""); codeOfErr(t, err) != engine.CodeInvalidRequest {
		t.Fatalf("agent mode without an agent: %v", err)
	}
	if _, err := a.Chat.SetMode(m.ID, "sideways", ""); codeOfErr(t, err) != engine.CodeInvalidRequest {
		t.Fatalf("unknown mode: %v", err)
	}
	meta, err = a.Chat.SetMode(m.ID, "chat", "")
	if err != nil || meta.ActiveType != conversation.ActiveChat {
		t.Fatalf("SetMode chat = %+v, %v", meta, err)
	}
	p, err := a.Chat.Preview(m.ID, "chat", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Messages[0].Role != "system" || p.Usage.UsedTokens <= 0 || p.Usage.TotalBudget <= 0 || len(p.ToolNames) == 0 {
		t.Fatalf("preview %+v", p)
	}
	var sources []string
	for _, pm := range p.Messages {
		if pm.SourceID != "" {
			sources = append(sources, pm.SourceID)
		}
	}
	if strings.Join(sources, ",") != "u1,a1" {
		t.Fatalf("preview sources %v", sources)
	}
	if len(srv.ChatRequests()) != 0 {
		t.Fatal("the preview called the LLM")
	}
}

func TestShutdownStopsRepliesAndClosesTheStore(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Response{Text: strings.Repeat("slow ", 400), Chunks: 400, ChunkDelay: 20 * time.Millisecond})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	m, _ := w.app.Conversations.Create("")
	must(t, w.app.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "go"}))
	testkit.Wait(t, "the first chunk", func() bool { return len(w.rec.Named(events.StreamChunk)) > 0 })
	done := make(chan struct{})
	go func() {
		w.app.shutdown(context.Background())
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("shutdown did not return")
	}
	// the lock is free: another app can open the project
	other := NewApp(w.home, fakeDialogs{}, nil)
	t.Cleanup(func() { other.shutdown(context.Background()) })
	if _, err := other.Projects.Open(w.root); err != nil {
		t.Fatalf("open after shutdown: %v", err)
	}
	entries, err := other.Conversations.Load(m.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := entries.Entries[len(entries.Entries)-1]; last.PartType != conversation.PartError {
		t.Fatalf("the interrupted reply was not persisted as an error: %+v", last)
	}
}

// Appended entries are counted for the model in effect at the time, so a
// model changed in Settings applies without reopening the project.
func TestTokensCountedForTheCurrentModel(t *testing.T) {
	w := openTestProject(t, `{"llm": {"baseUrl": "http://127.0.0.1:9/v1", "model": "gpt-3.5-turbo"}}`)
	c := w.app.session.Runtime()
	e := &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str("hello world")}
	if _, enc := c.CountEntry(e); enc != "cl100k_base" {
		t.Fatalf("encoding %q, want cl100k_base", enc)
	}
	v, err := w.app.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	in := v.Settings
	in.LLM.Model = "gpt-4o"
	if _, err := w.app.Settings.Save(in); err != nil {
		t.Fatal(err)
	}
	if n, enc := c.CountEntry(e); enc != "o200k_base" || n <= 0 {
		t.Fatalf("after the change: %d tokens, encoding %q, want o200k_base", n, enc)
	}
}

func TestRetryAnswersAgainWithoutANewMessage(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Unauthorized(), fakellm.Response{Text: "the answer, at last"})
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "answer please"}))
	waitIdle(t, w.rec, m.ID)
	before := len(changes(w.rec))
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Retry: true}))
	testkit.Wait(t, "the retried reply to end", func() bool {
		for _, c := range changes(w.rec)[before:] {
			if c.ConversationID == m.ID && c.Streaming != nil && !*c.Streaming {
				return true
			}
		}
		return false
	})
	page, _ := a.Conversations.Load(m.ID, 0)
	var roles []string
	for _, e := range page.Entries {
		if e.IsMessage() {
			roles = append(roles, e.Role+":"+e.PartType+":"+strconv.FormatBool(e.InContext()))
		}
	}
	want := []string{"user:content:true", "assistant:error:false", "assistant:content:true"}
	if !slices.Equal(roles, want) {
		t.Fatalf("log after the retry: %q, want %q", roles, want)
	}
	if got := page.Entries[len(page.Entries)-1].Text(); got != "the answer, at last" {
		t.Fatalf("answer %q", got)
	}
	if err := a.Chat.Send(app.SendRequest{ConversationID: m.ID, Retry: true, Mode: "run"}); codeOfErr(t, err) != engine.CodeInvalidRequest {
		t.Fatalf("a retry in run mode: %v", err)
	}
}
