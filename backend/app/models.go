package app

import (
	"context"
	"slices"
	"sync"
	"time"

	"crewagent/backend/engine"
	"crewagent/backend/settings"
)

// modelListTimeout bounds asking one endpoint for its models.
const modelListTimeout = 5 * time.Second

// EndpointModels is an endpoint of the settings with the models a
// conversation may choose on it: those the settings name, then those the
// server lists (GET /v1/models), without repeats.
type EndpointModels struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"baseUrl"`
	Models  []string `json:"models"`
	// Default is the model the settings name for the endpoint ("" for none).
	Default string `json:"default,omitempty"`
	// Error says in words why the server's list could not be read (the
	// settings' models are still offered).
	Error string `json:"error,omitempty"`
}

// Models lists every endpoint of the settings (the default one first) with
// its models, asking the servers at once, each within a few seconds.
func (rt *Runtime) Models(ctx context.Context) []EndpointModels {
	l := rt.Effective().LLM
	eps := l.AllEndpoints()
	out := make([]EndpointModels, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		out[i] = EndpointModels{Name: ep.Name, BaseURL: ep.BaseURL, Models: slices.Clone(ep.Models)}
		if len(ep.Models) > 0 {
			out[i].Default = ep.Models[0]
		}
		wg.Go(func() {
			one := l
			one.BaseURL, one.APIKey = ep.BaseURL, ep.APIKey
			cfg := engine.LLMConfig(one)
			cfg.MaxRetries, cfg.Timeout = -1, modelListTimeout
			listed, err := listModels(ctx, cfg)
			if err != nil {
				out[i].Error = "the server's model list could not be read: " + err.Error()
				return
			}
			for _, m := range listed {
				if !slices.Contains(out[i].Models, m) {
					out[i].Models = append(out[i].Models, m)
				}
			}
		})
	}
	wg.Wait()
	for i := range out {
		if out[i].Models == nil {
			out[i].Models = []string{}
		}
	}
	return out
}

// SelectModel chooses where a conversation's answers come from: an endpoint
// of the settings by name (settings.DefaultEndpoint or "" for the default)
// and a model ("" for the endpoint's first). It is recorded in the
// conversation and used from its next request on.
func (ws *Workspace) SelectModel(convID, endpoint, model string) error {
	if endpoint == settings.DefaultEndpoint {
		endpoint = ""
	}
	return ws.engine.SelectModel(convID, endpoint, model)
}
