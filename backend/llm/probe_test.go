package llm_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
)

// closedURL is the base URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

func TestDetectLocal(t *testing.T) {
	ollama := fakellm.New()
	defer ollama.Close()
	ollama.SetModels("qwen2.5-coder:7b", "llama3.2:3b", "mistral:7b", "llama3.2:3b")
	empty := fakellm.New() // runs, but no model is downloaded yet
	defer empty.Close()
	empty.SetModels()
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>a web app, not an LLM</body></html>"))
	}))
	defer web.Close()
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // accepts the connection and never answers
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer close(release)
	// a server that takes the connection and closes it at once
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	cands := []llm.LocalCandidate{
		{"Ollama", ollama.URL()},
		{"LM Studio", closedURL(t)},
		{"vLLM", empty.URL()},
		{"Web app", web.URL + "/v1"},
		{"Hung", hung.URL + "/v1"},
		{"Reset", "http://" + ln.Addr().String() + "/v1"},
	}
	t0 := time.Now()
	got := llm.DetectLocal(context.Background(), cands)
	took := time.Since(t0)
	want := []llm.LocalServer{
		{Name: "Ollama", BaseURL: ollama.URL(), Models: []string{"llama3.2:3b", "mistral:7b", "qwen2.5-coder:7b"}},
		{Name: "vLLM", BaseURL: empty.URL(), Models: []string{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DetectLocal = %+v\nwant %+v", got, want)
	}
	// the probes run at once, each within its timeout: a server that never
	// answers costs one timeout, not one per candidate
	if took > 1500*time.Millisecond+time.Second { // one probe timeout, and some slack
		t.Fatalf("detection took %v", took)
	}
	for _, r := range ollama.Requests() {
		if r.Method != "GET" || r.Path != "/v1/models" {
			t.Errorf("the probe sent %s %s", r.Method, r.Path)
		}
	}
}

func TestDetectLocalFindsNothing(t *testing.T) {
	if got := llm.DetectLocal(context.Background(), []llm.LocalCandidate{{"Ollama", closedURL(t)}}); got == nil || len(got) != 0 {
		t.Fatalf("DetectLocal = %#v, want an empty list", got)
	}
	// the default candidates are the usual ports of the usual servers
	want := []string{"http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1", "http://127.0.0.1:8000/v1"}
	var urls []string
	for _, c := range llm.DefaultLocalCandidates {
		urls = append(urls, c.BaseURL)
	}
	if !reflect.DeepEqual(urls, want) {
		t.Fatalf("default candidates %v", urls)
	}
}

func TestDetectLocalStopsWithItsContext(t *testing.T) {
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hung.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if got := llm.DetectLocal(ctx, []llm.LocalCandidate{{"Hung", hung.URL + "/v1"}}); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
	if took := time.Since(t0); took > time.Second {
		t.Fatalf("a cancelled detection took %v", took)
	}
}
