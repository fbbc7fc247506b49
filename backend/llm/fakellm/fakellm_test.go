package fakellm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func post(t *testing.T, s *Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// dataEvents reads an SSE body and returns the data payloads; done reports a final [DONE].
func dataEvents(t *testing.T, r io.Reader) (events []map[string]any, done bool, err error) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected line %q", line)
		}
		if payload == "[DONE]" {
			done = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(payload), &m); err != nil {
			t.Fatalf("bad JSON %q: %v", payload, err)
		}
		events = append(events, m)
	}
	return events, done, sc.Err()
}

func delta(ev map[string]any) map[string]any {
	ch := ev["choices"].([]any)
	if len(ch) == 0 {
		return nil
	}
	return ch[0].(map[string]any)["delta"].(map[string]any)
}

const userBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hello there"}]}`

func TestStreamFormat(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Response{Text: "héllo wörld", Chunks: 3, Usage: &Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7}})
	resp := post(t, s, userBody)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, done, err := dataEvents(t, resp.Body)
	if err != nil || !done {
		t.Fatalf("done=%v err=%v", done, err)
	}
	// role, 3 text chunks, finish, usage
	if len(events) != 6 {
		t.Fatalf("%d events: %v", len(events), events)
	}
	if delta(events[0])["role"] != "assistant" {
		t.Fatalf("first event %v", events[0])
	}
	var text strings.Builder
	for _, ev := range events[1:4] {
		text.WriteString(delta(ev)["content"].(string))
	}
	if text.String() != "héllo wörld" {
		t.Fatalf("text %q", text.String())
	}
	if fr := events[4]["choices"].([]any)[0].(map[string]any)["finish_reason"]; fr != "stop" {
		t.Fatalf("finish %v", fr)
	}
	u := events[5]["usage"].(map[string]any)
	if len(events[5]["choices"].([]any)) != 0 || u["total_tokens"].(float64) != 7 {
		t.Fatalf("usage event %v", events[5])
	}
	if events[1]["model"] != "m" || events[1]["object"] != "chat.completion.chunk" {
		t.Fatalf("chunk %v", events[1])
	}
}

func TestStreamWithoutUsageRequest(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Response{Text: "x", OmitDone: true})
	resp := post(t, s, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	events, done, _ := dataEvents(t, resp.Body)
	if done || len(events) != 3 { // role, text, finish
		t.Fatalf("done=%v events=%v", done, events)
	}
	for _, ev := range events {
		if ev["usage"] != nil {
			t.Fatalf("usage sent without include_usage: %v", ev)
		}
	}
}

func TestToolCallChunks(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Response{ToolCalls: []ToolCall{
		{Name: "fs.read", Arguments: `{"path":"@project/a"}`, ArgChunks: 3},
		{ID: "own", Name: "other.tool", Arguments: `{}`},
	}})
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}],
		"tools":[{"type":"function","function":{"name":"fs_read","parameters":{"type":"object"}}},
		         {"type":"function","function":{"name":"other_tool"}}]}`
	events, _, _ := dataEvents(t, post(t, s, body).Body)
	args := map[float64]string{}
	names := map[float64]string{}
	ids := map[float64]string{}
	for _, ev := range events {
		d := delta(ev)
		if d == nil || d["tool_calls"] == nil {
			continue
		}
		for _, tc := range d["tool_calls"].([]any) {
			m := tc.(map[string]any)
			i := m["index"].(float64)
			fn := m["function"].(map[string]any)
			if n, ok := fn["name"].(string); ok {
				names[i] = n
				ids[i] = m["id"].(string)
			}
			if a, ok := fn["arguments"].(string); ok {
				args[i] += a
			}
		}
	}
	if names[0] != "fs_read" || names[1] != "other_tool" {
		t.Fatalf("names %v (the declared form must be used)", names)
	}
	if ids[0] != "call_1_0" || ids[1] != "own" {
		t.Fatalf("ids %v", ids)
	}
	if args[0] != `{"path":"@project/a"}` || args[1] != `{}` {
		t.Fatalf("args %v", args)
	}
	last := events[len(events)-1]["choices"].([]any)[0].(map[string]any)
	if last["finish_reason"] != "tool_calls" {
		t.Fatalf("finish %v", last)
	}
}

func TestNonStreamAnswer(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Response{Text: "whole", ToolCalls: []ToolCall{{Name: "t", Arguments: "{}"}}})
	resp := post(t, s, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var out struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage Usage `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	m := out.Choices[0].Message
	if out.Object != "chat.completion" || m.Content != "whole" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "t" ||
		out.Choices[0].FinishReason != "tool_calls" || out.Usage.TotalTokens == 0 {
		t.Fatalf("answer %+v", out)
	}
}

func TestErrorResponses(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(RateLimited("7"), ContextLengthExceeded(), Response{Status: 503})
	resp := post(t, s, userBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" {
		t.Fatalf("status %d retry-after %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var e struct {
		Error struct{ Message, Type, Code string } `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if e.Error.Code != "rate_limit_exceeded" {
		t.Fatalf("error %+v", e)
	}
	resp = post(t, s, userBody)
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 400 || e.Error.Code != "context_length_exceeded" || e.Error.Type != "invalid_request_error" {
		t.Fatalf("status %d error %+v", resp.StatusCode, e)
	}
	resp = post(t, s, userBody)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || !strings.Contains(string(b), "server_error") {
		t.Fatalf("status %d body %s", resp.StatusCode, b)
	}
}

func TestCutAndStall(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Response{Text: "abcdef", Chunks: 3, Cut: true, CutAfter: 2})
	events, done, err := dataEvents(t, post(t, s, userBody).Body)
	if err == nil || done || len(events) != 2 {
		t.Fatalf("cut: events=%d done=%v err=%v", len(events), done, err)
	}

	s.Enqueue(Response{Text: "abc", StallAfter: 1, Stall: 150 * time.Millisecond})
	start := time.Now()
	events, done, err = dataEvents(t, post(t, s, userBody).Body)
	if err != nil || !done || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("stall: events=%d done=%v err=%v after %v", len(events), done, err, time.Since(start))
	}

	// a client that gives up releases a stall-forever answer
	s.Enqueue(Response{Text: "abc", Stall: StallForever})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/chat/completions", strings.NewReader(userBody))
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stall forever: err=%v", err)
	}
}

func TestCloseReleasesStalledAnswers(t *testing.T) {
	s := New()
	s.Enqueue(Response{Text: "abc", Stall: StallForever})
	got := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(userBody))
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		got <- err
	}()
	for len(s.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("Close hangs on a stalled answer")
	}
	<-got
}

func TestRecordedRequests(t *testing.T) {
	s := New()
	defer s.Close()
	body := `{"model":"gpt-x","stream":false,"temperature":0.5,"max_completion_tokens":42,
	  "messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
	  {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"fs_read","arguments":"{}"}}]},
	  {"role":"tool","tool_call_id":"c1","content":"out"}],
	  "tools":[{"type":"function","function":{"name":"fs_read","description":"d","parameters":{"type":"object"}}}]}`
	post(t, s, body)
	reqs := s.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Seq != 1 || r.Model != "gpt-x" || r.Stream || *r.Temperature != 0.5 || r.MaxTokens != 42 || len(r.Messages) != 4 {
		t.Fatalf("request %+v", r)
	}
	if r.Messages[1].Text() != "ab" || r.Messages[2].Content != nil || r.Messages[2].ToolCalls[0].Name != "fs_read" ||
		r.Messages[3].ToolCallID != "c1" || r.LastUserText() != "ab" || r.LastMessage().Role != "tool" {
		t.Fatalf("messages %+v", r.Messages)
	}
	if r.Tools[0].Name != "fs_read" || string(r.Tools[0].Parameters) != `{"type":"object"}` {
		t.Fatalf("tools %+v", r.Tools)
	}
	if !strings.Contains(string(r.Body), "max_completion_tokens") {
		t.Fatal("raw body not kept")
	}
}

func TestStrictValidation(t *testing.T) {
	tests := []struct {
		name, body, msg string
	}{
		{"dotted tool name", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"fs.read"}}]}`, "does not match pattern"},
		{"dangling tool call", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"y"}]}`, "c1"},
		{"missing tool answer at end", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, "c2"},
		{"orphan tool message", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"zz","content":"r"}]}`, "must be a response"},
		{"tool without content", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1"}]}`, "content"},
		{"no messages", `{"model":"m","messages":[]}`, "too short"},
		{"bad role", `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, "Invalid value"},
		{"bad JSON", `{"model":`, "parse the JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			defer s.Close()
			s.Enqueue(Text("must stay queued"))
			resp := post(t, s, tt.body)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 400 || !strings.Contains(string(b), tt.msg) || !strings.Contains(string(b), "invalid_request_error") {
				t.Fatalf("status %d body %s", resp.StatusCode, b)
			}
			if s.Pending() != 1 {
				t.Fatal("a rejected request consumed the script")
			}
			if tt.name != "bad JSON" {
				s.SetStrict(false)
				resp = post(t, s, tt.body)
				if resp.StatusCode != 200 {
					t.Fatalf("lenient mode: status %d", resp.StatusCode)
				}
			}
		})
	}
}

func TestAuthAndModels(t *testing.T) {
	s := New()
	defer s.Close()
	s.SetModels("a", "b")
	s.RequireAPIKey("k1")
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("status %d without key", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", s.URL()+"/models", nil)
	req.Header.Set("Authorization", "Bearer k1")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&list)
	if len(list.Data) != 2 || list.Data[0].ID != "a" {
		t.Fatalf("models %+v", list)
	}
	resp2, _ := http.Get(s.URL() + "/nope")
	resp2.Body.Close()
	if resp2.StatusCode != 401 {
		t.Fatalf("unknown path without key: %d", resp2.StatusCode)
	}
	s.RequireAPIKey("")
	resp3, _ := http.Get(s.URL() + "/nope")
	resp3.Body.Close()
	if resp3.StatusCode != 404 {
		t.Fatalf("unknown path: %d", resp3.StatusCode)
	}
}

func TestRawPieces(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Response{Raw: []string{": ping\n\n", "data: {\"x\":1}\r\n\r\n"}, ChunkDelay: 10 * time.Millisecond})
	b, _ := io.ReadAll(post(t, s, userBody).Body)
	if string(b) != ": ping\n\ndata: {\"x\":1}\r\n\r\n" {
		t.Fatalf("raw body %q", b)
	}
}

func TestRules(t *testing.T) {
	rules := NewRules(
		Rule{Match: "use a tool", Response: Tools(ToolCall{Name: "fs.list", Arguments: `{"path":"@project"}`})},
		Rule{Match: "*", OnToolResult: true, Response: Response{Text: "Tool said: ", Echo: true}},
		Rule{Match: "FAIL once", Times: 1, Response: ServerError()},
		Rule{Match: "fail", Response: Response{Text: "partial", Cut: true, CutAfter: 2}},
	)
	msg := func(role, content string) RecordedMessage { return RecordedMessage{Role: role, Content: &content} }
	req := func(ms ...RecordedMessage) RecordedRequest { return RecordedRequest{Messages: ms} }

	if r := rules.Respond(req(msg("user", "please USE A TOOL now"))); len(r.ToolCalls) != 1 {
		t.Fatalf("tool rule: %+v", r)
	}
	afterTool := req(msg("user", "please use a tool"), RecordedMessage{Role: "assistant"}, msg("tool", "a.md"))
	if r := rules.Respond(afterTool); !r.Echo || r.Text != "Tool said: " {
		t.Fatalf("tool result rule: %+v", r)
	}
	if r := rules.Respond(req(msg("user", "fail once please"))); r.Status != 500 {
		t.Fatalf("first fail: %+v", r)
	}
	if r := rules.Respond(req(msg("user", "fail once please"))); !r.Cut {
		t.Fatalf("second fail (times exhausted): %+v", r)
	}
	if r := rules.Respond(req(msg("user", "hello"))); !r.Echo || r.Text != "" {
		t.Fatalf("fallback: %+v", r)
	}
}

func TestRulesThroughServer(t *testing.T) {
	s := New()
	defer s.Close()
	s.SetDefault(NewRules(Rule{Match: "*", Response: Response{Text: "You said: ", Echo: true}}).Respond)
	s.Enqueue(Text("queued first"))
	for _, want := range []string{"queued first", "You said: hello there"} {
		events, _, _ := dataEvents(t, post(t, s, userBody).Body)
		var text strings.Builder
		for _, ev := range events {
			if d := delta(ev); d != nil {
				if c, ok := d["content"].(string); ok {
					text.WriteString(c)
				}
			}
		}
		if text.String() != want {
			t.Fatalf("got %q want %q", text.String(), want)
		}
	}
}

func TestParseScript(t *testing.T) {
	script := `[
	  {"match": "use a tool", "response": {"tool_calls": [{"name": "fs.list", "arguments": "{\"path\":\"@project\"}", "arg_chunks": 3}]}},
	  {"match": "slow", "response": {"text": "slow", "chunks": 2, "chunk_delay_ms": 250, "delay_ms": 5}},
	  {"match": "hang", "response": {"stall_after": 2, "stall_ms": -1}},
	  {"match": "limit", "times": 2, "response": {"status": 429, "headers": {"Retry-After": "1"}}},
	  {"match": "*", "on_tool_result": true, "response": {"text": "done: ", "echo": true}}
	]`
	rules, err := ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 5 || rules[0].Response.ToolCalls[0].ArgChunks != 3 || rules[1].Response.ChunkDelay != 250*time.Millisecond ||
		rules[1].Response.Delay != 5*time.Millisecond || rules[2].Response.Stall != StallForever || rules[3].Times != 2 ||
		rules[3].Response.Headers["Retry-After"] != "1" || !rules[4].OnToolResult {
		t.Fatalf("rules %+v", rules)
	}
	for _, bad := range []string{
		`{"match":"x"}`,
		`[{"match":"x","respons":{}}]`,
		`[{"match":"x","response":{"txt":"typo"}}]`,
		`[{"match":"x","times":-1,"response":{}}]`,
		`[{"match":"x","response":{"tool_calls":[{"arguments":"{}"}]}}]`,
		`[{"match":"x","response":{"stall_ms":-2}}]`,
		`[] []`,
	} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestResponseJSONRoundTrip(t *testing.T) {
	in := Response{Text: "t", ChunkDelay: 30 * time.Millisecond, Delay: time.Second, Stall: StallForever, StallAfter: 2,
		ToolCalls: []ToolCall{{Name: "a", Arguments: "{}"}}, Headers: map[string]string{"X": "y"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"chunk_delay_ms":30`) || !strings.Contains(string(b), `"stall_ms":-1`) {
		t.Fatalf("json %s", b)
	}
	var out Response
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.ChunkDelay != in.ChunkDelay || out.Delay != in.Delay || out.Stall != in.Stall || out.Text != "t" || out.ToolCalls[0].Name != "a" {
		t.Fatalf("round trip %+v", out)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want []string
	}{
		{"", 3, nil},
		{"abcdef", 3, []string{"ab", "cd", "ef"}},
		{"abcde", 2, []string{"abc", "de"}},
		{"ab", 5, []string{"a", "b"}},
		{"日本語テキスト", 3, []string{"日本語", "テキ", "スト"}},
		{strings.Repeat("x", 20), 0, []string{strings.Repeat("x", 10), strings.Repeat("x", 10)}},
	}
	for _, tt := range tests {
		got := split(tt.s, tt.n)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("split(%q,%d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestConcurrentRequests(t *testing.T) {
	s := New()
	defer s.Close()
	const n = 8
	for i := 0; i < n/2; i++ {
		s.Enqueue(Text("queued"))
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(userBody))
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	reqs := s.Requests()
	if len(reqs) != n || s.Pending() != 0 {
		t.Fatalf("%d requests, %d pending", len(reqs), s.Pending())
	}
	seen := map[int]bool{}
	for _, r := range reqs {
		seen[r.Seq] = true
	}
	if len(seen) != n {
		t.Fatalf("sequence numbers not unique: %v", seen)
	}
}

func TestNewOnAddr(t *testing.T) {
	s, err := NewOnAddr("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || !strings.HasSuffix(s.URL(), "/v1") {
		t.Fatalf("URL %q", s.URL())
	}
	events, done, _ := dataEvents(t, post(t, s, userBody).Body)
	if !done || len(events) == 0 {
		t.Fatal("no answer")
	}
}

// Each fault breaks the body off the way a real server does, as the HTTP client sees it.
func TestFaultModesOnTheWire(t *testing.T) {
	tests := []struct {
		fault   string
		events  int
		cleanly bool // the body reads to a clean end (no transport error)
		chunked bool
	}{
		{FaultClose, 3, true, false},
		{FaultEnd, 3, true, true},
		{FaultChunkCut, 3, false, true},
		{FaultAbort, 3, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			s := New()
			defer s.Close()
			s.Enqueue(Response{Text: "abcdef", Chunks: 3, Fault: tt.fault, CutAfter: 3})
			resp := post(t, s, userBody)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
			}
			chunked := len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
			if chunked != tt.chunked || resp.ContentLength != -1 {
				t.Fatalf("transfer encoding %v, length %d", resp.TransferEncoding, resp.ContentLength)
			}
			body, err := io.ReadAll(resp.Body)
			complete := string(body)
			if i := strings.LastIndex(complete, "\n\n"); i >= 0 {
				complete = complete[:i+2] // the events that arrived whole
			} else {
				complete = ""
			}
			events, done, _ := dataEvents(t, strings.NewReader(complete))
			if done || len(events) != tt.events {
				t.Fatalf("events %d, done %v", len(events), done)
			}
			for _, ev := range events {
				if ch := ev["choices"].([]any); len(ch) > 0 && ch[0].(map[string]any)["finish_reason"] != nil {
					t.Fatalf("a finish reason was sent: %v", ev)
				}
			}
			if (err == nil) != tt.cleanly {
				t.Fatalf("read error %v", err)
			}
			if !tt.cleanly && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("want an unexpected EOF, got %v", err)
			}
		})
	}
}

func TestFaultInScript(t *testing.T) {
	var r Response
	if err := json.Unmarshal([]byte(`{"text":"x","fault":"close","cut_after":2}`), &r); err != nil || r.Fault != FaultClose || r.CutAfter != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	if err := json.Unmarshal([]byte(`{"fault":"explode"}`), &r); err == nil || !strings.Contains(err.Error(), "unknown fault") {
		t.Fatalf("want an unknown-fault error, got %v", err)
	}
}
