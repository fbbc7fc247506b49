package convlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// Benchmarks of the storage targets (50,000 messages of ~1 KB):
//   - Append p50 within 2x of a bare write+fdatasync of one line;
//   - LoadTail(200) under 20 ms;
//   - Load within 1.5x of decoding the same bytes with encoding/json.
// Run: go test -run '^$' -bench . -benchtime 2s ./backend/convlog/

const benchContentSize = 1000

func benchContent(i int) string {
	var b strings.Builder
	words := []string{"context", "token", "budget", "workflow", "agent", "artifact", "step", "the", "a", "result"}
	for j := 0; b.Len() < benchContentSize; j++ {
		b.WriteString(words[(i+j*7)%len(words)])
		b.WriteByte(' ')
	}
	return b.String()
}

func benchEntry(i int) *conversation.Entry {
	role := conversation.RoleUser
	if i%2 == 1 {
		role = conversation.RoleAssistant
	}
	return &conversation.Entry{Role: role, Content: conversation.Str(benchContent(i)), Mode: conversation.ModeChat, Tokens: 230, TokenEncoding: "o200k_base"}
}

// benchStore makes a store with one conversation of n messages.
func benchStore(b *testing.B, n int) (*Store, string) {
	b.Helper()
	s, err := Open(b.TempDir(), Options{Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	m, err := s.Create("bench", "")
	if err != nil {
		b.Fatal(err)
	}
	for done := 0; done < n; {
		batch := make([]*conversation.Entry, min(1000, n-done))
		for i := range batch {
			batch[i] = benchEntry(done + i)
		}
		if err := s.Append(m.ID, batch...); err != nil {
			b.Fatal(err)
		}
		done += len(batch)
	}
	return s, m.ID
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

var benchSizes = []int{1000, 10000, 50000}

// BenchmarkAppend: one ~1 KB message per Append (one write + fdatasync).
func BenchmarkAppend(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("existing=%d", n), func(b *testing.B) {
			s, id := benchStore(b, n)
			var d []time.Duration
			i := n
			for b.Loop() {
				e := benchEntry(i)
				i++
				t := time.Now()
				if err := s.Append(id, e); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t))
			}
			reportPercentiles(b, d)
		})
	}
}

// BenchmarkRewriteJSON is the old way: rewrite the whole messages.json (a
// JSON array) and fsync it on every append.
func BenchmarkRewriteJSON(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("existing=%d", n), func(b *testing.B) {
			all := make([]*conversation.Entry, n)
			for i := range all {
				all[i] = benchEntry(i)
				all[i].ID, all[i].Type, all[i].CreatedAt = fmt.Sprint("m", i), conversation.TypeMsg, fsx.Now()
			}
			path := filepath.Join(b.TempDir(), LegacyFile)
			var d []time.Duration
			for b.Loop() {
				t := time.Now()
				e := benchEntry(len(all))
				e.ID, e.Type, e.CreatedAt = fmt.Sprint("m", len(all)), conversation.TypeMsg, fsx.Now()
				all = append(all, e)
				data, err := json.Marshal(all)
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				f.Write(data)
				datasync(f)
				f.Close()
				d = append(d, time.Since(t))
			}
			reportPercentiles(b, d)
		})
	}
}

// BenchmarkBareWriteFdatasync: the floor — write one ~1 KB line to an open
// file and fdatasync it.
func BenchmarkBareWriteFdatasync(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "bare.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	e := benchEntry(1)
	e.ID, e.Type, e.CreatedAt = "m1", conversation.TypeMsg, fsx.Now()
	encodeEntries(&buf, []*conversation.Entry{e})
	line := buf.Bytes()
	var d []time.Duration
	for b.Loop() {
		t := time.Now()
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := datasync(f); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t))
	}
	reportPercentiles(b, d)
}

// BenchmarkLoadTail200: the last 200 entries of a 50,000-message log.
func BenchmarkLoadTail200(b *testing.B) {
	s, id := benchStore(b, 50000)
	for b.Loop() {
		tail, err := s.LoadTail(id, 200)
		if err != nil || len(tail) != 200 {
			b.Fatal(len(tail), err)
		}
	}
}

// BenchmarkLoad: the whole 50,000-message log through the store.
func BenchmarkLoad(b *testing.B) {
	s, id := benchStore(b, 50000)
	b.SetBytes(fileSize(b, logPath(s.DataDir(), id)))
	for b.Loop() {
		all, err := s.Load(id)
		if err != nil || len(all) != 50000 {
			b.Fatal(len(all), err)
		}
	}
}

// BenchmarkDecodeJSON: the same bytes read and decoded line by line with
// encoding/json into Entry, nothing else (the baseline of BenchmarkLoad).
func BenchmarkDecodeJSON(b *testing.B) {
	s, id := benchStore(b, 50000)
	path := logPath(s.DataDir(), id)
	b.SetBytes(fileSize(b, path))
	for b.Loop() {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		out := make([]*conversation.Entry, 0, 1024)
		for l := range bytes.SplitSeq(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			e := new(conversation.Entry)
			if err := json.Unmarshal(l, e); err != nil {
				b.Fatal(err)
			}
			out = append(out, e)
		}
		if len(out) != 50000 {
			b.Fatal(len(out))
		}
	}
}

// BenchmarkParseSequential: the store's parser on one core (what Load does
// for logs under 1 MiB), to separate parsing cost from parallelism.
func BenchmarkParseSequential(b *testing.B) {
	s, id := benchStore(b, 50000)
	data, err := os.ReadFile(logPath(s.DataDir(), id))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		c := parseChunk(data, 0)
		if len(c.entries) != 50000 {
			b.Fatal(len(c.entries))
		}
	}
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
