package llm

import (
	"encoding/json"
)

// ModelInfo is a model a server lists, with the context window it reports for it (0:
// not reported).
type ModelInfo struct {
	ID            string `json:"id"`
	ContextWindow int    `json:"contextWindow,omitempty"`
}

// modelInfos reads the context windows a GET /v1/models body reports beside the ids, in
// the members servers use: context_length (OpenRouter, Together), max_model_len (vLLM),
// max_context_length (LM Studio, Mistral), context_window (Groq), and OpenRouter's
// top_provider.context_length.
func modelInfos(body []byte) map[string]int {
	var list struct {
		Data []struct {
			ID               string `json:"id"`
			ContextLength    int    `json:"context_length"`
			MaxModelLen      int    `json:"max_model_len"`
			MaxContextLength int    `json:"max_context_length"`
			ContextWindow    int    `json:"context_window"`
			TopProvider      struct {
				ContextLength int `json:"context_length"`
			} `json:"top_provider"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil {
		return nil
	}
	out := map[string]int{}
	for _, m := range list.Data {
		for _, w := range []int{m.MaxModelLen, m.ContextLength, m.MaxContextLength, m.ContextWindow, m.TopProvider.ContextLength} {
			if w > 0 {
				out[m.ID] = w
				break
			}
		}
	}
	return out
}

// ContextWindow returns the context window (prompt and answer, in the server's tokens)
// the endpoint reported for model when it listed its models, or 0.
func (c *Client) ContextWindow(model string) int {
	return c.endpoints().Window(c.baseURL, model)
}
