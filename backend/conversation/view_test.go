package conversation

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

type opt func(*Entry)

func msg(id, role, content string, opts ...opt) *Entry {
	e := &Entry{Type: TypeMsg, ID: id, Role: role}
	if content != "" {
		e.Content = Str(content)
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

func evt(id, name string) *Entry {
	return &Entry{Type: TypeEvt, ID: id, Event: name, Data: json.RawMessage(`{}`)}
}

func run(id string) opt        { return func(e *Entry) { e.RunID = id } }
func part(p string) opt        { return func(e *Entry) { e.PartType = p } }
func meta() opt                { return func(e *Entry) { e.IsMeta = true } }
func result(callID string) opt { return func(e *Entry) { e.ToolCallID = callID } }
func widget(raw string) opt    { return func(e *Entry) { e.Widget = json.RawMessage(raw) } }
func calls(ids ...string) opt {
	return func(e *Entry) {
		for _, id := range ids {
			e.ToolCalls = append(e.ToolCalls, ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: "fs.list", Arguments: "{}"}})
		}
	}
}

func ask(id, callID, runID string) []*Entry {
	return []*Entry{
		msg("a-"+id, RoleAssistant, "", run(runID), calls(callID)),
		msg("t-"+id, RoleTool, `{"ok":true,"pending":true}`, run(runID), result(callID),
			widget(`{"widgetId":"`+id+`","type":"selection","prompt":"Which format?","options":[{"value":"one","label":"One page"}]}`)),
	}
}

func answer(id, widgetID, runID string) *Entry {
	return msg(id, RoleUser, RunInput("check-clarity", "Answer to \"Which format?\" (widget "+widgetID+"):\nOne page"), run(runID),
		widget(`{"widgetId":"`+widgetID+`","type":"selection","answer":{"selected":"one"}}`))
}

func kinds(vs []EntryView) string {
	var out []string
	for _, v := range vs {
		k := v.ID + ":" + v.View.Kind
		if q := v.View.Question; q != nil {
			k += "/" + q.State
		}
		if v.View.Latest {
			k += "/latest"
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

func TestViews(t *testing.T) {
	errContent := "partial\n\nLLM_ERROR\n- code: LLM_TIMEOUT\n- message: no data for 60s\n- retryable: true"
	tests := []struct {
		name    string
		entries []*Entry
		want    string
	}{
		{"every kind", []*Entry{
			msg("s", RoleSystem, "system prompt"),
			msg("u1", RoleUser, "list files"),
			msg("a1", RoleAssistant, "", calls("c1")),
			msg("t1", RoleTool, "{}", result("c1")),
			msg("r1", RoleAssistant, "hmm", part(PartThinking)),
			msg("m", RoleUser, "skill body", meta()),
			msg("d", RoleDeveloper, "hidden"),
			evt("e1", EventCompaction),
		}, "s:hidden u1:user a1:assistant t1:tool-result r1:thinking m:hidden d:hidden e1:event"},
		{"only the newest error is actionable", []*Entry{
			msg("u", RoleUser, "q"), msg("e1", RoleAssistant, errContent, part(PartError)),
			msg("u2", RoleUser, "again"), msg("e2", RoleAssistant, errContent, part(PartError)),
		}, "u:user e1:error u2:user e2:error/latest"},
		{"an error answered by a later message", []*Entry{
			msg("u", RoleUser, "q"), msg("e1", RoleAssistant, errContent, part(PartError)), msg("u2", RoleUser, "continue"),
		}, "u:user e1:error u2:user"},
		{"a pending question", append([]*Entry{msg("u1", RoleUser, RunInput("capture-idea", "my idea"), run("r1"))}, ask("w1", "k1", "r1")...),
			"u1:run-input a-w1:assistant t-w1:question/pending"},
		{"an answered question hides its answer", append(ask("w1", "k1", "r1"), answer("u2", "w1", "r1"), msg("a9", RoleAssistant, "Thanks.", run("r1"))),
			"a-w1:assistant t-w1:question/answered u2:answer a9:assistant"},
		{"a question the conversation went past, per run", append(append(ask("w1", "k1", "r1"), msg("u2", RoleUser, "something else", run("r1"))), ask("w2", "k2", "r2")...),
			"a-w1:assistant t-w1:question/unanswered u2:user a-w2:assistant t-w2:question/pending"},
		{"an answer whose question is not loaded is the user's message", []*Entry{answer("u2", "w1", "r1")}, "u2:run-input"},
		{"a question stored as JSON text", []*Entry{msg("t", RoleTool, "x", run("r1"), result("k"), widget(`"{\"widgetId\":\"w9\",\"type\":\"confirmation\",\"prompt\":\"Sure?\"}"`))},
			"t:question/pending"},
		{"malformed questions are tool results", []*Entry{
			msg("t2", RoleTool, "x", run("r1"), widget(`"{broken"`)),
			msg("t3", RoleTool, "x", run("r1"), widget(`{"type":"confirmation"}`)),
		}, "t2:tool-result t3:tool-result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kinds(Views(tt.entries)); got != tt.want {
				t.Fatalf("views\n got %s\nwant %s", got, tt.want)
			}
		})
	}

	vs := Views(append(ask("w1", "k1", "r1"), answer("u2", "w1", "r1")))
	var a struct {
		Answer struct{ Selected string } `json:"answer"`
	}
	if q := vs[1].View.Question; q == nil || json.Unmarshal(q.Answer, &a) != nil || a.Answer.Selected != "one" {
		t.Fatalf("answered question: %+v", vs[1].View.Question)
	}
	if v := Views([]*Entry{msg("u", RoleUser, RunInput("capture-idea", "my\nidea"))})[0].View; v.Text != "my\nidea" || v.ForNode != "capture-idea" {
		t.Fatalf("run input: %+v", v)
	}
}

func TestEndsUnfinished(t *testing.T) {
	tools := []*Entry{msg("a1", RoleAssistant, "", calls("c1"))}
	tests := []struct {
		name    string
		entries []*Entry
		want    bool
	}{
		{"a user message without a reply", []*Entry{msg("u1", RoleUser, "hi")}, true},
		{"a user message, then only a checkpoint", []*Entry{msg("u1", RoleUser, "hi"), evt("e1", EventCheckpoint)}, true},
		{"a tool call without its result", append([]*Entry{msg("u1", RoleUser, "list")}, tools...), true},
		{"a tool result without the answer after it", append(append([]*Entry{msg("u1", RoleUser, "list")}, tools...), msg("t1", RoleTool, "{}", result("c1"))), true},
		{"a tool result whose call is not loaded", []*Entry{msg("t1", RoleTool, "{}", result("gone"))}, true},
		{"reasoning without the answer", []*Entry{msg("u1", RoleUser, "why"), msg("r1", RoleAssistant, "hmm", part(PartThinking))}, true},
		{"an answered question without what followed", append(ask("w1", "k1", "r1"), answer("u3", "w1", "r1")), true},
		{"an answer", []*Entry{msg("u1", RoleUser, "hi"), msg("a9", RoleAssistant, "hello")}, false},
		{"an answer, then an empty reply", []*Entry{msg("u1", RoleUser, "hi"), msg("a9", RoleAssistant, "hello"), msg("a10", RoleAssistant, " ")}, false},
		{"a persisted failure", []*Entry{msg("u1", RoleUser, "hi"), msg("x", RoleAssistant, "LLM_ERROR\n- code: LLM_TIMEOUT", part(PartError))}, false},
		{"a question waiting for its answer", ask("w1", "k1", "r1"), false},
		{"nothing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EndsUnfinished(Views(tt.entries)); got != tt.want {
				t.Fatalf("EndsUnfinished = %v, want %v (%s)", got, tt.want, kinds(Views(tt.entries)))
			}
		})
	}
}

func TestPendingQuestion(t *testing.T) {
	entries := append(ask("w1", "k1", "r1"), msg("x", RoleTool, "other result", run("r1"), result("zz")))
	if q, settled := PendingQuestion(entries, "r1"); q == nil || !settled || WidgetID(q) != "w1" {
		t.Fatalf("PendingQuestion = %v, %v", q, settled)
	}
	if q, settled := PendingQuestion(append(entries, msg("u", RoleUser, "no", run("r1"))), "r1"); q != nil || !settled {
		t.Fatalf("after a user message: %v, %v", q, settled)
	}
	if q, settled := PendingQuestion(entries, "r2"); q != nil || settled {
		t.Fatalf("another run: %v, %v", q, settled)
	}
}

func TestParseErrorContent(t *testing.T) {
	partial, b := ParseErrorContent("Half an ans\n\nLLM_ERROR\n- code: LLM_NETWORK\n- message: the connection closed\n- retryable: true\n- status: 502\n- retry_after: 20s\n- provider: 127.0.0.1:9")
	if partial != "Half an ans" || b.Code != "LLM_NETWORK" || b.Message != "the connection closed" || !b.Retryable ||
		b.Status != 502 || b.RetryAfter.String() != "20s" || b.Provider != "127.0.0.1:9" || b.Fields["provider"] != "127.0.0.1:9" {
		t.Fatalf("parsed %q %+v", partial, b)
	}
	if p, b := ParseErrorContent("LLM_ERROR\n- code: LLM_AUTH\n- message: bad key"); p != "" || b.Code != "LLM_AUTH" || b.Retryable {
		t.Fatalf("no partial: %q %+v", p, b)
	}
	if _, b := ParseErrorContent("something odd"); b.Code != "LLM_ERROR" || b.Message != "something odd" {
		t.Fatalf("no block: %+v", b)
	}
	if _, b := ParseErrorContent("text\nLLM_ERROR\n"); b.Message != DefaultErrorMessage {
		t.Fatalf("an empty block: %+v", b)
	}
	// What Format writes, ParseErrorContent reads back.
	in := ErrorBlock{Code: "LLM_RATE_LIMIT", Message: "Rate limit reached", Retryable: true, Status: 429, RetryAfter: 20e9, Provider: "api.openai.com"}
	content := ErrorContent("so far\n", in)
	if !strings.HasPrefix(content, "so far\n\nLLM_ERROR\n- code: LLM_RATE_LIMIT\n") {
		t.Fatalf("content %q", content)
	}
	p, out := ParseErrorContent(content)
	out.Fields = nil
	if p != "so far" || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip %q %+v", p, out)
	}
}

func TestRunInput(t *testing.T) {
	tests := []struct{ content, text, node string }{
		{"USER_INPUT\n- forNodeId: end\nhello\nworld", "hello\nworld", "end"},
		{RunInput("capture-idea", ""), "", "capture-idea"},
		{"plain text", "plain text", ""},
		{"USER_INPUT\n- forNodeId: x", "", "x"},
	}
	for _, tt := range tests {
		if text, node, _ := ParseRunInput(tt.content); text != tt.text || node != tt.node {
			t.Errorf("ParseRunInput(%q) = %q, %q", tt.content, text, node)
		}
	}
}

// The views of a run's conversation, as the conversation screen receives them.
func TestViewsGolden(t *testing.T) {
	entries := []*Entry{
		evt("e0", EventRunStarted),
		msg("u1", RoleUser, RunInput("capture-idea", "A grocery list for roommates."), run("r1")),
		msg("a1", RoleAssistant, "Noted.", run("r1"), calls("c1")),
		msg("t1", RoleTool, `{"ok":true}`, run("r1"), result("c1")),
	}
	entries = append(entries, ask("w1", "k1", "r1")...)
	entries = append(entries, answer("u2", "w1", "r1"),
		msg("x1", RoleAssistant, "Half\n\nLLM_ERROR\n- code: LLM_AUTH\n- message: bad key\n- retryable: false", run("r1"), part(PartError)))
	got, err := json.MarshalIndent(struct {
		Entries    []EntryView `json:"entries"`
		Unfinished bool        `json:"unfinished"`
	}{Views(entries), EndsUnfinished(Views(entries))}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "views.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(got)+"\n" {
		t.Fatalf("views differ from %s (run with -update to accept):\n%s", golden, got)
	}
}
