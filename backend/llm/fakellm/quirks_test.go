package fakellm

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestRefuseFields(t *testing.T) {
	tests := []struct {
		name, style, body string
		status            int
		want              string
	}{
		{"openai", RefuseOpenAI, `{"model":"m","prompt_cache_key":"k","messages":[{"role":"user","content":"hi"}]}`, 400, "Unrecognized request argument supplied: prompt_cache_key"},
		{"pydantic", RefusePydantic, `{"model":"m","prompt_cache_key":"k","messages":[{"role":"user","content":"hi"}]}`, 422, `"loc":["body","prompt_cache_key"]`},
		{"stream_options", RefuseOpenAI, `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, 400, "supplied: stream_options"},
		{"accepted without the fields", RefuseOpenAI, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 200, `"content":"hi"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			defer s.Close()
			s.RefuseFields(tt.style, "prompt_cache_key", "stream_options")
			resp := post(t, s, tt.body)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
		})
	}
}

func TestRefuseSchemaKeywords(t *testing.T) {
	s := New()
	defer s.Close()
	s.RefuseSchemaKeywords("$schema", "additionalProperties")
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"$schema":"x","type":"object","properties":{"additionalProperties":{"type":"string"},"o":{"type":"object","additionalProperties":false}}}}}]}`
	resp := post(t, s, body)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	lines := strings.Split(e.Error.Message, "\n")
	// a property named like a keyword is not a keyword
	if len(lines) != 2 || !strings.Contains(lines[0], `Unknown name "$schema" at 'tools[0].function_declarations[0].parameters'`) ||
		!strings.Contains(lines[1], `"additionalProperties" at 'tools[0].function_declarations[0].parameters.properties[1].value'`) {
		t.Fatalf("message:\n%s", e.Error.Message)
	}
}

func TestCachedPrefix(t *testing.T) {
	msg := func(role, text string) RecordedMessage { return RecordedMessage{Role: role, Content: &text} }
	sys := msg("system", strings.Repeat("s", 400))
	u1 := msg("user", strings.Repeat("a", 40))
	tests := []struct {
		name      string
		prev, cur *promptShape
		want      int
	}{
		{"first request", nil, &promptShape{messages: []RecordedMessage{sys}}, 0},
		{"appended", &promptShape{messages: []RecordedMessage{sys, u1}}, &promptShape{messages: []RecordedMessage{sys, u1, msg("assistant", "ok")}}, 104 + 14},
		{"same start of a changed message", &promptShape{messages: []RecordedMessage{sys, u1}}, &promptShape{messages: []RecordedMessage{sys, msg("user", strings.Repeat("a", 20)+"b")}}, 104 + 5},
		{"changed system prompt", &promptShape{messages: []RecordedMessage{sys, u1}}, &promptShape{messages: []RecordedMessage{msg("system", "x"), u1}}, 0},
		{"changed tools", &promptShape{tools: "a", messages: []RecordedMessage{sys}}, &promptShape{tools: "b", messages: []RecordedMessage{sys}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cachedPrefix(tt.prev, tt.cur); got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCacheReportShapes(t *testing.T) {
	for _, shape := range []string{CacheOpenAI, CacheDeepSeek} {
		t.Run(shape, func(t *testing.T) {
			s := New()
			defer s.Close()
			s.SetCacheReport(shape)
			long := strings.Repeat("context ", 100)
			body := `{"model":"m","messages":[{"role":"system","content":"` + long + `"},{"role":"user","content":"%s"}]}`
			post(t, s, strings.Replace(body, "%s", "one", 1))
			resp := post(t, s, strings.Replace(body, "%s", "two", 1))
			var out struct {
				Usage map[string]json.RawMessage `json:"usage"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatal(err)
			}
			cached := s.ChatRequests()[1].CachedTokens
			if cached != 204 {
				t.Fatalf("cached %d", cached)
			}
			switch shape {
			case CacheOpenAI:
				if string(out.Usage["prompt_tokens_details"]) != `{"cached_tokens":204}` {
					t.Fatalf("usage %s", out.Usage["prompt_tokens_details"])
				}
			case CacheDeepSeek:
				if string(out.Usage["prompt_cache_hit_tokens"]) != "204" || string(out.Usage["prompt_cache_miss_tokens"]) != "4" {
					t.Fatalf("usage %v", out.Usage)
				}
			}
		})
	}
}

func TestScriptCallIDsAndCache(t *testing.T) {
	rules, err := ParseScript([]byte(`[{"match":"*","response":{"call_ids":"same","one_index":true,"cache":"deepseek","tool_calls":[{"name":"a"},{"name":"b"}]}}]`))
	if err != nil || rules[0].Response.CallIDs != IDsSame || !rules[0].Response.OneIndex || rules[0].Response.Cache != CacheDeepSeek {
		t.Fatalf("%v %+v", err, rules)
	}
	for _, bad := range []string{`[{"response":{"call_ids":"twice"}}]`, `[{"response":{"cache":"anthropic"}}]`} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Fatalf("accepted %s", bad)
		}
	}
}
