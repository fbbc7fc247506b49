package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

// toolMessages returns the tool messages of a recorded request by call id.
func toolMessages(r fakellm.RecordedRequest) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role == conversation.RoleTool {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

var omittedAlias = regexp.MustCompile(`^TOOL_RESULT_OMITTED \{"ok":true\} \((\d+) bytes; includeToolResultsInContext is off\) — read it with fs\.read on (@state/logs/tool-results/[^ ]+\.json) if needed$`)

// TestToolResultsInContextSetting: with context.includeToolResultsInContext
// off, the results of earlier turns are sent as stubs (the tool messages
// stay, so the request is valid), those of the current turn whole; the alias
// path a stub names can be read back with fs.read. With the setting on,
// results are sent as logged.
func TestToolResultsInContextSetting(t *testing.T) {
	for _, include := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[include], func(t *testing.T) {
			f := newFixture(t, func(s *settings.Settings) { s.Context.IncludeToolResultsInContext = include })
			big := strings.Repeat("a line of the big report\n", 3000) // 75 000 bytes: stored as a preview
			if err := os.WriteFile(filepath.Join(f.root, "big.md"), []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
			f.srv.Enqueue(fakellm.Tools(
				fakellm.ToolCall{ID: "call_1", Name: "fs.read", Arguments: `{"path":"@project/big.md"}`},
				fakellm.ToolCall{ID: "call_2", Name: "fs.read", Arguments: `{"path":"@project/missing.md"}`},
			), fakellm.Text("Read it."))
			first := f.send(SendRequest{Text: "read big.md and missing.md"})
			logged := f.messages(first.ConversationID)
			bigResult, missing := logged[2], logged[3]
			if bigResult.FullOutputPath == "" || !missing.IsError {
				t.Fatalf("results: %+v %+v", bigResult, missing)
			}

			// The current turn sees its results.
			inTurn := toolMessages(f.srv.ChatRequests()[1])
			if !strings.HasPrefix(inTurn["call_1"], conversation.PreviewPrefix) || !strings.Contains(inTurn["call_2"], `"code":"ENOENT"`) ||
				strings.Contains(inTurn["call_2"], "TOOL_RESULT_OMITTED") {
				t.Fatalf("current turn: %q", inTurn)
			}

			f.srv.Enqueue(fakellm.Text("Yes."))
			f.send(SendRequest{ConversationID: first.ConversationID, Text: "did that work?"})
			next := toolMessages(f.srv.ChatRequests()[2])
			if len(next) != 2 {
				t.Fatalf("tool messages of the next request: %q", next)
			}
			if include {
				if next["call_1"] != bigResult.Text() || next["call_2"] != missing.Text() {
					t.Fatalf("results not sent as logged: %q", next)
				}
				return
			}
			path, err := toolResultHostPath(f.dataDir, bigResult.FullOutputPath)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var full conversation.ToolResultFile
			if err := json.Unmarshal(raw, &full); err != nil {
				t.Fatal(err)
			}
			m := omittedAlias.FindStringSubmatch(next["call_1"])
			if m == nil || m[1] != itoa(len(full.Content)) || m[2] != bigResult.FullOutputPath {
				t.Fatalf("stub of the big result: %q (full output %d bytes)", next["call_1"], len(full.Content))
			}
			want := `TOOL_RESULT_OMITTED {"ok":false,"error":{"code":"ENOENT"}} (` + itoa(len(missing.Text())) + ` bytes; includeToolResultsInContext is off)`
			if next["call_2"] != want {
				t.Fatalf("stub of the failed result: %q, want %q", next["call_2"], want)
			}

			// The model can follow the stub's hint.
			f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "call_3", Name: "fs.read", Arguments: `{"path":"` + m[2] + `"}`}), fakellm.Text("Got it."))
			f.send(SendRequest{ConversationID: first.ConversationID, Text: "show me the report again"})
			reread := toolMessages(f.srv.ChatRequests()[4])["call_3"]
			if !strings.Contains(reread, `"ok":true`) || !strings.Contains(reread, "a line of the big report") {
				t.Fatalf("reading the alias path: %.300q", reread)
			}
		})
	}
}
