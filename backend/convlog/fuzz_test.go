package convlog

import (
	"bytes"
	stdjson "encoding/json"
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/conversation"
)

// FuzzReadLog feeds arbitrary bytes to the log reader (seeds in
// testdata/fuzz/FuzzReadLog). Invariants: no panic; loaded ids are unique
// and non-empty; every backward read (tail, since-compaction) returns unique
// ids, each in the version Load returns, and a tail of everything equals
// Load; re-encoding the loaded entries reads back the same; and an append
// after the repair of a torn tail keeps every loaded entry and adds the new one last.
func FuzzReadLog(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(line("a", "x") + line("a", "y") + `{"type":"msg","id":"b"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		all := parseLog(data, func(badLine) {})
		byID := map[string][]byte{}
		for _, e := range all {
			if e == nil || e.ID == "" || e.Type == "" {
				t.Fatalf("bad entry %+v", e)
			}
			if byID[e.ID] != nil {
				t.Fatalf("duplicate id %q", e.ID)
			}
			byID[e.ID] = mustJSON(t, e)
		}
		check := func(name string, got []*conversation.Entry) {
			seen := map[string]bool{}
			for _, e := range got {
				if seen[e.ID] {
					t.Fatalf("%s: duplicate id %q", name, e.ID)
				}
				seen[e.ID] = true
				if want := byID[e.ID]; want == nil || !bytes.Equal(mustJSON(t, e), want) {
					t.Fatalf("%s: entry %q differs from Load", name, e.ID)
				}
			}
		}
		r := bytes.NewReader(data)
		whole, err := readTail(r, int64(len(data)), len(all)+1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !entriesEqual(whole, all) {
			t.Fatalf("whole tail %v != Load %v", ids(whole), ids(all))
		}
		for n := 1; n <= 3; n++ {
			tail, err := readTail(r, int64(len(data)), n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tail) > n {
				t.Fatalf("LoadTail(%d) returned %d", n, len(tail))
			}
			check("tail", tail)
		}
		since, err := readSinceCompaction(r, int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		check("since", since)

		var buf bytes.Buffer
		if err := encodeEntries(&buf, all); err != nil {
			t.Fatal(err)
		}
		if again := parseLog(buf.Bytes(), func(b badLine) { t.Fatalf("re-encoded line does not decode: %v", b.err) }); !entriesEqual(again, all) {
			t.Fatalf("round trip changed the entries")
		}

		path := filepath.Join(t.TempDir(), LogFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		added := &conversation.Entry{Type: conversation.TypeMsg, ID: "fuzz-appended-entry", Role: conversation.RoleUser, Content: conversation.Str("new")}
		buf.Reset()
		encodeEntries(&buf, []*conversation.Entry{added})
		if _, err := appendDurable(path, buf.Bytes(), nil); err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(path)
		got := parseLog(after, nil)
		if byID[added.ID] == nil && !entriesEqual(got, append(all, added)) {
			t.Fatalf("after append: %v, want %v + %s", ids(got), ids(all), added.ID)
		}
	})
}

func mustJSON(t *testing.T, e *conversation.Entry) []byte {
	var b bytes.Buffer
	if err := encodeEntries(&b, []*conversation.Entry{e}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FuzzParseLegacy: the legacy reader never panics and yields unique ids.
func FuzzParseLegacy(f *testing.F) {
	f.Add([]byte(`[{"id":"a","role":"user","content":"x","createdAt":1},{"id":"a"},{}]`))
	f.Add([]byte(`[{"id":"a","content":{"x":1},"duration":1.5,"widget":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseLegacy(data, func(badLine) {})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range got {
			if e.ID == "" || e.Type == "" || seen[e.ID] {
				t.Fatalf("bad or duplicate entry %+v", e)
			}
			seen[e.ID] = true
		}
	})
}

// FuzzDecodeLine: a log line decodes as the standard library reads it — the
// same entry, or an error for the same lines — since the log is written
// with encoding/json and edited by people with anything.
func FuzzDecodeLine(f *testing.F) {
	f.Add([]byte(line("a", "x")))
	f.Add([]byte(`{"type":"msg","id":"b","role":"tool","tool_calls":[{"id":"c","type":"function","function":{"name":"fs.read","arguments":"{}"}}],"content":"\u00e9\ud800"}`))
	f.Add([]byte(`{"ID":"a","Content":"case","compacted":true,"tokens":1.5}`))
	f.Add([]byte(`{"id":"a","data":{"x":[1,2,{}]},"widget":null,"usage":{"promptTokens":3}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeLine(data)
		want := new(conversation.Entry)
		werr := stdjson.Unmarshal(bytes.TrimPrefix(data, utf8BOM), want)
		if werr == nil && want.ID == "" {
			werr = errNoID
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("decoded with error %v, the standard library with %v", err, werr)
		}
		if err != nil {
			return
		}
		if want.Type == "" {
			want.Type = got.Type // filled in by decodeLine
		}
		if a, b := mustJSON(t, got), mustJSON(t, want); !bytes.Equal(a, b) {
			t.Fatalf("decoded\n%s\nthe standard library\n%s", a, b)
		}
	})
}
