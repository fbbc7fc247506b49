package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// Refusal styles of RefuseFields: how a server with strict request validation says that
// it does not know a field.
const (
	// RefuseOpenAI answers 400 {"error":{"message":"Unrecognized request argument
	// supplied: NAME","type":"invalid_request_error"}}.
	RefuseOpenAI = "openai"
	// RefusePydantic answers 422 {"detail":[{"type":"extra_forbidden","loc":["body",
	// "NAME"],"msg":"Extra inputs are not permitted"}]}, as Python servers that forbid
	// extra fields do.
	RefusePydantic = "pydantic"
)

// Shapes of the cached prompt tokens in a reported usage (SetCacheReport, Response.Cache).
const (
	// CacheOpenAI reports usage.prompt_tokens_details.cached_tokens.
	CacheOpenAI = "openai"
	// CacheDeepSeek reports usage.prompt_cache_hit_tokens and prompt_cache_miss_tokens.
	CacheDeepSeek = "deepseek"
)

// RefuseFields makes the server refuse every chat request whose body has one of the given
// top-level fields (e.g. "prompt_cache_key", "stream_options"), in the given style
// (RefuseOpenAI when empty). No names: every field is accepted again.
func (s *Server) RefuseFields(style string, names ...string) {
	if style == "" {
		style = RefuseOpenAI
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseStyle = style
	s.refuseFields = append([]string(nil), names...)
}

// RefuseSchemaKeywords makes the server refuse a chat request whose tool parameter schemas
// use one of the given keywords (e.g. "$schema", "additionalProperties") at any depth, with
// the 400 Gemini's API sends for them. No names: every keyword is accepted again.
func (s *Server) RefuseSchemaKeywords(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseKeywords = append([]string(nil), names...)
}

// SetCacheReport makes estimated usages report the cached prompt tokens in the given shape
// (CacheOpenAI or CacheDeepSeek; "" reports none, the default). The cached tokens are the
// prefix each request shares with the chat request accepted before it (RecordedRequest.
// CachedTokens).
func (s *Server) SetCacheReport(shape string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cacheShape = shape
}

// Chat templates of SetTemplate: how strict local model servers render messages.
const (
	// TemplateOpenAI accepts any order of roles (the default).
	TemplateOpenAI = ""
	// TemplateAlternating is a Mistral or Llama-2 style template: one optional leading
	// system message, then user and assistant turns strictly alternating from a user
	// turn (a tool call and its results sit between turns). A request that breaks it is
	// answered 400 "Conversation roles must alternate user/assistant/user/assistant/...",
	// as vLLM and LM Studio relay the template's exception.
	TemplateAlternating = "alternating"
	// TemplateNoSystem is a Gemma style template: TemplateAlternating without a system
	// role, refused with 400 "System role not supported".
	TemplateNoSystem = "no-system"
)

// SetTemplate makes the server render chat requests with a strict chat template
// (TemplateAlternating, TemplateNoSystem) and refuse those it cannot render;
// TemplateOpenAI accepts every request again.
func (s *Server) SetTemplate(t string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.template = t
}

// refuseTemplate returns the HTTP status and body of a strict template's refusal of the
// request's messages, or 0.
func refuseTemplate(rec *RecordedRequest, template string) (int, string) {
	if template == TemplateOpenAI {
		return 0, ""
	}
	refuse := func(msg string) (int, string) {
		return http.StatusBadRequest, ErrorBody("BadRequestError", "", msg)
	}
	msgs := rec.Messages
	if len(msgs) > 0 && msgs[0].Role == "system" {
		if template == TemplateNoSystem {
			return refuse("System role not supported")
		}
		msgs = msgs[1:]
	}
	const alternate = "Conversation roles must alternate user/assistant/user/assistant/..."
	want := "user"
	for _, m := range msgs {
		switch {
		case m.Role == "system":
			if template == TemplateNoSystem {
				return refuse("System role not supported")
			}
			return refuse(alternate)
		case m.Role == "tool", m.Role == "assistant" && len(m.ToolCalls) > 0:
			continue
		case m.Role != want:
			return refuse(alternate)
		}
		if want == "user" {
			want = "assistant"
		} else {
			want = "user"
		}
	}
	return 0, ""
}

// SetTextOnly makes the server refuse requests with image parts for the given models, as
// OpenAI does for a model without vision (400 "Invalid content type. image_url is only
// supported by certain models."). No models: every model takes images again.
func (s *Server) SetTextOnly(models ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.textOnly = append([]string(nil), models...)
}

// refuseImages returns the refusal of a request with images to a text-only model, or 0.
func refuseImages(rec *RecordedRequest, textOnly []string) (int, string) {
	if !slices.Contains(textOnly, rec.Model) {
		return 0, ""
	}
	for i, m := range rec.Messages {
		if len(m.Images) > 0 {
			return http.StatusBadRequest, ErrorBody("invalid_request_error", "", fmt.Sprintf("Invalid content type. image_url is only supported by certain models. (messages[%d].content)", i))
		}
	}
	return 0, ""
}

// refuseField returns the HTTP status and body refusing the first refused field the request
// carries, or 0.
func refuseField(rec *RecordedRequest, style string, names []string) (int, string) {
	for _, n := range names {
		if !rec.HasField(n) {
			continue
		}
		if style == RefusePydantic {
			b, _ := json.Marshal(map[string]any{"detail": []any{map[string]any{
				"type": "extra_forbidden", "loc": []string{"body", n}, "msg": "Extra inputs are not permitted", "input": json.RawMessage(fieldValue(rec, n)),
			}}})
			return http.StatusUnprocessableEntity, string(b)
		}
		return http.StatusBadRequest, ErrorBody("invalid_request_error", "", "Unrecognized request argument supplied: "+n)
	}
	return 0, ""
}

func fieldValue(rec *RecordedRequest, name string) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(rec.Body, &top) != nil || len(top[name]) == 0 {
		return []byte("null")
	}
	return top[name]
}

// refuseKeywords returns Gemini's message for the refused keywords the tool schemas use,
// or "".
func refuseKeywords(rec *RecordedRequest, keywords []string) string {
	if len(keywords) == 0 {
		return ""
	}
	refused := map[string]bool{}
	for _, k := range keywords {
		refused[k] = true
	}
	var lines []string
	for i, t := range rec.Tools {
		var v any
		if len(t.Parameters) == 0 || json.Unmarshal(t.Parameters, &v) != nil {
			continue
		}
		walkSchema(v, fmt.Sprintf("tools[%d].function_declarations[%d].parameters", 0, i), refused, &lines)
	}
	return strings.Join(lines, "\n")
}

func walkSchema(v any, at string, refused map[string]bool, lines *[]string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if refused[k] {
				*lines = append(*lines, fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", k, at))
				continue
			}
			switch k {
			case "properties", "$defs", "definitions", "patternProperties":
				if props, ok := x[k].(map[string]any); ok {
					names := make([]string, 0, len(props))
					for n := range props {
						names = append(names, n)
					}
					sort.Strings(names)
					for j, n := range names {
						walkSchema(props[n], fmt.Sprintf("%s.%s[%d].value", at, k, j), refused, lines)
					}
				}
			default:
				walkSchema(x[k], at+"."+k, refused, lines)
			}
		}
	case []any:
		for i, e := range x {
			walkSchema(e, fmt.Sprintf("%s[%d]", at, i), refused, lines)
		}
	}
}

// promptShape is what a prompt cache keys on: the tools, then the messages in order.
type promptShape struct {
	tools    string
	messages []RecordedMessage
}

func shapeOf(rec *RecordedRequest) *promptShape {
	b, _ := json.Marshal(rec.Tools)
	return &promptShape{tools: string(b), messages: rec.Messages}
}

// messageTokens is the server's estimate of a message's prompt tokens (as in the usage).
func messageTokens(m RecordedMessage) int { return len(m.Text())/4 + 4 }

// cachedPrefix estimates the prompt tokens of cur that repeat the start of prev: whole
// messages that are equal, then the common start of the first message that differs. A
// change in the tools changes the start of the prompt: nothing is reused.
func cachedPrefix(prev, cur *promptShape) int {
	if prev == nil || prev.tools != cur.tools {
		return 0
	}
	n := 0
	for i, m := range cur.messages {
		if i >= len(prev.messages) {
			break
		}
		p := prev.messages[i]
		if sameMessage(p, m) {
			n += messageTokens(m)
			continue
		}
		if p.Role == m.Role {
			a, b := p.Text(), m.Text()
			k := 0
			for k < len(a) && k < len(b) && a[k] == b[k] {
				k++
			}
			n += k / 4
		}
		break
	}
	return n
}

func sameMessage(a, b RecordedMessage) bool {
	if a.Role != b.Role || a.Name != b.Name || a.ToolCallID != b.ToolCallID || (a.Content == nil) != (b.Content == nil) || a.Text() != b.Text() || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	return true
}

// withCache adds the cached tokens to an estimated usage in the given shape.
func withCache(u Usage, cached int, shape string) Usage {
	if cached > u.PromptTokens {
		cached = u.PromptTokens
	}
	switch shape {
	case CacheOpenAI:
		u.PromptTokensDetails = &PromptTokensDetails{CachedTokens: cached}
	case CacheDeepSeek:
		miss := u.PromptTokens - cached
		u.PromptCacheHitTokens, u.PromptCacheMissTokens = &cached, &miss
	}
	return u
}
