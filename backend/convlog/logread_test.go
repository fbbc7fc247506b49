package convlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

func line(id, content string) string {
	return fmt.Sprintf(`{"type":"msg","id":%q,"createdAt":"2001-01-01T00:00:00.000Z","role":"user","content":%q}`, id, content) + "\n"
}

func TestTornLastLine(t *testing.T) {
	tests := []struct {
		name      string
		tail      string
		wantLoad  []string // ids Load returns
		wantLines int      // lines in the file after the next append
	}{
		{"cut inside json", `{"type":"msg","id":"c","role":"us`, []string{"a", "b"}, 3},
		{"cut after a quote", `{"type":"msg","id":"c"`, []string{"a", "b"}, 3},
		{"nul bytes", "\x00\x00\x00\x00", []string{"a", "b"}, 3},
		{"spaces", "   ", []string{"a", "b"}, 3},
		{"complete entry without newline", strings.TrimSuffix(line("c", "whole"), "\n"), []string{"a", "b", "c"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir, lb := openTest(t, Options{})
			id := mustCreate(t, s)
			path := logPath(dir, id)
			testkit.WriteFile(t, path, line("a", "one")+line("b", "two")+tt.tail)
			got, err := s.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tt.wantLoad) {
				t.Errorf("Load = %v, want %v", ids(got), tt.wantLoad)
			}
			tail, _ := s.LoadTail(id, 10)
			if !slices.Equal(ids(tail), tt.wantLoad) {
				t.Errorf("LoadTail = %v, want %v", ids(tail), tt.wantLoad)
			}
			if len(tt.wantLoad) == 2 && strings.TrimSpace(tt.tail) != "" && !strings.Contains(lb.String(), "incomplete last line") {
				t.Errorf("torn line not reported: %s", lb.String())
			}
			n := msg(conversation.RoleAssistant, "next")
			if err := s.Append(id, n); err != nil {
				t.Fatal(err)
			}
			data := readFile(t, path)
			ls := lines(data)
			if len(ls) != tt.wantLines || !strings.HasSuffix(data, "\n") {
				t.Fatalf("after append: %q", data)
			}
			for _, l := range ls {
				if _, err := decodeLine([]byte(l)); err != nil {
					t.Errorf("line %q does not decode: %v", l, err)
				}
			}
			got, _ = s.Load(id)
			if want := append(slices.Clone(tt.wantLoad), n.ID); !slices.Equal(ids(got), want) {
				t.Errorf("Load after repair = %v, want %v", ids(got), want)
			}
		})
	}
}

func TestCorruptMiddleLineSkipped(t *testing.T) {
	s, dir, lb := openTest(t, Options{})
	id := mustCreate(t, s)
	testkit.WriteFile(t, logPath(dir, id), line("a", "one")+"{not json\n"+`{"type":"msg","content":"no id"}`+"\n\n"+line("b", "two")+`{"id":"c","content":5}`+"\n"+line("d", "four"))
	got, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{"a", "b", "d"}) {
		t.Errorf("Load = %v", ids(got))
	}
	out := lb.String()
	for _, want := range []string{"skipping corrupt line", "line=2", "line=3", "line=6", "conversation=" + id} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if tail, _ := s.LoadTail(id, 2); !slices.Equal(ids(tail), []string{"b", "d"}) {
		t.Errorf("LoadTail = %v", ids(tail))
	}
	// the next append keeps the corrupt lines (they are not the torn tail)
	s.Append(id, msg(conversation.RoleUser, "e"))
	if n := len(lines(readFile(t, logPath(dir, id)))); n != 8 {
		t.Errorf("lines = %d, want 8", n)
	}
}

func TestDecodeLineDefaults(t *testing.T) {
	e, err := decodeLine([]byte(`{"id":"x","event":"compaction","data":{}}`))
	if err != nil || e.Type != conversation.TypeEvt {
		t.Errorf("event without type: %+v %v", e, err)
	}
	e, err = decodeLine([]byte(`{"id":"x","role":"user","content":"hi"}`))
	if err != nil || e.Type != conversation.TypeMsg || !e.InContext() {
		t.Errorf("message without type: %+v %v", e, err)
	}
	for _, bad := range []string{`null`, `[]`, `{}`, `{"id":""}`, `"x"`, `{"id":"x","content":{}}`} {
		if _, err := decodeLine([]byte(bad)); err == nil {
			t.Errorf("decodeLine(%s) accepted", bad)
		}
	}
}

// forwardLines splits data the way scanBackward must see it.
func forwardLines(data []byte) (out []string, offs []int64, term []bool) {
	p := 0
	for p < len(data) {
		nl := bytes.IndexByte(data[p:], '\n')
		if nl < 0 {
			out, offs, term = append(out, string(data[p:])), append(offs, int64(p)), append(term, false)
			break
		}
		if nl > 0 {
			out, offs, term = append(out, string(data[p:p+nl])), append(offs, int64(p)), append(term, true)
		}
		p += nl + 1
	}
	return
}

func TestScanBackwardMatchesForwardSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 60 {
		var b bytes.Buffer
		n := r.IntN(40)
		for range n {
			switch r.IntN(6) {
			case 0:
				b.WriteByte('\n')
			case 1:
				b.WriteString(strings.Repeat("L", r.IntN(3*scanBlock)) + "\n")
			default:
				b.WriteString(strings.Repeat("s", 1+r.IntN(200)) + "\n")
			}
		}
		if iter%3 == 0 {
			b.WriteString(strings.Repeat("t", r.IntN(scanBlock+10)))
		}
		data := b.Bytes()
		wantL, wantO, wantT := forwardLines(data)
		var gotL []string
		var gotO []int64
		var gotT []bool
		err := scanBackward(bytes.NewReader(data), int64(len(data)), func(l []byte, off int64, term bool) bool {
			gotL, gotO, gotT = append(gotL, string(l)), append(gotO, off), append(gotT, term)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(gotL)
		slices.Reverse(gotO)
		slices.Reverse(gotT)
		if !slices.Equal(gotL, wantL) || !slices.Equal(gotO, wantO) || !slices.Equal(gotT, wantT) {
			t.Fatalf("iteration %d: backward scan differs from forward split (%d vs %d lines)", iter, len(gotL), len(wantL))
		}
	}
}

// TestTailMatchesLoad builds random logs through the store (appends, updates
// of old entries, compactions) and checks LoadTail(n) against the last n
// entries of Load for every n, and LoadSinceCompaction against Load.
func TestTailMatchesLoad(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	r := rand.New(rand.NewPCG(7, 9))
	for round := range 2 {
		id := mustCreate(t, s)
		var known []string
		for range 50 {
			switch k := r.IntN(10); {
			case k < 6 || len(known) == 0:
				batch := make([]*conversation.Entry, 1+r.IntN(3))
				for i := range batch {
					if r.IntN(8) == 0 {
						batch[i] = &conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventModeSwitch, Data: json.RawMessage(`{}`)}
					} else {
						batch[i] = msg(conversation.RoleUser, strings.Repeat("x", r.IntN(4000)))
					}
				}
				if err := s.Append(id, batch...); err != nil {
					t.Fatal(err)
				}
				for _, e := range batch {
					known = append(known, e.ID)
				}
			case k < 8:
				target := known[r.IntN(len(known))]
				cur, err := s.Load(id)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range cur {
					if e.ID == target {
						c := *e
						c.Content = conversation.Str(fmt.Sprint("edited ", round, " ", r.IntN(1000)))
						if err := s.Update(id, &c); err != nil {
							t.Fatal(err)
						}
					}
				}
			default:
				var pick []string
				cur, _ := s.Load(id)
				for _, e := range cur {
					if e.Type == conversation.TypeMsg && r.IntN(3) == 0 {
						pick = append(pick, e.ID)
					}
				}
				if _, err := s.MarkCompacted(id, pick, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		all, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n <= len(all)+2; n++ {
			if n > 12 && n%5 != 0 && n < len(all)-3 {
				continue
			}
			tail, err := s.LoadTail(id, n)
			if err != nil {
				t.Fatal(err)
			}
			want := all[max(0, len(all)-n):]
			if !entriesEqual(tail, want) {
				t.Fatalf("round %d: LoadTail(%d) = %v, want %v", round, n, ids(tail), ids(want))
			}
		}
		since, _ := s.LoadSinceCompaction(id)
		want := all
		for i := len(all) - 1; i >= 0; i-- {
			if all[i].Event == conversation.EventCompaction {
				want = all[i:]
				break
			}
		}
		if !entriesEqual(since, want) {
			t.Fatalf("round %d: LoadSinceCompaction = %v, want %v", round, ids(since), ids(want))
		}
	}
}

func entriesEqual(a, b []*conversation.Entry) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y) && len(a) == len(b)
}

// TestTailWithUnmarkedUpdates documents the tail of logs whose update lines
// lack "updatedAt" (written by other programs): no duplicates, newest content.
func TestTailWithUnmarkedUpdates(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	testkit.WriteFile(t, logPath(dir, id), line("m1", "a")+line("m2", "b")+line("m3", "c")+line("m1", "a2")+line("m4", "d"))
	tail, _ := s.LoadTail(id, 3)
	if !slices.Equal(ids(tail), []string{"m3", "m1", "m4"}) || tail[1].Text() != "a2" {
		t.Errorf("LoadTail = %v %q", ids(tail), texts(tail))
	}
	tail, _ = s.LoadTail(id, 10)
	all, _ := s.Load(id)
	if !entriesEqual(tail, all) {
		t.Errorf("whole tail %v != Load %v", ids(tail), ids(all))
	}
}

func TestFindLatest(t *testing.T) {
	data := line("a", "1") + `{"id":"b","role":"user","content":"foreign order"}` + "\n" + line("a", "2") + line("c", "3")
	got, err := findLatest(strings.NewReader(data), int64(len(data)), []string{"a", "b", "z"})
	if err != nil {
		t.Fatal(err)
	}
	if got["a"].Text() != "2" || got["b"].Text() != "foreign order" || got["z"] != nil {
		t.Errorf("findLatest = %+v", got)
	}
	if id, ok := peekID([]byte(line("x-1", "c"))); !ok || id != "x-1" {
		t.Errorf("peekID = %q %v", id, ok)
	}
	for _, l := range []string{`{"id":"a"}`, `{"type":"m\"sg","id":"a"}`, `{"type":"msg","id":"a\"b"}`, `{"type":"msg"`} {
		if _, ok := peekID([]byte(l)); ok {
			t.Errorf("peekID(%s) ok", l)
		}
	}
}

func TestParseLogParallelMatchesSequential(t *testing.T) {
	var b strings.Builder
	for i := range 4000 {
		b.WriteString(line(fmt.Sprint("m", i%3000), strings.Repeat("p", i%700)))
		if i%997 == 0 {
			b.WriteString("{broken\n")
		}
	}
	b.WriteString(`{"type":"msg","id":"torn`)
	data := []byte(b.String())
	if len(data) < parallelThreshold {
		t.Fatalf("test log too small: %d", len(data))
	}
	var badPar, badSeq []badLine
	par := parseLog(data, func(x badLine) { badPar = append(badPar, x) })
	c := parseChunk(data, 0)
	seq := parseLog(data[:0], nil)
	idx := map[string]int{}
	for _, e := range c.entries {
		if i, ok := idx[e.ID]; ok {
			seq[i] = e
		} else {
			idx[e.ID] = len(seq)
			seq = append(seq, e)
		}
	}
	badSeq = c.bad
	if !entriesEqual(par, seq) || len(par) != 3000 {
		t.Fatalf("parallel parse differs: %d vs %d", len(par), len(seq))
	}
	if len(badPar) != len(badSeq) {
		t.Fatalf("bad lines %d vs %d", len(badPar), len(badSeq))
	}
	for i := range badPar {
		if badPar[i].line != badSeq[i].line || badPar[i].off != badSeq[i].off || badPar[i].torn != badSeq[i].torn {
			t.Errorf("bad line %d: %+v vs %+v", i, badPar[i], badSeq[i])
		}
	}
	if !badPar[len(badPar)-1].torn {
		t.Error("torn tail not flagged")
	}
}
