package llm

import (
	"context"
	"math"
	"testing"

	"crewagent/backend/errs"
	"crewagent/backend/llm/fakellm"
)

func TestParseOverflow(t *testing.T) {
	for _, tc := range []struct {
		msg            string
		limit, request int
		ok             bool
	}{
		{"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.", 8192, 9001, true},
		{"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", 8192, 9000, true},
		{"request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it", 8192, 9000, true},
		{"prompt is too long: 210000 tokens > 200000 maximum", 200000, 210000, true},
		{"input length (5000) exceeds maximum context length (4096)", 4096, 5000, true},
		{"This model's maximum context length is 4096 tokens", 4096, 0, true},
		{"context_length_exceeded", 0, 0, false},
		{"the prompt is too long", 0, 0, false},
	} {
		o, ok := ParseOverflow(tc.msg)
		if ok != tc.ok || o.Limit != tc.limit || o.Requested != tc.request {
			t.Errorf("%q: %+v %v", tc.msg, o, ok)
		}
	}
	if (Overflow{Limit: 8192, Requested: 9000}).Excess() != 808 || (Overflow{Limit: 8192}).Excess() != 0 {
		t.Error("excess")
	}
	if _, ok := OverflowOf(&Error{Code: CodeServer, Message: "maximum context length is 8192 tokens. However, you requested 9000 tokens"}); ok {
		t.Error("figures read from an error that is not a context-length error")
	}
}

func FuzzParseOverflow(f *testing.F) {
	f.Add("This model's maximum context length is 8192 tokens. However, you requested 9000 tokens")
	f.Add("request (9000 tokens) exceeds the available context size (8192 tokens)")
	f.Fuzz(func(t *testing.T, s string) {
		o, ok := ParseOverflow(s)
		if ok && o.Limit == 0 && o.Requested == 0 {
			t.Fatalf("ok without figures for %q", s)
		}
		if o.Limit < 0 || o.Requested < 0 {
			t.Fatalf("negative figures for %q: %+v", s, o)
		}
	})
}

// Embed talks to an OpenAI-compatible /v1/embeddings endpoint.
func TestEmbed(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	c := New(Config{BaseURL: srv.URL(), Model: "m", MaxRetries: -1})
	vecs, err := c.Embed(context.Background(), "embed-model", []string{"port 8443", "端口 8443"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != fakellm.EmbeddingDims {
		t.Fatalf("vectors: %d %v", len(vecs), err)
	}
	want := fakellm.Embedding("port 8443")
	for i := range want {
		if math.Abs(float64(want[i]-vecs[0][i])) > 1e-6 {
			t.Fatal("the vectors differ from the server's")
		}
	}
	if in := srv.EmbeddingRequests(); len(in) != 1 || len(in[0]) != 2 {
		t.Fatalf("requests %v", in)
	}
	srv.FailEmbeddings(1)
	if _, err := c.Embed(context.Background(), "embed-model", []string{"x"}); errs.CodeOf(err) != CodeServer {
		t.Fatalf("a failing endpoint: %v", err)
	}
	if _, err := c.Embed(context.Background(), "", []string{"x"}); errs.CodeOf(err) != CodeNotConfigured {
		t.Fatalf("no model: %v", err)
	}
}
