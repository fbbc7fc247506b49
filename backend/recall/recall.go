// Package recall owns retrieval of compacted messages: an index of the
// messages a compaction took out of the request, searched with the newest
// user message so the relevant ones come back into it (quoted in the
// builder's RECALLED_CONTEXT message).
//
// Ranking is lexical (BM25 over the terms of compression.Terms: English
// words and, since Chinese has no spaces, pairs of adjacent CJK characters),
// which always works offline. When an embeddings model is configured
// (Embedder, an OpenAI-compatible /v1/embeddings endpoint), each message is
// embedded once, the vectors are cached on disk beside the log (one file per
// model), and the cosine ranking is fused with the lexical one by reciprocal
// rank (HybridStrategy in the design notes; VectorRetrievalStrategy alone is
// not offered: without the words it misses exact figures and names).
//
// Files (convlog sidecars, derived data): recall.jsonl, one Doc per line,
// appended at each compaction; embeddings-<key>.bin, records of id and
// float32 vector. An index is loaded once per process and conversation (the
// Cache), then only the lines appended since are read, so a send never reads
// the log and never re-reads the index.
package recall

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"crewagent/backend/compression"
	"crewagent/backend/conversation"
)

// MaxDocRunes caps the text a document keeps.
const MaxDocRunes = 4000

// Doc is one compacted message in the index.
type Doc struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Tool string `json:"tool,omitempty"`
	Text string `json:"text"`
}

// Files is what the index needs of the conversation store (*convlog.Store):
// the sidecar files beside a conversation's log.
type Files interface {
	SidecarPath(convID, name string) (string, error)
	AppendSidecar(convID, name string, data []byte) error
}

// DocOf returns the document of a compacted log message ("" text: nothing
// worth indexing).
func DocOf(e *conversation.Entry) Doc {
	text := e.Text()
	for _, tc := range e.ToolCalls {
		text += "\n" + tc.Function.Name + " " + tc.Function.Arguments
	}
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) > MaxDocRunes {
		n := 0
		for i := range text {
			if n == MaxDocRunes {
				text = text[:i]
				break
			}
			n++
		}
	}
	return Doc{ID: e.ID, Role: e.Role, Tool: e.ToolName, Text: text}
}

type posting struct {
	doc int32
	tf  uint16
}

// Index is the recall index of one conversation. It is safe for concurrent
// use.
type Index struct {
	mu    sync.RWMutex
	docs  []Doc
	byID  map[string]int32
	lens  []int32
	post  map[string][]posting
	total int64
	read  int64 // bytes of recall.jsonl taken in
	vecs  map[string]*vectors
	tf    map[string]uint16 // scratch of add
}

func newIndex() *Index {
	return &Index{byID: map[string]int32{}, post: map[string][]posting{}, vecs: map[string]*vectors{}}
}

// Len returns the number of documents.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.docs)
}

// add indexes one document (the caller holds the write lock). A repeated id
// replaces nothing: the first version stays.
func (x *Index) add(d Doc) {
	if d.ID == "" || d.Text == "" {
		return
	}
	if _, dup := x.byID[d.ID]; dup {
		return
	}
	n := int32(len(x.docs))
	x.docs = append(x.docs, d)
	x.byID[d.ID] = n
	if x.tf == nil {
		x.tf = map[string]uint16{}
	}
	tf := x.tf
	clear(tf)
	var length int32
	compression.Terms(d.Text, func(t string) {
		if tf[t] < math.MaxUint16 {
			tf[t]++
		}
		length++
	})
	for t, c := range tf {
		x.post[t] = append(x.post[t], posting{doc: n, tf: c})
	}
	x.lens = append(x.lens, length)
	x.total += int64(length)
}

// With returns a copy of x with docs added (x is not changed): what the
// index would be after a compaction that is only previewed.
func (x *Index) With(docs []Doc) *Index {
	x.mu.RLock()
	y := &Index{docs: slices.Clone(x.docs), lens: slices.Clone(x.lens), total: x.total, read: x.read,
		byID: make(map[string]int32, len(x.byID)+len(docs)), post: make(map[string][]posting, len(x.post)), vecs: map[string]*vectors{}}
	for k, v := range x.byID {
		y.byID[k] = v
	}
	for t, ps := range x.post {
		y.post[t] = slices.Clip(ps)
	}
	for m, vs := range x.vecs {
		y.vecs[m] = &vectors{loaded: vs.loaded, read: vs.read, m: maps.Clone(vs.m)}
	}
	x.mu.RUnlock()
	for _, d := range docs {
		y.add(d)
	}
	return y
}

// Cache keeps the loaded indexes of a process, one per conversation. The zero
// value is ready to use.
type Cache struct {
	mu sync.Mutex
	m  map[string]*Index
}

// Get returns the index of conversation convID, reading what was appended to
// its file since the last call.
func (c *Cache) Get(files Files, convID string) (*Index, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*Index{}
	}
	x := c.m[convID]
	if x == nil {
		x = newIndex()
		c.m[convID] = x
	}
	c.mu.Unlock()
	path, err := files.SidecarPath(convID, conversation.RecallFile)
	if err != nil {
		return nil, err
	}
	if err := x.refresh(path); err != nil {
		return nil, err
	}
	return x, nil
}

// Forget drops the cached index of a conversation (after it was deleted).
func (c *Cache) Forget(convID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, convID)
}

// refresh reads the lines appended to path since the last read (the whole
// file again when it shrank: it was replaced).
func (x *Index) refresh(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if fi.Size() == x.read {
		return nil
	}
	if fi.Size() < x.read {
		x.docs, x.lens, x.total, x.read = nil, nil, 0, 0
		x.byID, x.post = map[string]int32{}, map[string][]posting{}
	}
	if _, err := f.Seek(x.read, io.SeekStart); err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	r := bufio.NewReaderSize(io.LimitReader(f, fi.Size()-x.read), 256<<10)
	off := x.read
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 || line[len(line)-1] != '\n' {
			break // end, or a torn last line: read again later
		}
		off += int64(len(line))
		var d Doc
		if json.Unmarshal(bytes.TrimSpace(line), &d) == nil {
			x.add(d)
		}
		if err != nil {
			break
		}
	}
	x.read = off
	return nil
}

// Add appends docs to the index file of convID and to the cached index.
func (c *Cache) Add(files Files, convID string, docs []Doc) error {
	var buf bytes.Buffer
	size := 0
	for _, d := range docs {
		size += 64 + len(d.ID) + len(d.Tool) + len(d.Text)
	}
	buf.Grow(size)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	kept := make([]Doc, 0, len(docs))
	for _, d := range docs {
		if d.ID == "" || strings.TrimSpace(d.Text) == "" {
			continue
		}
		if err := enc.Encode(d); err != nil {
			return err
		}
		kept = append(kept, d)
	}
	if len(kept) == 0 {
		return nil
	}
	// Take in what is on disk first, so the new lines are read as new.
	x, err := c.Get(files, convID)
	if err != nil {
		return err
	}
	path, err := files.SidecarPath(convID, conversation.RecallFile)
	if err != nil {
		return err
	}
	x.mu.Lock()
	before := fileSize(path)
	if err := files.AppendSidecar(convID, conversation.RecallFile, buf.Bytes()); err != nil {
		x.mu.Unlock()
		return err
	}
	// When the index held the whole file and the file grew by exactly these
	// lines, the documents go in as they are; otherwise the file is read
	// from where the index stopped.
	if before == x.read && fileSize(path) == before+int64(buf.Len()) {
		for _, d := range kept {
			x.add(d)
		}
		x.read += int64(buf.Len())
		x.mu.Unlock()
		return nil
	}
	x.mu.Unlock()
	return x.refresh(path)
}

// fileSize returns the size of the file at path, -1 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		return -1
	}
	return fi.Size()
}

// Hit is one recalled document.
type Hit struct {
	Doc
	Score float64 `json:"score"`
	// Terms are the query terms the document contains.
	Terms []string `json:"terms,omitempty"`
	// LexRank and VecRank are its ranks in the lexical and vector rankings
	// (0: not ranked there); Cosine its similarity to the query.
	LexRank int     `json:"lexRank,omitempty"`
	VecRank int     `json:"vecRank,omitempty"`
	Cosine  float64 `json:"cosine,omitempty"`
	// Excerpt is the part of the text that matters, at most the runes asked.
	Excerpt string `json:"excerpt"`
}

// Why explains a hit in one line.
func (h Hit) Why() string {
	var parts []string
	if h.LexRank > 0 {
		t := h.Terms
		if len(t) > 6 {
			t = append(t[:6:6], "…")
		}
		parts = append(parts, fmt.Sprintf("words %s (rank %d)", strings.Join(t, ", "), h.LexRank))
	}
	if h.VecRank > 0 {
		parts = append(parts, fmt.Sprintf("meaning (rank %d, cosine %.2f)", h.VecRank, h.Cosine))
	}
	return fmt.Sprintf("score %.3f: %s", h.Score, strings.Join(parts, "; "))
}

// rareDocs is in how many documents at most a query word may be for a
// document sharing only that word with the query to be recalled.
const rareDocs = 2

// BM25 parameters.
const (
	k1 = 1.2
	b  = 0.75
	// rrfK is the constant of reciprocal rank fusion.
	rrfK = 60.0
)

// lexical ranks the documents for the query terms (BM25), best first, at
// most limit of them. Terms in more than a quarter of a large index carry
// almost no weight in BM25 and are left out, so a query of common words
// costs little. skip says which documents may not be returned.
func (x *Index) lexical(query []string, skip func(id string) bool, limit int) ([]int32, map[int32]float64) {
	n := float64(len(x.docs))
	if n == 0 || len(query) == 0 {
		return nil, nil
	}
	avg := float64(x.total) / n
	var scores []float64
	var touched []int32
	for _, t := range query {
		ps := x.post[t]
		if len(ps) == 0 || (len(x.docs) >= 200 && len(ps)*4 > len(x.docs)) {
			continue
		}
		if scores == nil {
			scores = make([]float64, len(x.docs))
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			dl := float64(x.lens[p.doc])
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avg))
		}
	}
	out := make([]int32, 0, len(touched))
	for _, d := range touched {
		if skip == nil || !skip(x.docs[d].ID) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, c int32) int {
		if scores[a] != scores[c] {
			if scores[a] > scores[c] {
				return -1
			}
			return 1
		}
		return int(c - a) // newer first on ties
	})
	if len(out) > limit {
		out = out[:limit]
	}
	sc := make(map[int32]float64, len(out))
	for _, d := range out {
		sc[d] = scores[d]
	}
	return out, sc
}

// matchedTerms returns the query terms document d contains.
func (x *Index) matchedTerms(d int32, query []string) []string {
	var out []string
	for _, t := range query {
		ps := x.post[t]
		if _, ok := slices.BinarySearchFunc(ps, d, func(p posting, d int32) int { return int(p.doc - d) }); ok {
			out = append(out, t)
		}
	}
	return out
}

// queryTerms returns the distinct terms of a query.
func queryTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	compression.Terms(q, func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// Options of a search.
type Options struct {
	// Limit is how many hits to return at most (default 8).
	Limit int
	// ExcerptRunes caps each hit's excerpt (default 700).
	ExcerptRunes int
	// Skip leaves documents out (those already in the request).
	Skip func(id string) bool
	// Query embeds the query and the documents (nil: lexical only).
	Vectors *VectorSearch
}

// Search returns the documents relevant to query, best first. Documents
// scoring under a quarter of the best lexical score are left out, so a query
// without real matches recalls nothing.
func (x *Index) Search(query string, o Options) ([]Hit, error) {
	if o.Limit <= 0 {
		o.Limit = 8
	}
	if o.ExcerptRunes <= 0 {
		o.ExcerptRunes = 700
	}
	terms := queryTerms(query)
	x.mu.RLock()
	lex, scores := x.lexical(terms, o.Skip, 4*o.Limit)
	matched := make(map[int32][]string, len(lex))
	kept := lex[:0]
	for _, d := range lex {
		m := x.matchedTerms(d, terms)
		// One word in common is a match only when few documents have it
		// (a name said once or twice); a word many have ("continue",
		// "next") says nothing about which of them matters.
		if len(m) < 2 && (len(m) == 0 || len(x.post[m[0]]) > rareDocs) {
			continue
		}
		matched[d] = m
		kept = append(kept, d)
	}
	lex = kept
	x.mu.RUnlock()
	fused := map[int32]float64{}
	hits := map[int32]*Hit{}
	hit := func(d int32) *Hit {
		h := hits[d]
		if h == nil {
			x.mu.RLock()
			h = &Hit{Doc: x.docs[d]}
			x.mu.RUnlock()
			hits[d] = h
		}
		return h
	}
	if len(lex) > 0 {
		best := scores[lex[0]]
		for r, d := range lex {
			if scores[d] < best/4 || r >= 4*o.Limit {
				break
			}
			h := hit(d)
			h.LexRank, h.Terms = r+1, matched[d]
			fused[d] += 1 / (rrfK + float64(r+1))
		}
	}
	if o.Vectors != nil {
		ranked, cos, err := o.Vectors.rank(x, query, o.Skip)
		if err != nil {
			return nil, err
		}
		for r, d := range ranked {
			if r >= 2*o.Limit {
				break
			}
			h := hit(d)
			h.VecRank, h.Cosine = r+1, cos[d]
			fused[d] += 1 / (rrfK + float64(r+1))
		}
	}
	order := make([]int32, 0, len(fused))
	for d := range fused {
		order = append(order, d)
	}
	slices.SortFunc(order, func(a, c int32) int {
		if fused[a] != fused[c] {
			if fused[a] > fused[c] {
				return -1
			}
			return 1
		}
		return int(c - a)
	})
	if len(order) > o.Limit {
		order = order[:o.Limit]
	}
	out := make([]Hit, 0, len(order))
	for _, d := range order {
		h := hits[d]
		h.Score = fused[d]
		h.Excerpt = Excerpt(h.Text, terms, o.ExcerptRunes)
		out = append(out, *h)
	}
	return out, nil
}

// Excerpt returns the part of text that matters for the query terms, within
// max runes: the text when it fits, else the lines holding the most query
// terms and the lines around them, in order, with "…" where lines were left
// out.
func Excerpt(text string, terms []string, max int) string {
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	lines := strings.Split(text, "\n")
	type scored struct {
		i, score, runes int
	}
	var ls []scored
	for i, l := range lines {
		s := 0
		seen := map[string]bool{}
		compression.Terms(l, func(t string) {
			if want[t] && !seen[t] {
				seen[t] = true
				s++
			}
		})
		ls = append(ls, scored{i: i, score: s, runes: utf8.RuneCountInString(l)})
	}
	byScore := slices.Clone(ls)
	slices.SortStableFunc(byScore, func(a, c scored) int { return c.score - a.score })
	keep := map[int]bool{}
	used := 0
	take := func(i int) {
		if i < 0 || i >= len(lines) || keep[i] {
			return
		}
		r := min(ls[i].runes, 300) + 1
		if used+r > max {
			return
		}
		keep[i] = true
		used += r
	}
	for _, s := range byScore {
		if s.score == 0 {
			break
		}
		take(s.i)
	}
	for _, s := range byScore {
		if s.score == 0 {
			break
		}
		take(s.i - 1)
		take(s.i + 1)
	}
	if len(keep) == 0 {
		take(0)
	}
	var b strings.Builder
	prev := -1
	for i := range lines {
		if !keep[i] {
			continue
		}
		if prev >= 0 && i != prev+1 {
			b.WriteString("\n…")
		} else if prev < 0 && i > 0 {
			b.WriteString("…")
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		l := lines[i]
		if utf8.RuneCountInString(l) > 300 {
			l = cutAround(l, terms, 300)
		}
		b.WriteString(l)
		prev = i
	}
	if prev < len(lines)-1 {
		b.WriteString("\n…")
	}
	return b.String()
}

// cutAround returns about n runes of a long line around its first query term.
func cutAround(l string, terms []string, n int) string {
	lower := strings.ToLower(l)
	at := -1
	for _, t := range terms {
		if i := strings.Index(lower, t); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	r := []rune(l)
	center := 0
	if at > 0 {
		center = utf8.RuneCountInString(l[:at])
	}
	start := max(0, center-n/3)
	end := min(len(r), start+n)
	out := string(r[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(r) {
		out += "…"
	}
	return out
}
