package llm

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"crewagent/backend/errs"
)

// Asking servers what they serve: the model lists of the settings'
// endpoints, the local servers of a first run, and the settings screen's
// Test Connection.

// ListModels returns the sorted model ids an OpenAI-compatible server lists.
func ListModels(ctx context.Context, cfg Config) ([]string, error) {
	ids, err := New(cfg).Models(ctx)
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

// DetectLocal asks each candidate for its models at once, each within a
// short timeout, and returns those that answered with a model list, in the
// candidates' order. A server that answers with no model is listed too (it
// runs, but the user has yet to download a model).
func DetectLocal(ctx context.Context, cands []LocalCandidate) []LocalServer {
	found := make([]*LocalServer, len(cands))
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Go(func() {
			models, err := ListModels(ctx, Config{BaseURL: c.BaseURL, MaxRetries: -1, Timeout: localProbeTimeout, ConnectTimeout: localProbeTimeout})
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

// Endpoint is an endpoint to list: its name, the models the settings name
// for it, and how to reach it.
type Endpoint struct {
	Name   string
	Models []string
	Config Config
}

// ListEndpoints lists every endpoint with its models, asking the servers at
// once, each within a few seconds.
func ListEndpoints(ctx context.Context, eps []Endpoint) []EndpointModels {
	out := make([]EndpointModels, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		out[i] = EndpointModels{Name: ep.Name, BaseURL: ep.Config.BaseURL, Models: slices.Clone(ep.Models)}
		if len(ep.Models) > 0 {
			out[i].Default = ep.Models[0]
		}
		wg.Go(func() {
			cfg := ep.Config
			cfg.MaxRetries, cfg.Timeout = -1, modelListTimeout
			listed, err := ListModels(ctx, cfg)
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

// ConnectionResult is the outcome of a Test Connection.
type ConnectionResult struct {
	OK      bool   `json:"ok"`
	Code    string `json:"code,omitempty"` // an errs code when OK is false
	Message string `json:"message"`
	// Key and Params: the template of errs.Messages Message was made from,
	// and the values it names (the window says it in the user's language).
	Key       string      `json:"key,omitempty"`
	Params    errs.Params `json:"params,omitempty"`
	Model     string      `json:"model"`
	BaseURL   string      `json:"baseUrl"`
	LatencyMs int64       `json:"latencyMs"`
	// Models are the model ids the endpoint lists (GET /models), sorted;
	// empty when it lists none or cannot list them (ModelsError says why).
	Models      []string `json:"models"`
	ModelsError string   `json:"modelsError,omitempty"`
}

// testConnectionTimeout bounds a Test Connection click; modelsTimeout its
// model list.
const (
	testConnectionTimeout = 30 * time.Second
	modelsTimeout         = 10 * time.Second
)

// Probe asks the endpoint of cfg (with a base URL) for its models, then
// sends one tiny request to cfg's model. It reports success or the exact
// error, with the models the endpoint serves so the user can pick one (also
// when no model is chosen yet).
func Probe(ctx context.Context, cfg Config) ConnectionResult {
	res := ConnectionResult{Model: cfg.Model, BaseURL: cfg.BaseURL, Models: []string{}}
	mcfg := cfg
	mcfg.Timeout, mcfg.MaxRetries = modelsTimeout, -1
	t0 := time.Now()
	if models, err := ListModels(ctx, mcfg); err != nil {
		res.ModelsError = AsError(err).Error()
	} else {
		res.Models = models
	}
	if cfg.Model == "" {
		res.LatencyMs = time.Since(t0).Milliseconds()
		res.Code = errs.LLMNotConfigured
		switch {
		case len(res.Models) == 1:
			res.say("llm.probe.chooseTheModel", nil)
		case len(res.Models) > 0:
			res.say("llm.probe.chooseModel", errs.Params{"n": len(res.Models)})
		case res.ModelsError != "":
			res.Message = res.ModelsError
		default:
			res.say("llm.probe.noModels", nil)
		}
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, testConnectionTimeout)
	defer cancel()
	t0 = time.Now()
	err := New(cfg).TestConnection(ctx)
	res.LatencyMs = time.Since(t0).Milliseconds()
	if err != nil {
		e := AsError(err)
		res.Code, res.Message = e.Code, e.Error()
		return res
	}
	res.OK = true
	res.say("llm.probe.connected", errs.Params{"model": cfg.Model, "latency": latency(res.LatencyMs)})
	return res
}

// say sets the message from a template of errs.Messages.
func (r *ConnectionResult) say(key string, params errs.Params) {
	r.Message, r.Key, r.Params = errs.Text(key, params), key, params
}

// latency says how long an answer took: "8 ms", "1.4 s".
func latency(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}
