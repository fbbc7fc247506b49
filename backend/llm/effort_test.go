package llm

import (
	"context"
	"testing"

	"crewagent/backend/llm/fakellm"
)

func TestReasoningEffort(t *testing.T) {
	t.Run("sent, then dropped for an endpoint that refuses it", func(t *testing.T) {
		srv := newFake(t)
		cfg := testConfig(srv)
		cfg.MaxRetries = -1
		cfg.ReasoningEffort = "low"
		cfg.Endpoints = NewEndpointMemory("")
		c := New(cfg)
		if _, err := c.Stream(context.Background(), userReq("think"), nil); err != nil {
			t.Fatal(err)
		}
		if got := srv.ChatRequests()[0].ReasoningEffort; got != "low" {
			t.Fatalf("reasoning_effort %q", got)
		}
		srv.RefuseFields(fakellm.RefuseOpenAI, FieldReasoningEffort)
		if _, err := c.Stream(context.Background(), userReq("again"), nil); err != nil {
			t.Fatalf("a refused reasoning_effort failed the turn: %v", err)
		}
		reqs := srv.ChatRequests()
		if len(reqs) != 3 || reqs[2].HasField(FieldReasoningEffort) || !cfg.Endpoints.Refuses(c.baseURL, FieldReasoningEffort) {
			t.Fatalf("%d requests; the last has it: %v", len(reqs), reqs[len(reqs)-1].HasField(FieldReasoningEffort))
		}
	})
	t.Run("not set: not sent", func(t *testing.T) {
		srv := newFake(t)
		cfg := testConfig(srv)
		cfg.Endpoints = NewEndpointMemory("")
		if _, err := New(cfg).Stream(context.Background(), userReq("hi"), nil); err != nil {
			t.Fatal(err)
		}
		if srv.ChatRequests()[0].HasField(FieldReasoningEffort) {
			t.Fatal("reasoning_effort sent without a setting")
		}
	})
}

func TestReasoningEffortOnlyForOpenAIReasoningModels(t *testing.T) {
	cases := []struct {
		base, model string
		want        bool
	}{
		{"https://api.openai.com/v1", "o3-mini", true},
		{"https://api.openai.com/v1", "gpt-5", true},
		{"https://api.openai.com/v1", "gpt-4o", false},
		{"https://api.deepseek.com/v1", "deepseek-reasoner", true},
		{"http://127.0.0.1:8000/v1", "qwen3:8b", true},
	}
	for _, tc := range cases {
		c := New(Config{BaseURL: tc.base, Model: tc.model, ReasoningEffort: "high", Endpoints: NewEndpointMemory("")})
		w := c.wire(Request{}, NewNameMap(), true)
		if (w.effort == "high") != tc.want {
			t.Errorf("%s %s: effort %q", tc.base, tc.model, w.effort)
		}
	}
}
