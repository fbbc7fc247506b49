package skills

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/tokens"
)

// TestActivationThroughTheStore records activations in a real conversation
// log and derives the state back after a restart, in forks (at a message
// and at a checkpoint), after compaction and after the skill's folder is
// deleted.
func TestActivationThroughTheStore(t *testing.T) {
	cat, root := treeCatalog(t)
	dataDir := t.TempDir()
	counter := tokens.New()
	open := func() *convlog.Store {
		s, err := convlog.Open(dataDir, convlog.Options{Counter: counter.ForModel("gpt-4o")})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	store := open()
	conv, err := store.Create("", "agent")
	if err != nil {
		t.Fatal(err)
	}
	appendAll := func(es ...conversation.Entry) {
		t.Helper()
		ps := make([]*conversation.Entry, len(es))
		for i := range es {
			e := es[i]
			ps[i] = &e
		}
		if err := store.Append(conv.ID, ps...); err != nil {
			t.Fatal(err)
		}
	}
	load := func(s *convlog.Store, id string) []*conversation.Entry {
		t.Helper()
		es, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}

	// a model activation: the tool call, its result, then the skill's entries
	appendAll(conversation.Entry{ID: "u1", Role: conversation.RoleUser, Content: conversation.Str("Make a deck about our roadmap")})
	call := conversation.Entry{ID: "a1", Role: conversation.RoleAssistant, PartType: conversation.PartToolStart,
		ToolCalls: []conversation.ToolCall{{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "skill.activate", Arguments: `{"name":"pptx"}`}}}}
	appendAll(call)
	st := Derive(load(store, conv.ID))
	act, err := cat.Activate(st, Request{Name: "pptx", By: ByModel, ToolCallID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(append([]conversation.Entry{{ID: "t1", Role: conversation.RoleTool, ToolCallID: "call_1", ToolName: conversation.ToolSkillActivate,
		PartType: conversation.PartToolResult, Content: conversation.Str(act.Result().JSON())}}, act.Entries...)...)
	bodyID := act.Entries[1].ID
	appendAll(conversation.Entry{ID: "a2", Role: conversation.RoleAssistant, Content: conversation.Str("Here is the outline.")})
	if _, err := store.Checkpoint(conv.ID, "outline"); err != nil {
		t.Fatal(err)
	}

	// a user activation, then a deactivation
	act2, err := cat.Activate(Derive(load(store, conv.ID)), Request{Name: "brand-guidelines", By: ByUser})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(act2.Entries...)
	appendAll(conversation.Entry{ID: "u2", Role: conversation.RoleUser, Content: conversation.Str("Apply the brand")})
	deact, err := Deactivate(Derive(load(store, conv.ID)), "brand-guidelines", ByUser, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(deact.Entries...)

	// restart: a new store reads the log back
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	store = open()
	defer store.Close()
	entries := load(store, conv.ID)
	st = Derive(entries)
	if got := st.Names(); !reflect.DeepEqual(got, []string{"pptx"}) {
		t.Fatalf("after restart: %q", got)
	}
	a, _ := st.Get("pptx")
	if a.MetaID != bodyID || !strings.Contains(a.Body, "# PPTX") || a.By != ByModel || a.ToolCallID != "call_1" {
		t.Errorf("after restart: %+v", a)
	}
	if got := st.StaleIDs(); !reflect.DeepEqual(got, []string{act2.Entries[1].ID}) {
		t.Errorf("stale %q", got)
	}
	for _, e := range entries {
		if e.ID == bodyID && (e.Tokens == 0 || !e.IsMeta || e.Role != conversation.RoleUser) {
			t.Errorf("stored body %+v", e)
		}
	}

	// fork at the user message before the deactivation: both skills active
	fork, err := store.Fork(conv.ID, convlog.ForkOptions{AtMessageID: "u2"})
	if err != nil {
		t.Fatal(err)
	}
	fst := Derive(load(store, fork.ID))
	if got := fst.Names(); !reflect.DeepEqual(got, []string{"pptx", "brand-guidelines"}) {
		t.Errorf("fork at u2: %q", got)
	}
	asOf, err := DeriveAsOf(entries, "u2")
	if err != nil || !reflect.DeepEqual(asOf.Names(), fst.Names()) {
		t.Errorf("DeriveAsOf(u2) = %q, the fork has %q", asOf.Names(), fst.Names())
	}
	// fork at the tool call: nothing active yet
	fork, err = store.Fork(conv.ID, convlog.ForkOptions{AtMessageID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := Derive(load(store, fork.ID)).Names(); len(got) != 0 {
		t.Errorf("fork at a1: %q", got)
	}
	// fork at the checkpoint: pptx only
	fork, err = store.Fork(conv.ID, convlog.ForkOptions{Checkpoint: "outline"})
	if err != nil {
		t.Fatal(err)
	}
	if got := Derive(load(store, fork.ID)).Names(); !reflect.DeepEqual(got, []string{"pptx"}) {
		t.Errorf("fork at the checkpoint: %q", got)
	}

	// compaction marks the body compacted; the state still has it
	if _, err := store.MarkCompacted(conv.ID, []string{"u1", "a1", "t1", bodyID, "a2"}, nil); err != nil {
		t.Fatal(err)
	}
	a, _ = Derive(load(store, conv.ID)).Get("pptx")
	if !a.Compacted || !strings.Contains(a.Body, "# PPTX") {
		t.Errorf("after compaction: %+v", a)
	}

	// the skill's folder is deleted: still active from the log, body from the log
	if err := os.RemoveAll(filepath.Join(root, "project", ".crewagent", "skills", "pptx")); err != nil {
		t.Fatal(err)
	}
	cat = Discover(cat.Locations())
	st = Derive(load(store, conv.ID))
	a, ok := st.Get("pptx")
	if !ok || !strings.Contains(a.Body, "# PPTX") {
		t.Errorf("deleted skill: %+v", a)
	}
	// the package's pptx, shadowed until now, takes the name: activating
	// pptx again loads it and replaces the old body
	if sk, ok := cat.Get("pptx"); !ok || sk.Source != SourcePackage {
		t.Fatalf("pptx now %+v", sk)
	}
	again, err := cat.Activate(st, Request{Name: "pptx", By: ByModel})
	if err != nil || again.Status != StatusActivated {
		t.Fatalf("activate again: %+v %v", again, err)
	}
	appendAll(again.Entries...)
	st = Derive(load(store, conv.ID))
	a, _ = st.Get("pptx")
	if a.Source != SourcePackage || !strings.Contains(a.Body, "package template") || !reflect.DeepEqual(st.StaleIDs(), []string{act2.Entries[1].ID, bodyID}) {
		t.Errorf("re-activated: %+v, stale %q", a, st.StaleIDs())
	}
	if again, _ := cat.Activate(st, Request{Name: "pptx", By: ByModel}); again.Status != StatusAlreadyActive {
		t.Errorf("third activation: %s", again.Status)
	}
}
