package llm

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"crewagent/backend/fsx"
)

// Optional request fields: sent where they help, dropped for good (per endpoint) once an
// endpoint refuses them.
const (
	// FieldPromptCacheKey is the stable per-conversation key OpenAI routes requests by, so
	// that consecutive requests of a conversation reach the same prompt cache.
	FieldPromptCacheKey = "prompt_cache_key"
	// FieldStreamOptions asks a streamed answer to end with its usage.
	FieldStreamOptions = "stream_options"
	// FieldMaxTokens is the output limit under its old name; an endpoint that refuses it
	// (reasoning models) gets max_completion_tokens instead.
	FieldMaxTokens = "max_tokens"
	// FieldReasoningEffort asks a reasoning model to think less or more
	// (Config.ReasoningEffort).
	FieldReasoningEffort = "reasoning_effort"
)

// optionalFields are the fields a refusal can name, in the order they are checked.
var optionalFields = []string{FieldPromptCacheKey, FieldStreamOptions, FieldMaxTokens, FieldReasoningEffort}

// EndpointMemory remembers what each endpoint (a base URL) refused, so that it is not sent
// again: optional request fields, and the schema keywords that only some providers accept
// (such an endpoint gets plain tool schemas, see plainSchema). It is safe for concurrent
// use. With a file it survives restarts.
type EndpointMemory struct {
	mu   sync.Mutex
	path string
	m    map[string]*endpointFacts
}

type endpointFacts struct {
	Refuses      []string `json:"refuses,omitempty"`
	PlainSchemas bool     `json:"plainSchemas,omitempty"`
	// Shapes are the message shapes the endpoint's models asked for by refusing a
	// request with a chat-template error, by model.
	Shapes map[string]Shape `json:"shapes,omitempty"`
	// Windows are the context windows the endpoint reported for its models
	// when it listed them, by model.
	Windows map[string]int `json:"windows,omitempty"`
	// TextOnly are the models that refused a request with images.
	TextOnly []string `json:"textOnly,omitempty"`
}

type endpointFile struct {
	Endpoints map[string]*endpointFacts `json:"endpoints"`
}

// NewEndpointMemory returns a memory kept in path (read now when it exists; "" keeps it
// in memory only). An unreadable file is ignored: the endpoints are learnt again.
func NewEndpointMemory(path string) *EndpointMemory {
	m := &EndpointMemory{path: path, m: map[string]*endpointFacts{}}
	if path == "" {
		return m
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return m
	}
	var f endpointFile
	if json.Unmarshal(data, &f) == nil {
		for k, v := range f.Endpoints {
			if v != nil {
				m.m[k] = v
			}
		}
	}
	return m
}

var (
	defaultMemoryMu sync.Mutex
	defaultMemory   = NewEndpointMemory("")
)

// UseEndpointFile makes the memory of clients without Config.Endpoints live in path (the
// runtime home's llm-endpoints.json), keeping what this process learnt already.
func UseEndpointFile(path string) {
	loaded := NewEndpointMemory(path)
	defaultMemoryMu.Lock()
	defer defaultMemoryMu.Unlock()
	old := defaultMemory
	old.mu.Lock()
	for k, v := range old.m {
		if _, ok := loaded.m[k]; !ok {
			loaded.m[k] = v
		}
	}
	old.mu.Unlock()
	defaultMemory = loaded
}

func processMemory() *EndpointMemory {
	defaultMemoryMu.Lock()
	defer defaultMemoryMu.Unlock()
	return defaultMemory
}

// Refuses reports whether the endpoint refused the request field.
func (m *EndpointMemory) Refuses(baseURL, field string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.m[baseURL]
	return f != nil && slices.Contains(f.Refuses, field)
}

// PlainSchemas reports whether the endpoint refused a tool schema keyword.
func (m *EndpointMemory) PlainSchemas(baseURL string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.m[baseURL]
	return f != nil && f.PlainSchemas
}

// Shape returns the message shape the endpoint's model asked for ("" for none so far).
func (m *EndpointMemory) Shape(baseURL, model string) Shape {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.m[baseURL]; f != nil {
		return f.Shapes[model]
	}
	return ""
}

// TextOnly reports whether the endpoint's model refused images.
func (m *EndpointMemory) TextOnly(baseURL, model string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.m[baseURL]
	return f != nil && slices.Contains(f.TextOnly, model)
}

func (m *EndpointMemory) rememberTextOnly(baseURL, model string) {
	m.update(baseURL, func(f *endpointFacts) bool {
		if slices.Contains(f.TextOnly, model) {
			return false
		}
		f.TextOnly = append(f.TextOnly, model)
		sort.Strings(f.TextOnly)
		return true
	})
}

// Window returns the context window the endpoint reported for model (0 for none).
func (m *EndpointMemory) Window(baseURL, model string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.m[baseURL]; f != nil {
		return f.Windows[model]
	}
	return 0
}

func (m *EndpointMemory) rememberWindows(baseURL string, windows map[string]int) {
	m.update(baseURL, func(f *endpointFacts) bool {
		changed := false
		for model, w := range windows {
			if f.Windows[model] != w {
				if f.Windows == nil {
					f.Windows = map[string]int{}
				}
				f.Windows[model] = w
				changed = true
			}
		}
		return changed
	})
}

func (m *EndpointMemory) rememberShape(baseURL, model string, s Shape) {
	m.update(baseURL, func(f *endpointFacts) bool {
		if strictness(f.Shapes[model]) >= strictness(s) {
			return false
		}
		if f.Shapes == nil {
			f.Shapes = map[string]Shape{}
		}
		f.Shapes[model] = s
		return true
	})
}

func (m *EndpointMemory) rememberRefused(baseURL, field string) {
	m.update(baseURL, func(f *endpointFacts) bool {
		if slices.Contains(f.Refuses, field) {
			return false
		}
		f.Refuses = append(f.Refuses, field)
		sort.Strings(f.Refuses)
		return true
	})
}

func (m *EndpointMemory) rememberPlainSchemas(baseURL string) {
	m.update(baseURL, func(f *endpointFacts) bool {
		if f.PlainSchemas {
			return false
		}
		f.PlainSchemas = true
		return true
	})
}

func (m *EndpointMemory) update(baseURL string, change func(*endpointFacts) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.m[baseURL]
	if f == nil {
		f = &endpointFacts{}
		m.m[baseURL] = f
	}
	if !change(f) || m.path == "" {
		return
	}
	data, err := json.MarshalIndent(endpointFile{Endpoints: m.m}, "", "  ")
	if err == nil {
		// Losing the file only means learning the endpoint again.
		_ = fsx.WriteFile(m.path, append(data, '\n'), 0o600)
	}
}

// refusal says what a failed request refused: an optional field it carried (the field's
// name), or a tool schema keyword (schema true). Only a 400 or 422 that names it counts.
func refusal(e *Error, sent []string, hadTools bool) (field string, schema bool) {
	if e == nil || (e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusUnprocessableEntity) {
		return "", false
	}
	text := strings.ToLower(e.Message + " " + e.body)
	for _, f := range optionalFields {
		if !slices.Contains(sent, f) || !strings.Contains(text, f) {
			continue
		}
		if f == FieldMaxTokens && !strings.Contains(text, "max_completion_tokens") {
			continue // a limit too high, not the name refused
		}
		return f, false
	}
	if hadTools && mentionsSchemaKeyword(text) {
		return "", true
	}
	return "", false
}

// mentionsSchemaKeyword reports a refusal of a JSON Schema keyword in a tool's parameters
// (Gemini: `Unknown name "$schema" at 'tools[0].function_declarations[0].parameters'`).
func mentionsSchemaKeyword(text string) bool {
	if !strings.Contains(text, "parameters") && !strings.Contains(text, "schema") {
		return false
	}
	for _, k := range plainSchemaDrops {
		if strings.Contains(text, `"`+strings.ToLower(k)+`"`) || strings.Contains(text, `'`+strings.ToLower(k)+`'`) {
			return true
		}
	}
	return false
}
