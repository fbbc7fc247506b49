package llm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// conversationReqs returns two requests of one conversation: the second repeats the first,
// its answer, and a new user message.
func conversationReqs() (Request, Request) {
	sys := strings.Repeat("You are a careful assistant for a long project. ", 40)
	first := Request{CacheKey: "conv-1", Messages: []Message{
		{Role: conversation.RoleSystem, Content: conversation.Str(sys)},
		{Role: conversation.RoleUser, Content: conversation.Str("What does the build script do?")},
	}}
	second := first
	second.Messages = append(append([]Message(nil), first.Messages...),
		Message{Role: conversation.RoleAssistant, Content: conversation.Str("It compiles the backend and the window.")},
		Message{Role: conversation.RoleUser, Content: conversation.Str("And the tests?")})
	return first, second
}

func TestCachedTokensReported(t *testing.T) {
	for _, shape := range []string{fakellm.CacheOpenAI, fakellm.CacheDeepSeek} {
		for _, mode := range []string{"stream", "stream answered in JSON", "complete"} {
			t.Run(shape+"/"+mode, func(t *testing.T) {
				srv := newFake(t)
				srv.SetCacheReport(shape)
				if mode == "stream answered in JSON" {
					srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.Response{Text: "ok", JSON: true} })
				}
				c := New(testConfig(srv))
				call := func(req Request) *Result {
					var res *Result
					var err error
					if mode == "complete" {
						res, err = c.Complete(context.Background(), req)
					} else {
						res, err = c.Stream(context.Background(), req, nil)
					}
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				first, second := conversationReqs()
				r1, r2 := call(first), call(second)
				reqs := srv.ChatRequests()
				if len(reqs) != 2 {
					t.Fatalf("%d requests", len(reqs))
				}
				if !r1.CacheReported || r1.Usage.CachedTokens != 0 {
					t.Fatalf("first call: reported %v, cached %d", r1.CacheReported, r1.Usage.CachedTokens)
				}
				want := reqs[1].CachedTokens
				if want <= 0 || want >= r2.Usage.PromptTokens {
					t.Fatalf("the server computed %d cached of %d prompt tokens", want, r2.Usage.PromptTokens)
				}
				if !r2.CacheReported || r2.Usage.CachedTokens != want {
					t.Fatalf("second call: reported %v, cached %d, want %d", r2.CacheReported, r2.Usage.CachedTokens, want)
				}
			})
		}
	}
}

func TestCachedTokensNotReported(t *testing.T) {
	srv := newFake(t)
	res, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.CacheReported || res.Usage.CachedTokens != 0 || !res.UsageReported {
		t.Fatalf("reported %v cached %d usage %v", res.CacheReported, res.Usage.CachedTokens, res.UsageReported)
	}
}

func TestCachedTokensOf(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    int
		ok      bool
	}{
		{"openai", `{"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920}}}`, 1920, true},
		{"openai zero", `{"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":0}}}`, 0, true},
		{"deepseek", `{"usage":{"prompt_tokens":100,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}`, 64, true},
		{"moonshot", `{"usage":{"prompt_tokens":100,"cached_tokens":50}}`, 50, true},
		{"llama.cpp timings", `{"choices":[],"timings":{"cache_n":812,"prompt_n":12}}`, 812, true},
		{"details without cached", `{"usage":{"prompt_tokens":10,"prompt_tokens_details":{"audio_tokens":0}}}`, 0, false},
		{"no usage", `{"choices":[{"delta":{"content":"cache me"}}]}`, 0, false},
		{"negative", `{"usage":{"prompt_cache_hit_tokens":-3}}`, 0, true},
		{"not json", `cache`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := cachedTokensOf([]byte(tt.payload))
			if n != tt.want || ok != tt.ok {
				t.Fatalf("got %d %v, want %d %v", n, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestPromptCacheKeySent(t *testing.T) {
	srv := newFake(t)
	c := New(testConfig(srv))
	first, second := conversationReqs()
	other := first
	other.CacheKey = "conv-2"
	for _, req := range []Request{first, second, other} {
		if _, err := c.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Complete(context.Background(), userReq("no conversation")); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	k1, k2, k3 := reqs[0].PromptCacheKey, reqs[1].PromptCacheKey, reqs[2].PromptCacheKey
	if k1 == "" || k1 != k2 || k1 == k3 || k1 != CacheKey("conv-1") || strings.Contains(k1, "conv-1") {
		t.Fatalf("keys %q %q %q", k1, k2, k3)
	}
	if reqs[3].HasField(FieldPromptCacheKey) {
		t.Fatal("a request without a conversation carries a prompt_cache_key")
	}
	if !json.Valid(reqs[0].Body) {
		t.Fatalf("body is not JSON: %s", reqs[0].Body)
	}
}

func TestRefusedFieldDroppedAndRemembered(t *testing.T) {
	tests := []struct {
		name   string
		style  string
		refuse []string
		stream bool
	}{
		{"prompt_cache_key 400", fakellm.RefuseOpenAI, []string{FieldPromptCacheKey}, true},
		{"prompt_cache_key 422", fakellm.RefusePydantic, []string{FieldPromptCacheKey}, true},
		{"stream_options 400", fakellm.RefuseOpenAI, []string{FieldStreamOptions}, true},
		{"both 422", fakellm.RefusePydantic, []string{FieldPromptCacheKey, FieldStreamOptions}, true},
		{"prompt_cache_key not streamed", fakellm.RefuseOpenAI, []string{FieldPromptCacheKey}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.RefuseFields(tt.style, tt.refuse...)
			path := filepath.Join(t.TempDir(), "llm-endpoints.json")
			cfg := testConfig(srv)
			cfg.MaxRetries = -1 // the refusal is not a retry
			cfg.Endpoints = NewEndpointMemory(path)
			c := New(cfg)
			send := func() *Result {
				first, _ := conversationReqs()
				var res *Result
				var err error
				if tt.stream {
					res, err = c.Stream(context.Background(), first, nil)
				} else {
					res, err = c.Complete(context.Background(), first)
				}
				if err != nil {
					t.Fatalf("the turn failed: %v", err)
				}
				return res
			}
			res := send()
			if res.Content == "" {
				t.Fatal("no answer")
			}
			reqs := srv.ChatRequests()
			if len(reqs) != len(tt.refuse)+1 {
				t.Fatalf("%d requests for %d refused fields", len(reqs), len(tt.refuse))
			}
			last := reqs[len(reqs)-1]
			for _, f := range tt.refuse {
				if !reqs[0].HasField(f) || last.HasField(f) {
					t.Fatalf("%s: first has it %v, last has it %v", f, reqs[0].HasField(f), last.HasField(f))
				}
			}
			send()
			if n := len(srv.ChatRequests()); n != len(reqs)+1 {
				t.Fatalf("the second turn sent %d requests, want 1", n-len(reqs))
			}
			again := NewEndpointMemory(path)
			for _, f := range tt.refuse {
				if !again.Refuses(c.baseURL, f) {
					t.Fatalf("%s not remembered in the file", f)
				}
			}
		})
	}
}

func TestRefusalNotNamingAFieldFails(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Error(400, "invalid_request_error", "", "Invalid value for 'temperature'"))
	first, _ := conversationReqs()
	_, err := New(testConfig(srv)).Stream(context.Background(), first, nil)
	wantCode(t, err, CodeBadResponse)
	if n := len(srv.ChatRequests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}

func TestSchemaMetaKeywordsStripped(t *testing.T) {
	srv := newFake(t)
	req := userReq("list files")
	req.Tools = []Tool{{Name: "fs.list", Parameters: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","$comment":"x","type":"object","properties":{"path":{"type":"string","$id":"p"}},"additionalProperties":false}`)}}
	if _, err := New(testConfig(srv)).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := string(srv.ChatRequests()[0].Tools[0].Parameters)
	if strings.Contains(got, "$schema") || strings.Contains(got, "$comment") || strings.Contains(got, "$id") || !strings.Contains(got, "additionalProperties") {
		t.Fatalf("parameters sent: %s", got)
	}
}

func TestSchemaKeywordRefusedSendsPlainSchemas(t *testing.T) {
	srv := newFake(t)
	srv.RefuseSchemaKeywords("additionalProperties", "const")
	cfg := testConfig(srv)
	c := New(cfg)
	req := userReq("write")
	req.Tools = []Tool{{Name: "fs.write", Parameters: json.RawMessage(`{"type":"object","properties":{"mode":{"const":"overwrite"},"path":{"type":"string"}},"additionalProperties":false}`)}}
	for i := 0; i < 2; i++ {
		if _, err := c.Stream(context.Background(), req, nil); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want a refused one and two plain ones", len(reqs))
	}
	for _, r := range reqs[1:] {
		p := string(r.Tools[0].Parameters)
		if strings.Contains(p, "additionalProperties") || strings.Contains(p, "const") || !strings.Contains(p, `"enum":["overwrite"]`) {
			t.Fatalf("plain parameters: %s", p)
		}
	}
	if !cfg.Endpoints.PlainSchemas(c.baseURL) {
		t.Fatal("not remembered")
	}
}

func TestPlainSchemaGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "schema", "mcp_tool.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := cleanSchema(in, true)
	var pretty strings.Builder
	var v any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	pretty.Write(b)
	pretty.WriteString("\n")
	golden := filepath.Join("testdata", "schema", "mcp_tool.plain.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, []byte(pretty.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if pretty.String() != string(want) {
		t.Fatalf("plain schema:\n%s\nwant:\n%s", pretty.String(), want)
	}
}

func TestReasoningField(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Raw: []string{
		`data: {"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"Think "}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"reasoning":"about \"reasoning\": it."}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"content":"Answer.","reasoning":null},"finish_reason":"stop"}]}` + "\n\n",
		"data: [DONE]\n\n",
	}})
	rec := newRecorder()
	res, err := New(testConfig(srv)).Stream(context.Background(), userReq("think"), rec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reasoning != `Think about "reasoning": it.` || res.Content != "Answer." || rec.reasoning.String() != res.Reasoning {
		t.Fatalf("reasoning %q content %q", res.Reasoning, res.Content)
	}
	srv.Enqueue(fakellm.Response{Raw: []string{`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Done.","reasoning":"Because."},"finish_reason":"stop"}]}`}})
	res, err = New(testConfig(srv)).Complete(context.Background(), userReq("think"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Reasoning != "Because." || res.Content != "Done." {
		t.Fatalf("complete: reasoning %q content %q", res.Reasoning, res.Content)
	}
}

func TestMaxTokensRefusedUsesMaxCompletionTokens(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Error(400, "invalid_request_error", "unsupported_parameter",
		"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."))
	cfg := testConfig(srv)
	cfg.Model = "house-reasoner"
	c := New(cfg)
	if err := c.TestConnection(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.TestConnection(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 3 || !reqs[0].HasField("max_tokens") || reqs[1].HasField("max_tokens") || !reqs[1].HasField("max_completion_tokens") ||
		!reqs[2].HasField("max_completion_tokens") || reqs[2].MaxTokens != 16 {
		t.Fatalf("%d requests: %v / %v", len(reqs), reqs[0].Fields, reqs[len(reqs)-1].Fields)
	}
	// a limit that is too high is not a refusal of the field
	srv.Enqueue(fakellm.Error(400, "invalid_request_error", "", "max_tokens is too large: 90000. This model supports at most 4096 completion tokens"))
	other := New(testConfig(srv))
	req := userReq("hi")
	req.MaxTokens = 90000
	_, err := other.Complete(context.Background(), req)
	wantCode(t, err, CodeBadResponse)
}
