package contextbuilder

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

func systemText(msgs []Message) string {
	var parts []string
	for _, m := range msgs {
		if m.Kind == KindSystem {
			parts = append(parts, m.Text())
		}
	}
	return strings.Join(parts, "\n---\n")
}

func TestSystemPromptPerMode(t *testing.T) {
	var l logBuilder
	l.user("hello")
	run := fakeRun{"RUN_DIRECTIVE\n- runType: bmad-micro\nProtocol:\n1) Read @state/workflow.md frontmatter to get currentNodeId."}
	tests := []struct {
		mode        string
		wantSystem  int
		wantPersona bool
		baseMarker  string
	}{
		{conversation.ModeChat, 3, false, "a desktop assistant"},
		{conversation.ModeAgent, 4, true, "a desktop assistant"},
		{conversation.ModeRun, 4, true, "running a workflow step by step"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			o := opts(tt.mode, l.entries)
			o.Run = run
			res := mustBuild(t, o)
			if res.Debug.Counts.System != tt.wantSystem {
				t.Fatalf("system messages = %d, want %d", res.Debug.Counts.System, tt.wantSystem)
			}
			sys := systemText(res.Messages)
			if !strings.Contains(sys, tt.baseMarker) {
				t.Errorf("base rules for %s missing %q", tt.mode, tt.baseMarker)
			}
			if got := strings.Contains(sys, "PERSONA"); got != tt.wantPersona {
				t.Errorf("persona present = %v, want %v", got, tt.wantPersona)
			}
			if tt.wantPersona && !strings.Contains(sys, "You are Mary, Business Analyst (agent id: analyst)") {
				t.Errorf("persona not rendered:\n%s", sys)
			}
			banner := "MODE\n- active: " + tt.mode + "\n- note: history may include other modes; follow current instructions."
			last := res.Messages[tt.wantSystem-1]
			if last.Text() != banner {
				t.Errorf("last system message = %q, want the mode banner %q", last.Text(), banner)
			}
			for _, want := range []string{"TOOL POLICY", "fs.list, fs.read, fs.search, fs.write, fs.apply_patch, ui.ask_user", "512 KiB (524288 bytes)", "2 MiB (2097152 bytes)", "ui.ask_user shows"} {
				if !strings.Contains(sys, want) {
					t.Errorf("tool policy missing %q", want)
				}
			}
			// The run directive protocol travels only in the RUN_DIRECTIVE user block.
			for _, banned := range []string{"RUN_DIRECTIVE\n", "Protocol:", "1) Read @state/workflow.md"} {
				if strings.Contains(sys, banned) {
					t.Errorf("system prompt contains run protocol text %q", banned)
				}
			}
		})
	}
}

func TestToolPolicyWithoutTools(t *testing.T) {
	var l logBuilder
	l.user("hi")
	o := opts(conversation.ModeChat, l.entries)
	o.ToolPolicy = ToolPolicy{}
	res := mustBuild(t, o)
	sys := systemText(res.Messages)
	if !strings.Contains(sys, "No tools are enabled") || strings.Contains(sys, "fs.read returns") {
		t.Errorf("policy without tools:\n%s", sys)
	}
	o.ToolPolicy = ToolPolicy{MCPServers: []string{"docs"}}
	o.ToolNames = []string{"fs.read"}
	o.ToolPolicy.MaxReadBytes = 1000
	res = mustBuild(t, o)
	sys = systemText(res.Messages)
	for _, want := range []string{"Enabled tools: fs.read.", "1000 bytes", "MCP servers, programs the user added: docs."} {
		if !strings.Contains(sys, want) {
			t.Errorf("missing %q in\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "fs.write accepts") || !slices.Equal(res.ToolNames, []string{"fs.read"}) {
		t.Errorf("unexpected policy or tool names %v:\n%s", res.ToolNames, sys)
	}
}

func TestOptionErrors(t *testing.T) {
	var l logBuilder
	l.user("x")
	tests := []struct {
		name string
		mod  func(*Options)
		want error
	}{
		{"invalid mode", func(o *Options) { o.Mode = "workflow" }, ErrInvalidMode},
		{"no counter", func(o *Options) { o.Counter = nil }, ErrNoCounter},
		{"agent without persona", func(o *Options) { o.Mode = conversation.ModeAgent; o.Agent = nil }, ErrPersonaRequired},
		{"run without persona", func(o *Options) { o.Mode = conversation.ModeRun; o.Agent = nil; o.Run = fakeRun{"RUN_DIRECTIVE"} }, ErrPersonaRequired},
		{"run without injector", func(o *Options) { o.Mode = conversation.ModeRun; o.Agent = testPersona() }, ErrRunInjectorRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts(conversation.ModeChat, l.entries)
			tt.mod(&o)
			_, err := Build(o)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.want.(*Error).Code || e.Message == "" || strings.HasPrefix(e.Message, e.Code) {
				t.Fatalf("error %q: want the code %s apart from a message", err, tt.want.(*Error).Code)
			}
		})
	}
}

func TestChatIgnoresPersonaAndInjector(t *testing.T) {
	var l logBuilder
	l.user("hi")
	o := opts(conversation.ModeChat, l.entries)
	o.Agent = testPersona()
	o.Run = fakeRun{"RUN_DIRECTIVE"}
	res := mustBuild(t, o)
	if strings.Contains(systemText(res.Messages), "PERSONA") || res.Debug.Counts.Injections != 0 {
		t.Fatalf("chat mode rendered persona or injections:\n%s", dump(res.Messages))
	}
}

// Message and character caps never cut a request: they only report the
// full size, which the engine reads as a compaction trigger.
func TestCapsNeverCut(t *testing.T) {
	var l logBuilder
	for i := 0; i < 30; i++ {
		l.user(strings.Repeat("question ", 20))
		l.assistant(strings.Repeat("answer ", 20))
	}
	l.user("the newest question")
	for _, b := range []Budget{{MaxMessages: 10}, {MaxChars: 5000}} {
		o := opts(conversation.ModeChat, l.entries)
		o.Budget = b
		res := mustBuild(t, o)
		if n := res.Debug.Counts.History; n != len(l.entries) {
			t.Fatalf("%+v: %d of %d messages kept", b, n, len(l.entries))
		}
		d := res.Debug
		if d.FullMessages != len(res.Messages) || d.SafetyNet || len(d.Dropped) != 0 {
			t.Fatalf("%+v: %+v", b, d)
		}
		if b.MaxChars > 0 && d.FullChars != d.UsedChars {
			t.Fatalf("chars %d / %d", d.FullChars, d.UsedChars)
		}
	}
}

// Over the token limit, the safety net leaves out the oldest history first,
// whole units, and says so; the newest user message stays last.
func TestSafetyNetTrimsOlderFirst(t *testing.T) {
	var l logBuilder
	for i := 0; i < 30; i++ {
		l.user(strings.Repeat("question ", 20))
		l.assistant(strings.Repeat("answer ", 20))
	}
	last := l.user("the newest question")
	o := opts(conversation.ModeChat, l.entries)
	o.Budget = Budget{TokenBudget: 2000}
	res := mustBuild(t, o)
	got := ids(res.Messages)
	if len(got) == 0 || got[len(got)-1] != last.ID {
		t.Fatalf("newest user message not last: %v", got)
	}
	all := make([]string, 0, len(l.entries))
	for _, e := range l.entries {
		all = append(all, e.ID)
	}
	if !slices.Equal(got, all[len(all)-len(got):]) {
		t.Fatalf("kept %v is not the newest suffix of the log", got)
	}
	if len(got) == len(all) {
		t.Fatalf("nothing trimmed")
	}
	d := res.Debug
	if r := reasonOf(d.Dropped, all[0]); !strings.Contains(r, "safety net") {
		t.Fatalf("oldest message reason = %q", r)
	}
	if d.OverBudget || d.UsedTokens > d.TokenLimit || !d.SafetyNet || d.FullTokens <= d.TokenLimit || len(d.Notes) == 0 {
		t.Fatalf("debug: %+v", d)
	}
	// The units left out are still spans (for compaction), marked trimmed.
	trimmed := 0
	for _, sp := range res.Spans {
		if sp.Trimmed {
			trimmed += sp.Count
		}
	}
	if trimmed != d.Counts.Trimmed || trimmed != len(all)-len(got) {
		t.Fatalf("trimmed spans %d, counts %d, left out %d", trimmed, d.Counts.Trimmed, len(all)-len(got))
	}
}

func TestToolGroupsStayWholeWhenTrimmed(t *testing.T) {
	var l logBuilder
	l.user("start")
	for i := 0; i < 10; i++ {
		l.calls("c"+string(rune('a'+i))+"1", "c"+string(rune('a'+i))+"2", "c"+string(rune('a'+i))+"3")
		l.result("c"+string(rune('a'+i))+"1", "r1")
		l.result("c"+string(rune('a'+i))+"2", "r2")
		l.result("c"+string(rune('a'+i))+"3", "r3")
	}
	l.user("now")
	full := mustBuild(t, opts(conversation.ModeChat, l.entries)).Debug.UsedTokens
	for limit := full - 300; limit < full; limit += 20 {
		o := opts(conversation.ModeChat, l.entries)
		o.Budget = Budget{TokenBudget: limit}
		res := mustBuild(t, o) // Validate fails on a split group
		if res.Debug.UsedTokens > limit {
			t.Fatalf("limit %d: %d tokens", limit, res.Debug.UsedTokens)
		}
		// Groups are 4 messages: everything kept after the system prompt and
		// before the newest user message is a whole number of groups.
		hist := res.Debug.Counts.History - 1
		if hist%4 != 0 && hist%4 != 1 {
			t.Fatalf("limit %d: %d history messages is not whole groups\n%s", limit, hist, dump(res.Messages))
		}
	}
}

func TestHistoryFilters(t *testing.T) {
	var l logBuilder
	sysOld := l.system("You are an old system prompt.")
	ev := l.event(conversation.EventModeSwitch)
	u1 := l.user("first")
	hidden := l.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("ui only"), IncludeInContext: conversation.Bool(false)})
	compacted := l.add(conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("old"), Compacted: true})
	thinking := l.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("hmm"), PartType: conversation.PartThinking})
	dev := l.add(conversation.Entry{Role: conversation.RoleDeveloper, Content: conversation.Str("developer note")})
	empty := l.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("")})
	odd := l.add(conversation.Entry{Role: "function", Content: conversation.Str("x")})
	a1 := l.assistant("answer")
	summary := l.system("CONVERSATION_SUMMARY\nThe user asked for a plan.")
	summary2 := l.add(conversation.Entry{Role: conversation.RoleDeveloper, Content: conversation.Str("SUMMARY: earlier")})
	u2 := l.user("second")

	res := mustBuild(t, opts(conversation.ModeChat, l.entries))
	want := []string{summary.ID, summary2.ID, u1.ID, a1.ID, u2.ID}
	if got := ids(res.Messages); !slices.Equal(got, want) {
		t.Fatalf("history = %v, want %v\n%s", got, want, dump(res.Messages))
	}
	for id, reason := range map[string]string{
		sysOld.ID:    "dropped: historical system message",
		hidden.ID:    "excluded: includeInContext=false",
		compacted.ID: "excluded: compacted (replaced by a compaction)",
		thinking.ID:  "excluded: thinking part",
		dev.ID:       "dropped: historical system message",
		empty.ID:     "dropped: empty assistant message",
		odd.ID:       `dropped: unknown role "function"`,
	} {
		if got := reasonOf(res.Debug.Dropped, id); got != reason {
			t.Errorf("%s: reason %q, want %q", id, got, reason)
		}
	}
	if reasonOf(res.Debug.Dropped, ev.ID) != "" || res.Debug.Counts.Events != 1 {
		t.Errorf("events: counts %+v", res.Debug.Counts)
	}
	sum := res.Messages[res.Debug.Counts.System]
	if sum.Role != conversation.RoleSystem || sum.SourceID != summary.ID {
		t.Errorf("summary not first in history: %+v", sum)
	}
	if r := reasonOf(res.Debug.Kept, summary2.ID); !strings.Contains(r, "summary") {
		t.Errorf("summary reason %q", r)
	}
	if res.Messages[res.Debug.Counts.System+1].Role != conversation.RoleSystem {
		t.Errorf("developer summary must enter as system")
	}
}

func TestIsSummary(t *testing.T) {
	for s, want := range map[string]bool{
		"CONVERSATION_SUMMARY\nx": true, "SUMMARY: x": true, "  \nSUMMARY": true,
		"summary": false, "The SUMMARY": false, "": false,
	} {
		if IsSummary(s) != want {
			t.Errorf("IsSummary(%q) = %v", s, !want)
		}
	}
}

func TestToolResultRules(t *testing.T) {
	t.Run("interleaved results follow their call", func(t *testing.T) {
		var l logBuilder
		u := l.user("read two files")
		c := l.calls("a", "b")
		ra := l.result("a", "A")
		u2 := l.user("meanwhile")
		rb := l.result("b", "B")
		res := mustBuild(t, opts(conversation.ModeChat, l.entries))
		if got, want := ids(res.Messages), []string{u.ID, c.ID, ra.ID, rb.ID, u2.ID}; !slices.Equal(got, want) {
			t.Fatalf("order %v, want %v", got, want)
		}
		if r := reasonOf(res.Debug.Kept, rb.ID); r != "kept: tool result (moved to follow its call)" {
			t.Errorf("reason %q", r)
		}
		if r := reasonOf(res.Debug.Kept, ra.ID); r != "kept" {
			t.Errorf("in-place result reason %q", r)
		}
	})
	t.Run("result logged before its call is an orphan", func(t *testing.T) {
		var l logBuilder
		r := l.result("x", "early")
		u := l.user("go")
		c := l.calls("x")
		res := mustBuild(t, opts(conversation.ModeChat, l.entries))
		if got, want := ids(res.Messages), []string{u.ID, c.ID}; !slices.Equal(got, want) {
			t.Fatalf("order %v, want %v", got, want)
		}
		if res.Messages[len(res.Messages)-1].Text() != SyntheticToolResult {
			t.Fatalf("call not completed synthetically:\n%s", dump(res.Messages))
		}
		if got := reasonOf(res.Debug.Dropped, r.ID); got != "dropped: orphan tool result (no matching tool call)" {
			t.Fatalf("reason %q", got)
		}
	})
	t.Run("missing result becomes synthetic", func(t *testing.T) {
		var l logBuilder
		l.user("go")
		l.calls("a", "b")
		l.result("b", "B")
		res := mustBuild(t, opts(conversation.ModeChat, l.entries))
		syn := res.Messages[len(res.Messages)-2]
		if syn.ToolCallID != "a" || syn.Text() != SyntheticToolResult || syn.SourceID != "" || syn.Name != "fs.read" {
			t.Fatalf("synthetic result: %+v", syn)
		}
		if syn.Tokens != CountMessage(counter, testModel, &syn) || syn.Tokens < 10 {
			t.Fatalf("synthetic tokens %d", syn.Tokens)
		}
		if res.Debug.Counts.Synthetic != 1 || res.Debug.Rows[len(res.Messages)-2].Reason != "synthetic: interrupted tool call" {
			t.Fatalf("debug: %+v", res.Debug.Rows)
		}
	})
	t.Run("orphan result dropped", func(t *testing.T) {
		var l logBuilder
		l.user("go")
		o := l.result("nope", "lost")
		noID := l.add(conversation.Entry{Role: conversation.RoleTool, Content: conversation.Str("no id")})
		res := mustBuild(t, opts(conversation.ModeChat, l.entries))
		for _, e := range []*conversation.Entry{o, noID} {
			if r := reasonOf(res.Debug.Dropped, e.ID); r != "dropped: orphan tool result (no matching tool call)" {
				t.Errorf("%s: reason %q", e.ID, r)
			}
		}
	})
	t.Run("duplicate results keep the last", func(t *testing.T) {
		var l logBuilder
		l.user("go")
		l.calls("a")
		first := l.result("a", "first")
		second := l.result("a", "second")
		res := mustBuild(t, opts(conversation.ModeChat, l.entries))
		lastMsg := res.Messages[len(res.Messages)-1]
		if lastMsg.SourceID != second.ID || lastMsg.Text() != "second" {
			t.Fatalf("kept %+v", lastMsg)
		}
		if r := reasonOf(res.Debug.Dropped, first.ID); r != "dropped: duplicate tool result (the last one is kept)" {
			t.Errorf("reason %q", r)
		}
	})
	t.Run("reused and empty call ids", func(t *testing.T) {
		// Some servers number calls per response ("call_0" in every turn):
		// each result answers the nearest call before it, and older reuses of
		// an id are renamed so ids stay unique in the request.
		var l logBuilder
		l.user("go")
		first := l.calls("call_0")
		r1 := l.result("call_0", "one")
		second := l.add(conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{
			{ID: "call_0", Function: conversation.FunctionCall{Name: "fs.read"}},
			{ID: "", Function: conversation.FunctionCall{Name: "fs.list"}},
			{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.list", Arguments: "{}"}},
			{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.list", Arguments: "{}"}},
		}})
		r2 := l.result("call_0", "two")
		r3 := l.result("call_1", "three")
		res := mustBuild(t, opts(conversation.ModeChat, l.entries))
		got := res.Messages[res.Debug.Counts.System+1:]
		want := []struct{ src, call, result string }{
			{first.ID, "call_0-2", ""}, {r1.ID, "", "call_0-2"},
			{second.ID, "call_0", ""}, {r2.ID, "", "call_0"}, {r3.ID, "", "call_1"},
		}
		if len(got) != len(want) {
			t.Fatalf("got\n%s", dump(res.Messages))
		}
		for i, w := range want {
			m := got[i]
			if m.SourceID != w.src || m.ToolCallID != w.result || (w.call != "" && m.ToolCalls[0].ID != w.call) {
				t.Fatalf("message %d = %+v, want %+v\n%s", i, m, w, dump(res.Messages))
			}
		}
		if len(got[2].ToolCalls) != 2 || got[2].ToolCalls[0].Type != "function" {
			t.Fatalf("calls not filtered: %+v", got[2].ToolCalls)
		}
		var reasons []string
		for _, d := range res.Debug.Dropped {
			reasons = append(reasons, d.Reason)
		}
		if !slices.Equal(reasons, []string{"dropped: tool call fs.list without id", "dropped: tool call with duplicate id call_1"}) {
			t.Fatalf("dropped: %v", reasons)
		}
		if r := reasonOf(res.Debug.Kept, r1.ID); !strings.Contains(r, "renamed call_0-2") {
			t.Fatalf("reason %q", r)
		}
		if got[1].Tokens <= r1.Tokens {
			t.Fatalf("renamed id not counted: %d vs %d", got[1].Tokens, r1.Tokens)
		}
	})
}

func TestErrorPartEntersAsAssistant(t *testing.T) {
	var l logBuilder
	l.user("write the report")
	errMsg := l.add(conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str("Partial report text\n\nLLM_ERROR\n- code: LLM_TIMEOUT"), PartType: conversation.PartError})
	cont := l.user("continue")
	res := mustBuild(t, opts(conversation.ModeChat, l.entries))
	n := len(res.Messages)
	if res.Messages[n-2].SourceID != errMsg.ID || res.Messages[n-2].Role != conversation.RoleAssistant || res.Messages[n-1].SourceID != cont.ID {
		t.Fatalf("error part not before continue:\n%s", dump(res.Messages))
	}
	if r := reasonOf(res.Debug.Kept, errMsg.ID); r != "kept: error part as an assistant message" {
		t.Errorf("reason %q", r)
	}
}

func TestExternalisedToolOutput(t *testing.T) {
	var l logBuilder
	l.user("read big")
	l.calls("a", "b")
	alias := "@state/logs/tool-results/conv1/m003.json"
	withPath := l.add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: "a", ToolName: "fs.read", Content: conversation.Str("TOOL_RESULT_PREVIEW\n{\"ok\":true,\"content\":\"# Big\"}"), FullOutputPath: alias})
	named := l.add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: "b", ToolName: "fs.read", Content: conversation.Str("preview…\nFull output: " + alias), FullOutputPath: alias})
	res := mustBuild(t, opts(conversation.ModeChat, l.entries))
	n := len(res.Messages)
	a, b := res.Messages[n-2], res.Messages[n-1]
	if !strings.HasSuffix(a.Text(), "\nFull output: "+alias) {
		t.Errorf("alias not appended: %q", a.Text())
	}
	if a.Tokens != withPath.Tokens+counter.Count(testModel, "\nFull output: "+alias) {
		t.Errorf("tokens %d, stored %d", a.Tokens, withPath.Tokens)
	}
	if b.Text() != named.Text() || b.Tokens != named.Tokens {
		t.Errorf("alias duplicated: %q", b.Text())
	}
	if res.Debug.Counts.Compressed != 2 || !strings.Contains(reasonOf(res.Debug.Compressed, withPath.ID), alias) {
		t.Errorf("compressed: %+v", res.Debug.Compressed)
	}
}

func TestStoredTokensAreUsed(t *testing.T) {
	var l logBuilder
	stored := l.user("short")
	stored.Tokens = 9 // a plausible count the store recorded is trusted
	zero := l.assistant("no stored count")
	zero.Tokens = 0
	res := mustBuild(t, opts(conversation.ModeChat, l.entries))
	var sum int
	for _, m := range res.Messages {
		sum += m.Tokens
		switch m.SourceID {
		case stored.ID:
			if m.Tokens != 9 {
				t.Errorf("stored count not used: %d", m.Tokens)
			}
		case zero.ID:
			if want := counter.CountMessage(testModel, zero); m.Tokens != want {
				t.Errorf("zero count: %d, want %d", m.Tokens, want)
			}
		}
	}
	if res.Debug.UsedTokens != sum+ReplyPriming {
		t.Errorf("used %d, want %d", res.Debug.UsedTokens, sum+ReplyPriming)
	}
	o := opts(conversation.ModeChat, l.entries)
	o.ToolTokens = 250
	if res2 := mustBuild(t, o); res2.Debug.UsedTokens != sum+ReplyPriming+250 {
		t.Errorf("tool tokens not counted: %d", res2.Debug.UsedTokens)
	}
	if TokensOf(res.Messages) != sum+ReplyPriming {
		t.Errorf("TokensOf")
	}
}

func TestRunInjectionPlacement(t *testing.T) {
	directive := "RUN_DIRECTIVE\n- runType: bmad-micro\n- intent: continue"
	brief := "NODE_BRIEF\n- currentNodeId: n1 (type=step)"
	t.Run("before the newest user message, tool loop after it intact", func(t *testing.T) {
		var l logBuilder
		l.user("USER_INPUT\n- forNodeId: n0\nhello")
		l.assistant("hi")
		u := l.user("USER_INPUT\n- forNodeId: n1\nmy answer")
		l.calls("a")
		l.result("a", "{\"ok\":true}")
		o := opts(conversation.ModeRun, l.entries)
		o.Run = fakeRun{directive, "  ", brief}
		res := mustBuild(t, o)
		idx := slices.IndexFunc(res.Messages, func(m Message) bool { return m.SourceID == u.ID })
		if res.Messages[idx-2].Text() != directive || res.Messages[idx-1].Text() != brief ||
			res.Messages[idx-1].Role != conversation.RoleUser || res.Messages[idx-2].Kind != KindInjection {
			t.Fatalf("injections misplaced:\n%s", dump(res.Messages))
		}
		if res.Debug.Counts.Injections != 2 {
			t.Fatalf("blank block not skipped: %d", res.Debug.Counts.Injections)
		}
		if r := res.Debug.Rows[idx-2].Reason; r != "injection: RUN_DIRECTIVE (before the newest user message)" {
			t.Errorf("row reason %q", r)
		}
	})
	t.Run("meta user messages are not the anchor", func(t *testing.T) {
		var l logBuilder
		u := l.user("real input")
		l.add(conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("<skill-prompt>"), IsMeta: true})
		o := opts(conversation.ModeRun, l.entries)
		o.Run = fakeRun{directive}
		res := mustBuild(t, o)
		idx := slices.IndexFunc(res.Messages, func(m Message) bool { return m.SourceID == u.ID })
		if res.Messages[idx-1].Kind != KindInjection {
			t.Fatalf("not before the real user message:\n%s", dump(res.Messages))
		}
	})
	t.Run("at the end without user messages", func(t *testing.T) {
		var l logBuilder
		l.assistant("Welcome.")
		o := opts(conversation.ModeRun, l.entries)
		o.Run = fakeRun{directive, brief}
		res := mustBuild(t, o)
		n := len(res.Messages)
		if res.Messages[n-2].Text() != directive || res.Messages[n-1].Text() != brief {
			t.Fatalf("not at end:\n%s", dump(res.Messages))
		}
		if !strings.Contains(res.Debug.Rows[n-1].Reason, "at the end") {
			t.Errorf("reason %q", res.Debug.Rows[n-1].Reason)
		}
	})
	t.Run("post-completion profile", func(t *testing.T) {
		var l logBuilder
		l.user("thanks, can you tweak the summary?")
		o := opts(conversation.ModeRun, l.entries)
		o.Run = fakeRun{"RUN_DIRECTIVE\n- intent: post-run\nPost-Run Protocol: the workflow is complete."}
		res := mustBuild(t, o)
		if res.Debug.Counts.Injections != 1 || strings.Contains(dump(res.Messages), "NODE_BRIEF") {
			t.Fatalf("post-completion request:\n%s", dump(res.Messages))
		}
	})
	t.Run("no blocks is noted", func(t *testing.T) {
		var l logBuilder
		l.user("x")
		o := opts(conversation.ModeRun, l.entries)
		o.Run = fakeRun{}
		res := mustBuild(t, o)
		if len(res.Debug.Notes) != 1 {
			t.Fatalf("notes %v", res.Debug.Notes)
		}
	})
	t.Run("injections survive trimming", func(t *testing.T) {
		var l logBuilder
		for i := 0; i < 40; i++ {
			l.user("q")
			l.assistant("a")
		}
		u := l.user("last")
		o := opts(conversation.ModeRun, l.entries)
		o.Run = fakeRun{directive, brief}
		full := mustBuild(t, o).Debug.UsedTokens
		o.Budget = Budget{TokenBudget: full - 100}
		res := mustBuild(t, o)
		if res.Debug.Counts.Trimmed == 0 || res.Messages[len(res.Messages)-1].SourceID != u.ID || res.Debug.Counts.Injections != 2 {
			t.Fatalf("trimmed run request:\n%s", dump(res.Messages))
		}
	})
}

func TestMandatoryPartsOverBudget(t *testing.T) {
	var l logBuilder
	l.user("old")
	l.assistant("old answer")
	huge := l.user(strings.Repeat("word ", 5000))
	o := opts(conversation.ModeChat, l.entries)
	o.Budget = Budget{TokenBudget: 3000}
	res := mustBuild(t, o)
	if !res.Debug.OverBudget || len(res.Debug.Notes) == 0 {
		t.Fatalf("over budget not reported: %+v", res.Debug)
	}
	if got := ids(res.Messages); !slices.Equal(got, []string{huge.ID}) {
		t.Fatalf("kept %v, want only the newest user message", got)
	}
}

// The current turn is never left out: older history goes first, then the
// turn's tool results become previews with their full-output path.
func TestCurrentTurnPreviewsAfterOlderHistory(t *testing.T) {
	var l logBuilder
	old := l.user("old question")
	l.assistant("old answer")
	u := l.user("do it")
	g1 := l.calls("a")
	r1 := l.result("a", strings.Repeat("data line\n", 400))
	r1.FullOutputPath = "@state/logs/tool-results/conv/" + r1.ID + ".json"
	g2 := l.calls("b")
	r2 := l.result("b", "small")
	o := opts(conversation.ModeChat, l.entries)
	base := mustBuild(t, o)
	var sys int
	for _, m := range base.Messages[:base.Debug.Counts.System] {
		sys += m.Tokens
	}
	o.Budget = Budget{TokenBudget: sys + ReplyPriming + u.Tokens + g1.Tokens + g2.Tokens + r2.Tokens + 300}
	res := mustBuild(t, o)
	if got, want := ids(res.Messages), []string{u.ID, g1.ID, r1.ID, g2.ID, r2.ID}; !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	if res.Debug.OverBudget || res.Debug.UsedTokens > res.Debug.TokenLimit {
		t.Fatalf("over budget: %+v", res.Debug)
	}
	var preview string
	for _, m := range res.Messages {
		if m.SourceID == r1.ID {
			preview = m.Text()
		}
	}
	if !strings.HasPrefix(preview, ToolPreviewPrefix) || !strings.Contains(preview, r1.FullOutputPath) || !strings.Contains(preview, "startLine/endLine") {
		t.Fatalf("preview: %q", preview)
	}
	if r := reasonOf(res.Debug.Compressed, r1.ID); !strings.Contains(r, "preview") {
		t.Errorf("compressed reason %q", r)
	}
	if r := reasonOf(res.Debug.Dropped, old.ID); !strings.Contains(r, "safety net") {
		t.Errorf("reason %q", r)
	}
	// Even tighter: nothing more can go, so the request is flagged, not cut.
	o.Budget = Budget{TokenBudget: sys + ReplyPriming + u.Tokens + 10}
	if res := mustBuild(t, o); !res.Debug.OverBudget {
		t.Fatal("a current turn that cannot fit must be flagged")
	}
}

func TestSummaryTrimmedLast(t *testing.T) {
	var l logBuilder
	for i := 0; i < 20; i++ {
		l.user("q")
		l.assistant("a")
	}
	sum := l.system("CONVERSATION_SUMMARY\nearlier work")
	u := l.user("next")
	o := opts(conversation.ModeChat, l.entries)
	base := mustBuild(t, o)
	var fixed int
	for _, m := range base.Messages[:base.Debug.Counts.System] {
		fixed += m.Tokens
	}
	o.Budget = Budget{TokenBudget: fixed + ReplyPriming + sum.Tokens + u.Tokens + 1}
	res := mustBuild(t, o)
	if got := ids(res.Messages); !slices.Equal(got, []string{sum.ID, u.ID}) {
		t.Fatalf("kept %v", got)
	}
	o.Budget.TokenBudget -= sum.Tokens
	res = mustBuild(t, o)
	if got := ids(res.Messages); !slices.Equal(got, []string{u.ID}) || !strings.Contains(reasonOf(res.Debug.Dropped, sum.ID), "summary left out") {
		t.Fatalf("kept %v", got)
	}
}

func TestEmptyHistory(t *testing.T) {
	res := mustBuild(t, opts(conversation.ModeChat, nil))
	if len(res.Messages) != 3 || res.Debug.Counts.History != 0 {
		t.Fatalf("%s", dump(res.Messages))
	}
	if res.ToolNames == nil {
		t.Fatal("tool names must not be nil")
	}
}

func TestValidateRejects(t *testing.T) {
	sys := Message{Role: "system", Content: conversation.Str("s")}
	user := Message{Role: "user", Content: conversation.Str("u")}
	call := Message{Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "a", Type: "function"}}}
	res := Message{Role: "tool", ToolCallID: "a", Content: conversation.Str("r")}
	tests := []struct {
		name string
		msgs []Message
	}{
		{"empty", nil},
		{"no system first", []Message{user}},
		{"system later", []Message{sys, user, sys}},
		{"missing result", []Message{sys, user, call}},
		{"result without call", []Message{sys, user, res}},
		{"wrong result id", []Message{sys, call, {Role: "tool", ToolCallID: "b", Content: conversation.Str("r")}}},
		{"duplicate call id", []Message{sys, call, res, call, res}},
		{"empty assistant", []Message{sys, {Role: "assistant"}}},
		{"nil user", []Message{sys, {Role: "user"}}},
		{"empty user", []Message{sys, {Role: "user", Content: conversation.Str("")}}},
		{"empty tool", []Message{sys, call, {Role: "tool", ToolCallID: "a", Content: conversation.Str("")}}},
		{"bad type", []Message{sys, {Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "a"}}}, res}},
		{"unknown role", []Message{sys, {Role: "function", Content: conversation.Str("x")}}},
	}
	for _, tt := range tests {
		if Validate(tt.msgs) == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	if err := Validate([]Message{sys, user, call, res}); err != nil {
		t.Errorf("valid request rejected: %v", err)
	}
}

func TestEmptyContents(t *testing.T) {
	var l logBuilder
	blank := l.user("  \n")
	l.user("list it")
	l.calls("a")
	res0 := l.result("a", "")
	nilUser := l.add(conversation.Entry{Role: conversation.RoleUser})
	res := mustBuild(t, opts(conversation.ModeChat, l.entries))
	for _, e := range []*conversation.Entry{blank, nilUser} {
		if r := reasonOf(res.Debug.Dropped, e.ID); r != "dropped: empty user message" {
			t.Errorf("%s: reason %q", e.ID, r)
		}
	}
	last := res.Messages[len(res.Messages)-1]
	if last.SourceID != res0.ID || last.Text() != EmptyToolResult || last.Tokens != res0.Tokens+counter.Count(testModel, EmptyToolResult) {
		t.Fatalf("empty tool result: %+v", last)
	}
}
