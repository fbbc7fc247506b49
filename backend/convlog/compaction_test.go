package convlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

// A compaction is one write: the marks, the event, then the summary;
// nothing is deleted and the summary counts as a summary of the log.
func TestCompactWritesMarksEventAndSummary(t *testing.T) {
	s, dir, _ := openTest(t, Options{Counter: &lenCounter{}, IndexFlushDelay: -1})
	id := mustCreate(t, s)
	a, b, c := msg(conversation.RoleUser, "one"), msg(conversation.RoleAssistant, "two"), msg(conversation.RoleUser, "three")
	if err := s.Append(id, a, b, c); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(conversation.CompactionData{From: a.ID, To: b.ID, Strategy: "key-messages", Count: 2, KeptFrom: c.ID,
		Pinned: []conversation.Carried{{ID: a.ID, Role: conversation.RoleUser, Kind: conversation.CarriedPin, Text: "one"}}})
	ev := &conversation.Entry{Data: data}
	sum := &conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str("CONVERSATION_SUMMARY\n- #" + a.ID + " user: one")}
	if err := s.Compact(id, CompactionWrite{MessageIDs: []string{a.ID, b.ID}, Event: ev, Summary: sum}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ConversationsDir, id, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 7 || !strings.Contains(lines[3], `"compacted":true`) || !strings.Contains(lines[5], `"event":"compaction"`) || !strings.Contains(lines[6], "CONVERSATION_SUMMARY") {
		t.Fatalf("log:\n%s", raw)
	}
	all, _ := s.Load(id)
	if len(all) != 5 || !all[0].Compacted || !all[1].Compacted || all[2].Compacted || all[3].Event != conversation.EventCompaction || all[4].Tokens == 0 {
		t.Fatalf("entries: %+v", all)
	}
	d, ok := conversation.ParseCompactionData(all[3].Data)
	if !ok || d.KeptFrom != c.ID || len(d.Pinned) != 1 {
		t.Fatalf("data: %+v", d)
	}
	if m, _ := s.Get(id); !m.HasSummary {
		t.Fatal("the summary is not recorded in the index")
	}
	if err := s.Compact(id, CompactionWrite{MessageIDs: []string{"nope"}, Event: &conversation.Entry{}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if err := s.Compact(id, CompactionWrite{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("no event: %v", err)
	}
}

func TestPinAndUnpin(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	m := msg(conversation.RoleAssistant, strings.Repeat("ä", conversation.MaxCarriedChars+10))
	ev := &conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventCheckpoint, Data: json.RawMessage(`{}`)}
	if err := s.Append(id, m, ev); err != nil {
		t.Fatal(err)
	}
	pin, err := s.Pin(id, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var pd conversation.PinData
	if err := json.Unmarshal(pin.Data, &pd); err != nil || pin.RefMsgID != m.ID || pin.Event != conversation.EventPin || pd.Role != conversation.RoleAssistant || !strings.HasSuffix(pd.Text, "[…]") {
		t.Fatalf("pin event: %+v %+v", pin, pd)
	}
	un, err := s.Unpin(id, m.ID)
	if err != nil || un.Event != conversation.EventUnpin || un.RefMsgID != m.ID {
		t.Fatalf("unpin: %+v %v", un, err)
	}
	if _, err := s.Pin(id, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing message: %v", err)
	}
	if _, err := s.Pin(id, ev.ID); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("pinning an event: %v", err)
	}
	if _, err := s.Pin(id, "../x"); !errors.Is(err, ErrInvalidID) {
		t.Fatalf("bad id: %v", err)
	}
}

// LoadBackTo returns what Load returns from an entry on, for logs with
// updates, compactions and events, reading back only that far.
func TestLoadBackToMatchesLoad(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	r := rand.New(rand.NewPCG(3, 5))
	id := mustCreate(t, s)
	var known []string
	for range 120 {
		switch k := r.IntN(10); {
		case k < 6 || len(known) < 3:
			batch := []*conversation.Entry{msg(conversation.RoleUser, strings.Repeat("y", r.IntN(3000)))}
			if r.IntN(6) == 0 {
				batch = append(batch, &conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventModeSwitch, Data: json.RawMessage(`{}`)})
			}
			if err := s.Append(id, batch...); err != nil {
				t.Fatal(err)
			}
			for _, e := range batch {
				known = append(known, e.ID)
			}
		case k < 8:
			cur, _ := s.Load(id)
			target := cur[r.IntN(len(cur))]
			if target.IsMessage() {
				c := *target
				c.Content = conversation.Str(fmt.Sprint("edited ", r.IntN(100)))
				if err := s.Update(id, &c); err != nil {
					t.Fatal(err)
				}
			}
		default:
			cur, _ := s.Load(id)
			var pick []string
			for _, e := range cur[:len(cur)/2] {
				if e.IsMessage() {
					pick = append(pick, e.ID)
				}
			}
			sum := &conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str("CONVERSATION_SUMMARY\nx")}
			if err := s.Compact(id, CompactionWrite{MessageIDs: pick, Event: &conversation.Entry{Data: json.RawMessage(`{"keptFrom":""}`)}, Summary: sum}); err != nil {
				t.Fatal(err)
			}
			known = append(known, sum.ID)
		}
	}
	all, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(all); i += 1 + i/10 {
		got, err := s.LoadBackTo(id, all[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if !entriesEqual(got, all[i:]) {
			t.Fatalf("LoadBackTo(%s) = %v, want %v", all[i].ID, ids(got), ids(all[i:]))
		}
	}
	got, _ := s.LoadBackTo(id, "not-there")
	if !entriesEqual(got, all) {
		t.Fatal("an unknown entry must give the whole log")
	}
}

func TestSidecarsAndToolOutputs(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	if err := s.AppendSidecar(id, conversation.RecallFile, []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendSidecar(id, conversation.RecallFile, []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	p, _ := s.SidecarPath(id, conversation.RecallFile)
	if b, err := os.ReadFile(p); err != nil || string(b) != "a\nb\n" || !s.IsOwnWrite(p) {
		t.Fatalf("sidecar: %q %v", b, err)
	}
	for _, bad := range []string{"messages.jsonl", "../x", "embeddings-.bin", "embeddings-a/b.bin"} {
		if err := s.AppendSidecar(id, bad, nil); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := s.SidecarPath(id, conversation.EmbeddingsFile("0123abcd")); err != nil {
		t.Fatal(err)
	}
	m := &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: conversation.Str("whole output")}
	if err := s.Append(id, m); err != nil {
		t.Fatal(err)
	}
	alias, err := s.SaveToolOutput(id, m.ID, "c1", "fs.read", m.Text())
	if err != nil || alias != ToolResultAlias(id, m.ID) {
		t.Fatalf("alias %q %v", alias, err)
	}
	host, _ := ToolResultHostPath(dir, alias)
	var rec conversation.ToolResultFile
	if b, err := os.ReadFile(host); err != nil || json.Unmarshal(b, &rec) != nil || rec.Content != "whole output" {
		t.Fatalf("file: %v %+v", err, rec)
	}
	if _, err := s.SaveToolOutput(id, m.ID, "c1", "fs.read", "other"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(host); !strings.Contains(string(b), "whole output") {
		t.Fatal("an existing output file was replaced")
	}
}

// A fork at a message keeps the compactions made before that message and
// undoes the marks of later ones; the recall documents of what it holds
// compacted come along.
func TestForkAcrossCompactions(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	var ms []*conversation.Entry
	for i := 0; i < 10; i++ {
		ms = append(ms, msg(conversation.RoleUser, fmt.Sprint("m", i)))
	}
	if err := s.Append(id, ms...); err != nil {
		t.Fatal(err)
	}
	compact := func(ids []string, from, to string) *conversation.Entry {
		data, _ := json.Marshal(conversation.CompactionData{From: from, To: to})
		sum := &conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str("CONVERSATION_SUMMARY\n" + from)}
		if err := s.Compact(id, CompactionWrite{MessageIDs: ids, Event: &conversation.Entry{Data: data}, Summary: sum}); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	s1 := compact([]string{ms[0].ID, ms[1].ID, ms[2].ID, ms[3].ID}, ms[0].ID, ms[3].ID)
	if err := s.AppendSidecar(id, conversation.RecallFile, []byte(fmt.Sprintf("{\"id\":%q,\"text\":\"a\"}\n{\"id\":%q,\"text\":\"b\"}\n", ms[0].ID, ms[5].ID))); err != nil {
		t.Fatal(err)
	}
	more := []*conversation.Entry{msg(conversation.RoleUser, "m10"), msg(conversation.RoleUser, "m11")}
	if err := s.Append(id, more...); err != nil {
		t.Fatal(err)
	}
	compact([]string{ms[4].ID, ms[5].ID, s1.ID, more[0].ID}, ms[4].ID, more[0].ID)

	fork, err := s.Fork(id, ForkOptions{AtMessageID: more[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Load(fork.ID)
	compacted := map[string]bool{}
	for _, e := range got {
		if e.Compacted {
			compacted[e.Text()] = true
		}
	}
	if len(compacted) != 4 || !compacted["m0"] || !compacted["m3"] || compacted["m4"] || compacted["CONVERSATION_SUMMARY\n"+ms[0].ID] {
		t.Fatalf("compacted in the fork: %v", compacted)
	}
	p, _ := s.SidecarPath(fork.ID, conversation.RecallFile)
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), ms[0].ID) || strings.Contains(string(b), ms[5].ID) {
		t.Fatalf("fork's recall index: %q %v", b, err)
	}
}

// Compact with the versions a caller read (and the log's size before that
// read) writes the same marks as Compact reading the log itself, takes a
// version written after the read from the log, and reads the whole log
// again when what was read no longer stands for the log's start.
func TestCompactWithTheVersionsRead(t *testing.T) {
	s, dir, _ := openTest(t, Options{Counter: &lenCounter{}, IndexFlushDelay: -1})
	logOf := func(id string) []string {
		raw, err := os.ReadFile(filepath.Join(dir, ConversationsDir, id, LogFile))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(raw)), "\n")
	}
	// fill writes the same entries (same ids) to a new conversation: three
	// messages, a newer version of the second, a tool result.
	fill := func() string {
		id := mustCreate(t, s)
		a, b := &conversation.Entry{ID: "m1", Role: conversation.RoleUser, Content: conversation.Str("one")},
			&conversation.Entry{ID: "m2", Role: conversation.RoleAssistant, Content: conversation.Str("two"), PartType: conversation.PartContent}
		c := &conversation.Entry{ID: "m3", Role: conversation.RoleTool, ToolCallID: "call_1", ToolName: "fs.read", Content: conversation.Str(`{"ok":true}`)}
		for _, e := range []*conversation.Entry{a, b, c} {
			e.CreatedAt = "2025-01-02T03:04:05.000Z"
		}
		if err := s.Append(id, a, b, c); err != nil {
			t.Fatal(err)
		}
		b2 := *b
		b2.Content = conversation.Str("two, edited")
		if err := s.Update(id, &b2); err != nil {
			t.Fatal(err)
		}
		return id
	}
	write := func(id string, versions []*conversation.Entry, readAt int64) []string {
		t.Helper()
		ev := &conversation.Entry{ID: "e1", CreatedAt: "2025-01-02T03:04:06.000Z", Data: json.RawMessage(`{"from":"m1","to":"m3"}`)}
		if err := s.Compact(id, CompactionWrite{MessageIDs: []string{"m1", "m2", "m3"}, Event: ev, Versions: versions, ReadAt: readAt}); err != nil {
			t.Fatal(err)
		}
		lines := logOf(id)
		marks := lines[len(lines)-4 : len(lines)-1]
		for i, l := range marks {
			var e conversation.Entry
			if err := json.Unmarshal([]byte(l), &e); err != nil || !e.Compacted || e.UpdatedAt == "" {
				t.Fatalf("mark %q: %v", l, err)
			}
			marks[i] = strings.Replace(l, `"updatedAt":"`+e.UpdatedAt+`"`, `"updatedAt":"…"`, 1)
		}
		return marks
	}
	read := func(id string) ([]*conversation.Entry, int64) {
		t.Helper()
		size, err := s.LogSize(id)
		if err != nil || size == 0 {
			t.Fatalf("LogSize %d %v", size, err)
		}
		all, err := s.LoadSinceCompaction(id)
		if err != nil {
			t.Fatal(err)
		}
		return all, size
	}
	stale := func(all []*conversation.Entry) []*conversation.Entry {
		out := make([]*conversation.Entry, len(all))
		for i, e := range all {
			c := *e
			c.Content = conversation.Str("STALE")
			out[i] = &c
		}
		return out
	}
	want := write(fill(), nil, 0)

	t.Run("nothing written since the read", func(t *testing.T) {
		id := fill()
		all, size := read(id)
		if got := write(id, all, size); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("marks from the versions read:\n%s\nfrom the log:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("the versions read are taken as they are, not read again", func(t *testing.T) {
		id := fill()
		all, size := read(id)
		for _, m := range write(id, stale(all), size) {
			if !strings.Contains(m, "STALE") {
				t.Fatalf("the log was read again: %s", m)
			}
		}
	})
	t.Run("a newer version written after the read", func(t *testing.T) {
		id := fill()
		all, size := read(id)
		newer := *all[1]
		newer.Content = conversation.Str("two, edited again")
		if err := s.Update(id, &newer); err != nil {
			t.Fatal(err)
		}
		got := write(id, all, size)
		if !strings.Contains(got[1], "two, edited again") || got[0] != want[0] || got[2] != want[2] {
			t.Fatalf("marks:\n%s", strings.Join(got, "\n"))
		}
	})
	for _, tc := range []struct {
		name  string
		shift int64
	}{{"the log is shorter than what was read", 1000}, {"the read did not end at a line end", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			id := fill()
			all, size := read(id)
			if got := write(id, stale(all), size+tc.shift); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("the versions given were used:\n%s", strings.Join(got, "\n"))
			}
		})
	}
	t.Run("versions that miss an id", func(t *testing.T) {
		id := fill()
		all, size := read(id)
		if got := write(id, stale(all)[:2], size); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("incomplete versions were used:\n%s", strings.Join(got, "\n"))
		}
	})
}
