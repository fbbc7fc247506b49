package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// chat --json reports the cached prompt tokens of the send and the conversation's running
// totals; an endpoint that refuses prompt_cache_key costs one quick resend, remembered in
// the runtime home.
func TestChatJSONReportsCachedTokensAndTotals(t *testing.T) {
	c := newChatEnv(t)
	c.srv.SetCacheReport(fakellm.CacheDeepSeek)
	c.srv.RefuseFields(fakellm.RefusePydantic, "prompt_cache_key")
	type out struct {
		ConversationID string `json:"conversationId"`
		Usage          struct {
			conversation.Usage
			Conversation *conversation.UsageTotals `json:"conversation"`
		} `json:"usage"`
	}
	send := func(args ...string) out {
		t.Helper()
		r := c.run(t, "", append([]string{"--json", "chat"}, args...)...)
		if r.code != ExitOK {
			t.Fatalf("chat: %+v", r)
		}
		var o out
		if err := json.Unmarshal([]byte(r.stdout), &o); err != nil {
			t.Fatalf("%v: %s", err, r.stdout)
		}
		if !strings.Contains(r.stdout, `"cachedTokens":`) {
			t.Fatalf("no cachedTokens: %s", r.stdout)
		}
		return o
	}
	first := send(strings.Repeat("Here is the whole design document. ", 30))
	second := send("--conversation", first.ConversationID, "what did I say?")
	reqs := c.srv.ChatRequests()
	want := reqs[len(reqs)-1].CachedTokens
	if want <= 0 || second.Usage.CachedTokens != want || first.Usage.CachedTokens != 0 {
		t.Fatalf("cached: %d then %d, the server computed %d", first.Usage.CachedTokens, second.Usage.CachedTokens, want)
	}
	tot := second.Usage.Conversation
	if tot == nil || tot.Calls != 2 || tot.CachedTokens != want || tot.PromptTokens != first.Usage.PromptTokens+second.Usage.PromptTokens {
		t.Fatalf("totals %+v", tot)
	}
	if len(reqs) != 3 || !reqs[0].HasField("prompt_cache_key") || reqs[2].HasField("prompt_cache_key") {
		t.Fatalf("%d requests", len(reqs))
	}
	r := c.run(t, "", "context", first.ConversationID)
	if !strings.Contains(r.stdout, fmt.Sprintf("reported by the server: 2 calls, %d prompt tokens, %d of them from its prompt cache", tot.PromptTokens, want)) {
		t.Fatalf("context: %s", r.stdout)
	}
	data, err := os.ReadFile(filepath.Join(c.home, "llm-endpoints.json"))
	if err != nil || !strings.Contains(string(data), `"prompt_cache_key"`) || !strings.Contains(string(data), c.srv.URL()) {
		t.Fatalf("endpoint memory: %v %s", err, data)
	}
}
