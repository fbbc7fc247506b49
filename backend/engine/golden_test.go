package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenChatToolTurn pins the whole request body the server receives for
// the second call of a chat turn with one tool call: system prompt, history,
// the assistant tool call, its result and the tool definitions.
func TestGoldenChatToolTurn(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(listCall("call_1"), fakellm.Text("You have notes.md and todo.txt."))
	f.send(SendRequest{Text: "What files do I have?"})
	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 requests, got %d", len(reqs))
	}
	checkGolden(t, "chat-tool-turn.golden", reqs[1].Body)
}

// TestGoldenToolResultsOmitted pins the request of the turn after a tool turn
// with context.includeToolResultsInContext off: the earlier results are stubs.
func TestGoldenToolResultsOmitted(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) { s.Context.IncludeToolResultsInContext = false })
	f.srv.Enqueue(fakellm.Tools(
		fakellm.ToolCall{ID: "call_1", Name: "fs.list", Arguments: `{"path":"@project"}`},
		fakellm.ToolCall{ID: "call_2", Name: "fs.read", Arguments: `{"path":"@project/missing.md"}`},
	), fakellm.Text("You have notes.md and todo.txt; missing.md does not exist."), fakellm.Text("notes.md."))
	first := f.send(SendRequest{Text: "What files do I have?"})
	f.send(SendRequest{ConversationID: first.ConversationID, Text: "Which one has notes?"})
	reqs := f.srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("want 3 requests, got %d", len(reqs))
	}
	checkGolden(t, "chat-tool-results-omitted.golden", reqs[2].Body)
}

// cacheKeyPattern matches the prompt_cache_key of a request: it is derived
// from the conversation id, which differs from run to run (the key itself is
// checked in TestCachedTokensRecorded).
var cacheKeyPattern = regexp.MustCompile(`"prompt_cache_key":"crewagent-[0-9a-f]{32}"`)

// checkGolden compares an indented JSON body with testdata/name (rewritten
// with -update).
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	body = cacheKeyPattern.ReplaceAll(body, []byte(`"prompt_cache_key":"crewagent-(the conversation's key)"`))
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s differs from the request sent (run with -update after checking the change):\n%s", path, buf.String())
	}
}
