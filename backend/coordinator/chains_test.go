package coordinator

import (
	"context"
	"testing"

	"crewagent/backend/engine"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

// The budgeted model client keeps what the client it wraps can do: a
// client with embeddings (recall) still embeds, through the real client and
// the fake server.
func TestBudgetedClientKeepsEmbeddings(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	tests := []struct {
		name    string
		factory engine.LLMFactory
		embeds  bool
	}{
		{"the real client", nil, true},
		{"a client without embeddings", func(s settings.LLM) engine.LLM { return struct{ engine.LLM }{engine.DefaultLLMFactory(s)} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := BudgetedLLM(tt.factory, settings.Defaults)(settings.LLM{BaseURL: srv.URL(), Model: "fake-model", TimeoutSeconds: 10})
			em, ok := c.(engine.Embedders)
			if ok != tt.embeds {
				t.Fatalf("embeds %v, want %v", ok, tt.embeds)
			}
			if !ok {
				return
			}
			vecs, err := em.Embed(context.Background(), "fake-embed", []string{"one", "two"})
			if err != nil || len(vecs) != 2 || len(srv.EmbeddingRequests()) != 1 {
				t.Fatalf("embed: %d vectors, %v, %d requests", len(vecs), err, len(srv.EmbeddingRequests()))
			}
		})
	}
}
