package skills

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

// compactionEvent is a compaction event recording st, as the engine writes it.
func compactionEvent(id string, st *State) conversation.Entry {
	data, _ := json.Marshal(conversation.CompactionData{Strategy: "key-messages", Pinned: []conversation.Carried{}, Skills: st.Snapshot().JSON()})
	return conversation.Entry{Type: conversation.TypeEvt, ID: id, Event: conversation.EventCompaction, Data: data}
}

// TestSnapshotRestoresTheState checks that a reader starting at a compaction
// event (what a request reads) derives the same state as one reading the
// whole log, whatever happened before the compaction and after it.
func TestSnapshotRestoresTheState(t *testing.T) {
	cat, _ := treeCatalog(t)
	ids := seqIDs("x")
	activate := func(st *State, name string, by Actor) []conversation.Entry {
		t.Helper()
		act, err := cat.Activate(st, Request{Name: name, By: by, NewID: ids})
		if err != nil {
			t.Fatal(err)
		}
		return act.Entries
	}
	user := func(id, text string) conversation.Entry { return msg(id, conversation.RoleUser, text) }
	type step struct {
		activate, deactivate string
		compact              bool
		say                  string
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"active before, nothing after", []step{{activate: "pptx"}, {say: "a"}, {compact: true}, {say: "b"}}},
		{"ended before", []step{{activate: "pptx"}, {deactivate: "pptx"}, {compact: true}, {say: "b"}}},
		{"ended after", []step{{activate: "pptx"}, {compact: true}, {deactivate: "pptx"}}},
		{"activated after", []step{{say: "a"}, {compact: true}, {activate: "pptx"}}},
		{"narrowing kept", []step{{activate: "commit-message"}, {activate: "pptx"}, {compact: true}, {compact: true}, {say: "c"}}},
		{"two compactions, changes between", []step{{activate: "pptx"}, {compact: true}, {deactivate: "pptx"}, {activate: "brand-guidelines"}, {compact: true}, {activate: "pptx"}}},
		{"activated again", []step{{activate: "pptx"}, {deactivate: "pptx"}, {activate: "pptx"}, {compact: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log []conversation.Entry
			lastCompaction := -1
			for i, s := range tc.steps {
				st := Derive(ptrs(log))
				switch {
				case s.activate != "":
					log = append(log, activate(st, s.activate, ByUser)...)
				case s.deactivate != "":
					d, err := Deactivate(st, s.deactivate, ByUser, "", ids)
					if err != nil {
						t.Fatal(err)
					}
					log = append(log, d.Entries...)
				case s.compact:
					lastCompaction = len(log)
					log = append(log, compactionEvent(ids(), st))
				default:
					log = append(log, user(ids(), s.say))
				}
				_ = i
			}
			full := Derive(ptrs(log))
			if lastCompaction < 0 {
				t.Fatal("the case has no compaction")
			}
			tail := Derive(ptrs(log[lastCompaction:]))
			if !reflect.DeepEqual(names(tail), names(full)) {
				t.Errorf("active %v from the compaction on, %v from the whole log", names(tail), names(full))
			}
			if !reflect.DeepEqual(tail.PinnedIDs(), full.PinnedIDs()) {
				t.Errorf("pinned %v from the compaction on, %v from the whole log", tail.PinnedIDs(), full.PinnedIDs())
			}
			if !reflect.DeepEqual(tail.StaleIDs(), full.StaleIDs()) {
				t.Errorf("stale %v from the compaction on, %v from the whole log", tail.StaleIDs(), full.StaleIDs())
			}
			tools := []string{"fs.read", "fs.write", "fs.search", "fs.list", conversation.ToolSkillActivate, conversation.ToolSkillDeactivate}
			if got, want := tail.NarrowTools(tools), full.NarrowTools(tools); !reflect.DeepEqual(got, want) {
				t.Errorf("tools %v from the compaction on, %v from the whole log", got, want)
			}
			for _, id := range full.StaleIDs() {
				if _, ok := tail.IsSkillBody(id); !ok {
					t.Errorf("the ended body %s is not known as a skill body from the compaction on", id)
				}
			}
		})
	}
}

func names(s *State) []string {
	n := s.Names()
	if n == nil {
		return []string{}
	}
	return n
}

// TestCompactionWithoutSnapshot keeps the state: compactions written before
// skills existed, or by another program, say nothing about them.
func TestCompactionWithoutSnapshot(t *testing.T) {
	cat, _ := treeCatalog(t)
	act := mustActivate(t, cat, NewState(), "pptx", ByUser)
	log := append([]conversation.Entry{}, act.Entries...)
	log = append(log, conversation.Entry{Type: conversation.TypeEvt, ID: "c1", Event: conversation.EventCompaction, Data: json.RawMessage(`{"from":"a","to":"b","pinned":[]}`)},
		conversation.Entry{Type: conversation.TypeEvt, ID: "c2", Event: conversation.EventCompaction, Data: json.RawMessage(`{"skills":"garbage"}`)},
		conversation.Entry{Type: conversation.TypeEvt, ID: "c3", Event: conversation.EventCompaction, Data: json.RawMessage(`not json`)})
	if got := Derive(ptrs(log)).Names(); !reflect.DeepEqual(got, []string{"pptx"}) {
		t.Errorf("active %v, want [pptx]", got)
	}
}

// TestSnapshotJSON pins the shape written into compaction events.
func TestSnapshotJSON(t *testing.T) {
	st := NewState()
	if got := string(st.Snapshot().JSON()); got != `{"active":[]}` {
		t.Errorf("empty state: %s", got)
	}
	tools := []string{}
	data, _ := json.Marshal(ActivatedData{Skill: "lint", Source: SourceUser, Path: "/s/lint/SKILL.md", By: ByModel, ToolCallID: "call_1", AllowedTools: &tools})
	st.Apply(&conversation.Entry{Type: conversation.TypeEvt, ID: "e1", Event: EventActivated, Data: data, RefMsgID: "m1"})
	st.Apply(&conversation.Entry{Type: conversation.TypeMsg, ID: "m1", Role: conversation.RoleUser, IsMeta: true, Content: conversation.Str("<skill>")})
	want := `{"active":[{"skill":"lint","source":"user","path":"/s/lint/SKILL.md","by":"model","toolCallId":"call_1","allowedTools":[],"eventId":"e1","metaId":"m1"}]}`
	if got := string(st.Snapshot().JSON()); got != want {
		t.Errorf("snapshot\n got %s\nwant %s", got, want)
	}
}

// The screen reads a body message back (conversation.ParseSkillBody): the
// skill's name and source, and its instructions without the header.
func TestRenderedBodyParsesBack(t *testing.T) {
	cat, _ := treeCatalog(t)
	for _, sk := range cat.Skills() {
		body, err := loadBody(sk)
		if err != nil {
			t.Fatal(err)
		}
		name, source, got, ok := conversation.ParseSkillBody(RenderBody(sk, body))
		if !ok || name != sk.Name || source != string(sk.Source) || got != strings.TrimSpace(body) {
			t.Errorf("%s: parsed back as %q %q ok=%v\n got %q\nwant %q", sk.Name, name, source, ok, got, body)
		}
	}
}

// FuzzDerive feeds the state events and compaction snapshots with any data:
// nothing panics, every active skill has a valid name and is active once,
// and no body is both pinned and ended.
func FuzzDerive(f *testing.F) {
	f.Add(`{"skill":"pptx","source":"project","path":"/p"}`, `{"skills":{"active":[{"skill":"pptx","eventId":"e1","metaId":"m1"}],"ended":[{"id":"m0","skill":"pptx"}]}}`, `{"skill":"pptx"}`)
	f.Add(`{"skill":"a","allowedTools":[]}`, `{"skills":{"active":[{"skill":"a","metaId":"m1"},{"skill":"a","metaId":"m2"}]}}`, `{}`)
	f.Add(`null`, `{"skills":null}`, `[]`)
	f.Fuzz(func(t *testing.T, activated, compaction, deactivated string) {
		log := []*conversation.Entry{
			{Type: conversation.TypeEvt, ID: "e1", Event: EventActivated, Data: json.RawMessage(activated), RefMsgID: "m1"},
			{Type: conversation.TypeMsg, ID: "m1", Role: conversation.RoleUser, IsMeta: true, Content: conversation.Str("<skill>")},
			{Type: conversation.TypeEvt, ID: "c1", Event: conversation.EventCompaction, Data: json.RawMessage(compaction)},
			{Type: conversation.TypeMsg, ID: "m2", Role: conversation.RoleUser, IsMeta: true, Content: conversation.Str("<skill>")},
			{Type: conversation.TypeEvt, ID: "d1", Event: EventDeactivated, Data: json.RawMessage(deactivated)},
		}
		for _, from := range []int{0, 2} {
			st := Derive(log[from:])
			seen := map[string]bool{}
			for _, n := range st.Names() {
				if !ValidName(n) || seen[n] {
					t.Fatalf("active %v", st.Names())
				}
				seen[n] = true
			}
			for _, id := range st.PinnedIDs() {
				for _, s := range st.StaleIDs() {
					if id == s {
						t.Fatalf("%s is both pinned and ended", id)
					}
				}
			}
			_ = st.Snapshot().JSON()
		}
	})
}
