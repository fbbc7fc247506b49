package app

import (
	"context"

	"crewagent/backend/engine"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
)

// EndpointModels is an endpoint of the settings with the models a
// conversation may choose on it.
type EndpointModels = llm.EndpointModels

// Models lists every endpoint of the settings (the default one first) with
// its models, asking the servers at once, each within a few seconds.
func (rt *Runtime) Models(ctx context.Context) []EndpointModels {
	return llm.ListEndpoints(ctx, engine.Endpoints(rt.Effective().LLM))
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
