package settings

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultEndpoint names the endpoint of llm.baseUrl, llm.apiKey and llm.model
// (the one every conversation uses unless it chose another).
const DefaultEndpoint = "default"

// Endpoint is one more OpenAI-compatible server a conversation may choose
// (llm.endpoints): its name, base URL, key and the models offered for it
// (the server's own list, GET /v1/models, is offered too).
type Endpoint struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"baseUrl"`
	APIKey  string   `json:"apiKey,omitempty"`
	Models  []string `json:"models,omitempty"`
}

// EndpointNamed returns the endpoint of that name: DefaultEndpoint (or "")
// is the top-level llm settings.
func (l LLM) EndpointNamed(name string) (Endpoint, bool) {
	if name == "" || name == DefaultEndpoint {
		var models []string
		if l.Model != "" {
			models = []string{l.Model}
		}
		return Endpoint{Name: DefaultEndpoint, BaseURL: l.BaseURL, APIKey: l.APIKey, Models: models}, true
	}
	for _, e := range l.Endpoints {
		if e.Name == name {
			return e, true
		}
	}
	return Endpoint{}, false
}

// AllEndpoints lists the default endpoint (when it has a base URL) and then
// llm.endpoints.
func (l LLM) AllEndpoints() []Endpoint {
	var out []Endpoint
	if d, _ := l.EndpointNamed(DefaultEndpoint); d.BaseURL != "" {
		out = append(out, d)
	}
	return append(out, l.Endpoints...)
}

// For returns the LLM settings of a conversation that chose an endpoint and
// a model ("" keeps the default's). A model without an endpoint is a model
// of the default endpoint. An endpoint no longer in the settings is an
// error that names it: its conversations never go silently elsewhere.
func (l LLM) For(endpoint, model string) (LLM, error) {
	out := l
	out.Endpoints = nil
	if endpoint != "" && endpoint != DefaultEndpoint {
		e, ok := l.EndpointNamed(endpoint)
		if !ok {
			return l, &Error{Code: CodeInvalid, Message: fmt.Sprintf("this conversation uses the endpoint %q, which is no longer in the settings: add it again, or choose another model for the conversation", endpoint)}
		}
		out.BaseURL, out.APIKey, out.EndpointName = e.BaseURL, e.APIKey, e.Name
		if model == "" && len(e.Models) > 0 {
			model = e.Models[0]
		}
		// A summary model belongs to the default endpoint.
		out.SummaryModel = ""
		if model == "" {
			return l, &Error{Code: CodeInvalid, Message: fmt.Sprintf("the endpoint %q has no model: choose one for the conversation", endpoint)}
		}
	}
	if model != "" {
		out.Model = model
	}
	return out, nil
}

// validateEndpoints adds the problems of llm.endpoints.
func (l LLM) validateEndpoints(add func(field, format string, args ...any)) {
	var seen []string
	for i, e := range l.Endpoints {
		at := fmt.Sprintf("llm.endpoints[%d]", i)
		name := strings.TrimSpace(e.Name)
		switch {
		case name == "":
			add(at+".name", "must not be empty")
		case name != e.Name:
			add(at+".name", "must not start or end with a space, got %q", e.Name)
		case strings.EqualFold(name, DefaultEndpoint):
			add(at+".name", "%q names the endpoint of llm.baseUrl; choose another name", DefaultEndpoint)
		case slices.Contains(seen, name):
			add(at+".name", "%q is used twice", name)
		}
		seen = append(seen, name)
		if err := checkBaseURL(e.BaseURL); err != nil {
			add(at+".baseUrl", "%v", err)
		}
		for j, m := range e.Models {
			if strings.TrimSpace(m) == "" {
				add(fmt.Sprintf("%s.models[%d]", at, j), "must not be empty")
			}
		}
	}
}
