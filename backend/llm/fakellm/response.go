package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// StallForever as Response.Stall waits until the client goes away or the server closes.
const StallForever time.Duration = -1

// Response is one scripted answer. The zero Response streams an empty answer. See the
// package documentation for how each field shapes the answer.
type Response struct {
	Text      string `json:"text,omitempty"`
	Repeat    int    `json:"repeat,omitempty"`
	Echo      bool   `json:"echo,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningField names the member the reasoning is sent in: "reasoning_content"
	// (the default, DeepSeek and vLLM) or "reasoning" (OpenRouter, Ollama).
	ReasoningField string `json:"reasoning_field,omitempty"`
	Chunks         int    `json:"chunks,omitempty"`
	// ChunkDelay is the pause before each event after the first (JSON: chunk_delay_ms).
	ChunkDelay time.Duration `json:"-"`

	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	Interleave bool       `json:"interleave,omitempty"`
	// CallIDs changes the ids the tool calls are streamed with: IDsSame sends every call
	// with the id of the first, IDsEmpty sends none (local servers do both).
	CallIDs string `json:"call_ids,omitempty"`
	// OneIndex streams every tool call at index 0, as servers that number no call do.
	OneIndex bool `json:"one_index,omitempty"`

	FinishReason string `json:"finish_reason,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	// Cache reports the cached prompt tokens in an estimated usage in this shape
	// (CacheOpenAI or CacheDeepSeek), whatever the server's SetCacheReport says.
	Cache     string `json:"cache,omitempty"`
	OmitUsage bool   `json:"omit_usage,omitempty"`
	OmitDone  bool   `json:"omit_done,omitempty"`

	Status  int               `json:"status,omitempty"`
	Body    string            `json:"body,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Delay is the wait before anything is sent (JSON: delay_ms).
	Delay time.Duration `json:"-"`
	// StallAfter events, the server waits Stall (JSON: stall_ms, -1 for StallForever).
	StallAfter int           `json:"stall_after,omitempty"`
	Stall      time.Duration `json:"-"`
	// Cut closes the connection after CutAfter events, without ending the body.
	Cut      bool `json:"cut,omitempty"`
	CutAfter int  `json:"cut_after,omitempty"`
	// Fault breaks a streamed answer off after CutAfter events the way a real server or
	// proxy does (see the Fault* constants); it takes precedence over Cut.
	Fault string `json:"fault,omitempty"`

	Raw         []string `json:"raw,omitempty"`
	ContentType string   `json:"content_type,omitempty"`
	JSON        bool     `json:"json,omitempty"`
}

// Fault modes of Response.Fault. Each sends the first CutAfter events of a streamed answer
// (so neither the finish event nor [DONE] when CutAfter is smaller than the event count)
// and then breaks off:
const (
	// FaultAbort resets the stream the way a crashing handler does: the server closes the
	// connection without the chunked terminator (what Cut does).
	FaultAbort = "abort"
	// FaultClose takes over the TCP connection, answers with a body delimited by the
	// connection (no Content-Length, no chunked encoding) and closes it: the client reads
	// a clean end of body, as behind a proxy whose upstream died.
	FaultClose = "close"
	// FaultEnd ends the response normally (the chunked terminator): a server that gave up
	// on the answer but closed the stream politely.
	FaultEnd = "end"
	// FaultChunkCut takes over the TCP connection, writes the chunked encoding itself, and
	// closes the connection in the middle of the next chunk (its size line announces more
	// bytes than follow).
	FaultChunkCut = "chunk_cut"
)

// Values of Response.CallIDs.
const (
	IDsSame  = "same"  // every call streamed with the first call's id
	IDsEmpty = "empty" // calls streamed without an id
)

// ToolCall is a scripted tool call. ArgChunks is how many chunks Arguments is split into
// (default 1).
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
	ArgChunks int    `json:"arg_chunks,omitempty"`
}

// Usage is the token usage reported with an answer, with the cached prompt tokens in
// OpenAI's shape (PromptTokensDetails) or DeepSeek's (PromptCacheHitTokens and
// PromptCacheMissTokens) when set.
type Usage struct {
	PromptTokens          int                  `json:"prompt_tokens"`
	CompletionTokens      int                  `json:"completion_tokens"`
	TotalTokens           int                  `json:"total_tokens"`
	PromptTokensDetails   *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
	PromptCacheHitTokens  *int                 `json:"prompt_cache_hit_tokens,omitempty"`
	PromptCacheMissTokens *int                 `json:"prompt_cache_miss_tokens,omitempty"`
}

// PromptTokensDetails is OpenAI's breakdown of the prompt tokens.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type responseAlias Response

type responseJSON struct {
	*responseAlias
	ChunkDelayMS int64 `json:"chunk_delay_ms,omitempty"`
	DelayMS      int64 `json:"delay_ms,omitempty"`
	StallMS      int64 `json:"stall_ms,omitempty"`
}

// MarshalJSON writes the script form (durations in milliseconds).
func (r Response) MarshalJSON() ([]byte, error) {
	a := responseAlias(r)
	out := responseJSON{
		responseAlias: &a,
		ChunkDelayMS:  r.ChunkDelay.Milliseconds(),
		DelayMS:       r.Delay.Milliseconds(),
		StallMS:       r.Stall.Milliseconds(),
	}
	if r.Stall == StallForever {
		out.StallMS = -1
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads the script form (durations in milliseconds, stall_ms -1 for ever).
func (r *Response) UnmarshalJSON(b []byte) error {
	var a responseAlias
	in := responseJSON{responseAlias: &a}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return err
	}
	if in.ChunkDelayMS < 0 || in.DelayMS < 0 || in.StallMS < -1 {
		return fmt.Errorf("negative duration in response")
	}
	switch a.Fault {
	case "", FaultAbort, FaultClose, FaultEnd, FaultChunkCut:
	default:
		return fmt.Errorf("unknown fault %q (want %q, %q, %q or %q)", a.Fault, FaultAbort, FaultClose, FaultEnd, FaultChunkCut)
	}
	switch a.ReasoningField {
	case "", "reasoning_content", "reasoning":
	default:
		return fmt.Errorf("unknown reasoning_field %q (want reasoning_content or reasoning)", a.ReasoningField)
	}
	switch a.CallIDs {
	case "", IDsSame, IDsEmpty:
	default:
		return fmt.Errorf("unknown call_ids %q (want %q or %q)", a.CallIDs, IDsSame, IDsEmpty)
	}
	switch a.Cache {
	case "", CacheOpenAI, CacheDeepSeek:
	default:
		return fmt.Errorf("unknown cache %q (want %q or %q)", a.Cache, CacheOpenAI, CacheDeepSeek)
	}
	*r = Response(a)
	r.ChunkDelay = time.Duration(in.ChunkDelayMS) * time.Millisecond
	r.Delay = time.Duration(in.DelayMS) * time.Millisecond
	if in.StallMS == -1 {
		r.Stall = StallForever
	} else {
		r.Stall = time.Duration(in.StallMS) * time.Millisecond
	}
	return nil
}

// Text returns a Response streaming s in the default number of chunks.
func Text(s string) Response { return Response{Text: s} }

// TextChunks returns a Response streaming s in n chunks, waiting delay between them.
func TextChunks(s string, n int, delay time.Duration) Response {
	return Response{Text: s, Chunks: n, ChunkDelay: delay}
}

// Tools returns a Response that calls the given tools.
func Tools(calls ...ToolCall) Response { return Response{ToolCalls: calls} }

// Error returns an HTTP error Response with an OpenAI error body.
func Error(status int, errType, code, message string) Response {
	return Response{Status: status, Body: ErrorBody(errType, code, message)}
}

// RateLimited returns a 429 with the given Retry-After header value ("" for none).
func RateLimited(retryAfter string) Response {
	r := Error(http.StatusTooManyRequests, "requests", "rate_limit_exceeded",
		"Rate limit reached for requests. Please try again later.")
	if retryAfter != "" {
		r.Headers = map[string]string{"Retry-After": retryAfter}
	}
	return r
}

// ServerError returns a 500 with an OpenAI server_error body.
func ServerError() Response {
	return Error(http.StatusInternalServerError, "server_error", "",
		"The server had an error while processing your request. Sorry about that!")
}

// Unauthorized returns a 401 invalid_api_key error.
func Unauthorized() Response {
	return Error(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
		"Incorrect API key provided. You can find your API key in your account settings.")
}

// ContextLengthExceeded returns OpenAI's 400 context_length_exceeded error.
func ContextLengthExceeded() Response {
	return Error(http.StatusBadRequest, "invalid_request_error", "context_length_exceeded",
		"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.")
}

// ErrorBody renders an OpenAI error JSON: {"error":{"message","type","param","code"}}.
// An empty code is written as null.
func ErrorBody(errType, code, message string) string {
	type apiError struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	e := apiError{Message: message, Type: errType}
	if code != "" {
		e.Code = &code
	}
	b, _ := json.Marshal(map[string]apiError{"error": e})
	return string(b)
}

func defaultErrorBody(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return Unauthorized().Body
	case status == http.StatusTooManyRequests:
		return RateLimited("").Body
	case status >= 500:
		return ErrorBody("server_error", "", "The server had an error while processing your request. Sorry about that!")
	default:
		return ErrorBody("invalid_request_error", strconv.Itoa(status), http.StatusText(status))
	}
}
