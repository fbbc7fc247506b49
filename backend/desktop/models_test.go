package desktop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/settings"
)

// The composer's model chip: the endpoints with their models, a choice
// recorded on the conversation and used by its next reply, and endpoint keys
// that the settings page shows masked and keeps when saved.
func TestChooseAModelForAConversation(t *testing.T) {
	def, lab := newFakeLLM(t), newFakeLLM(t)
	lab.SetModels("qwen3:8b", "gemma3:4b")
	lab.SetModelWindow("gemma3:4b", 8192) // as vLLM reports max_model_len
	w := openTestProject(t, fmt.Sprintf(`{"llm": {"baseUrl": %q, "model": "gpt-4o-mini", "maxRetries": 0,
		"currency": "EUR", "prices": {"gemma3:4b": {"input": 3, "output": 15}},
		"endpoints": [{"name": "lab", "baseUrl": %q, "apiKey": "sk-lab-secret-5678"}]}}`, def.URL(), lab.URL()))
	a := w.app

	list := a.Chat.Models()
	if len(list) != 2 || list[0].Name != settings.DefaultEndpoint || list[1].Name != "lab" || len(list[1].Models) != 2 || list[1].Models[1] != "qwen3:8b" {
		t.Fatalf("models: %+v", list)
	}
	m, err := a.Conversations.Create("")
	must(t, err)
	meta, err := a.Chat.SelectModel(m.ID, "lab", "gemma3:4b")
	if err != nil || meta.Endpoint != "lab" || meta.Model != "gemma3:4b" {
		t.Fatalf("SelectModel: %+v, %v", meta, err)
	}
	if _, err := a.Chat.SelectModel(m.ID, "elsewhere", "x"); codeOfErr(t, err) == "" {
		t.Fatal("an endpoint the settings do not have was chosen")
	}
	must(t, a.Chat.Send(app.SendRequest{ConversationID: m.ID, Text: "hello"}))
	waitIdle(t, w.rec, m.ID)
	if reqs := lab.ChatRequests(); len(reqs) != 1 || reqs[0].Model != "gemma3:4b" || len(def.ChatRequests()) != 0 {
		t.Fatalf("lab got %d requests, the default %d", len(reqs), len(def.ChatRequests()))
	}

	// The meter's usage carries what the answer cost at the model's price.
	testkit.Wait(t, "the usage with its cost", func() bool {
		u := lastUsage(t, w.rec, m.ID)
		return u.Cost != nil && u.Cost.Amount > 0 && u.Cost.Currency == "EUR"
	})
	// The budget follows the window the server reported for the model.
	p, err := a.Chat.Preview(m.ID, "", "")
	if err != nil || p.Usage.TotalBudget > 8192 || p.Usage.TotalBudget < 4096 || p.Model != "gemma3:4b" {
		t.Fatalf("preview: budget %d model %q, %v", p.Usage.TotalBudget, p.Model, err)
	}

	v, err := a.Settings.Get()
	must(t, err)
	if got := v.Settings.LLM.Endpoints[0].APIKey; got != settings.MaskKey("sk-lab-secret-5678") {
		t.Fatalf("the settings page shows the endpoint key %q", got)
	}
	in := v.Settings
	in.LLM.Endpoints = append(in.LLM.Endpoints, settings.Endpoint{Name: "cloud", BaseURL: "https://api.example.com/v1", APIKey: "sk-new-cloud-0000"})
	_, err = a.Settings.Save(in)
	must(t, err)
	data, _ := os.ReadFile(filepath.Join(w.home, "settings.json"))
	var file settings.Settings
	must(t, json.Unmarshal(data, &file))
	if len(file.LLM.Endpoints) != 2 || file.LLM.Endpoints[0].APIKey != "sk-lab-secret-5678" || file.LLM.Endpoints[1].APIKey != "sk-new-cloud-0000" {
		t.Fatalf("saved endpoints: %+v", file.LLM.Endpoints)
	}
	in.LLM.Endpoints = append(in.LLM.Endpoints, settings.Endpoint{Name: "lab", BaseURL: "http://127.0.0.1:9/v1"})
	if _, err := a.Settings.Save(in); codeOfErr(t, err) != settings.CodeInvalid {
		t.Fatalf("two endpoints named lab: %v", err)
	}
}
