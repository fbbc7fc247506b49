package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/project"
	"crewagent/backend/skills"
)

// skillsCLIEnv is an llmEnv with skills in the project, the runtime home and
// a user home of its own.
func skillsCLIEnv(t *testing.T) *llmEnv {
	t.Helper()
	c := newLLMEnv(t)
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	t.Setenv("CODEX_HOME", "")
	write := func(dir, folder, content string) {
		t.Helper()
		p := filepath.Join(dir, folder, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(c.root, ".crewagent", "skills"), "pptx", "---\nname: pptx\ndescription: Make slide decks with the house template.\n---\nUse 16:9.\n")
	write(filepath.Join(c.home, "skills"), "pptx", "---\nname: pptx\ndescription: Older decks.\n---\nOld.\n")
	write(filepath.Join(c.home, "skills"), "release-notes", "---\nname: release-notes\ndescription: Write release notes.\ndisable-model-invocation: true\n---\nGroup changes by kind.\n")
	write(filepath.Join(userHome, ".claude", "skills"), "broken", "---\nname: broken\ndescription: [oops\n---\nx\n")
	return c
}

func TestSkillsList(t *testing.T) {
	c := skillsCLIEnv(t)
	r := c.runStdin(t, "", "skills", "list")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[0], "SOURCE") || !strings.Contains(lines[0], "PATH") {
		t.Fatalf("header %q", lines[0])
	}
	want := [][]string{
		{"broken", "claude-user", "invalid"},
		{"pptx", "project", "available", "Make slide decks with the house template.", filepath.Join(c.root, ".crewagent", "skills", "pptx", "SKILL.md")},
		{"pptx", "user", "shadowed", "Older decks."},
		{"release-notes", "user", "user-only", "Write release notes."},
	}
	for i, w := range want {
		f := strings.Join(strings.Fields(lines[i+1]), " ")
		for _, part := range w {
			if !strings.Contains(f, part) {
				t.Errorf("line %d %q lacks %q", i+1, lines[i+1], part)
			}
		}
	}
	if !strings.Contains(r.stdout, "broken (claude-user) error:") || !strings.Contains(r.stdout, filepath.Join(".claude", "skills", "broken", "SKILL.md")) {
		t.Errorf("the problem of the broken skill is not shown:\n%s", r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
	}

	r = c.runStdin(t, "", "skills", "list", "--json")
	var items []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &items); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if len(items) != 4 {
		t.Fatalf("%d items", len(items))
	}
	for _, it := range items {
		for _, k := range []string{"name", "description", "source", "path", "problems"} {
			if _, ok := it[k]; !ok {
				t.Errorf("item %v lacks %q", it, k)
			}
		}
		if _, ok := it["problems"].([]any); !ok {
			t.Errorf("problems is not a list: %v", it["problems"])
		}
	}
	if items[0]["name"] != "broken" || items[0]["status"] != "invalid" || len(items[0]["problems"].([]any)) == 0 {
		t.Errorf("first item %v", items[0])
	}
}

func TestSkillsListEmpty(t *testing.T) {
	c := newLLMEnv(t)
	t.Setenv("HOME", t.TempDir())
	r := c.runStdin(t, "", "skills", "list")
	if r.code != ExitOK || !strings.Contains(r.stdout, "no skills found") || !strings.Contains(r.stdout, filepath.Join(c.root, ".crewagent", "skills")) {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = c.runStdin(t, "", "skills", "list", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("json %q", r.stdout)
	}
}

func TestChatWithSkill(t *testing.T) {
	c := skillsCLIEnv(t)
	c.srv.Enqueue(fakellm.Text("Notes written."))
	r := c.runStdin(t, "", "chat", "--skill", "release-notes", "--json", "notes for 1.2")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out chatOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	entries := c.all(t, out.ConversationID)
	var kinds []string
	for _, e := range entries {
		switch {
		case e.IsEvent():
			kinds = append(kinds, e.Event)
		case e.IsMeta:
			kinds = append(kinds, "meta")
		default:
			kinds = append(kinds, e.Role)
		}
	}
	if got := strings.Join(kinds, " "); got != "skill_activated meta user assistant" {
		t.Fatalf("log %s", got)
	}
	var d skills.ActivatedData
	json.Unmarshal(entries[0].Data, &d)
	if d.Skill != "release-notes" || d.Source != skills.SourceUser || d.By != skills.ByUser || d.Path != filepath.Join(c.home, "skills", "release-notes", "SKILL.md") {
		t.Errorf("event %s", entries[0].Data)
	}
	req := c.srv.ChatRequests()[0]
	if !strings.Contains(req.Messages[len(req.Messages)-2].Text(), "Group changes by kind.") || req.LastUserText() != "notes for 1.2" {
		t.Fatalf("request ends with %q, %q", req.Messages[len(req.Messages)-2].Text(), req.LastUserText())
	}

	// in an existing conversation, two skills at once; an active one is not repeated
	c.srv.Enqueue(fakellm.Text("Deck made."))
	r = c.runStdin(t, "", "chat", "--conversation", out.ConversationID, "--skill", "pptx,release-notes", "make the deck")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	n := 0
	for _, e := range c.all(t, out.ConversationID) {
		if e.IsEvent() && e.Event == skills.EventActivated {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d activations, want 2 (release-notes once, pptx once)", n)
	}
	if text := c.srv.ChatRequests()[1].Messages; !strings.Contains(text[len(text)-2].Text(), "Use 16:9.") {
		t.Errorf("the pptx body is not right before the message")
	}
}

func TestChatWithUnknownSkill(t *testing.T) {
	c := skillsCLIEnv(t)
	r := c.runStdin(t, "", "chat", "--skill", "pptz", "hello")
	if r.code != ExitError {
		t.Fatalf("exit %d", r.code)
	}
	if !strings.Contains(r.stderr, `--skill: there is no skill "pptz"; skills: pptx`) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("stderr %q", r.stderr)
	}
	if len(c.srv.ChatRequests()) != 0 {
		t.Error("the message was sent")
	}
	if r := c.runStdin(t, "", "conversations", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("a refused skill left a conversation: %s", r.stdout)
	}
	if r := c.runStdin(t, "", "chat", "--skill", " , ", "hello"); r.code != ExitError || !strings.Contains(r.stderr, "--skill needs the name of a skill") {
		t.Errorf("empty --skill: %d %q", r.code, r.stderr)
	}
}

// all returns every entry of a conversation.
func (c *llmEnv) all(t *testing.T, convID string) []*conversation.Entry {
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
	return all
}
