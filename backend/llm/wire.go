package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// wireParts are the parts of a request that depend on what the endpoint accepts: the
// optional fields and the form of the tool schemas.
type wireParts struct {
	streamOptions bool
	maxTokens     int  // the output limit (0: the server's default)
	completion    bool // sent as max_completion_tokens
	tools         []openai.Tool
	plain         bool     // tool schemas in their plain form
	extra         []byte   // members added to the body (prompt_cache_key)
	sent          []string // the optional fields sent
	hadTools      bool
	model         string
	shape         Shape  // the message shape sent
	effort        string // reasoning_effort ("" not sent)
	textOnly      bool   // the model refused images: they become notes
	hadImages     bool
}

// endpoints returns the memory of what endpoints refused.
func (c *Client) endpoints() *EndpointMemory {
	if c.cfg.Endpoints != nil {
		return c.cfg.Endpoints
	}
	return processMemory()
}

// wire decides the endpoint-dependent parts of req from what the endpoint refused so far.
func (c *Client) wire(req Request, names *NameMap, stream bool) wireParts {
	mem := c.endpoints()
	w := wireParts{hadTools: len(req.Tools) > 0, model: req.Model}
	if w.model == "" {
		w.model = c.cfg.Model
	}
	w.shape = c.shapeFor(w.model)
	w.textOnly = mem.TextOnly(c.baseURL, w.model)
	for _, m := range req.Messages {
		w.hadImages = w.hadImages || len(m.Images) > 0
	}
	if stream && !mem.Refuses(c.baseURL, FieldStreamOptions) {
		w.streamOptions = true
		w.sent = append(w.sent, FieldStreamOptions)
	}
	if req.CacheKey != "" && !mem.Refuses(c.baseURL, FieldPromptCacheKey) {
		v, _ := json.Marshal(CacheKey(req.CacheKey))
		w.extra = append([]byte(`"`+FieldPromptCacheKey+`":`), v...)
		w.sent = append(w.sent, FieldPromptCacheKey)
	}
	if req.MaxTokens > 0 {
		w.maxTokens = req.MaxTokens
		model := req.Model
		if model == "" {
			model = c.cfg.Model
		}
		w.completion = isReasoningModel(model) || mem.Refuses(c.baseURL, FieldMaxTokens)
		if !w.completion {
			w.sent = append(w.sent, FieldMaxTokens)
		}
	}
	if e := c.cfg.ReasoningEffort; e != "" && !mem.Refuses(c.baseURL, FieldReasoningEffort) &&
		(isReasoningModel(w.model) || !isOpenAI(c.baseURL)) {
		w.effort = e
		w.sent = append(w.sent, FieldReasoningEffort)
	}
	w.plain = mem.PlainSchemas(c.baseURL) || plainByDefault(c.baseURL)
	for _, t := range req.Tools {
		params := t.Parameters
		if len(strings.TrimSpace(string(params))) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		w.tools = append(w.tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        names.Wire(t.Name),
				Description: t.Description,
				Parameters:  cleanSchema(params, w.plain),
			},
		})
	}
	return w
}

// apply sets the parts go-openai sends itself.
func (w wireParts) apply(oreq *openai.ChatCompletionRequest) {
	oreq.Tools = w.tools
	if w.textOnly {
		withoutImages(oreq.Messages)
	}
	oreq.Messages = reshape(oreq.Messages, w.shape)
	oreq.MaxTokens, oreq.MaxCompletionTokens = 0, 0
	if w.completion {
		oreq.MaxCompletionTokens = w.maxTokens
	} else {
		oreq.MaxTokens = w.maxTokens
	}
	oreq.ReasoningEffort = w.effort
	oreq.StreamOptions = nil
	if w.streamOptions {
		oreq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
}

// learn records what a failed attempt shows the endpoint refuses; it reports whether the
// request can be sent again at once without it.
func (c *Client) learn(err error, w wireParts) bool {
	field, schema := refusal(AsError(err), w.sent, w.hadTools)
	switch {
	case field != "":
		c.endpoints().rememberRefused(c.baseURL, field)
		return true
	case schema && !w.plain:
		c.endpoints().rememberPlainSchemas(c.baseURL)
		return true
	}
	if w.hadImages && !w.textOnly && imageRefusal(AsError(err)) {
		c.endpoints().rememberTextOnly(c.baseURL, w.model)
		return true
	}
	if s := templateRefusal(AsError(err)); s != "" && c.cfg.Shape == ShapeAuto && strictness(s) > strictness(w.shape) {
		c.endpoints().rememberShape(c.baseURL, w.model, s)
		return true
	}
	return false
}

// isOpenAI reports OpenAI's own API, whose chat models other than the reasoning ones
// refuse reasoning_effort.
func isOpenAI(baseURL string) bool { return hostIs(baseURL, "api.openai.com") }

// plainByDefault reports endpoints known to take only plain tool schemas: Gemini's
// OpenAI-compatible API.
func plainByDefault(baseURL string) bool { return hostIs(baseURL, "generativelanguage.googleapis.com") }

// hostIs reports whether baseURL's host is host.
func hostIs(baseURL, host string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), host)
}

// CacheKey is the prompt_cache_key sent for a conversation: a hash of its id, stable for
// the conversation's life and saying nothing of it.
func CacheKey(conversationID string) string {
	sum := sha256.Sum256([]byte("crewagent prompt cache\x00" + conversationID))
	return "crewagent-" + hex.EncodeToString(sum[:16])
}

// reasoningOf reads the thinking of a non-streamed answer that names it "reasoning".
func reasoningOf(body []byte) string {
	var v struct {
		Choices []struct {
			Message struct {
				Reasoning *string `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Choices) == 0 || v.Choices[0].Message.Reasoning == nil {
		return ""
	}
	return *v.Choices[0].Message.Reasoning
}
