// Package llm owns the OpenAI-compatible chat-completions client: streaming with tool
// calls, timeouts, retries, typed errors with stable codes and tool-name mapping.
//
// Its Error is the one error type of the runtime that stays apart from errs.Error: the
// HTTP status, the server's Retry-After, the provider and whether retrying can help are
// what the client's retry loop and the persisted LLM_ERROR block are made of, read as
// typed fields on every failure. It converts to an errs.Error in one place, ToError
// (those fields become Details), which errs.From uses.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"crewagent/backend/conversation"
)

// Client talks to one OpenAI-compatible server. It is immutable and safe for concurrent
// use; build a new one when the settings change.
type Client struct {
	cfg      Config
	oa       *openai.Client
	provider string
	baseURL  string
	urlErr   string // why BaseURL is unusable, "" when it is fine
}

// New returns a client for cfg. An unusable configuration is reported by each call as
// LLM_NOT_CONFIGURED, so a client can be built before the user has filled the settings.
func New(cfg Config) *Client {
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg}
	cfg.BaseURL = strings.TrimSpace(cfg.BaseURL)
	c.cfg.BaseURL = cfg.BaseURL
	c.provider, c.baseURL, c.urlErr = describeBaseURL(cfg.BaseURL)
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = newHTTPClient(cfg)
	oc.EmptyMessagesLimit = math.MaxUint32 // comments are filtered out before go-openai; timeouts bound the rest
	c.oa = openai.NewClientWithConfig(oc)
	return c
}

// describeBaseURL returns the provider (host[:port]), the base URL without credentials,
// query or fragment, and why it is unusable ("" when it is fine).
func describeBaseURL(raw string) (provider, clean, problem string) {
	if raw == "" {
		return "", "", "no LLM base URL is configured"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", "the LLM base URL must be an http:// or https:// URL, e.g. https://api.openai.com/v1"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.Host, u.String(), ""
}

// Model returns the configured default model.
func (c *Client) Model() string { return c.cfg.Model }

var (
	errOverallTimeout = errors.New("overall timeout")
	errFirstToken     = errors.New("first-token timeout")
	errIdle           = errors.New("idle timeout")
)

// Stream sends req with streaming and feeds h as the answer arrives (h may be nil). It
// always returns a non-nil Result; on error it holds the partial answer. Requests failing
// with 429, 5xx or a network error are retried with backoff only while nothing has been
// delivered to h; after that the error is returned with the partial Result.
func (c *Client) Stream(ctx context.Context, req Request, h Handler) (*Result, error) {
	res := &Result{}
	oreq, names, err := c.build(req, true)
	if err != nil {
		return res, err
	}
	callCtx, cancel := c.callContext(ctx)
	defer cancel()
	var asm *assembler
	err = c.retry(ctx, callCtx, res, c.cfg.MaxRetries, func() (bool, error) {
		for {
			asm = newAssembler(names, h)
			w := c.wire(req, names, true)
			w.apply(&oreq)
			err := c.streamOnce(ctx, callCtx, &oreq, w.extra, asm)
			if err != nil && !asm.begun && c.learn(err, w) {
				continue // the endpoint refused an optional part: at once without it
			}
			return asm.begun, err
		}
	})
	if asm != nil {
		asm.fill(res)
	}
	return res, err
}

// watchdog cancels an attempt when no chunk arrives in time.
type watchdog struct {
	cancel context.CancelCauseFunc
	timer  *time.Timer
}

func (w *watchdog) arm(d time.Duration, cause error) {
	if d <= 0 {
		return
	}
	w.timer = time.AfterFunc(d, func() { w.cancel(cause) })
}

func (w *watchdog) stop() {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
}

func (c *Client) streamOnce(ctx, callCtx context.Context, oreq *openai.ChatCompletionRequest, extra []byte, asm *assembler) error {
	actx, acancel := context.WithCancelCause(callCtx)
	defer acancel(nil)
	info := &attemptInfo{extra: extra}
	actx = withAttempt(actx, info)
	defer func() {
		if r := info.stream(); r != nil {
			asm.cached, asm.cacheReported = r.cachedTokens()
		}
	}()
	wd := &watchdog{cancel: acancel}
	defer wd.stop()

	wd.arm(c.cfg.FirstTokenTimeout, errFirstToken)
	stream, err := c.oa.CreateChatCompletionStream(actx, *oreq)
	if err != nil {
		return c.classify(ctx, callCtx, actx, info, err)
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		wd.stop()
		if errors.Is(err, io.EOF) {
			if asm.chunks == 0 {
				return c.newError(CodeBadResponse, "the stream ended without any data", info, nil)
			}
			if !asm.finished() && !sawDone(info) {
				// The body ended cleanly but the server never said the answer was complete:
				// it closed the connection (or ended the response) mid-answer.
				return c.newError(CodeStreamIncomplete,
					"the stream ended before the answer was finished (no finish_reason and no [DONE]: the server closed the connection)",
					info, io.ErrUnexpectedEOF)
			}
			return nil
		}
		if err != nil {
			if asm.finished() && isCut(err) {
				// The answer was complete; only the end of the stream (usage, [DONE]) was lost.
				return nil
			}
			e := c.classify(ctx, callCtx, actx, info, err)
			if asm.chunks > 0 && e.Code == CodeNetwork && isCut(err) {
				e.Code = CodeStreamIncomplete
				e.Message = "the connection closed before the answer was finished (the stream was cut mid-answer)"
			}
			return e
		}
		asm.add(chunk)
		wd.arm(c.cfg.IdleTimeout, errIdle)
	}
}

// sawDone reports whether the attempt's stream carried a [DONE] event.
func sawDone(info *attemptInfo) bool {
	r := info.stream()
	return r != nil && r.sawDone()
}

// isCut reports an error of a body that ended without its proper end: a connection closed
// mid-chunk or reset.
func isCut(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}

// Complete sends req without streaming (used for summaries and the connection test).
// Retries work as in Stream; FirstTokenTimeout and IdleTimeout do not apply.
func (c *Client) Complete(ctx context.Context, req Request) (*Result, error) {
	return c.complete(ctx, req, c.cfg.MaxRetries)
}

func (c *Client) complete(ctx context.Context, req Request, retries int) (*Result, error) {
	res := &Result{}
	oreq, names, err := c.build(req, false)
	if err != nil {
		return res, err
	}
	callCtx, cancel := c.callContext(ctx)
	defer cancel()
	err = c.retry(ctx, callCtx, res, retries, func() (bool, error) {
		for {
			err := c.completeOnce(ctx, callCtx, &oreq, req, names, res)
			if w := c.wire(req, names, false); err != nil && c.learn(err, w) {
				continue // the endpoint refused an optional part: at once without it
			}
			return false, err
		}
	})
	return res, err
}

// completeOnce sends one non-streamed attempt and fills res.
func (c *Client) completeOnce(ctx, callCtx context.Context, oreq *openai.ChatCompletionRequest, req Request, names *NameMap, res *Result) error {
	w := c.wire(req, names, false)
	w.apply(oreq)
	err := func() error {
		actx, acancel := context.WithCancelCause(callCtx)
		defer acancel(nil)
		info := &attemptInfo{extra: w.extra}
		actx = withAttempt(actx, info)
		resp, err := c.oa.CreateChatCompletion(actx, *oreq)
		if err != nil {
			return c.classify(ctx, callCtx, actx, info, err)
		}
		if len(resp.Choices) == 0 {
			return c.newError(CodeBadResponse, "the answer has no choices", info, nil)
		}
		ch := resp.Choices[0]
		res.Content = ch.Message.Content
		for _, p := range ch.Message.MultiContent {
			res.Content += p.Text
		}
		res.Reasoning = ch.Message.ReasoningContent
		body := info.answerBody()
		if res.Reasoning == "" && body != nil {
			res.Reasoning = reasoningOf(body)
		}
		res.FinishReason = string(ch.FinishReason)
		res.Model = resp.Model
		res.Usage = Usage{
			PromptTokens:     resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens,
			TotalTokens:      resp.Usage.TotalTokens,
		}
		if n, ok := cachedTokensOf(body); ok {
			res.Usage.CachedTokens, res.CacheReported = n, true
		} else if d := resp.Usage.PromptTokensDetails; d != nil {
			res.Usage.CachedTokens, res.CacheReported = d.CachedTokens, true
		}
		res.UsageReported = resp.Usage.TotalTokens > 0 || resp.Usage.PromptTokens > 0
		res.ToolCalls = nil
		ids := newIDSet()
		for _, tc := range ch.Message.ToolCalls {
			res.ToolCalls = append(res.ToolCalls, conversation.ToolCall{
				ID:       ids.unique(tc.ID),
				Type:     "function",
				Function: conversation.FunctionCall{Name: names.Name(tc.Function.Name), Arguments: tc.Function.Arguments},
			})
		}
		return nil
	}()
	return err
}

// TestConnection sends a tiny non-streamed request (no retries) with the configured model
// and returns nil or the typed error, for a "Test connection" button.
func (c *Client) TestConnection(ctx context.Context) error {
	_, err := c.complete(ctx, Request{
		Messages:  []Message{{Role: conversation.RoleUser, Content: conversation.Str("Reply with the word: pong")}},
		MaxTokens: 16,
	}, 0)
	return err
}

// Models lists the model ids the server offers (GET /models).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	if c.urlErr != "" {
		return nil, &Error{Code: CodeNotConfigured, Message: c.urlErr}
	}
	callCtx, cancel := c.callContext(ctx)
	defer cancel()
	var ids []string
	err := c.retry(ctx, callCtx, &Result{}, c.cfg.MaxRetries, func() (bool, error) {
		actx, acancel := context.WithCancelCause(callCtx)
		defer acancel(nil)
		info := &attemptInfo{}
		list, err := c.oa.ListModels(withAttempt(actx, info))
		if err != nil {
			return false, c.classify(ctx, callCtx, actx, info, err)
		}
		ids = ids[:0]
		for _, m := range list.Models {
			ids = append(ids, m.ID)
		}
		if windows := modelInfos(info.answerBody()); len(windows) > 0 {
			c.endpoints().rememberWindows(c.baseURL, windows)
		}
		return false, nil
	})
	return ids, err
}

func (c *Client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.cfg.Timeout > 0 {
		return context.WithTimeoutCause(ctx, c.cfg.Timeout, errOverallTimeout)
	}
	return context.WithCancel(ctx)
}

// retry runs attempt until it succeeds, fails for good, has delivered output, or the
// retries are used up.
func (c *Client) retry(ctx, callCtx context.Context, res *Result, retries int, attempt func() (begun bool, err error)) error {
	for n := 0; ; n++ {
		res.Attempts = n + 1
		begun, err := attempt()
		if err == nil {
			return nil
		}
		var e *Error
		if !errors.As(err, &e) {
			e = AsError(err)
		}
		if begun || n >= retries || !e.shouldRetry() {
			return e
		}
		t := time.NewTimer(c.backoff(n, e.RetryAfter))
		select {
		case <-t.C:
		case <-callCtx.Done():
			t.Stop()
			if ce := c.contextError(ctx, callCtx, nil, nil, callCtx.Err()); ce != nil {
				return ce
			}
			return AsError(callCtx.Err())
		}
	}
}

// backoff returns the wait before retry n+1: the server's Retry-After when given, else an
// exponential delay with jitter; both capped by MaxRetryDelay.
func (c *Client) backoff(n int, retryAfter time.Duration) time.Duration {
	limit := c.cfg.MaxRetryDelay
	if retryAfter > 0 {
		if limit > 0 && retryAfter > limit {
			return limit
		}
		return retryAfter
	}
	d := c.cfg.RetryBaseDelay
	for i := 0; i < n && (limit <= 0 || d < limit); i++ {
		d *= 2
	}
	if limit > 0 && d > limit {
		d = limit
	}
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(half+1)
}

// build converts a Request to go-openai's form.
func (c *Client) build(req Request, stream bool) (openai.ChatCompletionRequest, *NameMap, error) {
	if c.urlErr != "" {
		return openai.ChatCompletionRequest{}, nil, &Error{Code: CodeNotConfigured, Message: c.urlErr}
	}
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if strings.TrimSpace(model) == "" {
		return openai.ChatCompletionRequest{}, nil, &Error{Code: CodeNotConfigured,
			Message: "no LLM model is configured", Provider: c.provider, BaseURL: c.baseURL}
	}
	toolNames := make([]string, 0, len(req.Tools))
	for _, t := range req.Tools {
		toolNames = append(toolNames, t.Name)
	}
	names := NewNameMap(toolNames...)
	out := openai.ChatCompletionRequest{Model: model, Messages: make([]openai.ChatCompletionMessage, 0, len(req.Messages))}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: m.Role, ToolCallID: m.ToolCallID}
		if m.Content != nil {
			om.Content = *m.Content
		}
		if m.Role == conversation.RoleTool && om.Content == "" {
			// go-openai omits an empty content, and the API requires one on tool messages.
			om.Content = "(no output)"
		}
		if m.Name != "" {
			om.Name = names.Wire(m.Name)
		}
		if len(m.Images) > 0 {
			om.MultiContent = imageParts(om.Content, m.Images)
			om.Content = ""
		}
		for _, tc := range m.ToolCalls {
			typ := tc.Type
			if typ == "" {
				typ = "function"
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolType(typ),
				Function: openai.FunctionCall{Name: names.Wire(tc.Function.Name), Arguments: tc.Function.Arguments},
			})
		}
		out.Messages = append(out.Messages, om)
	}
	reasoning := isReasoningModel(model)
	if t := req.Temperature; t != nil && (!reasoning || *t == 1) {
		out.Temperature = *t
		if *t == 0 {
			// go-openai drops a zero temperature (omitempty); this is its documented way
			// to send "0".
			out.Temperature = math.SmallestNonzeroFloat32
		}
	}
	return out, names, nil
}

// isReasoningModel reports OpenAI reasoning models, which take max_completion_tokens and
// no temperature other than 1.
func isReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// ---- error classification ----

// shouldRetry reports the failures worth sending again: 429 (not an exhausted quota), 5xx
// and network errors.
func (e *Error) shouldRetry() bool {
	if e.final {
		return false
	}
	switch e.Code {
	case CodeRateLimit, CodeServer, CodeNetwork, CodeStreamIncomplete:
		return true
	}
	return false
}

func (c *Client) newError(code, msg string, info *attemptInfo, cause error) *Error {
	e := &Error{Code: code, Message: oneLine(redact(msg, c.cfg.APIKey), maxMessageLength),
		Provider: c.provider, BaseURL: c.baseURL, Cause: cause}
	if info != nil {
		status, header := info.response()
		if status >= 400 {
			e.StatusCode = status
			e.body = redact(string(info.errorBody()), c.cfg.APIKey)
		}
		if header != nil {
			e.RetryAfter = ParseRetryAfter(header.Get("Retry-After"), time.Now())
		}
	}
	return e
}

// contextError explains a cancelled attempt: the caller's cancellation or deadline, the
// overall timeout, or a watchdog.
func (c *Client) contextError(ctx, callCtx, actx context.Context, info *attemptInfo, cause error) *Error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return c.newError(CodeAborted, "the request was cancelled", info, context.Canceled)
	case ctx.Err() != nil:
		return c.newError(CodeTimeout, "the caller's deadline passed before the answer was complete", info, ctx.Err())
	case errors.Is(context.Cause(callCtx), errOverallTimeout):
		return c.newError(CodeTimeout, fmt.Sprintf("no complete answer within %s", c.cfg.Timeout), info, context.DeadlineExceeded)
	}
	if actx != nil {
		switch context.Cause(actx) {
		case errFirstToken:
			return c.newError(CodeTimeout, fmt.Sprintf("no answer within %s of sending the request (first-token timeout)", c.cfg.FirstTokenTimeout), info, context.DeadlineExceeded)
		case errIdle:
			return c.newError(CodeTimeout, fmt.Sprintf("the stream stalled: no data for %s (idle timeout)", c.cfg.IdleTimeout), info, context.DeadlineExceeded)
		}
	}
	return nil
}

// classify turns an error from go-openai or the HTTP layer into an *Error.
func (c *Client) classify(ctx, callCtx, actx context.Context, info *attemptInfo, err error) *Error {
	if e := c.contextError(ctx, callCtx, actx, info, err); e != nil {
		e.Cause = errors.Join(e.Cause, err)
		return e
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status := apiErr.HTTPStatusCode
		code := fmt.Sprint(apiErr.Code)
		if apiErr.Code == nil {
			code = ""
		}
		e := c.newError(CodeBadResponse, apiErr.Message, info, err)
		if status != 0 {
			e.StatusCode = status
		}
		e.Code, e.final = classifyAPI(status, code, apiErr.Type, apiErr.Message)
		if e.Message == "" {
			e.Message = statusMessage(status)
		}
		e.Message = withHint(e, e.Message)
		return e
	case errors.As(err, &reqErr):
		status := reqErr.HTTPStatusCode
		msg := statusMessage(status)
		if body := oneLine(string(reqErr.Body), 200); body != "" {
			msg += ": " + body
		}
		e := c.newError(CodeBadResponse, msg, info, err)
		e.StatusCode = status
		e.Code, e.final = classifyAPI(status, "", "", string(reqErr.Body))
		e.Message = withHint(e, e.Message)
		return e
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return c.newError(CodeBadResponse, "malformed JSON in the answer: "+err.Error(), info, err)
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages), errors.Is(err, errEventTooLarge):
		return c.newError(CodeBadResponse, "malformed event stream: "+err.Error(), info, err)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return c.newError(CodeTimeout, "connecting to the server timed out: "+err.Error(), info, err)
	}
	var urlErr *url.Error
	var opErr *net.OpError
	var errno syscall.Errno
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && info != nil && info.bodyEnded.Load():
		return c.newError(CodeBadResponse, "the answer is truncated JSON", info, err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return c.newError(CodeNetwork, "the connection closed before the answer was complete", info, err)
	case errors.As(err, &urlErr), errors.As(err, &opErr), errors.As(err, &errno):
		return c.newError(CodeNetwork, err.Error(), info, err)
	}
	return c.newError(CodeBadResponse, err.Error(), info, err)
}

// classifyAPI maps an HTTP status (0 for an error inside a stream) and the provider's error
// code, type and message to a code; final marks a failure that retrying cannot fix.
func classifyAPI(status int, code, typ, msg string) (string, bool) {
	all := strings.ToLower(code + " " + typ + " " + msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return CodeAuth, true
	case status == http.StatusTooManyRequests:
		quota := strings.Contains(all, "insufficient_quota") || strings.Contains(all, "exceeded your current quota")
		return CodeRateLimit, quota
	case IsContextLengthMessage(all) || status == http.StatusRequestEntityTooLarge:
		return CodeContextLength, true
	case status == http.StatusRequestTimeout:
		return CodeTimeout, true
	case status >= 500:
		return CodeServer, false
	case status >= 400:
		return CodeBadResponse, true
	}
	// An error event inside a stream: no status, only the provider's words.
	switch {
	case strings.Contains(all, "rate_limit") || strings.Contains(all, "rate limit"):
		return CodeRateLimit, false
	case strings.Contains(all, "invalid_api_key") || strings.Contains(all, "authentication") || strings.Contains(all, "unauthorized"):
		return CodeAuth, true
	case strings.Contains(all, "invalid_request"):
		return CodeBadResponse, true
	}
	return CodeServer, false
}

func statusMessage(status int) string {
	if status == 0 {
		return "the server reported an error"
	}
	return fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
}

func withHint(e *Error, msg string) string {
	switch {
	case e.StatusCode == http.StatusNotFound:
		return msg + " (check the base URL, which usually ends in /v1, and the model name)"
	case e.Code == CodeAuth && !strings.Contains(strings.ToLower(msg), "key"):
		return msg + " (check the API key)"
	}
	return msg
}
