package conversation

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/errs"
)

// memLog applies changes the way the store does: an update replaces the
// entry where it stands, new entries go to the end.
type memLog struct {
	t       *testing.T
	entries []*Entry
	n       int
}

func (l *memLog) add(es ...*Entry) {
	for _, e := range es {
		if e.ID == "" {
			l.n++
			e.ID = e.Event + "#" + string(rune('0'+l.n))
		}
		l.entries = append(l.entries, e)
	}
}

func (l *memLog) regenerate(id string) {
	l.t.Helper()
	c, _, err := PlanRegenerate(l.entries, id)
	l.apply(c, err)
}

func (l *memLog) apply(c BranchChange, err error) {
	l.t.Helper()
	if err != nil {
		l.t.Fatal(err)
	}
	for _, u := range c.Updates {
		i := slices.IndexFunc(l.entries, func(e *Entry) bool { return e.ID == u.ID })
		if i < 0 {
			l.t.Fatalf("update of a missing entry %s", u.ID)
		}
		l.entries[i] = u
	}
	l.add(c.Lines()...)
}

// context is what the context builder reads: the messages in the log's
// order that are in the context.
func (l *memLog) context() string {
	var out []string
	for _, e := range l.entries {
		if e.IsMessage() && e.InContext() {
			out = append(out, e.ID)
		}
	}
	return strings.Join(out, " ")
}

// shown is what the conversation screen shows: messages not in a variant
// that is not chosen, with the switchers ("id[2/3]").
func (l *memLog) shown() string {
	var out []string
	for _, v := range Views(l.entries) {
		if !v.IsMessage() || v.View.Inactive {
			continue
		}
		s := v.ID
		if b := v.View.Branch; b != nil {
			s += "[" + string(rune('0'+b.Index)) + "/" + string(rune('0'+b.Count)) + "]"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// check asserts the context and the screen, and that nothing hidden is in
// the context.
func (l *memLog) check(step, context, shown string) {
	l.t.Helper()
	for _, v := range Views(l.entries) {
		if v.View.Inactive && v.IsMessage() && v.InContext() {
			l.t.Errorf("%s: %s is hidden but in the context", step, v.ID)
		}
	}
	if got := l.context(); got != context {
		l.t.Errorf("%s: context\n got %s\nwant %s", step, got, context)
	}
	if got := l.shown(); got != shown {
		l.t.Errorf("%s: shown\n got %s\nwant %s", step, got, shown)
	}
}

func errEntry(id, partial string) *Entry {
	return msg(id, RoleAssistant, ErrorContent(partial, ErrorBlock{Code: "LLM_NETWORK", Message: "the connection closed before the answer was complete", Retryable: true}), part(PartError))
}

func TestBranches(t *testing.T) {
	l := &memLog{t: t}
	retried := errEntry("e2", "")
	retried.IncludeInContext = Bool(false) // a failure that Retry took out of the context
	l.add(msg("u1", RoleUser, "first"), msg("a1", RoleAssistant, "one"),
		msg("u2", RoleUser, "second"), retried, msg("a2", RoleAssistant, "two"))
	l.check("start", "u1 a1 u2 a2", "u1 a1 u2 e2 a2")

	// Regenerate the last answer: it becomes version 1 of 2.
	ch, user, err := PlanRegenerate(l.entries, "a2")
	if user != "u2" {
		t.Fatalf("regenerate answers %q", user)
	}
	l.apply(ch, err)
	l.check("regenerating", "u1 a1 u2", "u1 a1 u2")
	l.add(msg("a2b", RoleAssistant, "two, again"))
	l.check("regenerated", "u1 a1 u2 a2b", "u1 a1 u2 a2b[2/2]")

	// Again, from the user message itself: a third version.
	ch, _, err = PlanRegenerate(l.entries, "u2")
	l.apply(ch, err)
	l.add(msg("a2c", RoleAssistant, "two, a third time"))
	l.check("third", "u1 a1 u2 a2c", "u1 a1 u2 a2c[3/3]")

	// Back to the first: the retried failure stays out of the context.
	l.apply(PlanSwitch(l.entries, "u2", 0))
	l.check("switch to 1", "u1 a1 u2 a2", "u1 a1 u2 e2[1/3] a2")

	// Edit the first message: everything after the start is a version.
	l.apply(PlanEdit(l.entries, "u1", msg("u1b", RoleUser, "first, edited")))
	l.check("edited", "u1b", "u1b[2/2]")
	if e := l.entries[len(l.entries)-1]; e.EditOf != "u1" {
		t.Errorf("edited message editOf = %q", e.EditOf)
	}
	l.add(msg("b1", RoleAssistant, "answer to the edit"))
	l.check("edit answered", "u1b b1", "u1b[2/2] b1")

	// Back to the original: the point after u2 kept its choice.
	l.apply(PlanSwitch(l.entries, "", 0))
	l.check("original", "u1 a1 u2 a2", "u1[1/2] a1 u2 e2[1/3] a2")

	// Carry on, then switch the answer to u2: what followed goes with it.
	l.add(msg("u3", RoleUser, "third"), msg("a3", RoleAssistant, "three"))
	l.check("carry on", "u1 a1 u2 a2 u3 a3", "u1[1/2] a1 u2 e2[1/3] a2 u3 a3")
	l.apply(PlanSwitch(l.entries, "u2", 1))
	l.check("answer 2", "u1 a1 u2 a2b", "u1[1/2] a1 u2 a2b[2/3]")
	l.apply(PlanSwitch(l.entries, "u2", 0))
	l.check("answer 1 again", "u1 a1 u2 a2 u3 a3", "u1[1/2] a1 u2 e2[1/3] a2 u3 a3")

	// Edit a later message: its point follows the answer before it.
	l.apply(PlanEdit(l.entries, "u3", msg("u3b", RoleUser, "third, edited")))
	l.check("edit u3", "u1 a1 u2 a2 u3b", "u1[1/2] a1 u2 e2[1/3] a2 u3b[2/2]")
	if p := Branches(l.entries).Points["a2"]; p == nil || p.Reason != BranchEdit {
		t.Fatalf("the point of the edit: %+v", p)
	}

	// What the events hold.
	var last BranchData
	for _, e := range l.entries {
		if d, ok := ParseBranchData(e); ok && d.After == "u2" {
			last = d
		}
	}
	if last.Active != 0 || len(last.Variants) != 3 || !slices.Equal(last.Variants[0].IDs, []string{"e2", "a2", "u3", "a3"}) ||
		!slices.Equal(last.Variants[0].InContext, []string{"a2", "u3", "a3"}) || last.Variants[1].Head != "a2b" {
		t.Errorf("last state of u2: %+v", last)
	}
}

func TestBranchRefusals(t *testing.T) {
	l := &memLog{t: t}
	l.add(msg("u1", RoleUser, "first"), msg("a1", RoleAssistant, "one"), msg("u2", RoleUser, "second"))
	code := func(err error) string {
		var e *errs.Error
		if errors.As(err, &e) {
			return e.Code
		}
		return ""
	}
	if _, _, err := PlanRegenerate(l.entries, "u2"); code(err) != errs.InvalidArgument {
		t.Errorf("regenerate without an answer: %v", err)
	}
	if _, _, err := PlanRegenerate(l.entries, "nope"); code(err) != errs.NotFound {
		t.Errorf("unknown message: %v", err)
	}
	if _, err := PlanSwitch(l.entries, "u1", 0); code(err) != errs.NotFound {
		t.Errorf("switch without versions: %v", err)
	}
	runMsg := msg("r1", RoleUser, RunInput("capture", "idea"), run("run-1"))
	l.add(runMsg, msg("ra", RoleAssistant, "noted", run("run-1")))
	if _, _, err := PlanRegenerate(l.entries, "ra"); code(err) != errs.InvalidArgument || !strings.Contains(err.Error(), "fork") {
		t.Errorf("regenerate in a run: %v", err)
	}
	if _, err := PlanEdit(l.entries, "a1", msg("x", RoleUser, "x")); code(err) != errs.InvalidArgument {
		t.Errorf("edit of an answer: %v", err)
	}

	// Compacted entries after a point freeze it, and the screen says so.
	l = &memLog{t: t}
	l.add(msg("u1", RoleUser, "first"), msg("a1", RoleAssistant, "one"))
	l.regenerate("a1")
	l.add(msg("a1b", RoleAssistant, "one, again"), msg("u2", RoleUser, "more"), msg("a2", RoleAssistant, "two"))
	for _, e := range l.entries[:len(l.entries)-2] {
		if e.ID == "u1" || e.ID == "a1b" {
			e.Compacted = true
		}
	}
	l.add(msg("sum", RoleSystem, "CONVERSATION_SUMMARY\nthey talked"), evt("cmp", EventCompaction))
	if _, err := PlanSwitch(l.entries, "u1", 0); code(err) != errs.BranchFrozen {
		t.Errorf("switch after a compaction: %v", err)
	}
	if _, err := PlanEdit(l.entries, "u1", msg("u1b", RoleUser, "x")); code(err) != errs.BranchFrozen {
		t.Errorf("edit after a compaction: %v", err)
	}
	var b *BranchView
	for _, v := range Views(l.entries) {
		if v.View.Branch != nil {
			b = v.View.Branch
		}
	}
	if b == nil || !b.Frozen || b.Index != 2 || b.Count != 2 {
		t.Errorf("frozen switcher: %+v", b)
	}
	// A summary stays on every branch: regenerating the last answer keeps it.
	ch, _, err := PlanRegenerate(l.entries, "a2")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range ch.Updates {
		if u.ID == "sum" {
			t.Errorf("the summary left the context")
		}
	}
}

// A stretch of the log that starts after a point still knows which of its
// entries are hidden, and places the switcher it holds.
func TestBranchesInAPage(t *testing.T) {
	l := &memLog{t: t}
	l.add(msg("u1", RoleUser, "first"), msg("a1", RoleAssistant, "one"))
	l.regenerate("a1")
	l.add(msg("a1b", RoleAssistant, "one, again"))
	page := Views(l.entries[1:])
	got := map[string]string{}
	for _, v := range page {
		s := v.View.Kind
		if v.View.Inactive {
			s += "/inactive"
		}
		if v.View.Branch != nil {
			raw, _ := json.Marshal(v.View.Branch)
			s += string(raw)
		}
		got[v.ID] = s
	}
	if got["a1"] != "assistant/inactive" || got["a1b"] != `assistant{"after":"u1","index":2,"count":2,"reason":"regenerate"}` {
		t.Errorf("page views: %v", got)
	}
}
