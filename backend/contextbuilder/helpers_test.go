package contextbuilder

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/tokens"
)

const testModel = "gpt-4o"

// counter is the real tokenizer; its encoders are shared and built once.
var counter = tokens.New()

// logBuilder writes entries the way the store does: ids, timestamps and the
// token count computed once at append.
type logBuilder struct {
	entries []conversation.Entry
	n       int
}

func (l *logBuilder) add(e conversation.Entry) *conversation.Entry {
	l.n++
	if e.ID == "" {
		e.ID = fmt.Sprintf("m%03d", l.n)
	}
	if e.Type == "" {
		e.Type = conversation.TypeMsg
	}
	e.CreatedAt = fmt.Sprintf("2026-01-28T10:%02d:%02d.000Z", l.n/60%60, l.n%60)
	if e.IsMessage() && e.Tokens == 0 {
		e.Tokens = counter.CountMessage(testModel, &e)
		e.TokenEncoding = counter.EncodingFor(testModel)
	}
	l.entries = append(l.entries, e)
	return &l.entries[len(l.entries)-1]
}

func (l *logBuilder) user(text string) *conversation.Entry {
	return l.add(conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(text)})
}

func (l *logBuilder) assistant(text string) *conversation.Entry {
	return l.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(text)})
}

func (l *logBuilder) calls(ids ...string) *conversation.Entry {
	var tcs []conversation.ToolCall
	for _, id := range ids {
		tcs = append(tcs, conversation.ToolCall{ID: id, Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/` + id + `.md"}`}})
	}
	return l.add(conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: tcs})
}

func (l *logBuilder) result(callID, text string) *conversation.Entry {
	return l.add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: callID, ToolName: "fs.read", Content: conversation.Str(text), PartType: conversation.PartToolResult})
}

func (l *logBuilder) system(text string) *conversation.Entry {
	return l.add(conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str(text)})
}

func (l *logBuilder) event(name string) *conversation.Entry {
	return l.add(conversation.Entry{Type: conversation.TypeEvt, Event: name, Data: json.RawMessage(`{}`)})
}

func (l *logBuilder) errorPart(text string) *conversation.Entry {
	return l.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(text), PartType: conversation.PartError})
}

// fakeRun is a RunInjector with fixed blocks.
type fakeRun []string

func (f fakeRun) Blocks() []string { return f }

func testPersona() *Persona {
	return &Persona{
		ID: "analyst", Name: "Mary", Title: "Business Analyst", Role: "Strategic analyst",
		Identity: "Turns vague ideas into clear, testable requirements.", CommunicationStyle: "Calm, structured, asks one question at a time.",
		Principles:      []string{"Evidence over opinion.", "Write down every decision."},
		CriticalActions: []string{"Greet the user by name once.", "  ", "Never invent figures."},
	}
}

func testPolicy() ToolPolicy {
	return ToolPolicy{Enabled: []string{"fs.list", "fs.read", "fs.search", "fs.write", "fs.apply_patch", "ui.ask_user"}, MaxReadBytes: 524288, MaxWriteBytes: 2097152}
}

func opts(mode string, h []conversation.Entry) Options {
	o := Options{Mode: mode, History: h, ToolPolicy: testPolicy(), Counter: counter, Model: testModel}
	if mode != conversation.ModeChat {
		o.Agent = testPersona()
	}
	return o
}

func mustBuild(t testing.TB, o Options) *Result {
	t.Helper()
	res, err := Build(o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if err := Validate(res.Messages); err != nil {
		t.Fatalf("invalid request: %v\n%s", err, dump(res.Messages))
	}
	return res
}

func dump(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "%2d %-9s %-6s %q", i, m.Role, m.SourceID, trunc(m.Text(), 50))
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " call=%s", tc.ID)
		}
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " result=%s", m.ToolCallID)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ids returns the source ids of the history messages of msgs.
func ids(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		if m.SourceID != "" {
			out = append(out, m.SourceID)
		}
	}
	return out
}

// reasonOf returns the reason of the decision covering id (test ids are
// zero-padded, so string order is log order within a run).
func reasonOf(ds []Decision, id string) string {
	for _, d := range ds {
		if d.SourceID == id || d.ThroughID != "" && d.SourceID < id && id <= d.ThroughID {
			return d.Reason
		}
	}
	return ""
}

// readLog reads a messages.jsonl fixture.
func readLog(t testing.TB, path string) []conversation.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []conversation.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var e conversation.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readFixture(name string) ([]byte, error) {
	return os.ReadFile("testdata/" + name)
}

// TokensOf returns what msgs cost as a request: the sum of their Tokens plus
// ReplyPriming (tool definitions not included).
func TokensOf(msgs []Message) int {
	n := ReplyPriming
	for i := range msgs {
		n += msgs[i].Tokens
	}
	return n
}

// recalledIDs lists the ids of the messages a request quoted back, in order
// ("a,b").
func recalledIDs(res *Result) string {
	ids := make([]string, 0, len(res.Debug.Recalled))
	for _, it := range res.Debug.Recalled {
		ids = append(ids, it.ID)
	}
	return strings.Join(ids, ",")
}
