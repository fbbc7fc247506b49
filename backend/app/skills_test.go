package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/packages"
	"crewagent/backend/skills"
)

// skillsEnv is a runtime home and a project with skills in several places,
// a user home of its own (where other agents keep skills) and a fake LLM.
type skillsEnv struct {
	home, root, userHome string
	srv                  *fakellm.Server
}

const pptxBody = "# Slide decks\n\nUse the 16:9 template. Read reference/layouts.md before the first slide."

func newSkillsEnv(t *testing.T) *skillsEnv {
	t.Helper()
	e := &skillsEnv{home: t.TempDir(), root: t.TempDir(), userHome: t.TempDir(), srv: fakellm.New()}
	t.Cleanup(e.srv.Close)
	t.Setenv("HOME", e.userHome)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("CREWAGENT_HOME", "")
	t.Setenv("CREWAGENT_LLM_BASE_URL", e.srv.URL())
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	t.Setenv("CREWAGENT_LLM_API_KEY", "")
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	project := filepath.Join(e.root, ".crewagent", "skills")
	writeSkillFile(t, project, "pptx", "name: pptx\ndescription: Make slide decks with the house template.", pptxBody)
	testkit.WriteFile(t, filepath.Join(project, "pptx", "reference", "layouts.md"), "# Layouts\nTitle slide: centred title, no logo.\n")
	userSkills := filepath.Join(e.home, "skills")
	writeSkillFile(t, userSkills, "pptx", "name: pptx\ndescription: An older deck skill.", "Old instructions.")
	writeSkillFile(t, userSkills, "release-notes", "name: release-notes\ndescription: Write release notes.\ndisable-model-invocation: true", "Group changes by kind.")
	writeSkillFile(t, filepath.Join(e.userHome, ".claude", "skills"), "code-review", "name: code-review\ndescription: Review code without changing it.\nallowed-tools: Read, Grep", "Read the files, report findings, never edit.")
	writeSkillFile(t, filepath.Join(e.root, ".agents", "skills"), "broken", "name: broken\ndescription: [unclosed", "Body.")
	return e
}

func writeSkillFile(t *testing.T, dir, folder, frontmatter, body string) string {
	t.Helper()
	p := filepath.Join(dir, folder, "SKILL.md")
	testkit.WriteFile(t, p, "---\n"+frontmatter+"\n---\n\n"+body+"\n")
	return p
}

// open opens the project as a command does (no watcher).
func (e *skillsEnv) open(t *testing.T) *app.Workspace {
	t.Helper()
	ws, err := app.Open(e.home, e.root, app.Options{}, app.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func chat(t *testing.T, ws *app.Workspace, convID, text string) *engine.SendResult {
	t.Helper()
	res, err := ws.Chat(context.Background(), engine.SendRequest{ConversationID: convID, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatalf("the send failed: %v", res.Err)
	}
	return res
}

func entriesOf(t *testing.T, ws *app.Workspace, convID string) []*conversation.Entry {
	t.Helper()
	es, err := ws.Entries(convID)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func activeNames(t *testing.T, ws *app.Workspace, convID string) []string {
	t.Helper()
	as, err := ws.ActiveSkills(convID)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

// requestText is everything a recorded request sends, one message a line.
func requestText(r fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Role + ": " + m.Text() + "\n")
	}
	return b.String()
}

func systemText(r fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "system" {
			b.WriteString(m.Text() + "\n")
		}
	}
	return b.String()
}

// Skills come from the project, the active package, the runtime home and the
// folders other agents use; the first location wins, the others are listed
// as shadowed, and a skill with bad frontmatter is reported, not fatal.
func TestSkillsFromEverySource(t *testing.T) {
	e := newSkillsEnv(t)
	pkgDir := t.TempDir()
	if err := os.CopyFS(pkgDir, os.DirFS(filepath.Join("..", "packages", "demo"))); err != nil {
		t.Fatal(err)
	}
	writeSkillFile(t, filepath.Join(pkgDir, "skills"), "pptx", "name: pptx\ndescription: The package's deck skill.", "Package instructions.")
	writeSkillFile(t, filepath.Join(pkgDir, "skills"), "brief-style", "name: brief-style\ndescription: House style for briefs.", "Short sentences.")
	inst, err := packages.NewManager(e.home).Import(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	ws := e.open(t)
	if err := ws.SetActivePackage(inst.ID); err != nil {
		t.Fatal(err)
	}
	type row struct{ name, source, status string }
	var got []row
	var broken skills.ListItem
	for _, it := range ws.ListSkills().Skills {
		got = append(got, row{it.Name, string(it.Source), it.Status})
		if it.Name == "broken" {
			broken = it
		}
	}
	want := []row{
		{"brief-style", "package", "available"},
		{"broken", "agents-project", "invalid"},
		{"code-review", "claude-user", "available"},
		{"pptx", "project", "available"},
		{"pptx", "package", "shadowed"},
		{"pptx", "user", "shadowed"},
		{"release-notes", "user", "available"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("skills\n got %v\nwant %v", got, want)
	}
	if len(broken.Problems) == 0 || broken.Problems[0].File != filepath.Join(e.root, ".agents", "skills", "broken", "SKILL.md") {
		t.Errorf("the broken skill's problems: %+v", broken.Problems)
	}

	// The project's skill wins: its body is what an activation brings.
	conv, _ := ws.CreateConversation("")
	ch, err := ws.ActivateSkill(conv.ID, "pptx")
	if err != nil {
		t.Fatal(err)
	}
	if ch.Status != skills.StatusActivated || len(ch.Active) != 1 || ch.Active[0].Source != skills.SourceProject {
		t.Fatalf("activation %+v", ch)
	}
	es := entriesOf(t, ws, conv.ID)
	if body := es[len(es)-1]; !body.IsMeta || !strings.Contains(body.Text(), "16:9 template") {
		t.Fatalf("body %+v", body)
	}
}

// The model activates a skill with skill.activate: the log gets the call,
// its result, the skill_activated event and the is_meta body, and the next
// request carries the body; the skill's files are readable as @skill/….
func TestModelActivatesASkill(t *testing.T) {
	e := newSkillsEnv(t)
	ws := e.open(t)
	e.srv.Enqueue(
		fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "skill.activate", Arguments: `{"name":"pptx"}`}),
		fakellm.Tools(fakellm.ToolCall{ID: "call_2", Name: "fs.read", Arguments: `{"path":"@skill/pptx/reference/layouts.md"}`}),
		fakellm.Text("Here is the deck."))
	res := chat(t, ws, "", "make a deck about our roadmap")

	reqs := e.srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	sys := systemText(reqs[0])
	for _, want := range []string{"SKILLS", "- pptx: Make slide decks with the house template.", "- code-review: Review code"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "release-notes") || strings.Contains(sys, "16:9") {
		t.Errorf("the registry lists a user-only skill or a body:\n%s", sys)
	}
	if names := reqs[0].ToolNames(); !slices.Contains(names, "skill_activate") || !slices.Contains(names, "skill_deactivate") {
		t.Errorf("tools %v", names)
	}

	es := entriesOf(t, ws, res.ConversationID)
	var kinds []string
	for _, x := range es {
		switch {
		case x.IsEvent():
			kinds = append(kinds, "evt:"+x.Event)
		case x.IsMeta:
			kinds = append(kinds, "meta")
		case len(x.ToolCalls) > 0:
			kinds = append(kinds, "call:"+x.ToolCalls[0].Function.Name)
		default:
			kinds = append(kinds, x.Role)
		}
	}
	want := []string{"user", "call:skill.activate", "tool", "evt:skill_activated", "meta", "call:fs.read", "tool", "assistant"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("log\n got %v\nwant %v", kinds, want)
	}
	var d skills.ActivatedData
	if err := json.Unmarshal(es[3].Data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Skill != "pptx" || d.Source != skills.SourceProject || d.Path != filepath.Join(e.root, ".crewagent", "skills", "pptx", "SKILL.md") || d.By != skills.ByModel || d.ToolCallID != "call_1" {
		t.Errorf("event data %s", es[3].Data)
	}
	if es[3].RefMsgID != es[4].ID || es[4].Role != "user" {
		t.Errorf("the event names %s, the body is %s", es[3].RefMsgID, es[4].ID)
	}
	if !strings.Contains(es[2].Text(), `"ok":true`) {
		t.Errorf("tool result %s", es[2].Text())
	}

	// the body is in the next request, right after the tool result
	msgs := reqs[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "user" || !strings.Contains(last.Text(), pptxBody) || msgs[len(msgs)-2].Role != "tool" {
		t.Fatalf("the second request ends with %s: %.200s", last.Role, last.Text())
	}
	if !strings.Contains(systemText(reqs[1]), "- pptx (active): ") {
		t.Errorf("the registry does not mark pptx active:\n%s", systemText(reqs[1]))
	}
	// the supporting file was read through @skill
	if tool := reqs[2].Messages[len(reqs[2].Messages)-1]; tool.Role != "tool" || !strings.Contains(tool.Text(), "Title slide: centred title") {
		t.Fatalf("fs.read of @skill/pptx: %s", tool.Text())
	}
	if got := activeNames(t, ws, res.ConversationID); !slices.Equal(got, []string{"pptx"}) {
		t.Errorf("active %v", got)
	}
}

// The model is refused a user-only skill and an unknown one, with an error
// result that says why; nothing is activated.
func TestModelActivationRefused(t *testing.T) {
	e := newSkillsEnv(t)
	ws := e.open(t)
	e.srv.Enqueue(
		fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "skill.activate", Arguments: `{"name":"release-notes"}`},
			fakellm.ToolCall{ID: "call_2", Name: "skill.activate", Arguments: `{"name":"pptz"}`},
			fakellm.ToolCall{ID: "call_3", Name: "skill.activate", Arguments: `{"skill":"pptx"}`}),
		fakellm.Text("I cannot use those."))
	res := chat(t, ws, "", "write the release notes")
	results := map[string]string{}
	for _, x := range entriesOf(t, ws, res.ConversationID) {
		if x.IsEvent() && strings.HasPrefix(x.Event, "skill_") || x.IsMeta {
			t.Errorf("a refused activation wrote %+v", x)
		}
		if x.Role == "tool" {
			results[x.ToolCallID] = x.Text()
		}
	}
	for id, want := range map[string]string{
		"call_1": `"code":"E_SKILL_USER_ONLY"`,
		"call_2": `"code":"E_SKILL_NOT_FOUND","message":"there is no skill \"pptz\"; skills: pptx`,
		"call_3": `"code":"E_BAD_ARGUMENTS"`,
	} {
		if !strings.Contains(results[id], want) || !strings.Contains(results[id], `"ok":false`) {
			t.Errorf("%s: %s, want %s", id, results[id], want)
		}
	}
	if got := activeNames(t, ws, res.ConversationID); len(got) != 0 {
		t.Errorf("active %v", got)
	}
}

// The user activates skills (even a user-only one) and is refused unknown
// ones with the error the composer shows.
func TestUserActivation(t *testing.T) {
	e := newSkillsEnv(t)
	ws := e.open(t)
	conv, _ := ws.CreateConversation("")
	ch, err := ws.ActivateSkill(conv.ID, "release-notes")
	if err != nil || ch.Status != skills.StatusActivated {
		t.Fatalf("%+v %v", ch, err)
	}
	if ch, err = ws.ActivateSkill(conv.ID, "release-notes"); err != nil || ch.Status != skills.StatusAlreadyActive {
		t.Fatalf("again: %+v %v", ch, err)
	}
	n := len(entriesOf(t, ws, conv.ID))
	if n != 2 {
		t.Fatalf("%d entries after a user activation and a repeat, want the event and the body", n)
	}
	_, err = ws.ActivateSkill(conv.ID, "nope")
	if e := errs.From(err); e.Code != errs.SkillNotFound || !strings.Contains(e.Message, `there is no skill "nope"`) {
		t.Fatalf("unknown skill: %v", err)
	}
	_, err = ws.ActivateSkill(conv.ID, "broken")
	if e := errs.From(err); e.Code != errs.SkillNotFound {
		t.Fatalf("invalid skill: %v", err)
	}
	// a SKILL.md broken after discovery
	writeSkillFile(t, filepath.Join(e.root, ".crewagent", "skills"), "pptx", "name: pptx\ndescription: [broken now", "x")
	_, err = ws.ActivateSkill(conv.ID, "pptx")
	if e := errs.From(err); e.Code != errs.SkillInvalid || !strings.Contains(e.Message, "no longer valid") {
		t.Fatalf("a SKILL.md broken on disk: %v", err)
	}
	if got := len(entriesOf(t, ws, conv.ID)); got != n {
		t.Errorf("refusals wrote entries: %d, want %d", got, n)
	}

	// the model sees the body in its next request, with no tool call for it
	e.srv.Enqueue(fakellm.Text("Notes."))
	chat(t, ws, conv.ID, "notes for 1.2 please")
	req := e.srv.ChatRequests()[0]
	text := requestText(req)
	if !strings.Contains(text, "user: <skill name=\"release-notes\"") || !strings.Contains(text, "Group changes by kind.") {
		t.Fatalf("request:\n%s", text)
	}
	for _, m := range req.Messages {
		if m.Role == "tool" || len(m.ToolCalls) > 0 {
			t.Errorf("a user activation shows up as a tool call:\n%s", text)
		}
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "user" || last.Text() != "notes for 1.2 please" {
		t.Errorf("the newest message is not last: %s %q", last.Role, last.Text())
	}

	// deactivation: the body leaves the next request
	ch, err = ws.DeactivateSkill(conv.ID, "release-notes")
	if err != nil || ch.Status != skills.StatusDeactivated || len(ch.Active) != 0 {
		t.Fatalf("deactivate: %+v %v", ch, err)
	}
	es := entriesOf(t, ws, conv.ID)
	if x := es[len(es)-1]; x.Event != skills.EventDeactivated {
		t.Fatalf("last entry %+v", x)
	}
	e.srv.Enqueue(fakellm.Text("ok"))
	chat(t, ws, conv.ID, "thanks")
	if text := requestText(e.srv.ChatRequests()[1]); strings.Contains(text, "Group changes by kind.") {
		t.Fatalf("a deactivated skill's body is still sent:\n%s", text)
	}
	if ch, err = ws.DeactivateSkill(conv.ID, "release-notes"); err != nil || ch.Status != skills.StatusNotActive {
		t.Fatalf("deactivate again: %+v %v", ch, err)
	}
}

// The model deactivates a skill with skill.deactivate.
func TestModelDeactivatesASkill(t *testing.T) {
	e := newSkillsEnv(t)
	ws := e.open(t)
	conv, _ := ws.CreateConversation("")
	if _, err := ws.ActivateSkill(conv.ID, "pptx"); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "skill.deactivate", Arguments: `{"name":"pptx"}`}), fakellm.Text("Done with decks."))
	chat(t, ws, conv.ID, "we are done with the deck")
	reqs := e.srv.ChatRequests()
	if !strings.Contains(requestText(reqs[0]), "16:9 template") {
		t.Fatal("the body was not sent while active")
	}
	if strings.Contains(requestText(reqs[1]), "16:9 template") {
		t.Fatalf("the body is sent after the model deactivated it:\n%s", requestText(reqs[1]))
	}
	es := entriesOf(t, ws, conv.ID)
	found := false
	for _, x := range es {
		if x.IsEvent() && x.Event == skills.EventDeactivated {
			var d skills.DeactivatedData
			json.Unmarshal(x.Data, &d)
			found = d.Skill == "pptx" && d.By == skills.ByModel && d.ToolCallID == "call_1"
		}
	}
	if !found || len(activeNames(t, ws, conv.ID)) != 0 {
		t.Fatalf("no skill_deactivated by the model in the log")
	}
}

// allowed-tools narrows the tools of the next request (only narrows), and a
// call to a tool left out is refused without running.
func TestAllowedToolsNarrow(t *testing.T) {
	e := newSkillsEnv(t)
	ws := e.open(t)
	conv, _ := ws.CreateConversation("")
	e.srv.Enqueue(fakellm.Text("before"))
	chat(t, ws, conv.ID, "hello")
	before := e.srv.ChatRequests()[0].ToolNames()
	if !slices.Contains(before, "fs_write") {
		t.Fatalf("tools before %v", before)
	}
	if _, err := ws.ActivateSkill(conv.ID, "code-review"); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "call_w", Name: "fs.write", Arguments: `{"path":"@project/x.md","content":"x"}`}), fakellm.Text("after"))
	chat(t, ws, conv.ID, "review main.go")
	after := e.srv.ChatRequests()[1].ToolNames()
	slices.Sort(after)
	want := []string{"fs_read", "fs_search", "skill_activate", "skill_deactivate", "ui_ask_user"} // Read, Grep
	if !slices.Contains(before, "ui_ask_user") {
		want = slices.DeleteFunc(want, func(s string) bool { return s == "ui_ask_user" })
	}
	if !slices.Equal(after, want) {
		t.Fatalf("tools while code-review is active %v, want %v", after, want)
	}
	for _, n := range after {
		if !slices.Contains(before, n) {
			t.Errorf("a skill widened the tools with %s", n)
		}
	}
	if !strings.Contains(systemText(e.srv.ChatRequests()[1]), "fs.search") || strings.Contains(systemText(e.srv.ChatRequests()[1]), "fs.write") {
		t.Errorf("the tool policy section does not follow the narrowing:\n%s", systemText(e.srv.ChatRequests()[1]))
	}
	if _, err := os.Stat(filepath.Join(e.root, "x.md")); !os.IsNotExist(err) {
		t.Fatalf("the refused fs.write ran: %v", err)
	}
	es := entriesOf(t, ws, conv.ID)
	for _, x := range es {
		if x.Role == "tool" && x.ToolCallID == "call_w" && !strings.Contains(x.Text(), `"code":"TOOL_NOT_AVAILABLE"`) {
			t.Fatalf("result of the refused call: %s", x.Text())
		}
	}
	// deactivated, every tool is back
	if _, err := ws.DeactivateSkill(conv.ID, "code-review"); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakellm.Text("again"))
	chat(t, ws, conv.ID, "now fix it")
	if got := e.srv.ChatRequests()[3].ToolNames(); !slices.Equal(got, before) {
		t.Errorf("tools after deactivation %v, want %v", got, before)
	}
}

// Activation is in the log: it survives a restart (a new process on the
// same home), is copied by forks as of their message or checkpoint, and the
// body stays in every request through any number of compactions, counted
// in the meter.
func TestSkillStateSurvives(t *testing.T) {
	e := newSkillsEnv(t)
	long := strings.Repeat("Every slide states one idea in its title and shows its source at the foot. ", 150) // over the 8000 characters a pin keeps
	writeSkillFile(t, filepath.Join(e.root, ".crewagent", "skills"), "deck-rules", "name: deck-rules\ndescription: Rules for decks.", long+"\nEND-OF-RULES")
	ws := e.open(t)
	conv, _ := ws.CreateConversation("")
	e.srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Text("Noted. " + strings.Repeat("More words in the answer. ", 60))
	})
	chat(t, ws, conv.ID, "first message, before any skill")
	firstID := entriesOf(t, ws, conv.ID)[0].ID
	if _, err := ws.ActivateSkill(conv.ID, "deck-rules"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.CreateCheckpoint(conv.ID, "with-rules"); err != nil {
		t.Fatal(err)
	}
	ws.Close()

	// restart
	ws = e.open(t)
	if got := activeNames(t, ws, conv.ID); !slices.Equal(got, []string{"deck-rules"}) {
		t.Fatalf("after a restart: %v", got)
	}
	chat(t, ws, conv.ID, "after the restart")
	reqs := e.srv.ChatRequests()
	if !strings.Contains(requestText(reqs[len(reqs)-1]), "END-OF-RULES") {
		t.Fatal("the body is not sent after a restart")
	}

	// forks: at the first message (before the activation), at the
	// checkpoint, and whole
	fork, err := ws.ForkConversation(conv.ID, firstID, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := activeNames(t, ws, fork.ID); len(got) != 0 {
		t.Errorf("a fork before the activation has %v active", got)
	}
	fork, err = ws.ForkConversation(conv.ID, "", "with-rules")
	if err != nil {
		t.Fatal(err)
	}
	if got := activeNames(t, ws, fork.ID); !slices.Equal(got, []string{"deck-rules"}) {
		t.Errorf("the fork at the checkpoint has %v active", got)
	}
	chat(t, ws, fork.ID, "in the fork")
	reqs = e.srv.ChatRequests()
	if !strings.Contains(requestText(reqs[len(reqs)-1]), "END-OF-RULES") {
		t.Fatal("the body is not sent in the fork")
	}

	// compactions under a small budget
	ws.Close()
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "12000")
	ws = e.open(t)
	compactions := func() int {
		n := 0
		for _, x := range entriesOf(t, ws, conv.ID) {
			if x.IsEvent() && x.Event == "compaction" {
				n++
			}
		}
		return n
	}
	for i := 0; compactions() < 4; i++ {
		if i == 40 {
			t.Fatalf("only %d compactions after 40 messages", compactions())
		}
		chat(t, ws, conv.ID, "message "+strings.Repeat("with some detail ", 40))
		reqs = e.srv.ChatRequests()
		text := requestText(reqs[len(reqs)-1])
		if !strings.Contains(text, long+"\nEND-OF-RULES") {
			t.Fatalf("after %d compactions the body is not whole in the request", compactions())
		}
	}
	// the body's message itself was compacted: PINNED carries it
	for _, x := range entriesOf(t, ws, conv.ID) {
		if x.IsMeta && !x.Compacted {
			t.Errorf("the body message %s was never compacted: the test proves nothing about compaction", x.ID)
		}
	}
	if sys := systemText(reqs[len(reqs)-1]); !strings.Contains(sys, "PINNED") || !strings.Contains(sys, "active skill deck-rules") || !strings.Contains(sys, "END-OF-RULES") {
		t.Errorf("the body is not quoted in PINNED:\n%.500s", sys)
	}
	p, err := ws.Preview(context.Background(), conv.ID, "", "")
	if err != nil {
		t.Fatal(err)
	}
	carried := 0
	for _, m := range p.Messages {
		if slices.Contains(m.Skills, "deck-rules") {
			carried += m.Tokens
		}
	}
	if carried < 1500 || p.Usage.UsedTokens < carried {
		t.Errorf("the meter counts %d tokens, the body's message %d", p.Usage.UsedTokens, carried)
	}
	if got := activeNames(t, ws, conv.ID); !slices.Equal(got, []string{"deck-rules"}) {
		t.Errorf("after compactions: %v", got)
	}
	// deactivated after compactions: the body leaves PINNED
	if _, err := ws.DeactivateSkill(conv.ID, "deck-rules"); err != nil {
		t.Fatal(err)
	}
	chat(t, ws, conv.ID, "no more rules")
	reqs = e.srv.ChatRequests()
	if strings.Contains(requestText(reqs[len(reqs)-1]), "END-OF-RULES") {
		t.Fatal("the body of a deactivated skill is still carried")
	}
}

// In the window the skills follow the disk: a skill added, edited or removed
// is listed at once and announced with skills:changed.
func TestSkillsFollowTheDisk(t *testing.T) {
	e := newSkillsEnv(t)
	rec := &events.Recorder{}
	ws, err := app.Open(e.home, e.root, app.Options{Emitter: rec}, app.OpenOptions{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	has := func(name string) bool {
		return slices.ContainsFunc(ws.ListSkills().Skills, func(it skills.ListItem) bool { return it.Name == name && it.Status == skills.StatusAvailable })
	}
	if has("changelog") {
		t.Fatal("listed before it exists")
	}
	writeSkillFile(t, filepath.Join(e.root, ".crewagent", "skills"), "changelog", "name: changelog\ndescription: Keep the changelog.", "Newest first.")
	deadline := time.Now().Add(10 * time.Second)
	for !has("changelog") || len(rec.Named(events.SkillsChanged)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the new skill was not picked up (events %d)", len(rec.Named(events.SkillsChanged)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ev := rec.Named(events.SkillsChanged)[0].(events.SkillsChangedEvent); ev.Skills < 4 {
		t.Errorf("event %+v", ev)
	}
	if err := os.RemoveAll(filepath.Join(e.root, ".crewagent", "skills", "changelog")); err != nil {
		t.Fatal(err)
	}
	for has("changelog") {
		if time.Now().After(deadline) {
			t.Fatal("the removed skill is still listed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Agent and run modes list the skills too and offer the skill tools; a
// skill activated by the model in a run turn brings its body into the
// run's next request.
func TestSkillsInAgentAndRunModes(t *testing.T) {
	e := newSkillsEnv(t)
	if _, err := packages.NewManager(e.home).EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	ws := e.open(t)

	e.srv.Enqueue(fakellm.Text("As the analyst: noted."))
	res, err := ws.Chat(context.Background(), engine.SendRequest{Mode: "agent", AgentID: "analyst", Text: "hello"})
	if err != nil || res.Err != nil {
		t.Fatalf("%v %v", err, res.Err)
	}
	req := e.srv.ChatRequests()[0]
	if !strings.Contains(systemText(req), "- pptx: Make slide decks") || !slices.Contains(req.ToolNames(), "skill_activate") {
		t.Fatalf("agent mode: tools %v, system:\n%s", req.ToolNames(), systemText(req))
	}

	run, err := ws.CreateRun(app.StartRunRequest{WorkflowID: "write-brief"})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "skill.activate", Arguments: `{"name":"pptx"}`}), fakellm.Text("What is the idea?"))
	if _, err := ws.RunTurn(context.Background(), run.RunID, "an app for deck templates"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	first, second := reqs[1], reqs[2]
	if !strings.Contains(systemText(first), "SKILLS") || !slices.Contains(first.ToolNames(), "skill_activate") {
		t.Fatalf("run mode: tools %v, system:\n%s", first.ToolNames(), systemText(first))
	}
	if !strings.Contains(requestText(second), pptxBody) {
		t.Fatalf("the run's next request lacks the body:\n%s", requestText(second))
	}
	if got := activeNames(t, ws, run.ConversationID); !slices.Equal(got, []string{"pptx"}) {
		t.Errorf("active in the run's conversation: %v", got)
	}
	for _, x := range entriesOf(t, ws, run.ConversationID) {
		if x.IsMeta && x.RunID != run.RunID {
			t.Errorf("the body of a run's activation is not tagged with the run: %+v", x)
		}
	}

	// A skill whose allowed-tools leave out the run's own tools narrows the
	// others only: the run still reads its steps and records its progress.
	e.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "call_2", Name: "skill.activate", Arguments: `{"name":"code-review"}`}), fakellm.Text("Reviewed."))
	if _, err := ws.RunTurn(context.Background(), run.RunID, "review it"); err != nil {
		t.Fatal(err)
	}
	reqs = e.srv.ChatRequests()
	last := reqs[len(reqs)-1].ToolNames()
	if !slices.Contains(last, "fs_apply_patch") || !slices.Contains(last, "fs_read") || slices.Contains(last, "fs_write") {
		t.Fatalf("run tools under a read-only skill: %v", last)
	}
}
