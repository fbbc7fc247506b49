package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/packages"
	"crewagent/backend/project"
)

// clearLLMEnv keeps the caller's CREWAGENT_* variables out of a test.
func clearLLMEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{"CREWAGENT_LLM_BASE_URL", "CREWAGENT_LLM_API_KEY", "CREWAGENT_LLM_MODEL", "CREWAGENT_TOKEN_BUDGET"} {
		t.Setenv(v, "")
	}
}

type testWorkspace struct {
	app  *App
	rec  *events.Recorder
	home string
	root string
	info app.ProjectInfo
}

// openTestProject starts an App on a fresh home (with settings.json when
// settingsJSON is not empty) and opens a fresh project folder.
func openTestProject(t *testing.T, settingsJSON string) *testWorkspace {
	t.Helper()
	clearLLMEnv(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if settingsJSON != "" {
		if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &events.Recorder{}
	ta := NewApp(home, fakeDialogs{}, rec)
	t.Cleanup(func() { ta.shutdown(context.Background()) })
	info, err := ta.Projects.Open(root)
	if err != nil {
		t.Fatalf("OpenProject: %v", err)
	}
	return &testWorkspace{app: ta, rec: rec, home: home, root: root, info: info}
}

func (w *testWorkspace) store(t *testing.T) *convlog.Store {
	t.Helper()
	ws, err := w.app.session.Current()
	if err != nil {
		t.Fatal(err)
	}
	return ws.Store().Store
}

func msg(id, role, text string) *conversation.Entry {
	return &conversation.Entry{Type: conversation.TypeMsg, ID: id, Role: role, Content: conversation.Str(text)}
}

// changes returns the conversation:changed payloads emitted so far.
func changes(rec *events.Recorder) []events.ChangeEvent {
	var out []events.ChangeEvent
	for _, p := range rec.Named(events.ConversationChanged) {
		if c, ok := p.(events.ChangeEvent); ok {
			out = append(out, c)
		}
	}
	return out
}

func hasChange(rec *events.Recorder, id, kind string) bool {
	for _, c := range changes(rec) {
		if c.ConversationID == id && c.Kind == kind {
			return true
		}
	}
	return false
}

func TestMethodsNeedAnOpenProject(t *testing.T) {
	ta, _ := newTestApp(t)
	calls := map[string]func() error{
		"ListConversations":   func() error { _, err := ta.Conversations.List(); return err },
		"CreateConversation":  func() error { _, err := ta.Conversations.Create(""); return err },
		"SearchConversations": func() error { _, err := ta.Conversations.Search("x"); return err },
		"LoadConversation":    func() error { _, err := ta.Conversations.Load(uuid.NewString(), 0); return err },
		"DeleteConversation":  func() error { return ta.Conversations.Delete(uuid.NewString()) },
		"SendMessage":         func() error { return ta.Chat.Send(app.SendRequest{ConversationID: uuid.NewString(), Text: "hi"}) },
		"PreviewContext":      func() error { _, err := ta.Chat.Preview(uuid.NewString(), "chat", ""); return err },
		"ListAgents":          func() error { _, err := ta.Chat.Agents(); return err },
	}
	for name, call := range calls {
		if got := codeOfErr(t, call()); got != errs.NoProject {
			t.Errorf("%s without a project: code %s, want %s", name, got, errs.NoProject)
		}
	}
}

func TestConversationLifecycle(t *testing.T) {
	w := openTestProject(t, "")
	a := w.app
	first, err := a.Conversations.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if first.Title != convlog.DefaultTitle || !hasChange(w.rec, first.ID, "created") {
		t.Fatalf("created %+v; events %+v", first, changes(w.rec))
	}
	time.Sleep(5 * time.Millisecond) // distinct lastActiveAt
	second, err := a.Conversations.Create("Second")
	if err != nil {
		t.Fatal(err)
	}
	list, err := a.Conversations.List()
	if err != nil || len(list) != 2 || list[0].ID != second.ID {
		t.Fatalf("ListConversations = %+v, %v; want the newest first", list, err)
	}

	renamed, err := a.Conversations.Rename(first.ID, "  Design notes ")
	if err != nil || renamed.Title != "Design notes" || !hasChange(w.rec, first.ID, "updated") {
		t.Fatalf("RenameConversation = %+v, %v", renamed, err)
	}
	if _, err := a.Conversations.Rename(first.ID, "  "); codeOfErr(t, err) != convlog.ErrInvalidArgument.Code {
		t.Fatalf("empty title: %v", err)
	}

	st := w.store(t)
	if err := st.Append(first.ID, msg("u1", "user", "hello"), msg("a1", "assistant", "hi there"), msg("u2", "user", "more")); err != nil {
		t.Fatal(err)
	}
	cp, err := a.Conversations.Checkpoint(first.ID, "before more")
	if err != nil || cp.MessageID != "u2" {
		t.Fatalf("CreateCheckpoint = %+v, %v", cp, err)
	}
	if _, err := a.Conversations.Checkpoint(first.ID, "before more"); codeOfErr(t, err) != convlog.ErrCheckpointExists.Code {
		t.Fatalf("duplicate checkpoint: %v", err)
	}

	fork, err := a.Conversations.Fork(first.ID, "a1", "")
	if err != nil || fork.ParentID != first.ID || fork.ForkedFromMsgID != "a1" || !hasChange(w.rec, fork.ID, "created") {
		t.Fatalf("ForkConversation at a message = %+v, %v", fork, err)
	}
	page, err := a.Conversations.Load(fork.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range page.Entries {
		if e.IsMessage() {
			ids = append(ids, e.ID)
		}
	}
	if !reflect.DeepEqual(ids, []string{"u1", "a1"}) || page.Entries[0].Event != conversation.EventForkOrigin {
		t.Fatalf("fork entries %v (first %+v)", ids, page.Entries[0])
	}
	cpFork, err := a.Conversations.Fork(first.ID, "", "before more")
	if err != nil || cpFork.ForkedFromCheckpoint != "before more" {
		t.Fatalf("ForkConversation at a checkpoint = %+v, %v", cpFork, err)
	}
	if _, err := a.Conversations.Fork(first.ID, "nope", ""); codeOfErr(t, err) != convlog.ErrNotFound.Code {
		t.Fatalf("fork at an unknown message: %v", err)
	}
}

func TestDeleteConversationRemovesEverything(t *testing.T) {
	w := openTestProject(t, "")
	a := w.app
	m, err := a.Conversations.Create("doomed")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("output line\n", 6000) // over the 50 KB threshold: externalised
	tool := &conversation.Entry{Type: conversation.TypeMsg, ID: "t1", Role: conversation.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: conversation.Str(big)}
	call := &conversation.Entry{Type: conversation.TypeMsg, ID: "a1", Role: conversation.RoleAssistant,
		ToolCalls: []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/x"}`}}}}
	if err := w.store(t).Append(m.ID, msg("u1", "user", "read it"), call, tool); err != nil {
		t.Fatal(err)
	}
	convDir := filepath.Join(w.info.DataDir, "conversations", m.ID)
	results := filepath.Join(w.info.DataDir, "logs", "tool-results", m.ID)
	for _, p := range []string{convDir, filepath.Join(results, "t1.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("before delete: %v", err)
		}
	}
	if err := a.Conversations.Delete(m.ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{convDir, results} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists after delete (%v)", p, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(w.info.DataDir, "conversations", "index.json"))
	if err != nil || strings.Contains(string(data), m.ID) {
		t.Fatalf("index.json still names the conversation (%v): %s", err, data)
	}
	if !hasChange(w.rec, m.ID, "deleted") {
		t.Fatalf("no deleted event: %+v", changes(w.rec))
	}
	if err := a.Conversations.Delete(m.ID); codeOfErr(t, err) != convlog.ErrNotFound.Code {
		t.Fatalf("second delete: %v", err)
	}
}

func TestLoadConversationPagesBackwards(t *testing.T) {
	w := openTestProject(t, "")
	a := w.app
	m, err := a.Conversations.Create("long")
	if err != nil {
		t.Fatal(err)
	}
	var entries []*conversation.Entry
	for i := range 1000 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		entries = append(entries, msg(fmt.Sprintf("m%04d", i), role, fmt.Sprintf("message %d", i)))
	}
	st := w.store(t)
	if err := st.Append(m.ID, entries...); err != nil {
		t.Fatal(err)
	}
	// an update line for an old entry must not change the paging
	if err := st.Update(m.ID, &conversation.Entry{Type: conversation.TypeMsg, ID: "m0010", Role: "user", Content: conversation.Str("edited")}); err != nil {
		t.Fatal(err)
	}
	page, err := a.Conversations.Load(m.ID, 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 300 || !page.HasMore || page.Entries[299].ID != "m0999" || page.Conversation.ID != m.ID || page.Streaming {
		t.Fatalf("first page: %d entries, hasMore %v, last %s", len(page.Entries), page.HasMore, page.Entries[len(page.Entries)-1].ID)
	}
	got := page.Entries
	for page.HasMore {
		page, err = a.Conversations.LoadOlder(m.ID, got[0].ID, 300)
		if err != nil {
			t.Fatal(err)
		}
		got = append(page.Entries, got...)
	}
	all, err := st.Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("paged %d entries, Load has %d", len(got), len(all))
	}
	for i := range all {
		if got[i].ID != all[i].ID || got[i].Text() != all[i].Text() {
			t.Fatalf("entry %d: paged %s %q, Load %s %q", i, got[i].ID, got[i].Text(), all[i].ID, all[i].Text())
		}
	}
	// a conversation that fits one page has nothing older
	small, _ := a.Conversations.Create("small")
	st.Append(small.ID, msg("x1", "user", "hi"))
	if p, err := a.Conversations.Load(small.ID, 0); err != nil || p.HasMore || len(p.Entries) != 1 {
		t.Fatalf("small conversation: %+v, %v", p, err)
	}
	if _, err := a.Conversations.LoadOlder(m.ID, "missing", 10); codeOfErr(t, err) != convlog.ErrNotFound.Code {
		t.Fatalf("unknown beforeID: %v", err)
	}
	if _, err := a.Conversations.Load("not-a-uuid", 0); codeOfErr(t, err) != convlog.ErrInvalidID.Code {
		t.Fatalf("bad id: %v", err)
	}
	if convlog.PageLimit(0) != convlog.DefaultPageSize || convlog.PageLimit(1e9) != convlog.MaxPageSize || convlog.PageLimit(7) != 7 {
		t.Fatal("page size limits")
	}
}

func TestSearchConversations(t *testing.T) {
	w := openTestProject(t, "")
	a := w.app
	st := w.store(t)
	alpha, _ := a.Conversations.Create("Parser design")
	beta, _ := a.Conversations.Create("Shopping")
	gamma, _ := a.Conversations.Create("Unrelated")
	must(t, st.Append(alpha.ID, msg("a1", "user", "How big is the buffer?"), msg("a2", "assistant", "The BUFFER holds 4 KB.")))
	must(t, st.Append(beta.ID, msg("b1", "user", "Die Größe ist \"groß\" genug"), msg("b2", "assistant", "ok")))
	tool := &conversation.Entry{Type: conversation.TypeMsg, ID: "g2", Role: conversation.RoleTool, ToolCallID: "c", Content: conversation.Str("buffer in a tool result")}
	call := &conversation.Entry{Type: conversation.TypeMsg, ID: "g1", Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "c", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: "{}"}}}}
	must(t, st.Append(gamma.ID, call, tool))
	long := strings.Repeat("filler words ", 40) + "needle" + strings.Repeat(" more filler", 40)
	must(t, st.Append(gamma.ID, msg("g3", "assistant", long)))
	runInput := msg("g4", "user", "USER_INPUT\n- forNodeId: capture-idea\nA shared grocery list")
	runInput.RunID = "r1"
	must(t, st.Append(gamma.ID, runInput))

	tests := []struct {
		query   string
		want    []string // conversation ids, in list order
		title   bool
		matches int
		snippet string
	}{
		{"buffer", []string{alpha.ID}, false, 2, "BUFFER holds"},
		{"PARSER", []string{alpha.ID}, true, 0, ""},
		{"größe", []string{beta.ID}, false, 1, "Größe"},
		{`"groß"`, []string{beta.ID}, false, 1, `"groß"`},
		{"needle", []string{gamma.ID}, false, 1, "needle"},
		{"grocery", []string{gamma.ID}, false, 1, "A shared grocery list"},
		{"forNodeId", nil, false, 0, ""}, // the run's header is not the user's text
		{"nothing like this", nil, false, 0, ""},
		{"   ", nil, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := a.Conversations.Search(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range hits {
				ids = append(ids, h.ConversationID)
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Fatalf("hits %v, want %v", ids, tt.want)
			}
			if len(hits) == 0 {
				return
			}
			h := hits[0]
			if h.TitleMatch != tt.title || h.Matches != tt.matches || !strings.Contains(h.Snippet, tt.snippet) {
				t.Fatalf("hit %+v", h)
			}
			if strings.Contains(h.Snippet, "USER_INPUT") {
				t.Fatalf("snippet shows the run's header: %q", h.Snippet)
			}
			if len([]rune(h.Snippet)) > 50+110+4 { // the store's snippet: 50 runes before, 110 after

				t.Fatalf("snippet too long: %d runes", len([]rune(h.Snippet)))
			}
		})
	}
}

func TestReadToolResult(t *testing.T) {
	w := openTestProject(t, "")
	a := w.app
	m, _ := a.Conversations.Create("tools")
	full := strings.Repeat("0123456789", 6000) + "END"
	call := &conversation.Entry{Type: conversation.TypeMsg, ID: "a1", Role: conversation.RoleAssistant,
		ToolCalls: []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: "{}"}}}}
	tool := &conversation.Entry{Type: conversation.TypeMsg, ID: "t1", Role: conversation.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: conversation.Str(full)}
	small := &conversation.Entry{Type: conversation.TypeMsg, ID: "t2", Role: conversation.RoleTool, ToolCallID: "c2", Content: conversation.Str("small")}
	must(t, w.store(t).Append(m.ID, call, tool, small))

	page, err := a.Conversations.Load(m.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := page.Entries[1]; p.FullOutputPath == "" || !strings.HasPrefix(p.Text(), conversation.PreviewPrefix) {
		t.Fatalf("the large output was not externalised: %+v", p)
	}
	v, err := a.Conversations.ReadToolResult(m.ID, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if v.Content != full || v.Size != len(full) || v.Truncated || v.ToolName != "fs.read" || v.ToolCallID != "c1" {
		t.Fatalf("ReadToolResult = size %d truncated %v tool %q", v.Size, v.Truncated, v.ToolName)
	}
	tests := []struct{ conv, msg, code string }{
		{m.ID, "t2", convlog.ErrNotFound.Code}, // kept inline: no file
		{m.ID, "../../x", convlog.ErrInvalidID.Code},
		{"../etc", "t1", convlog.ErrInvalidID.Code},
	}
	for _, tt := range tests {
		if _, err := a.Conversations.ReadToolResult(tt.conv, tt.msg); codeOfErr(t, err) != tt.code {
			t.Errorf("ReadToolResult(%q, %q): %v, want %s", tt.conv, tt.msg, err, tt.code)
		}
	}
}

func TestProjectLockedInAnotherApp(t *testing.T) {
	w := openTestProject(t, "")
	other := NewApp(w.home, fakeDialogs{}, nil)
	t.Cleanup(func() { other.shutdown(context.Background()) })
	_, err := other.Projects.Open(w.root)
	if codeOfErr(t, err) != errs.ProjectLocked {
		t.Fatalf("second open: %v, want %s", err, errs.ProjectLocked)
	}
	ae := errs.From(err)
	if !strings.Contains(ae.Message, "already open in another CrewAgent") || !strings.Contains(ae.Message, fmt.Sprint(os.Getpid())) {
		t.Fatalf("message %q does not say who holds the project", ae.Message)
	}
	if cur, _ := other.Projects.Current(); cur != nil {
		t.Fatalf("a refused project became current: %+v", cur)
	}
	// closing releases the lock
	if err := w.app.Projects.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.app.Conversations.List(); codeOfErr(t, err) != errs.NoProject {
		t.Fatalf("after close: %v", err)
	}
	if _, err := other.Projects.Open(w.root); err != nil {
		t.Fatalf("open after the first app closed it: %v", err)
	}
}

func TestOpeningAnotherProjectClosesThePrevious(t *testing.T) {
	w := openTestProject(t, "")
	second, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.app.Projects.Open(second); err != nil {
		t.Fatal(err)
	}
	// the first project's lock is free again
	other := NewApp(w.home, fakeDialogs{}, nil)
	t.Cleanup(func() { other.shutdown(context.Background()) })
	if _, err := other.Projects.Open(w.root); err != nil {
		t.Fatalf("the first project is still locked: %v", err)
	}
	// reopening the current project keeps it open
	if _, err := w.app.Projects.Open(second); err != nil {
		t.Fatal(err)
	}
	if _, err := w.app.Conversations.Create(""); err != nil {
		t.Fatal(err)
	}
}

func TestWatcherReportsChangesFromOthers(t *testing.T) {
	w := openTestProject(t, "")
	id := uuid.NewString()
	dir := filepath.Join(w.info.DataDir, "conversations", id)
	must(t, os.MkdirAll(dir, 0o755))
	line, _ := json.Marshal(msg("e1", "user", "written by someone else"))
	must(t, os.WriteFile(filepath.Join(dir, "messages.jsonl"), append(line, '\n'), 0o644))
	testkit.Wait(t, "a created event", func() bool {
		for _, c := range changes(w.rec) {
			if c.ConversationID == id && c.Kind == "created" && c.External {
				return true
			}
		}
		return false
	})
	must(t, os.RemoveAll(dir))
	testkit.Wait(t, "a deleted event", func() bool { return hasChange(w.rec, id, "deleted") })

	// a conversation of the app's store removed on disk by someone else
	// leaves the list
	known, _ := w.app.Conversations.Create("known")
	time.Sleep(400 * time.Millisecond) // let the watcher settle on the folder first
	must(t, os.RemoveAll(filepath.Join(w.info.DataDir, "conversations", known.ID)))
	testkit.Wait(t, "an external deleted event", func() bool {
		for _, c := range changes(w.rec) {
			if c.ConversationID == known.ID && c.Kind == "deleted" && c.External {
				return true
			}
		}
		return false
	})
	if list, err := w.app.Conversations.List(); err != nil || len(list) != 0 {
		t.Fatalf("the list still shows the removed conversation: %+v, %v", list, err)
	}

	// the app's own writes are reported by the app, not twice by the watcher
	before := len(changes(w.rec))
	m, _ := w.app.Conversations.Create("mine")
	time.Sleep(400 * time.Millisecond)
	var own []events.ChangeEvent
	for _, c := range changes(w.rec)[before:] {
		if c.ConversationID == m.ID {
			own = append(own, c)
		}
	}
	if len(own) != 1 || own[0].External {
		t.Fatalf("events for the app's own create: %+v", own)
	}
}

func TestListAgents(t *testing.T) {
	w := openTestProject(t, "")
	list, err := w.app.Chat.Agents()
	if err != nil || list.PackageID != "" || len(list.Agents) != 0 || list.Problem != "" {
		t.Fatalf("no package: %+v, %v", list, err)
	}

	inst, err := packages.NewManager(w.home).EnsureDemo()
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(w.home, w.root)
	if err != nil {
		t.Fatal(err)
	}
	must(t, project.SetActivePackage(p, inst.ID))
	must(t, w.app.Projects.Close())
	if _, err := w.app.Projects.Open(w.root); err != nil {
		t.Fatal(err)
	}
	list, err = w.app.Chat.Agents()
	if err != nil || list.PackageID != inst.ID || len(list.Agents) == 0 || list.Problem != "" {
		t.Fatalf("demo package: %+v, %v", list, err)
	}
	for _, ag := range list.Agents {
		if ag.ID == "" || ag.Name == "" {
			t.Fatalf("agent without id or name: %+v", ag)
		}
	}

	must(t, project.SetActivePackage(p, "missing@1.0.0"))
	must(t, w.app.Projects.Close())
	if _, err := w.app.Projects.Open(w.root); err != nil {
		t.Fatal(err)
	}
	list, err = w.app.Chat.Agents()
	if err != nil || len(list.Agents) != 0 || !strings.Contains(list.Problem, "missing@1.0.0") {
		t.Fatalf("missing package: %+v, %v", list, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
