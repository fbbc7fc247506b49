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

// A second server in llm.endpoints: listed with its models, chosen for a
// conversation with --endpoint and --model, remembered by it, and left again
// for the default endpoint.
func TestChooseEndpointAndModel(t *testing.T) {
	c := newChatEnv(t)
	other := fakellm.New()
	t.Cleanup(other.Close)
	other.SetModels("small", "big")
	settingsJSON := fmt.Sprintf(`{"llm":{"endpoints":[{"name":"lab","baseUrl":%q,"apiKey":"sk-lab-secret-1234","models":["small"]},{"name":"gone","baseUrl":"http://127.0.0.1:1/v1"}]}}`, other.URL())
	if err := os.WriteFile(filepath.Join(c.home, "settings.json"), []byte(settingsJSON), 0o600); err != nil {
		t.Fatal(err)
	}

	r := c.run(t, "", "models", "--json")
	if r.code != 0 {
		t.Fatalf("models: %d %s", r.code, r.stderr)
	}
	var list []struct {
		Name, BaseURL, Default, Error string
		Models                        []string
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if len(list) != 3 || list[0].Name != "default" || list[1].Name != "lab" || list[2].Name != "gone" {
		t.Fatalf("endpoints: %+v", list)
	}
	if strings.Join(list[1].Models, ",") != "small,big" || list[1].Default != "small" || list[1].Error != "" {
		t.Fatalf("lab: %+v", list[1])
	}
	if list[2].Error == "" || len(list[2].Models) != 0 {
		t.Fatalf("an endpoint that does not answer must say so: %+v", list[2])
	}
	if strings.Contains(r.stdout, "sk-lab-secret") {
		t.Fatal("models printed an API key")
	}
	if r := c.run(t, "", "models"); r.code != 0 || !strings.Contains(r.stdout, "lab  "+other.URL()) || !strings.Contains(r.stdout, "small  (default)") {
		t.Fatalf("models in words: %d %s %s", r.code, r.stdout, r.stderr)
	}

	var out chatOutput
	r = c.run(t, "", "chat", "--endpoint", "lab", "--model", "big", "--json", "hello lab")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("chat on lab: %d %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := other.ChatRequests()
	if len(reqs) != 1 || reqs[0].Model != "big" || reqs[0].Header.Get("Authorization") != "Bearer sk-lab-secret-1234" {
		t.Fatalf("lab got %d requests (%+v)", len(reqs), reqs)
	}
	if n := len(c.srv.ChatRequests()); n != 0 {
		t.Fatalf("the default endpoint got %d requests", n)
	}
	// The choice stays with the conversation.
	if r := c.run(t, "", "chat", "--conversation", out.ConversationID, "again"); r.code != 0 {
		t.Fatalf("second send: %d %s", r.code, r.stderr)
	}
	if reqs := other.ChatRequests(); len(reqs) != 2 || reqs[1].Model != "big" {
		t.Fatalf("the conversation left its endpoint: %d requests", len(reqs))
	}
	var answers []string
	for _, e := range c.messages(t, out.ConversationID) {
		if e.IsMessage() && e.Role == conversation.RoleAssistant {
			answers = append(answers, e.Endpoint+"/"+e.Model)
		}
		if e.IsEvent() && e.Event == conversation.EventModelSelected && !strings.Contains(string(e.Data), `"lab"`) {
			t.Fatalf("choice event %s", e.Data)
		}
	}
	if strings.Join(answers, " ") != "lab/big lab/big" {
		t.Fatalf("answers record %q", answers)
	}
	// Back to the default endpoint by name.
	if r := c.run(t, "", "chat", "--conversation", out.ConversationID, "--endpoint", "default", "back home"); r.code != 0 {
		t.Fatalf("back: %d %s", r.code, r.stderr)
	}
	if reqs := c.srv.ChatRequests(); len(reqs) != 1 || reqs[0].Model != "fake-model" {
		t.Fatalf("the default endpoint got %d requests", len(reqs))
	}
	// An endpoint the settings do not have is refused before anything is written.
	r = c.run(t, "", "chat", "--endpoint", "nowhere", "hi")
	if r.code != ExitError || !strings.Contains(r.stderr, `"nowhere"`) {
		t.Fatalf("unknown endpoint: %d %q", r.code, r.stderr)
	}
	if r := c.run(t, "", "chat", "--model", "", "hi"); r.code == 0 {
		t.Fatal("an empty --model was accepted")
	}
}

// Costs: what the servers reported, per conversation and for the project,
// priced with llm.prices; a model without a price is named, not counted.
func TestUsageAndCosts(t *testing.T) {
	c := newChatEnv(t)
	c.srv.SetCacheReport(fakellm.CacheOpenAI)
	if err := os.WriteFile(filepath.Join(c.home, "settings.json"), []byte(`{"llm":{"currency":"EUR","prices":{"fake-model":{"input":2,"cachedInput":0.5,"output":8}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var first chatOutput
	r := c.run(t, "", "chat", "--json", "a first question about the plan")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &first) != nil {
		t.Fatalf("chat: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if first.Usage.Cost == nil || first.Usage.Cost.Currency != "EUR" || first.Usage.Cost.Amount <= 0 {
		t.Fatalf("chat --json cost: %+v", first.Usage.Cost)
	}
	if r := c.run(t, "", "chat", "--conversation", first.ConversationID, "and a second one, longer than the first"); r.code != 0 {
		t.Fatalf("second: %s", r.stderr)
	}
	if r := c.run(t, "", "chat", "--model", "other-model", "elsewhere"); r.code != 0 {
		t.Fatalf("third: %s", r.stderr)
	}
	r = c.run(t, "", "usage", "--json")
	var rep struct {
		Conversations []struct {
			ID    string
			Usage conversation.UsageTotals
			Cost  *struct {
				Amount   float64
				Currency string
				Unpriced []string
			}
		}
		Total conversation.UsageTotals
		Cost  struct {
			Amount   float64
			Currency string
			Unpriced []string
		}
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
		t.Fatalf("usage: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if len(rep.Conversations) != 2 || rep.Total.Calls != 3 {
		t.Fatalf("usage: %+v", rep)
	}
	m := rep.Total.Models["fake-model"]
	if m == nil || m.Calls != 2 || rep.Total.Models["other-model"] == nil || m.CachedTokens == 0 {
		t.Fatalf("by model: %+v", rep.Total.Models)
	}
	want := (float64(m.PromptTokens-m.CachedTokens)*2 + float64(m.CachedTokens)*0.5 + float64(m.CompletionTokens)*8) / 1e6
	if d := rep.Cost.Amount - want; d > 1e-6 || d < -1e-6 || rep.Cost.Currency != "EUR" {
		t.Fatalf("cost %v %s, want %v", rep.Cost.Amount, rep.Cost.Currency, want)
	}
	if len(rep.Cost.Unpriced) != 1 || rep.Cost.Unpriced[0] != "other-model" {
		t.Fatalf("unpriced: %v", rep.Cost.Unpriced)
	}
	if r := c.run(t, "", "usage"); r.code != 0 || !strings.Contains(r.stdout, "total  2 conversations  3 calls") || !strings.Contains(r.stdout, `no price for "other-model"`) {
		t.Fatalf("usage in words: %s %s", r.stdout, r.stderr)
	}
}
