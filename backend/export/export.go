// Package export renders a conversation for people and programs outside the
// app: Markdown (the version of the conversation that is shown, as a
// readable document) and JSON (its record and every effective log entry).
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// Formats.
const (
	Markdown = "md"
	JSON     = "json"
)

// Agent is how an agent is named in an export.
type Agent struct {
	Name string
	Icon string
}

// Options tune the Markdown rendering.
type Options struct {
	// Agents name the agents that speak, by id (the id is used otherwise).
	Agents map[string]Agent
	// Location is the time zone times are written in (UTC when nil).
	Location *time.Location
}

// Document is what a JSON export holds.
type Document struct {
	Conversation conversation.ConversationMeta `json:"conversation"`
	// Entries are the effective entries of the log (the last line of each
	// id), in order, also those of versions that are not shown.
	Entries []*conversation.Entry `json:"entries"`
}

// Render renders a conversation in a format (Markdown or JSON).
func Render(format string, meta conversation.ConversationMeta, entries []*conversation.Entry, opts Options) ([]byte, error) {
	switch format {
	case Markdown, "markdown", "":
		return RenderMarkdown(meta, entries, opts), nil
	case JSON:
		return RenderJSON(meta, entries)
	}
	return nil, errs.Errorf(errs.InvalidArgument, "unknown export format %q: use md or json", format)
}

// RenderJSON is a Document, indented, ending with a newline.
func RenderJSON(meta conversation.ConversationMeta, entries []*conversation.Entry) ([]byte, error) {
	if entries == nil {
		entries = []*conversation.Entry{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Document{Conversation: meta, Entries: entries}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// FileName is a file name for an export of meta: its title, without
// characters file systems refuse, and the format's extension.
func FileName(meta conversation.ConversationMeta, format string) string {
	name := unsafeName.ReplaceAllString(meta.Title, " ")
	name = strings.Trim(strings.Join(strings.Fields(name), " "), " .")
	if r := []rune(name); len(r) > 80 {
		name = strings.TrimSpace(string(r[:80]))
	}
	if name == "" {
		name = "conversation"
	}
	if format == JSON {
		return name + ".json"
	}
	return name + ".md"
}

var unsafeName = regexp.MustCompile(`[\x00-\x1f<>:"/\\|?*]+`)

// RenderMarkdown writes the conversation as it is shown: the title, then
// each message with who wrote it and when, tool calls as collapsible
// details, failures and stops marked, markers for events. Versions of the
// conversation that are not shown are left out (the message where they
// diverge says how many there are).
func RenderMarkdown(meta conversation.ConversationMeta, entries []*conversation.Entry, opts Options) []byte {
	r := &renderer{opts: opts}
	if r.opts.Location == nil {
		r.opts.Location = time.UTC
	}
	views := conversation.Views(entries)
	results := map[string]conversation.EntryView{}
	calls := map[string]bool{}
	for _, v := range views {
		if v.View.Inactive || !v.IsMessage() {
			continue
		}
		if v.Role == conversation.RoleTool && v.ToolCallID != "" {
			results[v.ToolCallID] = v
		}
		for _, c := range v.ToolCalls {
			calls[c.ID] = true
		}
	}

	title := strings.TrimSpace(meta.Title)
	if title == "" {
		title = "Conversation"
	}
	fmt.Fprintf(&r.b, "# %s\n", escapeLine(title))
	var facts []string
	if t := r.time(meta.CreatedAt); t != "" {
		facts = append(facts, "Started "+t)
	}
	if t := r.time(meta.LastActiveAt); t != "" {
		facts = append(facts, "last active "+t)
	}
	facts = append(facts, plural(meta.MessageCount, "message"))
	r.blank()
	r.b.WriteString("*" + strings.Join(facts, " · ") + "*\n")

	for _, v := range views {
		if v.View.Inactive {
			continue
		}
		r.entry(v, results, calls)
	}
	return append(bytes.TrimRight(r.b.Bytes(), "\n"), '\n')
}

type renderer struct {
	opts Options
	b    bytes.Buffer
	// who wrote the messages since the last heading ("" after a user
	// message or an event): the messages of one reply share one heading.
	who string
}

// blank ends what was written with one empty line.
func (r *renderer) blank() {
	for bytes.HasSuffix(r.b.Bytes(), []byte("\n\n")) {
		r.b.Truncate(r.b.Len() - 1)
	}
	if r.b.Len() > 0 && !bytes.HasSuffix(r.b.Bytes(), []byte("\n")) {
		r.b.WriteString("\n")
	}
	r.b.WriteString("\n")
}

// time writes a log time as "2006-01-02 15:04" in the export's zone.
func (r *renderer) time(stamp string) string {
	t, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return ""
	}
	return t.In(r.opts.Location).Format("2006-01-02 15:04")
}

// heading starts a message: "### Who · time", and the version note of a
// branch point.
func (r *renderer) heading(who string, v conversation.EntryView) {
	user := v.Role == conversation.RoleUser
	if user || who != r.who {
		r.blank()
		r.b.WriteString("---\n\n### " + escapeLine(who))
		if t := r.time(v.CreatedAt); t != "" {
			r.b.WriteString(" · " + t)
		}
		r.b.WriteString("\n")
	}
	r.who = who
	if user {
		r.who = ""
	}
	if b := v.View.Branch; b != nil {
		r.blank()
		fmt.Fprintf(&r.b, "*Version %d of %d*\n", b.Index, b.Count)
	}
	if v.EditOf != "" {
		r.blank()
		r.b.WriteString("*Edited*\n")
	}
}

// speaker names who wrote an assistant message.
func (r *renderer) speaker(v conversation.EntryView) string {
	if v.AgentID != "" && (v.Mode == conversation.ModeAgent || v.Mode == conversation.ModeRun) {
		a, ok := r.opts.Agents[v.AgentID]
		if !ok || a.Name == "" {
			return v.AgentID
		}
		if a.Icon != "" {
			return a.Icon + " " + a.Name
		}
		return a.Name
	}
	return "Assistant"
}

func (r *renderer) entry(v conversation.EntryView, results map[string]conversation.EntryView, calls map[string]bool) {
	switch v.View.Kind {
	case conversation.ViewUser:
		r.heading("You", v)
		r.text(v.View.Text)
	case conversation.ViewRunInput:
		who := "You"
		if v.View.ForNode != "" {
			who += " (to step " + v.View.ForNode + ")"
		}
		r.heading(who, v)
		r.text(v.View.Text)
	case conversation.ViewAnswer:
		// shown with its question
	case conversation.ViewAssistant:
		cut := v.View.Incomplete
		if strings.TrimSpace(v.Text()) != "" || len(v.ToolCalls) > 0 || cut != "" {
			r.heading(r.speaker(v), v)
		}
		r.text(v.Text())
		if cut != "" {
			r.blank()
			r.b.WriteString("> *Incomplete: " + incompleteWhy(cut) + "*\n")
		}
		for _, c := range v.ToolCalls {
			res, ok := results[c.ID]
			r.toolCall(c.Function.Name, c.Function.Arguments, res, ok, cut != "")
		}
	case conversation.ViewThinking:
		r.heading(r.speaker(v), v)
		r.blank()
		r.b.WriteString("<details>\n<summary>Reasoning</summary>\n\n")
		r.text(v.Text())
		r.blank()
		r.b.WriteString("</details>\n")
	case conversation.ViewToolResult:
		if v.ToolCallID == "" || !calls[v.ToolCallID] {
			r.heading(r.speaker(v), v)
			r.toolCall(v.ToolName, "", v, true, false)
		}
	case conversation.ViewQuestion:
		r.question(v)
	case conversation.ViewError:
		r.heading(r.speaker(v), v)
		r.text(v.View.Text)
		p := v.View.Problem
		r.blank()
		r.b.WriteString("> **Failed: " + escapeLine(p.Title) + "**")
		if p.Advice != "" {
			r.b.WriteString(" " + escapeLine(p.Advice))
		}
		r.b.WriteString("  \n> `" + v.View.Error.Code + "`: " + escapeLine(v.View.Error.Message) + "\n")
	case conversation.ViewStopped:
		r.heading(r.speaker(v), v)
		r.text(v.View.Text)
		r.blank()
		r.b.WriteString("> *Stopped before the answer was complete.*\n")
	case conversation.ViewSkill:
		s := v.View.Skill
		r.blank()
		fmt.Fprintf(&r.b, "<details>\n<summary>Skill activated: %s</summary>\n\n", htmlEscape(s.Name))
		r.text(s.Body)
		r.blank()
		r.b.WriteString("</details>\n")
		r.who = ""
	case conversation.ViewEvent:
		if line := eventLine(v); line != "" {
			r.blank()
			r.b.WriteString("*— " + escapeLine(line) + " —*\n")
			r.who = ""
		}
	}
}

// text writes model or user text as Markdown (it is Markdown already),
// made safe to render (safeMarkdown).
func (r *renderer) text(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	r.blank()
	r.b.WriteString(safeMarkdown(s))
	r.b.WriteString("\n")
}

// incompleteWhy says why the server cut an answer short.
func incompleteWhy(reason string) string {
	if reason == conversation.FinishContentFilter {
		return "the provider's content filter stopped the answer."
	}
	return "the model reached its output limit before it finished."
}

// toolCall writes a call and its result as a collapsible block (notRun: the
// call of an answer cut short, which was never run).
func (r *renderer) toolCall(name, args string, res conversation.EntryView, hasResult, notRun bool) {
	status := "no result"
	if notRun {
		status = "not run"
	}
	if hasResult {
		status = "done"
		if res.IsError {
			status = "failed"
		}
	}
	if name == "" {
		name = "tool"
	}
	r.blank()
	fmt.Fprintf(&r.b, "<details>\n<summary>Tool call: %s (%s)</summary>\n\n", htmlEscape(name), status)
	if a := prettyJSON(args); a != "" {
		r.b.WriteString("Arguments:\n\n")
		r.fence("json", a)
	}
	if hasResult {
		out := res.Text()
		if l := res.View.Large; l != nil {
			fmt.Fprintf(&r.b, "Result (%s, the beginning):\n\n", sizeText(l.Size))
			out = l.Head
		} else {
			r.b.WriteString("Result:\n\n")
		}
		lang := ""
		if p := prettyJSON(out); p != "" {
			out, lang = p, "json"
		}
		r.fence(lang, out)
	}
	r.b.WriteString("</details>\n")
}

// question writes a question of a run with its options and answer.
func (r *renderer) question(v conversation.EntryView) {
	q := v.View.Question
	var w struct {
		Prompt  string `json:"prompt"`
		Options []struct {
			Value string `json:"value"`
			Label string `json:"label"`
		} `json:"options"`
	}
	_ = json.Unmarshal(q.Widget, &w)
	r.heading(r.speaker(v), v)
	r.blank()
	r.b.WriteString("**Question:** " + escapeLine(w.Prompt) + "\n")
	for _, o := range w.Options {
		label := o.Label
		if label == "" {
			label = o.Value
		}
		r.b.WriteString("- " + escapeLine(label) + "\n")
	}
	switch q.State {
	case conversation.QuestionAnswered:
		var a struct {
			Answer json.RawMessage `json:"answer"`
		}
		_ = json.Unmarshal(q.Answer, &a)
		r.blank()
		r.b.WriteString("**Answer:** `" + strings.ReplaceAll(string(a.Answer), "`", "'") + "`\n")
	case conversation.QuestionPending:
		r.blank()
		r.b.WriteString("*Waiting for the answer.*\n")
	default:
		r.blank()
		r.b.WriteString("*Not answered.*\n")
	}
}

// fence writes text in a fenced code block longer than any backtick run in it.
func (r *renderer) fence(lang, text string) {
	n, run := 3, 0
	for _, c := range text {
		if c == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	r.b.WriteString(f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n\n")
}

// eventLine says what an event marks ("" for events that are not shown).
func eventLine(v conversation.EntryView) string {
	var d map[string]any
	_ = json.Unmarshal(v.Data, &d)
	str := func(k string) string { s, _ := d[k].(string); return s }
	switch v.Event {
	case conversation.EventCompaction:
		return "Earlier messages compressed into a summary"
	case conversation.EventCheckpoint:
		return "Checkpoint “" + str("name") + "”"
	case conversation.EventModeSwitch:
		if to := str("to"); to != "" {
			return "Switched to " + to + " mode"
		}
		return "Mode switched"
	case conversation.EventForkOrigin:
		if t := str("parentTitle"); t != "" {
			return "Forked from “" + t + "”"
		}
		return "Forked from another conversation"
	case conversation.EventRunStarted:
		if w := str("workflowId"); w != "" {
			return "Workflow run started: " + w
		}
		return "Workflow run started"
	case conversation.EventSkillDeactivated:
		if s := v.View.Skill; s != nil {
			return "Skill deactivated: " + s.Name
		}
	}
	return ""
}

// prettyJSON indents text that is a JSON object or array ("" otherwise).
func prettyJSON(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || (s[0] != '{' && s[0] != '[') || !json.Valid([]byte(s)) {
		return ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(s), "", "  ") != nil {
		return ""
	}
	return buf.String()
}

// sizeText says a byte count in words ("77 KB").
func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", (n+512)>>10)
	}
	return plural(n, "byte")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// escapeLine keeps a value on one line of Markdown, made safe to render.
func escapeLine(s string) string { return safeProse(strings.Join(strings.Fields(s), " ")) }

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
