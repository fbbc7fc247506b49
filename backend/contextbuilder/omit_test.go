package contextbuilder

import (
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

func TestOmittedResultText(t *testing.T) {
	alias := "@state/logs/tool-results/c1/m9.json"
	tests := []struct {
		name string
		e    conversation.Entry
		want string
	}{
		{"ok result", conversation.Entry{Content: conversation.Str(`{"ok":true,"entries":["a.md"]}`)},
			`TOOL_RESULT_OMITTED {"ok":true} (30 bytes; includeToolResultsInContext is off)`},
		{"error with code", conversation.Entry{Content: conversation.Str(`{"ok":false,"error":{"code":"E_READ_LIMIT","message":"too big"}}`), IsError: true},
			`TOOL_RESULT_OMITTED {"ok":false,"error":{"code":"E_READ_LIMIT"}} (64 bytes; includeToolResultsInContext is off)`},
		{"error object without code", conversation.Entry{Content: conversation.Str(`{"ok":false,"error":{}}`)},
			`TOOL_RESULT_OMITTED {"ok":false} (23 bytes; includeToolResultsInContext is off)`},
		{"JSON wins over the flag", conversation.Entry{Content: conversation.Str(`{"ok":true}`), IsError: true},
			`TOOL_RESULT_OMITTED {"ok":true} (11 bytes; includeToolResultsInContext is off)`},
		{"plain text flagged as error", conversation.Entry{Content: conversation.Str("exit status 2"), IsError: true},
			`TOOL_RESULT_OMITTED {"ok":false} (13 bytes; includeToolResultsInContext is off)`},
		{"plain text", conversation.Entry{Content: conversation.Str("héllo")},
			`TOOL_RESULT_OMITTED {"ok":true} (6 bytes; includeToolResultsInContext is off)`},
		{"code with quotes is escaped", conversation.Entry{Content: conversation.Str(`{"ok":false,"error":{"code":"E\"X"}}`)},
			`TOOL_RESULT_OMITTED {"ok":false,"error":{"code":"E\"X"}} (36 bytes; includeToolResultsInContext is off)`},
		{"preview with alias: size of the full output", conversation.Entry{Content: conversation.Str("TOOL_RESULT_PREVIEW (184301 bytes; truncated)\n{\"ok\":true,\n…\nFull output: " + alias), FullOutputPath: alias},
			`TOOL_RESULT_OMITTED {"ok":true} (184301 bytes; includeToolResultsInContext is off) — read it with fs.read on ` + alias + ` if needed`},
		{"alias without a preview header", conversation.Entry{Content: conversation.Str("TOOL_RESULT_PREVIEW\nabc"), FullOutputPath: alias, IsError: true},
			`TOOL_RESULT_OMITTED {"ok":false} (23 bytes; includeToolResultsInContext is off) — read it with fs.read on ` + alias + ` if needed`},
		{"path that is not an alias", conversation.Entry{Content: conversation.Str(`{"ok":true}`), FullOutputPath: "/tmp/x.json"},
			`TOOL_RESULT_OMITTED {"ok":true} (11 bytes; includeToolResultsInContext is off)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.e.Role = conversation.RoleTool
			if got := omittedResult(&tt.e); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPreviewSize(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		isOK bool
	}{
		{"TOOL_RESULT_PREVIEW (12 bytes; truncated)\nx", 12, true},
		{"TOOL_RESULT_PREVIEW (0 bytes; truncated)", 0, true},
		{"TOOL_RESULT_PREVIEW (-3 bytes; truncated)", 0, false},
		{"TOOL_RESULT_PREVIEW (x bytes)", 0, false},
		{"TOOL_RESULT_PREVIEW (12", 0, false},
		{"TOOL_RESULT_PREVIEW\n{}", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		n, ok := previewSize(tt.in)
		if n != tt.n || ok != tt.isOK {
			t.Errorf("previewSize(%q) = %d, %v", tt.in, n, ok)
		}
	}
}

// omitLog is a finished tool turn, then a new user message whose turn has
// one answered and one unanswered call.
func omitLog() (l *logBuilder, old, current *conversation.Entry) {
	l = &logBuilder{}
	l.user("list the docs")
	l.calls("a")
	old = l.result("a", `{"ok":true,"content":"`+strings.Repeat("long file body ", 400)+`"}`)
	l.assistant("There is one file.")
	l.user("read it again")
	l.calls("b", "c")
	current = l.result("b", `{"ok":true,"content":"fresh"}`)
	return l, old, current
}

func TestOmitToolResultsBeforeNewestUser(t *testing.T) {
	l, old, current := omitLog()
	o := opts(conversation.ModeChat, l.entries)
	on := mustBuild(t, o)
	o.OmitToolResults = true
	off := mustBuild(t, o)
	if len(on.Messages) != len(off.Messages) {
		t.Fatalf("messages %d vs %d: a tool message went missing\n%s", len(on.Messages), len(off.Messages), dump(off.Messages))
	}
	for i, m := range off.Messages {
		switch m.SourceID {
		case old.ID:
			want := omittedResult(old)
			if m.Text() != want || m.ToolCallID != "a" || m.Role != conversation.RoleTool {
				t.Errorf("old result sent as %q (%s)", m.Text(), m.ToolCallID)
			}
			full := Message{Role: conversation.RoleTool, Content: &want, ToolCallID: "a", Name: "fs.read"}
			if m.Tokens != CountMessage(counter, testModel, &full) || m.Tokens >= old.Tokens {
				t.Errorf("stub costs %d tokens (stored result %d)", m.Tokens, old.Tokens)
			}
			if off.Debug.Rows[i].Reason != "kept: tool result omitted (includeToolResultsInContext is off)" {
				t.Errorf("reason %q", off.Debug.Rows[i].Reason)
			}
		case current.ID:
			if m.Text() != current.Text() {
				t.Errorf("current-turn result changed: %q", m.Text())
			}
		default:
			if m.Text() != on.Messages[i].Text() {
				t.Errorf("message %d changed: %q", i, m.Text())
			}
		}
	}
	last := off.Messages[len(off.Messages)-1]
	if last.Text() != SyntheticToolResult {
		t.Errorf("interrupted call not completed: %q", last.Text())
	}
	if reasonOf(off.Debug.Compressed, old.ID) == "" || off.Debug.Counts.Compressed != 1 {
		t.Errorf("compressed decisions %+v", off.Debug.Compressed)
	}
	if off.Debug.UsedTokens >= on.Debug.UsedTokens || off.Debug.UsedChars >= on.Debug.UsedChars {
		t.Errorf("usage not reduced: %d/%d tokens, %d/%d chars", off.Debug.UsedTokens, on.Debug.UsedTokens, off.Debug.UsedChars, on.Debug.UsedChars)
	}
	if off.Debug.UsedTokens != TokensOf(off.Messages) {
		t.Errorf("used %d != %d", off.Debug.UsedTokens, TokensOf(off.Messages))
	}
}

func TestOmitToolResultsWithoutUserMessage(t *testing.T) {
	var l logBuilder
	l.calls("a")
	r := l.result("a", `{"ok":true,"content":"x"}`)
	o := opts(conversation.ModeRun, l.entries)
	o.Run = fakeRun{"RUN_DIRECTIVE\n- intent: start"}
	o.OmitToolResults = true
	res := mustBuild(t, o)
	for _, m := range res.Messages {
		if m.SourceID == r.ID && m.Text() != r.Text() {
			t.Errorf("a run without user message is all current turn; result sent as %q", m.Text())
		}
	}
}

// With results omitted, history that did not fit the token budget fits.
func TestOmitToolResultsFreesBudget(t *testing.T) {
	l, _, _ := omitLog()
	first := l.entries[0].ID
	o := opts(conversation.ModeChat, l.entries)
	o.Budget = Budget{TokenBudget: 1400}
	if res := mustBuild(t, o); !res.Debug.SafetyNet {
		t.Fatalf("budget too large for the test: %v", ids(res.Messages))
	}
	o.OmitToolResults = true
	res := mustBuild(t, o)
	if ids := ids(res.Messages); ids[0] != first || res.Debug.SafetyNet {
		t.Errorf("with results omitted the whole history should fit: %v (used %d/%d)", ids, res.Debug.UsedTokens, res.Debug.TokenLimit)
	}
}

// A renamed call id is carried by the stub and counted.
func TestOmitToolResultsRenamedCall(t *testing.T) {
	var l logBuilder
	l.user("one")
	l.calls("call_0")
	old := l.result("call_0", `{"ok":false,"error":{"code":"ENOENT","message":"no such file"}}`)
	l.user("two")
	l.calls("call_0")
	l.result("call_0", `{"ok":true}`)
	l.user("three")
	o := opts(conversation.ModeChat, l.entries)
	o.OmitToolResults = true
	res := mustBuild(t, o)
	for _, m := range res.Messages {
		if m.SourceID != old.ID {
			continue
		}
		if m.ToolCallID != "call_0-2" || !strings.Contains(m.Text(), `"code":"ENOENT"`) {
			t.Errorf("renamed stub: %s %q", m.ToolCallID, m.Text())
		}
		if m.Tokens != CountMessage(counter, testModel, &m) {
			t.Errorf("tokens %d, want %d", m.Tokens, CountMessage(counter, testModel, &m))
		}
	}
}
