package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"crewagent/backend/llm/fakellm"
)

func TestErrorCodesFromHTTP(t *testing.T) {
	tests := []struct {
		name     string
		resp     fakellm.Response
		code     string
		status   int
		attempts int
		msg      string // substring of the message
	}{
		{"401", fakellm.Unauthorized(), CodeAuth, 401, 1, "Incorrect API key"},
		{"403 without body", fakellm.Response{Status: 403, Body: "forbidden"}, CodeAuth, 403, 1, "check the API key"},
		{"429 after retries", fakellm.RateLimited(""), CodeRateLimit, 429, 3, "Rate limit"},
		{"429 exhausted quota", fakellm.Error(429, "insufficient_quota", "insufficient_quota",
			"You exceeded your current quota, please check your plan and billing details."), CodeRateLimit, 429, 1, "quota"},
		{"500 after retries", fakellm.ServerError(), CodeServer, 500, 3, "server had an error"},
		{"502 HTML", fakellm.Response{Status: 502, Body: "<html><body>Bad gateway</body></html>", Headers: map[string]string{"Content-Type": "text/html"}},
			CodeServer, 502, 3, "HTTP 502"},
		{"400 context_length_exceeded", fakellm.ContextLengthExceeded(), CodeContextLength, 400, 1, "maximum context length"},
		{"400 context by message only", fakellm.Error(400, "invalid_request_error", "",
			"Input is too long: prompt has too many tokens for this model"), CodeContextLength, 400, 1, "too long"},
		{"413", fakellm.Response{Status: 413, Body: "payload too large"}, CodeContextLength, 413, 1, "413"},
		{"500 context overflow", fakellm.Error(500, "server_error", "", "the request exceeds the available context size, try increasing it"),
			CodeContextLength, 500, 1, "context size"},
		{"400 other", fakellm.Error(400, "invalid_request_error", "invalid_value", "Invalid value for 'tools'"), CodeBadResponse, 400, 1, "Invalid value"},
		{"404 model", fakellm.Error(404, "invalid_request_error", "model_not_found", "The model `nope` does not exist"),
			CodeBadResponse, 404, 1, "check the base URL"},
		{"408", fakellm.Response{Status: 408}, CodeTimeout, 408, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return tt.resp })
			c := New(testConfig(srv))
			for _, call := range []string{"stream", "complete"} {
				var res *Result
				var err error
				if call == "stream" {
					res, err = c.Stream(context.Background(), userReq("hi"), nil)
				} else {
					res, err = c.Complete(context.Background(), userReq("hi"))
				}
				e := wantCode(t, err, tt.code)
				if e.StatusCode != tt.status {
					t.Errorf("%s: status = %d, want %d", call, e.StatusCode, tt.status)
				}
				if res.Attempts != tt.attempts {
					t.Errorf("%s: attempts = %d, want %d", call, res.Attempts, tt.attempts)
				}
				if !strings.Contains(e.Message, tt.msg) {
					t.Errorf("%s: message %q does not contain %q", call, e.Message, tt.msg)
				}
				if e.Provider == "" || !strings.HasPrefix(e.BaseURL, "http://127.0.0.1") {
					t.Errorf("%s: provider %q base %q", call, e.Provider, e.BaseURL)
				}
			}
			if got := len(srv.ChatRequests()); got != 2*tt.attempts {
				t.Errorf("server saw %d requests, want %d", got, 2*tt.attempts)
			}
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.ServerError(), fakellm.RateLimited("0"), fakellm.Text("finally"))
	res, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "finally" || res.Attempts != 3 || len(srv.ChatRequests()) != 3 {
		t.Fatalf("content %q attempts %d requests %d", res.Content, res.Attempts, len(srv.ChatRequests()))
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.RateLimited("0.3"), fakellm.Text("ok"))
	cfg := testConfig(srv)
	cfg.MaxRetryDelay = 5 * time.Second
	start := time.Now()
	res, err := New(cfg).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("retried after %v, before Retry-After 0.3s", d)
	}
	if res.Attempts != 2 {
		t.Fatalf("attempts = %d", res.Attempts)
	}
}

func TestRetryAfterCapped(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.RateLimited("3600"), fakellm.Text("ok"))
	cfg := testConfig(srv)
	cfg.MaxRetryDelay = 50 * time.Millisecond
	start := time.Now()
	if _, err := New(cfg).Stream(context.Background(), userReq("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 3*time.Second {
		t.Fatalf("waited %v, want the 50ms cap", d)
	}
}

func TestRateLimitErrorCarriesRetryAfter(t *testing.T) {
	srv := newFake(t)
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.RateLimited("0.01") })
	_, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), nil)
	e := wantCode(t, err, CodeRateLimit)
	if e.RetryAfter != 10*time.Millisecond {
		t.Fatalf("RetryAfter = %v", e.RetryAfter)
	}
	block := ErrorBlockOf(err).Format()
	if !strings.Contains(block, "- retry_after: 10ms") || !strings.Contains(block, "- status: 429") {
		t.Fatalf("block:\n%s", block)
	}
}

func TestNetworkErrorRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	c := New(Config{BaseURL: "http://" + addr + "/v1", Model: "m", MaxRetries: 2, RetryBaseDelay: time.Millisecond})
	res, err := c.Stream(context.Background(), userReq("hi"), nil)
	e := wantCode(t, err, CodeNetwork)
	if res.Attempts != 3 || e.StatusCode != 0 || !e.Retryable() {
		t.Fatalf("attempts %d, error %+v", res.Attempts, e)
	}
}

func TestCutBeforeOutputIsRetried(t *testing.T) {
	srv := newFake(t)
	// the role event carries no output; the cut comes before any text
	srv.Enqueue(fakellm.Response{Text: "lost", Cut: true, CutAfter: 1}, fakellm.Text("second try"))
	rec := newRecorder()
	res, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), rec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "second try" || rec.text.String() != "second try" || res.Attempts != 2 {
		t.Fatalf("content %q handler %q attempts %d", res.Content, rec.text.String(), res.Attempts)
	}
}

func TestNoRetryAfterOutputBegan(t *testing.T) {
	tests := []struct {
		name     string
		resp     fakellm.Response
		code     string
		content  string
		partials int // partial tool calls
		args     string
	}{
		{
			name:    "cut after text",
			resp:    fakellm.Response{Text: "AAAABBBBCCCCDDDD", Chunks: 4, Cut: true, CutAfter: 3},
			code:    CodeStreamIncomplete,
			content: "AAAABBBB",
		},
		{
			name: "cut inside tool arguments",
			resp: fakellm.Response{Text: "Reading.", Chunks: 1, Cut: true, CutAfter: 4,
				ToolCalls: []fakellm.ToolCall{{ID: "call_1", Name: "fs.read", Arguments: `{"path":"@project/x.md"}`, ArgChunks: 3}}},
			code:     CodeStreamIncomplete,
			content:  "Reading.",
			partials: 1,
			args:     `{"path":`,
		},
		{
			name: "server error event after text",
			resp: fakellm.Response{Raw: []string{ev(textChunk("half an ")), ev(textChunk("answer")),
				ev(`{"error":{"message":"Internal error","type":"server_error"}}`)}},
			code:    CodeServer,
			content: "half an answer",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.Enqueue(tt.resp, fakellm.Text("must not be requested"))
			req := userReq("hi")
			req.Tools = []Tool{{Name: "fs.read"}}
			rec := newRecorder()
			res, err := New(testConfig(srv)).Stream(context.Background(), req, rec)
			wantCode(t, err, tt.code)
			if res.Attempts != 1 || len(srv.ChatRequests()) != 1 {
				t.Fatalf("attempts %d, requests %d: retried after output", res.Attempts, len(srv.ChatRequests()))
			}
			if res.Content != tt.content || rec.text.String() != tt.content {
				t.Fatalf("partial content %q (handler %q), want %q", res.Content, rec.text.String(), tt.content)
			}
			if len(res.ToolCalls) != tt.partials {
				t.Fatalf("partial tool calls = %+v", res.ToolCalls)
			}
			if tt.partials > 0 {
				tc := res.ToolCalls[0]
				if tc.ID != "call_1" || tc.Function.Name != "fs.read" || tc.Function.Arguments != tt.args {
					t.Fatalf("partial tool call = %+v", tc)
				}
			}
			block := ErrorBlockOf(err).Format()
			if !strings.HasPrefix(block, "LLM_ERROR\n- code: "+tt.code) {
				t.Fatalf("block:\n%s", block)
			}
		})
	}
}

func TestStreamOptionsRejectedFallsBack(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Error(400, "invalid_request_error", "", "Unrecognized request argument supplied: stream_options"),
		fakellm.Text("works without usage"))
	res, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 2 || !reqs[0].IncludeUsage || reqs[1].IncludeUsage || res.UsageReported {
		t.Fatalf("requests %d, include_usage %v/%v, reported %v", len(reqs), reqs[0].IncludeUsage, reqs[1].IncludeUsage, res.UsageReported)
	}
	if res.Content != "works without usage" {
		t.Fatalf("content %q", res.Content)
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	c := New(Config{RetryBaseDelay: 100 * time.Millisecond, MaxRetryDelay: time.Second})
	for n, max := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		max *= time.Millisecond
		for i := 0; i < 50; i++ {
			d := c.backoff(n, 0)
			if d < max/2 || d > max {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, max/2, max)
			}
		}
	}
	if d := c.backoff(0, 300*time.Millisecond); d != 300*time.Millisecond {
		t.Fatalf("Retry-After not used: %v", d)
	}
	if d := c.backoff(0, time.Hour); d != time.Second {
		t.Fatalf("Retry-After not capped: %v", d)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := newFake(t)
	srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.RateLimited("30") })
	cfg := testConfig(srv)
	cfg.MaxRetryDelay = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := New(cfg).Stream(ctx, userReq("hi"), nil)
	wantCode(t, err, CodeAborted)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("cancellation took %v", d)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error does not wrap context.Canceled: %v", err)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-proj-SECRETSECRETSECRET1234567890"
	srv := newFake(t)
	srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		// a careless server that echoes the credential it received
		return fakellm.Error(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+" and also sk-another-secret-key-value")
	})
	cfg := testConfig(srv)
	cfg.APIKey = key
	cfg.BaseURL = strings.Replace(srv.URL(), "http://", "http://user:"+key+"@", 1)
	c := New(cfg)
	for _, call := range []func() error{
		func() error { _, err := c.Stream(context.Background(), userReq("hi"), nil); return err },
		func() error { _, err := c.Complete(context.Background(), userReq("hi")); return err },
		func() error { return c.TestConnection(context.Background()) },
	} {
		err := call()
		e := wantCode(t, err, CodeAuth)
		for _, s := range []string{err.Error(), ErrorBlockOf(err).Format(), e.BaseURL, e.Provider, e.Message} {
			if strings.Contains(s, "SECRETSECRET") || strings.Contains(s, "another-secret") {
				t.Fatalf("secret leaked: %q", s)
			}
		}
		if !strings.Contains(e.Message, "[REDACTED]") {
			t.Fatalf("message not redacted: %q", e.Message)
		}
	}
	if got := srv.ChatRequests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("Authorization = %q", got)
	}
}
