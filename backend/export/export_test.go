package export

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	c "crewagent/backend/conversation"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func at(min int) string { return "2026-03-01T09:" + twoDigits(min) + ":00.000Z" }

func twoDigits(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// sample is a conversation with every kind of entry the export writes.
func sample() (c.ConversationMeta, []*c.Entry) {
	n := 0
	m := func(id, role, content string, more ...func(*c.Entry)) *c.Entry {
		n++
		e := &c.Entry{Type: c.TypeMsg, ID: id, CreatedAt: at(n), Role: role, Mode: c.ModeChat}
		if content != "" {
			e.Content = c.Str(content)
		}
		for _, f := range more {
			f(e)
		}
		return e
	}
	agent := func(e *c.Entry) { e.Mode, e.AgentID = c.ModeAgent, "analyst" }
	evt := func(id, name, data string) *c.Entry {
		n++
		return &c.Entry{Type: c.TypeEvt, ID: id, CreatedAt: at(n), Event: name, Data: json.RawMessage(data)}
	}
	call := func(id, name, args string) func(*c.Entry) {
		return func(e *c.Entry) {
			e.ToolCalls = append(e.ToolCalls, c.ToolCall{ID: id, Type: "function", Function: c.FunctionCall{Name: name, Arguments: args}})
		}
	}
	result := func(callID, name string) func(*c.Entry) {
		return func(e *c.Entry) { e.ToolCallID, e.ToolName, e.Role = callID, name, c.RoleTool }
	}
	big := c.ToolResultPreview(strings.Repeat("row,value\n", 8000), 40, "@state/logs/tool-results/conv/t2.json") +
		"\nRead it in parts: fs.read @state/logs/tool-results/conv/t2.txt with startLine/endLine (8000 lines; about 2000 lines per read), or fs.search it."
	entries := []*c.Entry{
		evt("f0", c.EventForkOrigin, `{"parentTitle":"Budget"}`),
		m("u1", c.RoleUser, "Summarise the budget file, please."),
		m("a1", c.RoleAssistant, "I'll read it first.", agent, call("k1", "fs.read", `{"path":"@project/budget.csv"}`)),
		m("t1", c.RoleTool, `{"ok":true,"content":"a,1\nb,2"}`, agent, result("k1", "fs.read")),
		m("a2", c.RoleAssistant, "", agent, call("k2", "fs.read", `{"path":"@project/big.csv"}`)),
		m("t2", c.RoleTool, big, agent, result("k2", "fs.read")),
		m("r1", c.RoleAssistant, "Two rows, small numbers.", agent, func(e *c.Entry) { e.PartType = c.PartThinking }),
		m("a3", c.RoleAssistant, "The budget has **two** lines:\n\n```csv\na,1\nb,2\n```", agent),
		evt("cp", c.EventCheckpoint, `{"name":"after the summary"}`),
		m("u2", c.RoleUser, "Show it as code with ``` fences inside."),
		m("a4", c.RoleAssistant, "Here:\n\n````md\n```\ncode\n```\n````"),
	}
	// The answer to u2 was regenerated: the first version is not shown.
	ch, _, err := c.PlanRegenerate(entries, "a4")
	if err != nil {
		panic(err)
	}
	for _, u := range ch.Updates {
		for i, e := range entries {
			if e.ID == u.ID {
				entries[i] = u
			}
		}
	}
	ch.Event.ID, ch.Event.CreatedAt = "b1", at(30)
	entries = append(entries, ch.Event,
		m("a5", c.RoleAssistant, "Here, shorter:\n\n````md\n```\ncode\n```\n````"),
		m("u3", c.RoleUser, "And the total?"),
		m("x1", c.RoleAssistant, c.ErrorContent("", c.ErrorBlock{Code: "LLM_NETWORK", Provider: "127.0.0.1:11434", Retryable: true,
			Message: `Post "http://127.0.0.1:11434/v1/chat/completions": dial tcp 127.0.0.1:11434: connect: connection refused`}),
			func(e *c.Entry) { e.PartType, e.IncludeInContext = c.PartError, c.Bool(false) }),
		m("a6", c.RoleAssistant, "The total is 3."),
		evt("p1", "pin", `{"role":"assistant","text":"The total is 3."}`),
		m("u5", c.RoleUser, "Explain every line."),
		m("a7", c.RoleAssistant, "Line a is the first", call("k3", "fs.read", `{"path":"@project/notes.md"}`), func(e *c.Entry) { e.FinishReason = c.FinishLength }),
		m("rec", c.RoleSystem, "ARTIFACT_SAVED {\"path\":\"@project/summary.md\"}", func(e *c.Entry) { e.PartType = "record" }),
		m("u4", c.RoleUser, "Write a long poem."),
		m("s1", c.RoleAssistant, c.ErrorContent("Roses are", c.ErrorBlock{Code: "LLM_ABORTED", Message: "stopped before the answer was complete", Retryable: true}),
			func(e *c.Entry) { e.PartType = c.PartError }),
	)
	meta := c.ConversationMeta{ID: "conv", Title: "Budget (fork)", CreatedAt: at(0), LastActiveAt: at(40), MessageCount: 18}
	return meta, entries
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(got) {
		t.Fatalf("%s differs (run with -update to accept):\n%s", path, got)
	}
}

func TestMarkdown(t *testing.T) {
	meta, entries := sample()
	got, err := Render(Markdown, meta, entries, Options{Agents: map[string]Agent{"analyst": {Name: "Mary", Icon: "📊"}}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "conversation.md", got)
	s := string(got)
	for _, leak := range []string{"TOOL_RESULT_PREVIEW", "@state/", "LLM_ERROR\n", "dial tcp 127.0.0.1:11434: connect: connection refused**", "ARTIFACT_SAVED", "Read it in parts"} {
		if strings.Contains(s, leak) {
			t.Errorf("the export shows %q", leak)
		}
	}
	for _, want := range []string{"### 📊 Mary", "*Version 2 of 2*", "Failed: Can't reach the model server", "*Stopped before the answer was complete.*", "<details>",
		"Line a is the first\n\n> *Incomplete: the model reached its output limit before it finished.*", "Tool call: fs.read (not run)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	if strings.Contains(s, "Here:\n") {
		t.Error("a version that is not shown was exported")
	}
}

func TestJSON(t *testing.T) {
	meta, entries := sample()
	got, err := Render(JSON, meta, entries, Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "conversation.json", got)
	var doc Document
	if err := json.Unmarshal(got, &doc); err != nil || doc.Conversation.ID != "conv" || len(doc.Entries) != len(entries) {
		t.Fatalf("decoded %+v, %v", doc.Conversation, err)
	}
}

func TestRenderRefusesUnknownFormats(t *testing.T) {
	if _, err := Render("pdf", c.ConversationMeta{}, nil, Options{}); err == nil || !strings.Contains(err.Error(), "md or json") {
		t.Fatalf("err = %v", err)
	}
}

func TestFileName(t *testing.T) {
	tests := []struct{ title, format, want string }{
		{"Budget (fork)", Markdown, "Budget (fork).md"},
		{`a/b\c:d*e?"f"<g>|h`, JSON, "a b c d e f g h.json"},
		{"  ..  ", Markdown, "conversation.md"},
		{strings.Repeat("é", 100), Markdown, strings.Repeat("é", 80) + ".md"},
	}
	for _, tt := range tests {
		if got := FileName(c.ConversationMeta{Title: tt.title}, tt.format); got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// hostile is a conversation whose title, messages, agent name, checkpoint
// and error carry HTML and links that run code in a viewer that renders
// HTML, and code that must stay as it is.
func hostile() (c.ConversationMeta, []*c.Entry) {
	e := func(id, role, content string) *c.Entry {
		return &c.Entry{Type: c.TypeMsg, ID: id, CreatedAt: at(1), Role: role, Mode: c.ModeAgent, AgentID: "evil", Content: c.Str(content)}
	}
	user := e("u1", c.RoleUser, "Summarise <b>this</b> & that &lt;script&gt; please")
	user.Mode, user.AgentID = c.ModeChat, ""
	answer := e("a1", c.RoleAssistant, "Done. <script>alert(1)</script>\n"+
		"<img src=x onerror=alert(2)> and <!-- hidden --> and <https://example.com>\n\n"+
		"[click](javascript:alert(3)) [img](  JaVaScRiPt:alert(4)) ![pic](data:text/html;base64,PHNjcmlwdD4=)\n"+
		"[esc](java\\script\\:alert(5)) [ent](jav&#97;script:alert(6)) [vb](vbscript:msgbox(7)) [ok](https://example.com/a?b=1&c=2)\n\n"+
		"[ref]: javascript:alert(8)\n\n"+
		"Code stays: `<script>x</script>` and ``a ` <b> b``\n\n"+
		"```html\n<script>alert('kept in code')</script>\n[x](javascript:kept)\n```\n\n"+
		"~~~\n<i>tilde code</i>\n~~~\n\n"+
		"A lone ` backtick <u>then</u>\n\n"+
		"```\nan open fence <b>at the end</b>")
	failed := e("x1", c.RoleAssistant, c.ErrorContent("", c.ErrorBlock{Code: "LLM_SERVER", Status: 500, Message: `<html><body onload="alert(9)">bad gateway</body></html>`}))
	failed.PartType, failed.IncludeInContext = c.PartError, c.Bool(false)
	entries := []*c.Entry{user, answer,
		{Type: c.TypeEvt, ID: "cp", CreatedAt: at(2), Event: c.EventCheckpoint, Data: json.RawMessage(`{"name":"<img src=y onerror=alert(10)>"}`)},
		failed,
	}
	return c.ConversationMeta{ID: "h", Title: `<svg onload=alert(11)> [t](javascript:alert(12))`, CreatedAt: at(0), LastActiveAt: at(3), MessageCount: 3}, entries
}

func TestMarkdownIsSafeToRender(t *testing.T) {
	meta, entries := hostile()
	got := RenderMarkdown(meta, entries, Options{Agents: map[string]Agent{"evil": {Name: "<b onmouseover=alert(13)>Eve</b>"}}})
	golden(t, "hostile.md", got)
	s := string(got)
	// Outside code, no tag but the export's own and no link that runs code.
	prose := proseOf(s)
	for _, tag := range regexp.MustCompile(`<[/!]?[A-Za-z]+`).FindAllString(prose, -1) {
		if !slices.Contains([]string{"<details", "</details", "<summary", "</summary"}, tag) {
			t.Errorf("raw HTML outside code: %s", tag)
		}
	}
	for _, link := range regexp.MustCompile(`(?i)(\]\(\s*|\]:\s*)[^)\s]*`).FindAllString(prose, -1) {
		l := strings.ToLower(strings.ReplaceAll(link, `\`, ""))
		for _, bad := range []string{"javascript:", "vbscript:", "data:"} {
			if strings.Contains(l, bad) && !strings.Contains(l, "unsafe:") {
				t.Errorf("unsafe link outside code: %s", link)
			}
		}
	}
	for _, kept := range []string{"<script>alert('kept in code')</script>", "`<script>x</script>`", "``a ` <b> b``", "<i>tilde code</i>",
		"[ok](https://example.com/a?b=1&c=2)", "an open fence <b>at the end</b>\n```"} {
		if !strings.Contains(s, kept) {
			t.Errorf("code or a safe link was changed: %q missing", kept)
		}
	}
}

// proseOf is s without its fenced blocks and code spans.
func proseOf(s string) string {
	var out []string
	open := ""
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case open == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			open = t[:3]
		case open != "" && strings.HasPrefix(t, open):
			open = ""
		case open == "":
			out = append(out, line)
		}
	}
	return regexp.MustCompile("``[^`].*?``|`[^`\n]+`").ReplaceAllString(strings.Join(out, "\n"), "")
}

// Whatever the text, outside code the output holds no "<", no character
// reference but the "&lt;" and "&amp;" it writes, and no link with an unsafe scheme.
func FuzzSafeMarkdown(f *testing.F) {
	for _, s := range []string{"<script>", "[a](javascript:x)", "```\n<b>\n```", "`<i>`", "&#60;b&#62;", "[r]: data:x", "[e](java\\script\\:y)", "x\\:y"} {
		f.Add(s)
	}
	ref := regexp.MustCompile(`&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});`)
	link := regexp.MustCompile(`(?i)(\]\(\s*|^\s*\[[^\]]+\]:\s*)((?:\\?[a-z])+\\?:)`)
	f.Fuzz(func(t *testing.T, s string) {
		out := safeMarkdown(s)
		if strings.ContainsAny(s, "`~") {
			return // code keeps every character
		}
		if strings.Contains(out, "<") {
			t.Fatalf("%q → %q keeps a <", s, out)
		}
		for _, r := range ref.FindAllString(out, -1) {
			if r != "&lt;" && r != "&amp;" {
				t.Fatalf("%q → %q keeps the reference %s", s, out, r)
			}
		}
		for _, m := range link.FindAllStringSubmatch(out, -1) {
			name := strings.ToLower(strings.TrimSuffix(strings.ReplaceAll(m[2], `\`, ""), ":"))
			if name == "javascript" || name == "vbscript" || name == "data" {
				t.Fatalf("%q → %q keeps the link %s", s, out, m[0])
			}
		}
	})
}
