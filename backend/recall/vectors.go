package recall

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"

	"crewagent/backend/conversation"
)

// Embedder computes embeddings with one model (an OpenAI-compatible
// /v1/embeddings endpoint: *llm.Client's Embed through EmbedderFunc).
type Embedder interface {
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// VectorSearch ranks documents by the cosine similarity of their embeddings
// to the query's. Vectors missing from the cache are computed (at most
// MaxEmbedPerSearch per search, in batches) and appended to the model's
// sidecar file; with a read-only store they are kept in memory only.
type VectorSearch struct {
	Ctx      context.Context
	Embedder Embedder
	Files    Files
	ConvID   string
	// ReadOnly keeps new vectors in memory.
	ReadOnly bool
}

// Embedding limits.
const (
	MaxEmbedPerSearch = 512
	embedBatch        = 64
	embedChars        = 2000 // of each document's text
	// minCosine is the similarity a document needs to be ranked at all.
	minCosine = 0.1
)

type vectors struct {
	loaded bool
	read   int64
	m      map[string][]float32
}

// ModelKey is the file key of an embeddings model: a hash of its name.
func ModelKey(model string) string {
	h := fnv.New64a()
	h.Write([]byte(model))
	return fmt.Sprintf("%016x", h.Sum64())
}

// rank returns the documents with a vector similar enough to the query's,
// most similar first, and their cosine.
func (v *VectorSearch) rank(x *Index, query string, skip func(string) bool) ([]int32, map[int32]float64, error) {
	ctx := v.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	model := v.Embedder.Model()
	name := conversation.EmbeddingsFile(ModelKey(model))
	path, err := v.Files.SidecarPath(v.ConvID, name)
	if err != nil {
		return nil, nil, err
	}
	x.mu.Lock()
	vs := x.vecs[model]
	if vs == nil {
		vs = &vectors{m: map[string][]float32{}}
		x.vecs[model] = vs
	}
	err = vs.refresh(path)
	var missing []int32
	for i, d := range x.docs {
		if _, ok := vs.m[d.ID]; !ok && (skip == nil || !skip(d.ID)) {
			missing = append(missing, int32(i))
		}
	}
	docs := x.docs
	x.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	if len(missing) > MaxEmbedPerSearch {
		missing = missing[len(missing)-MaxEmbedPerSearch:] // the newest first
	}
	qv, err := v.Embedder.Embed(ctx, []string{clipText(query, embedChars)})
	if err != nil {
		return nil, nil, err
	}
	if len(qv) != 1 {
		return nil, nil, errors.New("recall: the embeddings endpoint returned no vector for the query")
	}
	for start := 0; start < len(missing); start += embedBatch {
		batch := missing[start:min(start+embedBatch, len(missing))]
		texts := make([]string, len(batch))
		for k, d := range batch {
			texts[k] = clipText(docs[d].Text, embedChars)
		}
		out, err := v.Embedder.Embed(ctx, texts)
		if err != nil {
			return nil, nil, err
		}
		if len(out) != len(batch) {
			return nil, nil, fmt.Errorf("recall: the embeddings endpoint returned %d vectors for %d texts", len(out), len(batch))
		}
		var buf bytes.Buffer
		x.mu.Lock()
		for k, d := range batch {
			vs.m[docs[d].ID] = out[k]
			writeRecord(&buf, docs[d].ID, out[k])
		}
		x.mu.Unlock()
		if !v.ReadOnly {
			if err := v.Files.AppendSidecar(v.ConvID, name, buf.Bytes()); err != nil {
				return nil, nil, err
			}
			x.mu.Lock()
			if fi, err := os.Stat(path); err == nil {
				vs.read = fi.Size()
			}
			x.mu.Unlock()
		}
	}
	q := qv[0]
	cos := map[int32]float64{}
	var order []int32
	x.mu.RLock()
	for i, d := range x.docs {
		if skip != nil && skip(d.ID) {
			continue
		}
		vec, ok := vs.m[d.ID]
		if !ok {
			continue
		}
		c := cosine(q, vec)
		if c < minCosine {
			continue
		}
		cos[int32(i)] = c
		order = append(order, int32(i))
	}
	x.mu.RUnlock()
	slices.SortFunc(order, func(a, b int32) int {
		if cos[a] != cos[b] {
			if cos[a] > cos[b] {
				return -1
			}
			return 1
		}
		return int(b - a)
	})
	return order, cos, nil
}

// refresh reads the records appended to path since the last read.
func (vs *vectors) refresh(path string) error {
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
	if fi.Size() <= vs.read {
		return nil
	}
	data := make([]byte, fi.Size()-vs.read)
	if _, err := f.ReadAt(data, vs.read); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("recall: %w", err)
	}
	used := 0
	for {
		id, vec, n := readRecord(data[used:])
		if n == 0 {
			break
		}
		vs.m[id] = vec
		used += n
	}
	vs.read += int64(used)
	return nil
}

// A vector record: uint16 id length, id, uint32 dimensions, float32 values,
// little-endian.
func writeRecord(w *bytes.Buffer, id string, v []float32) {
	var b [4]byte
	binary.LittleEndian.PutUint16(b[:2], uint16(len(id)))
	w.Write(b[:2])
	w.WriteString(id)
	binary.LittleEndian.PutUint32(b[:], uint32(len(v)))
	w.Write(b[:])
	for _, f := range v {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(f))
		w.Write(b[:])
	}
}

// readRecord decodes one record at the start of data; n is 0 when data
// does not hold a whole one (the end, or a torn write).
func readRecord(data []byte) (id string, v []float32, n int) {
	if len(data) < 2 {
		return "", nil, 0
	}
	l := int(binary.LittleEndian.Uint16(data))
	if len(data) < 2+l+4 {
		return "", nil, 0
	}
	id = string(data[2 : 2+l])
	dim := int(binary.LittleEndian.Uint32(data[2+l:]))
	end := 2 + l + 4 + 4*dim
	if dim > 1<<16 || len(data) < end {
		return "", nil, 0
	}
	v = make([]float32, dim)
	for k := range v {
		v[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[2+l+4+4*k:]))
	}
	return id, v, end
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !strings.HasSuffix(s, " ") && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	return strings.ToValidUTF8(s, "")
}
