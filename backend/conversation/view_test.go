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
func finish(reason string) opt { return func(e *Entry) { e.FinishReason = reason } }
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
		if v.View.Incomplete != "" {
			k += "/incomplete-" + v.View.Incomplete
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
		{"an answer cut short is incomplete, actionable while it is the latest", []*Entry{
			msg("u1", RoleUser, "explain"), msg("a1", RoleAssistant, "The first half", finish(FinishLength)),
			msg("u2", RoleUser, "continue"), msg("a2", RoleAssistant, "", finish(FinishContentFilter)),
			msg("u3", RoleUser, "thanks"), msg("a3", RoleAssistant, "Done.", finish("stop")),
		}, "u1:user a1:assistant/incomplete-length u2:user a2:assistant/incomplete-content_filter u3:user a3:assistant"},
		{"an incomplete answer after an error is the one to continue", []*Entry{
			msg("u", RoleUser, "q"), msg("e1", RoleAssistant, errContent, part(PartError)), msg("a1", RoleAssistant, "cut", finish(FinishLength)),
		}, "u:user e1:error a1:assistant/incomplete-length/latest"},
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

func TestEnding(t *testing.T) {
	tools := []*Entry{msg("a1", RoleAssistant, "", calls("c1"))}
	tests := []struct {
		name        string
		entries     []*Entry
		cutAt       string
		want        string
		canContinue bool
	}{
		{"a user message without a reply", []*Entry{msg("u1", RoleUser, "hi")}, "", EndUnfinished, false},
		{"a user message, then only a checkpoint", []*Entry{msg("u1", RoleUser, "hi"), evt("e1", EventCheckpoint)}, "", EndUnfinished, false},
		{"a tool call without its result", append([]*Entry{msg("u1", RoleUser, "list")}, tools...), "", EndUnfinished, true},
		{"a tool result without the answer after it", append(append([]*Entry{msg("u1", RoleUser, "list")}, tools...), msg("t1", RoleTool, "{}", result("c1"))), "", EndUnfinished, true},
		{"a tool result whose call is not loaded", []*Entry{msg("t1", RoleTool, "{}", result("gone"))}, "", EndUnfinished, true},
		{"reasoning without the answer", []*Entry{msg("u1", RoleUser, "why"), msg("r1", RoleAssistant, "hmm", part(PartThinking))}, "", EndUnfinished, false},
		{"reasoning after a tool step", append(append([]*Entry{msg("u1", RoleUser, "list")}, tools...), msg("t1", RoleTool, "{}", result("c1")), msg("r1", RoleAssistant, "hmm", part(PartThinking))), "", EndUnfinished, true},
		{"an answered question without what followed", append(ask("w1", "k1", "r1"), answer("u3", "w1", "r1")), "", EndUnfinished, true},
		{"an answer", []*Entry{msg("u1", RoleUser, "hi"), msg("a9", RoleAssistant, "hello")}, "", EndSettled, false},
		{"an answer, then an empty reply", []*Entry{msg("u1", RoleUser, "hi"), msg("a9", RoleAssistant, "hello"), msg("a10", RoleAssistant, " ")}, "", EndSettled, false},
		{"a persisted failure", []*Entry{msg("u1", RoleUser, "hi"), msg("x", RoleAssistant, "LLM_ERROR\n- code: LLM_TIMEOUT", part(PartError))}, "", EndSettled, false},
		{"a question waiting for its answer", ask("w1", "k1", "r1"), "", EndSettled, false},
		{"a call waiting for approval", append(append([]*Entry{msg("u1", RoleUser, "write")}, tools...),
			msg("t1", RoleTool, "{}", result("c1"), func(e *Entry) { e.Approval = &Approval{State: ApprovalWaiting} })), "", EndSettled, false},
		{"a call whose approval was answered", append(append([]*Entry{msg("u1", RoleUser, "write")}, tools...),
			msg("t1", RoleTool, "{}", result("c1"), func(e *Entry) { e.Approval = &Approval{State: ApprovalDenied} })), "", EndUnfinished, true},
		{"nothing", nil, "", EndSettled, false},
		// A fork cut at a message was cut on purpose: nothing was interrupted.
		{"a fork cut at a user message", []*Entry{evt("f", EventForkOrigin), msg("u1", RoleUser, "hi")}, "u1", EndAwaiting, false},
		{"a fork cut at a tool call", append([]*Entry{evt("f", EventForkOrigin), msg("u1", RoleUser, "list")}, tools...), "a1", EndSettled, false},
		{"a fork cut at a user message, sent again and cut off", []*Entry{evt("f", EventForkOrigin), msg("u1", RoleUser, "hi"), msg("u2", RoleUser, "again")}, "u1", EndUnfinished, false},
		{"a fork cut at a message, answered", []*Entry{msg("u1", RoleUser, "hi"), msg("a2", RoleAssistant, "hello")}, "u1", EndSettled, false},
		{"an answer cut short, even an empty one", []*Entry{msg("u1", RoleUser, "hi"), msg("a9", RoleAssistant, "", finish(FinishContentFilter))}, "", EndSettled, false},
		{"an answer cut short, at a fork cut", []*Entry{evt("f", EventForkOrigin), msg("u1", RoleUser, "hi"), msg("a9", RoleAssistant, "half", finish(FinishLength))}, "a9", EndSettled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, canContinue := Ending(Views(tt.entries), tt.cutAt)
			if got != tt.want || canContinue != tt.canContinue {
				t.Fatalf("Ending = %q, %v; want %q, %v (%s)", got, canContinue, tt.want, tt.canContinue, kinds(Views(tt.entries)))
			}
		})
	}
}

// A reply the user stopped is not a failure; what a failed or stopped reply
// offers depends on what there is to continue from.
func TestFailureActions(t *testing.T) {
	// A failure that a retry answered is settled.
	retried := msg("x", RoleAssistant, "LLM_ERROR\n- code: LLM_NETWORK", part(PartError))
	retried.IncludeInContext = Bool(false)
	vs := Views([]*Entry{msg("u", RoleUser, "q"), retried, msg("a", RoleAssistant, "the answer")})
	if vs[1].View.Latest {
		t.Fatal("a failure answered by a retry is still the latest")
	}

	block := func(code string) string { return "LLM_ERROR\n- code: " + code + "\n- message: m\n- retryable: true" }
	tests := []struct {
		name    string
		entries []*Entry
		want    string // kind/latest/continue of the last entry
	}{
		{"stopped before any text", []*Entry{msg("u", RoleUser, "q"), msg("x", RoleAssistant, block("LLM_ABORTED"), part(PartError))}, "stopped latest"},
		{"stopped with text", []*Entry{msg("u", RoleUser, "q"), msg("x", RoleAssistant, "half\n\n"+block("LLM_ABORTED"), part(PartError))}, "stopped latest continue"},
		{"a run stopped", []*Entry{msg("u", RoleUser, "q", run("r")), msg("x", RoleAssistant, block("ENGINE_ABORTED"), run("r"), part(PartError))}, "stopped latest"},
		{"failed before any text", []*Entry{msg("u", RoleUser, "q"), msg("x", RoleAssistant, block("LLM_NETWORK"), part(PartError))}, "error latest"},
		{"failed after a tool step", []*Entry{msg("u", RoleUser, "q"), msg("a", RoleAssistant, "", calls("c")), msg("t", RoleTool, "{}", result("c")),
			msg("x", RoleAssistant, block("LLM_NETWORK"), part(PartError))}, "error latest continue"},
		{"a failure answered since", []*Entry{msg("u", RoleUser, "q"), msg("x", RoleAssistant, "half\n\n"+block("LLM_NETWORK"), part(PartError)), msg("u2", RoleUser, "go on")}, "user"},
		{"an answer cut short with text", []*Entry{msg("u", RoleUser, "q"), msg("a", RoleAssistant, "The first half", finish(FinishLength))}, "assistant latest continue"},
		{"an answer cut short before any text", []*Entry{msg("u", RoleUser, "q"), msg("a", RoleAssistant, "", finish(FinishContentFilter))}, "assistant latest"},
		{"an empty answer cut short after a tool step", []*Entry{msg("u", RoleUser, "q"), msg("a", RoleAssistant, "", calls("c")), msg("t", RoleTool, "{}", result("c")),
			msg("b", RoleAssistant, "", finish(FinishContentFilter))}, "assistant latest continue"},
		{"an answer cut short, answered by a retry", []*Entry{msg("u", RoleUser, "q"), msg("a", RoleAssistant, "half", finish(FinishLength), func(e *Entry) { e.IncludeInContext = Bool(false) }),
			msg("b", RoleAssistant, "whole")}, "assistant"},
		{"a failure, then a meta message", []*Entry{msg("u", RoleUser, "q"), msg("x", RoleAssistant, block("LLM_NETWORK"), part(PartError)), msg("m", RoleUser, "skill", meta())}, "hidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := Views(tt.entries)
			v := vs[len(vs)-1].View
			got := v.Kind
			if v.Latest {
				got += " latest"
			}
			if v.Continue {
				got += " continue"
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if (v.Kind == ViewStopped) != (v.Problem == nil && v.Error != nil) && v.Kind != ViewUser {
				t.Fatalf("a stop has no problem, a failure has one: %+v", v)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		name     string
		block    ErrorBlock
		title    string
		settings bool
	}{
		{"server down", ErrorBlock{Code: "LLM_NETWORK", Provider: "127.0.0.1:11434",
			Message: `Post "http://127.0.0.1:11434/v1/chat/completions": dial tcp 127.0.0.1:11434: connect: connection refused`}, "Can't reach the model server", true},
		{"unknown host", ErrorBlock{Code: "LLM_NETWORK", Message: `Post "http://llm.invalid/v1/chat/completions": dial tcp: lookup llm.invalid: no such host`}, "Can't reach the model server", true},
		{"stream cut", ErrorBlock{Code: "LLM_NETWORK", Message: "the connection closed before the answer was complete"}, "The connection broke off in the middle of the answer", false},
		{"wrong key", ErrorBlock{Code: "LLM_AUTH", Status: 401, Message: "Incorrect API key provided"}, "The server refused the API key", true},
		{"unknown model (Ollama)", ErrorBlock{Code: "LLM_BAD_RESPONSE", Status: 404, Message: `model "llama9" not found, try pulling it first`}, "The server doesn't have this model", true},
		{"unknown model (OpenAI)", ErrorBlock{Code: "LLM_BAD_RESPONSE", Status: 404, Message: "The model `gpt-9` does not exist or you do not have access to it."}, "The server doesn't have this model", true},
		{"wrong path", ErrorBlock{Code: "LLM_BAD_RESPONSE", Status: 404, Message: "HTTP 404 Not Found (check the base URL, which usually ends in /v1, and the model name)"}, "Nothing answers at this address", true},
		{"rate limited", ErrorBlock{Code: "LLM_RATE_LIMIT", Status: 429, RetryAfter: 20e9, Message: "Rate limit reached"}, "Too many requests for now", false},
		{"quota", ErrorBlock{Code: "LLM_RATE_LIMIT", Status: 429, Message: "You exceeded your current quota"}, "The API key's quota is used up", true},
		{"first token", ErrorBlock{Code: "LLM_TIMEOUT", Message: "no answer within 1m0s of sending the request (first-token timeout)"}, "The model took too long to answer", true},
		{"stalled", ErrorBlock{Code: "LLM_TIMEOUT", Message: "the stream stalled: no data for 30s (idle timeout)"}, "The answer stalled", true},
		{"server error", ErrorBlock{Code: "LLM_SERVER", Status: 502}, "The model server had an internal error (HTTP 502)", false},
		{"too long", ErrorBlock{Code: "LLM_CONTEXT_LENGTH"}, "The conversation is too long for the model", true},
		{"stream ended early", ErrorBlock{Code: "LLM_STREAM_INCOMPLETE", Message: "the stream ended before the answer was finished (no finish_reason and no [DONE]: the server closed the connection)"},
			"The connection broke off in the middle of the answer", false},
		{"still too large after compaction", ErrorBlock{Code: "CONTEXT_STILL_TOO_LARGE", Message: "the next request needs 9000 tokens, over the limit of 8000"}, "This step does not fit in the model's context", true},
		{"unknown", ErrorBlock{Code: "SOMETHING_NEW", Message: "odd"}, "The answer failed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Describe(tt.block)
			if p.Title != tt.title || p.Settings != tt.settings {
				t.Fatalf("Describe = %+v, want %q (settings %v)", p, tt.title, tt.settings)
			}
			for _, s := range []string{p.Title, p.Advice} {
				if strings.Contains(s, tt.block.Code) || strings.Contains(s, "dial tcp") {
					t.Errorf("internal words leak: %q", s)
				}
			}
		})
	}
	if p := Describe(ErrorBlock{Code: "LLM_RATE_LIMIT", RetryAfter: 20e9}); !strings.Contains(p.Advice, "20 seconds") {
		t.Errorf("retry after: %q", p.Advice)
	}
	if p := Describe(ErrorBlock{Code: "LLM_NETWORK", Provider: "127.0.0.1:11434", Message: "connect: connection refused"}); !strings.Contains(p.Advice, "127.0.0.1:11434") {
		t.Errorf("where: %q", p.Advice)
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

func TestToolResultPreview(t *testing.T) {
	full := strings.Repeat("line of output\n", 400)
	content := ToolResultPreview(full, 30, "@state/logs/tool-results/c/m.json")
	head, size, alias, ok := ParseToolResultPreview(content)
	if !ok || size != len(full) || alias != "@state/logs/tool-results/c/m.json" || head != strings.TrimSuffix(full[:30], "\n") {
		t.Fatalf("ParseToolResultPreview = %q, %d, %q, %v", head, size, alias, ok)
	}
	v := Views([]*Entry{msg("t", RoleTool, content, result("c"))})[0].View
	if v.Large == nil || v.Large.Size != len(full) || strings.Contains(v.Large.Head, "TOOL_RESULT_PREVIEW") || strings.Contains(v.Large.Head, "@state") {
		t.Fatalf("view %+v", v.Large)
	}
	// The store adds a line about reading the output in parts.
	paged := content + "\nRead it in parts: fs.read @state/logs/tool-results/c/m.txt with startLine/endLine (400 lines; about 200 lines per read), or fs.search it."
	if h, n, a, ok := ParseToolResultPreview(paged); !ok || h != head || n != len(full) || a != "@state/logs/tool-results/c/m.json" {
		t.Fatalf("ParseToolResultPreview of a paged preview = %q, %d, %q, %v", h, n, a, ok)
	}
	for _, c := range []string{"plain", "TOOL_RESULT_PREVIEW (x bytes; truncated)\nabc", "TOOL_RESULT_PREVIEW (12 bytes"} {
		if _, _, _, ok := ParseToolResultPreview(c); ok {
			t.Errorf("%q read as a preview", c)
		}
	}
}

// The views of a chat conversation with versions, a stopped reply, a
// failure and a large tool result, as the conversation screen receives them
// (frontend/src/features/chat/messageRows.test.ts reads this file too).
func TestChatViewsGolden(t *testing.T) {
	l := &memLog{t: t}
	l.add(msg("u1", RoleUser, "Capital of France?"), msg("a1", RoleAssistant, "Paris."))
	l.regenerate("a1")
	l.add(msg("a1b", RoleAssistant, "Paris, on the Seine."))
	l.apply(PlanEdit(l.entries, "u1", msg("u1b", RoleUser, "Capital of Italy?")))
	l.add(msg("a2", RoleAssistant, "", calls("c1")),
		msg("t2", RoleTool, ToolResultPreview(strings.Repeat("row\n", 20000), 12, "@state/logs/tool-results/c/t2.json"), result("c1")),
		msg("a3", RoleAssistant, "Rome."),
		msg("u3", RoleUser, "Tell me more"),
		msg("x1", RoleAssistant, ErrorContent("", ErrorBlock{Code: "LLM_NETWORK", Provider: "127.0.0.1:1", Retryable: true,
			Message: `Post "http://127.0.0.1:1/v1/chat/completions": dial tcp 127.0.0.1:1: connect: connection refused`}), part(PartError)),
		msg("u4", RoleUser, "A poem, then"),
		msg("s1", RoleAssistant, ErrorContent("Roses are", ErrorBlock{Code: "LLM_ABORTED", Message: "stopped before the answer was complete", Retryable: true}), part(PartError)))
	for i, e := range l.entries {
		if e.IsEvent() {
			e.ID = "evt-" + string(rune('a'+i))
		}
	}
	views := Views(l.entries)
	state, canContinue := Ending(views, "")
	got, err := json.MarshalIndent(struct {
		Entries     []EntryView `json:"entries"`
		Unfinished  bool        `json:"unfinished"`
		CanContinue bool        `json:"canContinue"`
	}{views, state == EndUnfinished, canContinue}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "chat-views.golden.json")
	if *update {
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
