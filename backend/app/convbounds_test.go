package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/convtools"
	"crewagent/backend/engine"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/mcp/mcptest"
	"crewagent/backend/packages"
)

// A model that answers every request with conv.create: the work one user
// message starts is bounded by the conversations it may create and the
// model calls it may make, whatever maxTurns and the depth allow, and it
// ends with a failure that says why, in the log of the conversation the
// user wrote in.
func TestConvFanOutStopsAtTheBudget(t *testing.T) {
	tests := []struct {
		name                 string
		conversations, calls int
		wantCode             string
	}{
		{"model calls run out first", 50, 12, convtools.CodeBudget},
		{"conversations run out first", 3, 40, convtools.CodeBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newConvWorld(t, fmt.Sprintf(`{"engine":{"maxTurns":5,"maxInterruptChainDepth":4,"maxConversationsPerMessage":%d,"maxModelCallsPerMessage":%d}}`,
				tt.conversations, tt.calls))
			var n atomic.Int64
			w.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
				i := n.Add(1)
				return fakellm.Response{ToolCalls: []fakellm.ToolCall{call(fmt.Sprintf("c%d", i), "conv.create",
					map[string]any{"user_instruction": fmt.Sprintf("Spawn more, helper %d", i)})}}
			})
			res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Spawn helpers forever"})
			if err != nil {
				t.Fatal(err)
			}
			list, err := w.ws.ListConversations()
			mustOK(t, err)
			calls := len(w.srv.ChatRequests())
			if created := len(list) - 1; created > tt.conversations {
				t.Fatalf("%d conversations created, the budget is %d", created, tt.conversations)
			}
			if calls > tt.calls {
				t.Fatalf("%d model calls, the budget is %d", calls, tt.calls)
			}
			// The work stopped with the reason persisted where the user wrote.
			root := res.Result.ConversationID
			if res.Result.Err == nil || res.Result.Err.Code != tt.wantCode && res.Result.Err.Code != engine.CodeMaxTurnsExceeded {
				t.Fatalf("the root's final result: %+v", res.Result)
			}
			es := w.entries(t, root)
			all := ""
			for _, e := range es {
				all += e.Text() + "\n"
			}
			if !strings.Contains(all, convtools.CodeBudget) || !strings.Contains(all, "the limit for one message") {
				t.Fatalf("no explained budget result in the root's log:\n%s", all)
			}
			protocolValid(t, es)
		})
	}
}

// The same probe at the default budget: it ends, within the defaults.
func TestConvFanOutDefaultBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("200 model calls")
	}
	w := newConvWorld(t, `{"engine":{"maxTurns":5}}`)
	var n atomic.Int64
	w.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		i := n.Add(1)
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call(fmt.Sprintf("c%d", i), "conv.create",
			map[string]any{"user_instruction": fmt.Sprintf("Spawn more, helper %d", i)})}}
	})
	if _, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Spawn helpers forever"}); err != nil {
		t.Fatal(err)
	}
	list, err := w.ws.ListConversations()
	mustOK(t, err)
	t.Logf("%d conversations created, %d model calls", len(list)-1, len(w.srv.ChatRequests()))
	if len(list)-1 > 20 || len(w.srv.ChatRequests()) > 200 {
		t.Fatalf("%d conversations, %d model calls: over the defaults 20 and 200", len(list)-1, len(w.srv.ChatRequests()))
	}
}

// conv.create's instructions are held to the rules of the user's own
// input before anything is stored: a first message that could never be
// sent, base instructions over 256 KB (given as text or as a file, which is
// not read whole) are refused in words, and the index stays small.
func TestConvCreateBoundsItsInstructions(t *testing.T) {
	w := newConvWorld(t, `{"context":{"tokenBudget":8000,"reserveForResponse":1000}}`)
	big := strings.Repeat("lorem ipsum dolor sit amet ", 120000) // ~3 MB
	mustOK(t, os.WriteFile(filepath.Join(w.root, "huge.md"), []byte(strings.Repeat("x", 64<<20)), 0o600))
	mustOK(t, os.WriteFile(filepath.Join(w.root, "role.md"), []byte("You review code."), 0o600))
	tests := []struct {
		name string
		args map[string]any
		want string // in the result; "" for a child created
	}{
		{"huge first message", map[string]any{"user_instruction": big}, convtools.CodeTooLarge},
		{"first message over the token limit", map[string]any{"user_instruction": strings.Repeat("word ", 9000)}, convtools.CodeTooLarge},
		{"huge base text", map[string]any{"user_instruction": "review", "base_instruction_text": big}, "256 KB"},
		{"base text with the message over the limit", map[string]any{"user_instruction": "review", "base_instruction_text": strings.Repeat("rule ", 9000)}, convtools.CodeTooLarge},
		{"huge base file", map[string]any{"user_instruction": "review", "base_instruction_file": "@project/huge.md"}, "larger than 256 KB"},
		{"small ones pass", map[string]any{"user_instruction": "review", "base_instruction_file": "@project/role.md", "title": strings.Repeat("t", 5000)}, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := fmt.Sprintf("Delegate %d", i)
			w.on(first, func(r fakellm.RecordedRequest) fakellm.Response {
				if _, ok := afterTool(r, "conv.create"); ok {
					return fakellm.Response{Text: "ok"}
				}
				return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("k", "conv.create", tt.args)}}
			})
			w.on("review", func(r fakellm.RecordedRequest) fakellm.Response { return fakellm.Response{Text: "reviewed"} })
			before, err := w.ws.ListConversations()
			mustOK(t, err)
			res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: first})
			if err != nil {
				t.Fatal(err)
			}
			result := ""
			for _, e := range w.entries(t, res.Result.ConversationID) {
				if e.Role == conversation.RoleTool && e.ToolCallID == "k" {
					result = e.Text()
				}
			}
			after, err := w.ws.ListConversations()
			mustOK(t, err)
			created := len(after) - len(before) - 1 // the root is new too
			if tt.want == "" {
				if created != 1 || !strings.Contains(result, `"ok":true`) {
					t.Fatalf("not created (%d): %s", created, result)
				}
				for _, m := range after {
					if m.IsChild() && len([]rune(m.Title)) > 201 {
						t.Fatalf("title of %d runes kept", len([]rune(m.Title)))
					}
				}
				return
			}
			if created != 0 || !strings.Contains(result, `"ok":false`) || !strings.Contains(result, tt.want) {
				t.Fatalf("created %d, result %.300s", created, result)
			}
		})
	}
	fi, err := os.Stat(filepath.Join(w.home, "projects"))
	mustOK(t, err)
	var index int64
	mustOK(t, filepath.Walk(filepath.Join(w.home, "projects"), func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "index.json" {
			index += info.Size()
		}
		return err
	}))
	if !fi.IsDir() || index > 64<<10 {
		t.Fatalf("index.json holds %d bytes", index)
	}
}

// Settings shows the out-of-range values in effect in words (the window
// lists them above the form); valid settings show none.
func TestSettingsViewWarnsOfOutOfRangeValues(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	mustOK(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"context":{"tokenBudget":-5},"engine":{"maxInterruptChainDepth":-3}}`), 0o600))
	rt := app.New(home, app.Options{})
	defer rt.Shutdown()
	v, err := rt.GetSettings()
	mustOK(t, err)
	var got []string
	for _, w := range v.Warnings {
		got = append(got, w.Field+" "+w.Message)
	}
	if len(got) != 2 || !strings.Contains(got[0], "context.tokenBudget must be a positive integer, got -5: the default of 128000 tokens is used") ||
		!strings.Contains(got[1], "engine.maxInterruptChainDepth must be 0 or more, got -3: handing a turn to another conversation") {
		t.Fatalf("warnings %q", got)
	}
	mustOK(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{}`), 0o600))
	rt2 := app.New(home, app.Options{})
	defer rt2.Shutdown()
	if v, err := rt2.GetSettings(); err != nil || v.Warnings == nil || len(v.Warnings) != 0 {
		t.Fatalf("valid settings: %v %v", v.Warnings, err)
	}
}

// conv.destroy deletes only what the model made in this conversation's
// work and the user has not written in since: a child of another user
// conversation, a child the user wrote in (or one made from it), are
// refused in words that tell the model to ask the user; the user's
// messages stay.
func TestConvDestroyOnlyWhatTheWorkMade(t *testing.T) {
	w := newConvWorld(t, "")
	// The user's conversation A makes three children; the third makes a grandchild.
	w.on("A: make helpers", func(r fakellm.RecordedRequest) fakellm.Response {
		n := 0
		for _, m := range r.Messages {
			if m.Role == "tool" {
				n++
			}
		}
		if n == 3 {
			return fakellm.Response{Text: "made"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call(fmt.Sprintf("mk%d", n), "conv.create", map[string]any{"user_instruction": fmt.Sprintf("Helper %d", n)})}}
	})
	for _, h := range []string{"Helper 0", "Helper 1"} {
		w.on(h, func(r fakellm.RecordedRequest) fakellm.Response { return fakellm.Response{Text: "ok"} })
	}
	w.on("Helper 2", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "conv.create"); ok || r.LastUserText() != "Helper 2" {
			return fakellm.Response{Text: "ok"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("g", "conv.create", map[string]any{"user_instruction": "Grandchild"})}}
	})
	w.on("Grandchild", func(r fakellm.RecordedRequest) fakellm.Response { return fakellm.Response{Text: "ok"} })
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "A: make helpers"})
	mustOK(t, err)
	a := res.Result.ConversationID
	ids := map[string]string{}
	list, err := w.ws.ListConversations()
	mustOK(t, err)
	for _, m := range list {
		es := w.entries(t, m.ID)
		ids[es[0].Text()] = m.ID
	}
	if len(ids) != 5 {
		t.Fatalf("conversations %v", ids)
	}
	// The user writes in helper 1 and in the grandchild.
	for _, first := range []string{"Helper 1", "Grandchild"} {
		if _, err := w.ws.ChatChain(context.Background(), engine.SendRequest{ConversationID: ids[first], Text: "my own notes for " + first}); err != nil {
			t.Fatal(err)
		}
	}

	destroyFrom := func(first, target string) string {
		t.Helper()
		var out string
		w.on(first, func(r fakellm.RecordedRequest) fakellm.Response {
			if last, ok := afterTool(r, "conv.destroy"); ok {
				out = last.Text()
				return fakellm.Response{Text: "done"}
			}
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("d", "conv.destroy", map[string]any{"conversation_id": target})}}
		})
		if _, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: first}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name, from, target, want string
		gone                     bool
	}{
		{"a child of another user conversation", "B: tidy up 1", "Helper 0", "another conversation of the user", false},
		{"a child the user wrote in", "", "Helper 1", "holds messages the user wrote", false},
		{"a child whose child the user wrote in", "", "Helper 2", "created from it, holds messages the user wrote", false},
		{"its own untouched child", "", "Helper 0", `"ok":true`, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out string
			if tt.from != "" {
				out = destroyFrom(tt.from, ids[tt.target])
			} else {
				// A's model, in a later message of A.
				var got string
				w.on("A: make helpers", func(r fakellm.RecordedRequest) fakellm.Response {
					if last, ok := afterTool(r, "conv.destroy"); ok && last.ToolCallID == fmt.Sprintf("d%d", i) {
						got = last.Text()
						return fakellm.Response{Text: "done"}
					}
					return fakellm.Response{ToolCalls: []fakellm.ToolCall{call(fmt.Sprintf("d%d", i), "conv.destroy", map[string]any{"conversation_id": ids[tt.target]})}}
				})
				if _, err := w.ws.ChatChain(context.Background(), engine.SendRequest{ConversationID: a, Text: "tidy up " + tt.name}); err != nil {
					t.Fatal(err)
				}
				out = got
			}
			if !strings.Contains(out, tt.want) {
				t.Fatalf("result %s, want %q", out, tt.want)
			}
			if !tt.gone && !strings.Contains(out, "ask the user to delete it") {
				t.Fatalf("the refusal does not tell the model to ask the user: %s", out)
			}
			_, err := w.ws.GetConversation(ids[tt.target])
			if gone := err != nil; gone != tt.gone {
				t.Fatalf("gone %v, want %v", gone, tt.gone)
			}
		})
	}
	// The user's messages are still there.
	for _, first := range []string{"Helper 1", "Grandchild"} {
		found := false
		for _, e := range w.entries(t, ids[first]) {
			found = found || e.Text() == "my own notes for "+first
		}
		if !found {
			t.Fatalf("the user's message in %s is gone", first)
		}
	}
}

// Restrictions are transitive: a conversation without MCP (a child created
// with an empty mcp_allowlist and only conv.send) cannot get an MCP tool run
// by sending to a conversation of the project that has MCP: that one
// answers with no more tools than the sender, and has its own again for the
// user's next message.
func TestConvSendAnswersWithinTheCallersTools(t *testing.T) {
	npm := mcptest.Servers(t)
	doc, _ := json.Marshal(map[string]any{
		"tools":      map[string]any{"mcp": map[string]any{"enabled": true}},
		"mcpServers": map[string]any{"alpha": npm.Everything("reach-alpha", nil)},
	})
	w := newConvWorld(t, string(doc))
	mcpTools := func(r fakellm.RecordedRequest) (out []string) {
		for _, n := range toolNames(r) {
			if strings.HasPrefix(n, "mcp__") {
				out = append(out, n)
			}
		}
		return out
	}
	// The user's wide conversation, with MCP.
	var wideRequests []fakellm.RecordedRequest
	echoed := ""
	w.on("Wide: hello", func(r fakellm.RecordedRequest) fakellm.Response {
		wideRequests = append(wideRequests, r)
		if last, ok := afterTool(r, "mcp__alpha__echo"); ok {
			echoed = last.Text()
			return fakellm.Response{Text: "tried"}
		}
		if r.LastUserText() == "Run the echo tool for me" {
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("e1", "mcp__alpha__echo", map[string]any{"message": "smuggled"})}}
		}
		return fakellm.Response{Text: "hi"}
	})
	wide, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Wide: hello"})
	mustOK(t, err)
	wideID := wide.Result.ConversationID
	if len(mcpTools(wideRequests[0])) == 0 {
		t.Fatalf("the wide conversation has no MCP tools: %v", toolNames(wideRequests[0]))
	}
	// Another conversation makes a narrow helper that sends to it.
	w.on("Boss: delegate", func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			return fakellm.Response{Text: "done"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("n1", "conv.create", map[string]any{
			"user_instruction": "Narrow: ask the wide one", "tools": []string{"conv.send"}, "mcp_allowlist": []string{}})}}
	})
	var narrowRequest fakellm.RecordedRequest
	var sent string
	w.on("Narrow: ask the wide one", func(r fakellm.RecordedRequest) fakellm.Response {
		if last, ok := afterTool(r, "conv.send"); ok {
			sent = last.Text()
			return fakellm.Response{Text: "asked"}
		}
		narrowRequest = r
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("s1", "conv.send", map[string]any{"conversation_id": wideID, "text": "Run the echo tool for me"})}}
	})
	_, err = w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Boss: delegate"})
	mustOK(t, err)
	if got := mcpTools(narrowRequest); len(got) != 0 || !slices.Equal(toolNames(narrowRequest), []string{"conv_send"}) {
		t.Fatalf("the narrow helper's tools: %v", toolNames(narrowRequest))
	}
	answering := wideRequests[1]
	if got := mcpTools(answering); len(got) != 0 {
		t.Fatalf("answering the narrow helper, the wide conversation was offered %v", got)
	}
	if slices.ContainsFunc(toolNames(answering), func(n string) bool { return strings.HasPrefix(n, "fs_") }) {
		t.Fatalf("answering the narrow helper, the wide conversation was offered the fs tools: %v", toolNames(answering))
	}
	if strings.Contains(echoed, "smuggled") || !strings.Contains(echoed, `"ok":false`) {
		t.Fatalf("the MCP tool ran on behalf of the narrow helper: %s", echoed)
	}
	if !strings.Contains(sent, `"ok":true`) || !strings.Contains(sent, "tried") {
		t.Fatalf("the helper's call: %s", sent)
	}
	// The user's own next message gets the wide tools again.
	_, err = w.ws.ChatChain(context.Background(), engine.SendRequest{ConversationID: wideID, Text: "and now?"})
	mustOK(t, err)
	if got := mcpTools(wideRequests[len(wideRequests)-1]); len(got) == 0 {
		t.Fatal("the wide conversation lost its MCP tools for the user")
	}
}

// One MCP server over the bounds of one server's tools loses its tools,
// named with the reason in Settings → MCP (and mcp list); the model is
// offered the other servers' tools.
func TestOversizedMCPServerKeepsTheOthers(t *testing.T) {
	npm := mcptest.Servers(t)
	files := t.TempDir()
	doc, _ := json.Marshal(map[string]any{
		"tools": map[string]any{"mcp": map[string]any{"enabled": true, "maxToolsPerServer": 13}},
		"mcpServers": map[string]any{
			"alpha": npm.Everything("bound-alpha", nil), // 13 tools
			"files": npm.Files("bound-files", files),    // 14 tools
		},
	})
	w := newConvWorld(t, string(doc))
	var offered []string
	w.on("Which tools?", func(r fakellm.RecordedRequest) fakellm.Response {
		offered = toolNames(r)
		return fakellm.Response{Text: "these"}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Which tools?"})
	mustOK(t, err)
	if res.Result.Err != nil {
		t.Fatalf("the request failed: %+v", res.Result.Err)
	}
	alpha := slices.ContainsFunc(offered, func(n string) bool { return strings.HasPrefix(n, "mcp__alpha__") })
	fs := slices.ContainsFunc(offered, func(n string) bool { return strings.HasPrefix(n, "mcp__files__") })
	if !alpha || fs {
		t.Fatalf("offered %v", offered)
	}
	v := w.ws.MCPView(context.Background(), true)
	for _, s := range v.Servers {
		switch s.Name {
		case "files":
			if !strings.Contains(s.Withheld, `MCP server "files" lists 14 tools, more than the 13`) || !strings.Contains(s.Summary, "not offered") {
				t.Fatalf("files: %q / %q", s.Summary, s.Withheld)
			}
		case "alpha":
			if s.Withheld != "" {
				t.Fatalf("alpha withheld: %s", s.Withheld)
			}
		}
	}
}

// conv.send is held to the same rule: a message that could never be sent
// is refused before it is appended to the other conversation.
func TestConvSendBoundsItsMessage(t *testing.T) {
	w := newConvWorld(t, `{"context":{"tokenBudget":8000,"reserveForResponse":1000}}`)
	w.on("Target: hello", func(r fakellm.RecordedRequest) fakellm.Response { return fakellm.Response{Text: "hi"} })
	target, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Target: hello"})
	mustOK(t, err)
	targetID := target.Result.ConversationID
	before := len(w.entries(t, targetID))
	w.on("Sender: flood it", func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			return fakellm.Response{Text: "ok"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("s", "conv.send", map[string]any{"conversation_id": targetID, "text": strings.Repeat("word ", 9000)})}}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Sender: flood it"})
	mustOK(t, err)
	result := ""
	for _, e := range w.entries(t, res.Result.ConversationID) {
		if e.Role == conversation.RoleTool && e.ToolCallID == "s" {
			result = e.Text()
		}
	}
	if !strings.Contains(result, convtools.CodeTooLarge) || !strings.Contains(result, "not sent: the message is") {
		t.Fatalf("result %.300s", result)
	}
	if after := len(w.entries(t, targetID)); after != before {
		t.Fatalf("the target's log grew from %d to %d entries", before, after)
	}
}

// The probe as found: an agent whose agents.json says tools.mcp.enabled:
// false (the demo's analyst) asks, with conv.send, a chat conversation of
// the project that has MCP to run an MCP tool: it answers without MCP.
func TestConvSendFromAnAgentWithoutMCP(t *testing.T) {
	npm := mcptest.Servers(t)
	doc, _ := json.Marshal(map[string]any{
		"tools":      map[string]any{"mcp": map[string]any{"enabled": true}},
		"mcpServers": map[string]any{"alpha": npm.Everything("reach-agent", nil)},
	})
	w := newConvWorld(t, string(doc))
	pkgDir := t.TempDir()
	mustOK(t, os.CopyFS(pkgDir, os.DirFS(filepath.Join("..", "packages", "demo"))))
	inst, err := packages.NewManager(w.home).Import(pkgDir)
	mustOK(t, err)
	mustOK(t, w.ws.SetActivePackage(inst.ID))

	var answering fakellm.RecordedRequest
	echoed := ""
	w.on("Wide: hello", func(r fakellm.RecordedRequest) fakellm.Response {
		if last, ok := afterTool(r, "mcp__alpha__echo"); ok {
			echoed = last.Text()
			return fakellm.Response{Text: "tried"}
		}
		if r.LastUserText() == "Run the echo tool for me" {
			answering = r
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("e1", "mcp__alpha__echo", map[string]any{"message": "smuggled"})}}
		}
		return fakellm.Response{Text: "hi"}
	})
	wide, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Wide: hello"})
	mustOK(t, err)
	var agentTools []string
	w.on("Analyst: get it done", func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			return fakellm.Response{Text: "done"}
		}
		agentTools = toolNames(r)
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("s1", "conv.send", map[string]any{"conversation_id": wide.Result.ConversationID, "text": "Run the echo tool for me"})}}
	})
	_, err = w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Analyst: get it done", Mode: conversation.ModeAgent, AgentID: "analyst"})
	mustOK(t, err)
	if slices.ContainsFunc(agentTools, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) || !slices.Contains(agentTools, "conv_send") {
		t.Fatalf("the analyst's own tools: %v", agentTools)
	}
	if slices.ContainsFunc(toolNames(answering), func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Fatalf("answering the analyst, the chat conversation was offered MCP tools: %v", toolNames(answering))
	}
	if strings.Contains(echoed, "smuggled") || !strings.Contains(echoed, `"ok":false`) {
		t.Fatalf("the MCP tool ran on behalf of the analyst: %s", echoed)
	}
}
