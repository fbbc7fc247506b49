package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lineWriter passes each line run writes to the test.
type lineWriter struct{ ch chan string }

func (w lineWriter) Write(p []byte) (int, error) {
	sc := bufio.NewScanner(strings.NewReader(string(p)))
	for sc.Scan() {
		w.ch <- sc.Text()
	}
	return len(p), nil
}

func TestRunServesScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "rules.json")
	rules := `[
	  {"match": "use a tool", "response": {"tool_calls": [{"name": "fs.list", "arguments": "{\"path\":\"@project\"}"}]}},
	  {"match": "*", "response": {"text": "You said: ", "echo": true}}
	]`
	if err := os.WriteFile(script, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := lineWriter{ch: make(chan string, 4)}
	code := make(chan int, 1)
	go func() { code <- run(ctx, []string{"-addr", "127.0.0.1:0", "-script", script}, out, io.Discard) }()

	var base string
	select {
	case line := <-out.ch:
		var ok bool
		if base, ok = strings.CutPrefix(line, "FAKE_LLM_URL="); !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
			t.Fatalf("first line %q", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no URL printed")
	}

	body := `{"model":"m","messages":[{"role":"user","content":"please use a tool"}],
	  "tools":[{"type":"function","function":{"name":"fs_list"}}]}`
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"name":"fs_list"`) || !strings.Contains(string(b), `"finish_reason":"tool_calls"`) {
		t.Fatalf("answer %s", b)
	}
	resp, err = http.Get(strings.TrimSuffix(base, "/v1") + "/_fakellm/requests")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []struct {
		Seq      int `json:"seq"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&reqs)
	resp.Body.Close()
	if len(reqs) != 1 || reqs[0].Messages[0].Content != "please use a tool" {
		t.Fatalf("recorded %+v", reqs)
	}

	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit code %d", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("did not stop")
	}
}

func TestRunRejectsBadScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(script, []byte(`[{"match":"x","response":{"txet":"typo"}}]`), 0o600)
	var stderr strings.Builder
	if c := run(context.Background(), []string{"-script", script}, io.Discard, &stderr); c != 1 || !strings.Contains(stderr.String(), "txet") {
		t.Fatalf("code %d stderr %q", c, stderr.String())
	}
	if c := run(context.Background(), []string{"-script", filepath.Join(t.TempDir(), "missing.json")}, io.Discard, io.Discard); c != 1 {
		t.Fatalf("missing script: code %d", c)
	}
	if c := run(context.Background(), []string{"-nope"}, io.Discard, io.Discard); c != 2 {
		t.Fatalf("bad flag: code %d", c)
	}
}

func TestRunRefusesFieldsAndReportsCache(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := lineWriter{ch: make(chan string, 4)}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"-refuse-fields", "prompt_cache_key, stream_options", "-refuse-style", "pydantic", "-cache", "openai"}, out, io.Discard)
	}()
	var base string
	select {
	case line := <-out.ch:
		base = strings.TrimPrefix(line, "FAKE_LLM_URL=")
	case <-time.After(5 * time.Second):
		t.Fatal("no URL printed")
	}
	post := func(body string) (int, string) {
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, b := post(`{"model":"m","prompt_cache_key":"k","messages":[{"role":"user","content":"hi"}]}`); st != 422 || !strings.Contains(b, "prompt_cache_key") {
		t.Fatalf("%d %s", st, b)
	}
	if st, b := post(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`); st != 200 || !strings.Contains(b, `"prompt_tokens_details":{"cached_tokens":0}`) {
		t.Fatalf("%d %s", st, b)
	}
	cancel()
	<-code
}

func TestRunRejectsBadModes(t *testing.T) {
	for _, args := range [][]string{{"-refuse-style", "xml"}, {"-cache", "anthropic"}} {
		var stderr strings.Builder
		if c := run(context.Background(), args, io.Discard, &stderr); c != 2 || stderr.Len() == 0 {
			t.Fatalf("%v: code %d stderr %q", args, c, stderr.String())
		}
	}
}
