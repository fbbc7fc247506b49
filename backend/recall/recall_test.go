package recall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// dirFiles keeps sidecar files in a folder (the store's behaviour without a store).
type dirFiles struct {
	dir      string
	mu       sync.Mutex
	appended int
}

func (d *dirFiles) SidecarPath(convID, name string) (string, error) {
	return filepath.Join(d.dir, convID+"-"+name), nil
}

func (d *dirFiles) AppendSidecar(convID, name string, data []byte) error {
	d.mu.Lock()
	d.appended++
	d.mu.Unlock()
	p, _ := d.SidecarPath(convID, name)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(data)
	return err
}

func docs() []Doc {
	return []Doc{
		{ID: "d1", Role: "user", Text: "The staging gateway listens on port 8443."},
		{ID: "d2", Role: "tool", Tool: "fs.read", Text: "log line one\nERROR tls: certificate for api-7.internal expires on 2026-04-01\nlog line three"},
		{ID: "d3", Role: "user", Text: "仓库的盘点周期改成每季度一次，由仓储组负责。"},
		{ID: "d4", Role: "assistant", Text: "We talked about the weather and lunch."},
	}
}

func TestSearchByWordsAndChinese(t *testing.T) {
	var c Cache
	f := &dirFiles{dir: t.TempDir()}
	if err := c.Add(f, "c", docs()); err != nil {
		t.Fatal(err)
	}
	x, err := c.Get(f, "c")
	if err != nil || x.Len() != 4 {
		t.Fatalf("index: %v %d", err, x.Len())
	}
	for q, want := range map[string]string{
		"which port does the staging gateway use?": "d1",
		"when does the certificate expire?":        "d2",
		"盘点周期是怎么定的？":                               "d3",
	} {
		hits, err := x.Search(q, Options{})
		if err != nil || len(hits) == 0 || hits[0].ID != want {
			t.Fatalf("%q: %+v %v", q, hits, err)
		}
		if hits[0].LexRank != 1 || len(hits[0].Terms) == 0 || !strings.Contains(hits[0].Why(), "words") {
			t.Fatalf("%q: explanation %+v", q, hits[0])
		}
	}
	if hits, _ := x.Search("completely unrelated zebra", Options{}); len(hits) != 0 {
		t.Fatalf("recalled without a match: %+v", hits)
	}
	hits, _ := x.Search("port 8443", Options{Skip: func(id string) bool { return id == "d1" }})
	for _, h := range hits {
		if h.ID == "d1" {
			t.Fatal("a skipped document was returned")
		}
	}
}

// A second process (a new cache) reads the file; a cache reads only what was
// appended since.
func TestIndexFileAndRefresh(t *testing.T) {
	f := &dirFiles{dir: t.TempDir()}
	var a, b Cache
	if err := a.Add(f, "c", docs()[:2]); err != nil {
		t.Fatal(err)
	}
	x, _ := b.Get(f, "c")
	if x.Len() != 2 {
		t.Fatalf("%d docs read", x.Len())
	}
	if err := a.Add(f, "c", docs()[2:]); err != nil {
		t.Fatal(err)
	}
	x, _ = b.Get(f, "c")
	if x.Len() != 4 {
		t.Fatalf("%d docs after the append", x.Len())
	}
	if err := a.Add(f, "c", docs()[:1]); err != nil { // a repeat changes nothing
		t.Fatal(err)
	}
	if x, _ = b.Get(f, "c"); x.Len() != 4 {
		t.Fatal("a repeated document was indexed twice")
	}
	// a torn last line is read once it is complete
	p, _ := f.SidecarPath("c", conversation.RecallFile)
	fh, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o644)
	fh.WriteString(`{"id":"d9","role":"user","text":"half`)
	fh.Close()
	if x, _ = b.Get(f, "c"); x.Len() != 4 {
		t.Fatal("a torn line was indexed")
	}
	fh, _ = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o644)
	fh.WriteString(` written"}` + "\n")
	fh.Close()
	if x, _ = b.Get(f, "c"); x.Len() != 5 {
		t.Fatal("the completed line was not read")
	}
	// The writing cache took its own documents in as they were, and reads
	// what another writer appended before its next append.
	if err := a.Add(f, "c", []Doc{{ID: "d10", Role: "user", Text: "another line"}}); err != nil {
		t.Fatal(err)
	}
	if xa, _ := a.Get(f, "c"); xa.Len() != 6 {
		t.Fatalf("the writer's index holds %d docs, want 6", xa.Len())
	}
	var fresh Cache
	xa, _ := a.Get(f, "c")
	xf, _ := fresh.Get(f, "c")
	ha, _ := xa.Search("another line", Options{})
	hf, _ := xf.Search("another line", Options{})
	if xa.Len() != xf.Len() || len(ha) == 0 || fmt.Sprint(ha) != fmt.Sprint(hf) {
		t.Fatalf("the writer's index differs from a fresh read: %v vs %v", ha, hf)
	}
	x, _ = b.Get(f, "c")
	y := x.With([]Doc{{ID: "p1", Role: "user", Text: "a previewed compaction"}})
	if y.Len() != 7 || x.Len() != 6 {
		t.Fatal("With changed the index")
	}
}

type fakeEmbedder struct {
	mu    sync.Mutex
	texts int
	fail  bool
}

func (e *fakeEmbedder) Model() string { return "fake-embed" }
func (e *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail {
		return nil, errors.New("down")
	}
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakellm.Embedding(t)
	}
	return out, nil
}

// With vectors, a document is embedded once (cached in a file per model)
// and the ranking fuses words and meaning.
func TestHybridSearch(t *testing.T) {
	f := &dirFiles{dir: t.TempDir()}
	var c Cache
	var many []Doc
	for i := 0; i < 30; i++ {
		many = append(many, Doc{ID: fmt.Sprintf("f%d", i), Role: "assistant", Text: fmt.Sprintf("filler note %d about lunch", i)})
	}
	if err := c.Add(f, "c", append(docs(), many...)); err != nil {
		t.Fatal(err)
	}
	x, _ := c.Get(f, "c")
	e := &fakeEmbedder{}
	vs := &VectorSearch{Embedder: e, Files: f, ConvID: "c"}
	hits, err := x.Search("staging gateway port", Options{Vectors: vs})
	if err != nil || len(hits) == 0 || hits[0].ID != "d1" || hits[0].VecRank == 0 || hits[0].LexRank == 0 {
		t.Fatalf("hits %+v %v", hits, err)
	}
	first := e.texts
	if first != 34+1 {
		t.Fatalf("embedded %d texts, want 34 documents and the query", first)
	}
	// a new process: vectors come from the file; only the query is embedded
	var c2 Cache
	x2, _ := c2.Get(f, "c")
	if _, err := x2.Search("certificate expiry", Options{Vectors: vs}); err != nil {
		t.Fatal(err)
	}
	if e.texts != first+1 {
		t.Fatalf("embedded %d more texts", e.texts-first)
	}
	e.fail = true
	if _, err := x2.Search("port", Options{Vectors: vs}); err == nil {
		t.Fatal("an embeddings failure must be reported")
	}
	p, _ := f.SidecarPath("c", conversation.EmbeddingsFile(ModelKey("fake-embed")))
	if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
		t.Fatalf("vectors file: %v", err)
	}
}

func TestExcerpt(t *testing.T) {
	var lines []string
	for i := 0; i < 200; i++ {
		lines = append(lines, fmt.Sprintf("line %d of the log with ordinary content", i))
	}
	lines[150] = "retention_window: 417 (set after the incident)"
	text := strings.Join(lines, "\n")
	got := Excerpt(text, queryTerms("what is the retention_window?"), 300)
	if !strings.Contains(got, "retention_window: 417") || len([]rune(got)) > 400 || !strings.Contains(got, "…") {
		t.Fatalf("excerpt:\n%s", got)
	}
	if short := Excerpt("short text", nil, 300); short != "short text" {
		t.Fatal(short)
	}
}

func BenchmarkSearch50k(b *testing.B) {
	f := &dirFiles{dir: b.TempDir()}
	var c Cache
	var ds []Doc
	for i := 0; i < 50000; i++ {
		ds = append(ds, Doc{ID: fmt.Sprintf("m%06d", i), Role: "user", Text: fmt.Sprintf("Question %d: must the report for region %d use the 2025 figures? The quarterly plan needs a budget owner and a launch date.", i, i%97)})
	}
	if err := c.Add(f, "c", ds); err != nil {
		b.Fatal(err)
	}
	x, _ := c.Get(f, "c")
	b.ResetTimer()
	for b.Loop() {
		if _, err := x.Search("which region used the 2025 figures for the budget owner question 4711?", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexLoad50k measures what a new process pays once to read the
// recall index of a conversation with 50 000 compacted messages (~12 MB).
func BenchmarkIndexLoad50k(b *testing.B) {
	f := &dirFiles{dir: b.TempDir()}
	var c Cache
	var ds []Doc
	for i := 0; i < 50000; i++ {
		ds = append(ds, Doc{ID: fmt.Sprintf("m%06d", i), Role: "user", Text: fmt.Sprintf("Question %d: must the report for region %d use the 2025 figures? %s", i, i%97, strings.Repeat("The quarterly plan needs a budget owner and a launch date. ", 3))})
	}
	if err := c.Add(f, "c", ds); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		var fresh Cache
		x, err := fresh.Get(f, "c")
		if err != nil || x.Len() != 50000 {
			b.Fatal(err)
		}
	}
}

// A document that shares one word with the query is recalled only when few
// documents have that word: "continue" said in many messages recalls none
// of them, a name said once recalls its message; two words in common are a
// match whatever their counts.
func TestOneCommonWordRecallsNothing(t *testing.T) {
	var ds []Doc
	for i := 0; i < 6; i++ {
		ds = append(ds, Doc{ID: fmt.Sprintf("ok%d", i), Role: "user", Text: fmt.Sprintf("ok, continue with step %d", i)})
	}
	ds = append(ds,
		Doc{ID: "kafka", Role: "user", Text: "the Kafka cluster runs on three brokers"},
		Doc{ID: "cache", Role: "assistant", Text: "the invoice cache continue path is slow"})
	var c Cache
	f := &dirFiles{dir: t.TempDir()}
	if err := c.Add(f, "c", ds); err != nil {
		t.Fatal(err)
	}
	x, err := c.Get(f, "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"continue", ""},
		{"where is kafka again?", "kafka"},
		{"continue on the invoice cache", "cache"},
	} {
		hits, err := x.Search(tc.query, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.ID)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%q recalled %v, want %q", tc.query, got, tc.want)
		}
	}
}
