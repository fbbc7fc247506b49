package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
)

// RecordedRequest is one request the server received, with its chat body decoded.
type RecordedRequest struct {
	Seq    int         `json:"seq"` // 1-based position among all requests to this server
	Method string      `json:"method"`
	Path   string      `json:"path"`
	Header http.Header `json:"-"`
	Body   []byte      `json:"-"`

	Model        string            `json:"model,omitempty"`
	Stream       bool              `json:"stream"`
	IncludeUsage bool              `json:"includeUsage,omitempty"` // stream_options.include_usage
	Messages     []RecordedMessage `json:"messages,omitempty"`
	Tools        []RecordedTool    `json:"tools,omitempty"`
	ToolChoice   json.RawMessage   `json:"toolChoice,omitempty"`
	Temperature  *float64          `json:"temperature,omitempty"`
	MaxTokens    int               `json:"maxTokens,omitempty"` // max_tokens or max_completion_tokens
	// PromptCacheKey is the request's prompt_cache_key ("" when absent).
	PromptCacheKey string `json:"promptCacheKey,omitempty"`
	// ReasoningEffort is the request's reasoning_effort ("" when absent).
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	// Fields are the top-level fields of the body, sorted.
	Fields []string `json:"fields,omitempty"`
	// CachedTokens is the prompt prefix, in estimated tokens, this request shares with
	// the chat request received before it (what a prompt cache could have reused).
	CachedTokens int `json:"cachedTokens,omitempty"`
}

// HasField reports whether the body carried the top-level field name.
func (r RecordedRequest) HasField(name string) bool {
	for _, f := range r.Fields {
		if f == name {
			return true
		}
	}
	return false
}

// RecordedMessage is one decoded request message. Content is nil when the field was absent
// or null; array contents (text parts) are joined.
type RecordedMessage struct {
	Role       string             `json:"role"`
	Content    *string            `json:"content,omitempty"`
	Name       string             `json:"name,omitempty"`
	ToolCalls  []RecordedToolCall `json:"tool_calls,omitempty"`
	ToolCallID string             `json:"tool_call_id,omitempty"`
	// Images are the image parts of the content, by their URL (a data URL for
	// an attached image).
	Images []string `json:"images,omitempty"`
}

// Text returns the content or "".
func (m RecordedMessage) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// RecordedToolCall is a tool call inside a recorded assistant message.
type RecordedToolCall struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// RecordedTool is one declared function tool.
type RecordedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// LastUserText returns the content of the last user message ("" when there is none).
func (r RecordedRequest) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// LastMessage returns the last message (the zero value when there is none).
func (r RecordedRequest) LastMessage() RecordedMessage {
	if len(r.Messages) == 0 {
		return RecordedMessage{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ToolNames returns the declared tool names in request order.
func (r RecordedRequest) ToolNames() []string {
	out := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

type wireRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Name       string          `json:"name"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	Temperature         *float64        `json:"temperature"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	PromptCacheKey      string          `json:"prompt_cache_key"`
	ReasoningEffort     string          `json:"reasoning_effort"`
}

// decodeChat fills the chat fields of r from its body.
func decodeChat(r *RecordedRequest) error {
	var w wireRequest
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return fmt.Errorf("We could not parse the JSON body of your request. (%v)", err)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(r.Body, &top) == nil {
		for k := range top {
			r.Fields = append(r.Fields, k)
		}
		sort.Strings(r.Fields)
	}
	r.Model = w.Model
	r.PromptCacheKey = w.PromptCacheKey
	r.ReasoningEffort = w.ReasoningEffort
	r.Stream = w.Stream
	r.IncludeUsage = w.StreamOptions != nil && w.StreamOptions.IncludeUsage
	r.ToolChoice = w.ToolChoice
	r.Temperature = w.Temperature
	r.MaxTokens = w.MaxTokens
	if w.MaxCompletionTokens > 0 {
		r.MaxTokens = w.MaxCompletionTokens
	}
	for i, m := range w.Messages {
		rm := RecordedMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID}
		content, images, err := decodeContent(m.Content)
		if err != nil {
			return fmt.Errorf("Invalid type for 'messages[%d].content': %v", i, err)
		}
		rm.Content, rm.Images = content, images
		for _, tc := range m.ToolCalls {
			rm.ToolCalls = append(rm.ToolCalls, RecordedToolCall{
				ID: tc.ID, Type: tc.Type, Name: tc.Function.Name, Arguments: tc.Function.Arguments,
			})
		}
		r.Messages = append(r.Messages, rm)
	}
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, RecordedTool{
			Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters,
		})
	}
	return nil
}

func decodeContent(raw json.RawMessage) (*string, []string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return &s, nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, nil, fmt.Errorf("expected a string or an array of content parts")
	}
	var b strings.Builder
	var images []string
	for i, p := range parts {
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return nil, nil, fmt.Errorf("Missing required parameter: 'content[%d].image_url'.", i)
			}
			images = append(images, p.ImageURL.URL)
		default:
			return nil, nil, fmt.Errorf("Invalid value: '%s'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.", p.Type)
		}
	}
	s = b.String()
	return &s, images, nil
}

var functionNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validate applies the OpenAI API's request rules; it returns the error message the real
// API would send, or "".
func validate(r *RecordedRequest) string {
	if len(r.Messages) == 0 {
		return "[] is too short - 'messages'"
	}
	for i, t := range r.Tools {
		if !functionNameRE.MatchString(t.Name) {
			return fmt.Sprintf("Invalid 'tools[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i)
		}
	}
	pending := map[string]bool{}
	missing := func() string {
		ids := make([]string, 0, len(pending))
		for id := range pending {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		return fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(ids, ", "))
	}
	for i, m := range r.Messages {
		switch m.Role {
		case "system", "user", "developer", "tool":
			if m.Content == nil {
				return fmt.Sprintf("Missing required parameter: 'messages[%d].content'.", i)
			}
		case "assistant":
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function' and 'developer'.", m.Role)
		}
		if m.Role == "tool" {
			if !pending[m.ToolCallID] {
				return fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[%d])", i)
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			return missing()
		}
		if m.Role == "assistant" {
			for j, tc := range m.ToolCalls {
				if !functionNameRE.MatchString(tc.Name) {
					return fmt.Sprintf("Invalid 'messages[%d].tool_calls[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i, j)
				}
				pending[tc.ID] = true
			}
		}
	}
	if len(pending) > 0 {
		return missing()
	}
	return ""
}
