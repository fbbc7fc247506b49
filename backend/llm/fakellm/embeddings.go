package fakellm

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EmbeddingDims is the size of the vectors POST /v1/embeddings returns.
const EmbeddingDims = 256

// Embedding returns the vector the server gives text: a deterministic bag of
// words (lower-case words and, for CJK text, pairs of adjacent characters)
// hashed into EmbeddingDims signed buckets and normalised, so texts sharing
// words are similar. It stands in for a real model in tests.
func Embedding(text string) []float32 {
	v := make([]float64, EmbeddingDims)
	add := func(t string) {
		h := fnv.New64a()
		h.Write([]byte(t))
		x := h.Sum64()
		sign := 1.0
		if x&1 == 1 {
			sign = -1
		}
		v[(x>>1)%EmbeddingDims] += sign
	}
	var word strings.Builder
	var prev rune
	flush := func() {
		if word.Len() > 1 {
			add(word.String())
		}
		word.Reset()
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			if prev != 0 {
				add(string([]rune{prev, r}))
			}
			prev = r
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word.WriteRune(r)
		default:
			flush()
		}
		prev = 0
	}
	flush()
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, EmbeddingDims)
	if n == 0 {
		out[0] = 1
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// FailEmbeddings makes the next n embeddings requests fail with 500.
func (s *Server) FailEmbeddings(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFail = n
}

// EmbeddingRequests returns the inputs of the recorded POST /v1/embeddings requests.
func (s *Server) EmbeddingRequests() [][]string {
	var out [][]string
	for _, r := range s.Requests() {
		if r.Path != "/v1/embeddings" {
			continue
		}
		in, _, _ := decodeEmbeddings(r.Body)
		out = append(out, in)
	}
	return out
}

func decodeEmbeddings(body []byte) (inputs []string, model string, err error) {
	var req struct {
		Input json.RawMessage `json:"input"`
		Model string          `json:"model"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, "", err
	}
	var one string
	if json.Unmarshal(req.Input, &one) == nil {
		return []string{one}, req.Model, nil
	}
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		return nil, "", err
	}
	return inputs, req.Model, nil
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.record(r, body)
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	fail := s.embedFail > 0
	if fail {
		s.embedFail--
	}
	s.mu.Unlock()
	if fail {
		writeAPIError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request.")
		return
	}
	inputs, model, err := decodeEmbeddings(body)
	if err != nil || len(inputs) == 0 {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "", "'input' must be a string or a list of strings")
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  Usage  `json:"usage"`
	}{Object: "list", Model: model}
	for i, in := range inputs {
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: Embedding(in)})
		resp.Usage.PromptTokens += utf8.RuneCountInString(in)/4 + 1
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, http.StatusOK, resp)
}
