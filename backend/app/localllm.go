package app

import (
	"context"
	"slices"
	"sync"
	"time"

	"crewagent/backend/llm"
)

// LocalCandidate is a place where a local OpenAI-compatible server usually
// listens.
type LocalCandidate struct {
	Name    string `json:"name"`    // the product, as people know it
	BaseURL string `json:"baseUrl"` // its OpenAI-compatible base URL
}

// DefaultLocalCandidates are the local servers the first run looks for, on
// their default ports.
var DefaultLocalCandidates = []LocalCandidate{
	{Name: "Ollama", BaseURL: "http://127.0.0.1:11434/v1"},
	{Name: "LM Studio", BaseURL: "http://127.0.0.1:1234/v1"},
	{Name: "vLLM", BaseURL: "http://127.0.0.1:8000/v1"},
}

// localProbeTimeout bounds each probe: a local server answers /v1/models in
// milliseconds, and nothing listening is refused at once.
const localProbeTimeout = 1500 * time.Millisecond

// LocalServer is a local server that answered GET /v1/models.
type LocalServer struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"baseUrl"`
	Models  []string `json:"models"` // the model ids it serves, sorted
}

// DetectLocalServers asks each candidate (Options.LocalCandidates, by
// default DefaultLocalCandidates) for its models at once, each within a
// short timeout, and returns those that answered with a model list, in the
// candidates' order. A server that answers with no model is listed too (it
// runs, but the user has yet to download a model).
func (rt *Runtime) DetectLocalServers(ctx context.Context) []LocalServer {
	cands := rt.opts.LocalCandidates
	if cands == nil {
		cands = DefaultLocalCandidates
	}
	found := make([]*LocalServer, len(cands))
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Go(func() {
			models, err := listModels(ctx, llm.Config{BaseURL: c.BaseURL, MaxRetries: -1, Timeout: localProbeTimeout, ConnectTimeout: localProbeTimeout})
			if err != nil {
				return
			}
			found[i] = &LocalServer{Name: c.Name, BaseURL: c.BaseURL, Models: models}
		})
	}
	wg.Wait()
	out := []LocalServer{}
	for _, s := range found {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// listModels returns the sorted model ids an OpenAI-compatible server lists.
func listModels(ctx context.Context, cfg llm.Config) ([]string, error) {
	ids, err := llm.New(cfg).Models(ctx)
	if err != nil {
		return nil, err
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if ids == nil {
		ids = []string{}
	}
	return ids, nil
}
