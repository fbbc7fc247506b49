package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// seqIDs returns an id generator: prefix-1, prefix-2, ...
func seqIDs(prefix string) func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("%s-%d", prefix, n) }
}

// treeCatalog discovers the fixture tree.
func treeCatalog(t *testing.T) (*Catalog, string) {
	t.Helper()
	root := copyTree(t)
	return Discover(DefaultLocations(treePlaces(root))), root
}

func ptrs(es []conversation.Entry) []*conversation.Entry {
	out := make([]*conversation.Entry, len(es))
	for i := range es {
		out[i] = &es[i]
	}
	return out
}

// TestActivationEntriesGolden pins the exact entries of a model activation:
// the skill_activated event (with ref_msg_id naming the body message) and
// the is_meta user message with the rendered body.
func TestActivationEntriesGolden(t *testing.T) {
	cat, root := treeCatalog(t)
	act, err := cat.Activate(NewState(), Request{Name: "pptx", By: ByModel, ToolCallID: "call_1", NewID: seqIDs("e")})
	if err != nil {
		t.Fatal(err)
	}
	if act.Status != StatusActivated || len(act.Entries) != 2 {
		t.Fatalf("got %+v", act)
	}
	var buf bytes.Buffer
	for _, e := range act.Entries {
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	buf.WriteString(act.Result().JSON() + "\n")
	golden(t, "activation-pptx.golden.jsonl", []byte(strings.ReplaceAll(buf.String(), root, "$ROOT")))
	golden(t, "activation-pptx-body.golden.md", []byte(act.Entries[1].Text()+"\n"))

	// a narrowing skill records its tools in the event
	act, err = cat.Activate(NewState(), Request{Name: "commit-message", By: ByUser, NewID: seqIDs("u")})
	if err != nil {
		t.Fatal(err)
	}
	var d ActivatedData
	json.Unmarshal(act.Entries[0].Data, &d)
	if d.By != ByUser || d.AllowedTools == nil || !reflect.DeepEqual(*d.AllowedTools, []string{"fs.read", "fs.search", "fs.list", "shell.run"}) {
		t.Errorf("event data %s", act.Entries[0].Data)
	}
}

func TestActivateRules(t *testing.T) {
	cat, root := treeCatalog(t)
	active := Derive(ptrs(mustActivate(t, cat, NewState(), "pptx", ByModel).Entries))
	deny := func(s Skill) error {
		if s.Source == SourceClaudeUser {
			return errors.New("skills from ~/.claude are turned off for this project")
		}
		return nil
	}
	tests := []struct {
		name   string
		st     *State
		req    Request
		code   string // "" for success
		status string
		msg    string
	}{
		{"model activates", NewState(), Request{Name: "pdf-processing", By: ByModel}, "", StatusActivated, ""},
		{"empty name", NewState(), Request{Name: "  ", By: ByModel}, CodeBadArguments, "", `"name" is required`},
		{"unknown skill", NewState(), Request{Name: "pptx-maker", By: ByModel}, CodeUnknownSkill, "",
			`there is no skill "pptx-maker"; skills: pptx, `},
		{"user-only skill refused to the model", NewState(), Request{Name: "release-deploy", By: ByModel}, CodeUserOnly, "",
			`the skill "release-deploy" can only be activated by the user`},
		{"user-only skill allowed to the user", NewState(), Request{Name: "release-deploy", By: ByUser}, "", StatusActivated, ""},
		{"unknown list for the model hides user-only skills", NewState(), Request{Name: "release", By: ByModel}, CodeUnknownSkill, "", "skills: "},
		{"policy refuses", NewState(), Request{Name: "explain-code", By: ByModel, Allow: deny}, CodeNotAllowed, "",
			`the skill "explain-code" is not allowed here: skills from ~/.claude are turned off for this project`},
		{"policy allows", NewState(), Request{Name: "pptx", By: ByModel, Allow: deny}, "", StatusActivated, ""},
		{"already active is idempotent", active, Request{Name: "pptx", By: ByModel}, "", StatusAlreadyActive, ""},
		{"a name that is no skill", NewState(), Request{Name: "invalid-name!", By: ByUser}, CodeUnknownSkill, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act, err := cat.Activate(tt.st, tt.req)
			if tt.code != "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != tt.code || !strings.Contains(e.Message, tt.msg) {
					t.Fatalf("err = %v, want %s containing %q", err, tt.code, tt.msg)
				}
				if strings.Contains(e.Message, root) {
					t.Errorf("the message shows a host path: %s", e.Message)
				}
				r := ErrorResult(err).JSON()
				if !strings.HasPrefix(r, `{"ok":false,"error":{"code":"`+tt.code+`"`) {
					t.Errorf("result %s", r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if act.Status != tt.status {
				t.Fatalf("status %s, want %s", act.Status, tt.status)
			}
			if tt.status == StatusAlreadyActive && len(act.Entries) != 0 {
				t.Errorf("already active must add no entries")
			}
			if tt.status == StatusActivated && (len(act.Entries) != 2 || act.Entries[0].RefMsgID != act.Entries[1].ID) {
				t.Errorf("entries %+v", act.Entries)
			}
		})
	}
	// the model's unknown-skill list never names a user-only skill
	_, err := cat.Activate(NewState(), Request{Name: "release", By: ByModel})
	if strings.Contains(err.Error(), "release-deploy") {
		t.Errorf("user-only skill offered to the model: %v", err)
	}
}

func mustActivate(t *testing.T, cat *Catalog, st *State, name string, by Actor) Activation {
	t.Helper()
	act, err := cat.Activate(st, Request{Name: name, By: by})
	if err != nil {
		t.Fatal(err)
	}
	return act
}

func TestActivateFileChangedAfterDiscovery(t *testing.T) {
	dir := t.TempDir()
	p := writeSkill(t, dir, "x", skillText("x", "d"))
	cat := Discover([]Location{{Source: SourceUser, Dir: dir}})
	// edited: the body is read at activation
	os.WriteFile(p, []byte(skillText("x", "d")+"New line.\n"), 0o644)
	act := mustActivate(t, cat, NewState(), "x", ByModel)
	if !strings.Contains(act.Entries[1].Text(), "New line.") {
		t.Errorf("body not re-read: %s", act.Entries[1].Text())
	}
	// broken
	os.WriteFile(p, []byte("---\nname: x\n"), 0o644)
	if _, err := cat.Activate(NewState(), Request{Name: "x"}); errs.CodeOf(err) != CodeInvalidSkill || !strings.Contains(err.Error(), `the skill "x" is no longer valid: the frontmatter starts with --- but has no closing --- line`) {
		t.Errorf("got %v", err)
	}
	// deleted
	os.RemoveAll(filepath.Join(dir, "x"))
	if _, err := cat.Activate(NewState(), Request{Name: "x"}); errs.CodeOf(err) != CodeInvalidSkill || !strings.Contains(err.Error(), `the skill "x" cannot be read any more`) || strings.Contains(err.Error(), dir) {
		t.Errorf("got %v", err)
	}
}

func TestDeactivate(t *testing.T) {
	cat, _ := treeCatalog(t)
	st := Derive(ptrs(mustActivate(t, cat, NewState(), "pptx", ByModel).Entries))
	d, err := Deactivate(st, "pptx", ByUser, "", seqIDs("d"))
	if err != nil || d.Status != StatusDeactivated || len(d.Entries) != 1 {
		t.Fatalf("got %+v, %v", d, err)
	}
	if got := string(d.Entries[0].Data); got != `{"skill":"pptx","by":"user"}` || d.Entries[0].Event != EventDeactivated || d.Entries[0].ID != "d-1" {
		t.Errorf("entry %+v", d.Entries[0])
	}
	d, err = Deactivate(st, "pdf-processing", ByModel, "call_9", nil)
	if err != nil || d.Status != StatusNotActive || len(d.Entries) != 0 {
		t.Errorf("not active: %+v, %v", d, err)
	}
	if r := d.Result().JSON(); r != `{"ok":true,"skill":"pdf-processing","status":"not_active","message":"the skill \"pdf-processing\" is not active"}` {
		t.Errorf("result %s", r)
	}
	if _, err := Deactivate(st, "", ByModel, "", nil); err == nil {
		t.Errorf("empty name accepted")
	}
}

// msg and evt build log entries for derivation tests.
func msg(id, role, content string) conversation.Entry {
	return conversation.Entry{Type: conversation.TypeMsg, ID: id, Role: role, Content: conversation.Str(content)}
}

func meta(id, content string) conversation.Entry {
	e := msg(id, conversation.RoleUser, content)
	e.IsMeta = true
	return e
}

func evt(id, name, data, ref string) conversation.Entry {
	return conversation.Entry{Type: conversation.TypeEvt, ID: id, Event: name, Data: json.RawMessage(data), RefMsgID: ref}
}

func activatedEvt(id, skill, ref string) conversation.Entry {
	return evt(id, EventActivated, `{"skill":"`+skill+`","source":"project","path":"/p/`+skill+`/SKILL.md"}`, ref)
}

func deactivatedEvt(id, skill string) conversation.Entry {
	return evt(id, EventDeactivated, `{"skill":"`+skill+`"}`, "")
}

func TestDerive(t *testing.T) {
	compacted := meta("b1", "<skill name=\"a\">A body</skill>")
	compacted.Compacted = true
	tests := []struct {
		name   string
		log    []conversation.Entry
		active []string
		bodies map[string]string
		pinned []string
		stale  []string
	}{
		{name: "empty"},
		{
			name: "activate",
			log: []conversation.Entry{msg("u1", "user", "make slides"), activatedEvt("e1", "a", "b1"), meta("b1", "A body"),
				msg("a1", "assistant", "done")},
			active: []string{"a"}, bodies: map[string]string{"a": "A body"}, pinned: []string{"b1"},
		},
		{
			name:  "deactivate",
			log:   []conversation.Entry{activatedEvt("e1", "a", "b1"), meta("b1", "A body"), deactivatedEvt("e2", "a")},
			stale: []string{"b1"},
		},
		{
			name: "re-activate takes the new body; the old one is stale",
			log: []conversation.Entry{activatedEvt("e1", "a", "b1"), meta("b1", "old"), deactivatedEvt("e2", "a"),
				activatedEvt("e3", "a", "b2"), meta("b2", "new")},
			active: []string{"a"}, bodies: map[string]string{"a": "new"}, pinned: []string{"b2"}, stale: []string{"b1"},
		},
		{
			name:   "two skills keep activation order",
			log:    []conversation.Entry{activatedEvt("e1", "b", "b1"), meta("b1", "B"), activatedEvt("e2", "a", "b2"), meta("b2", "A")},
			active: []string{"b", "a"}, bodies: map[string]string{"a": "A", "b": "B"}, pinned: []string{"b1", "b2"},
		},
		{
			name: "the documented order, no ref: the next is_meta message is the body",
			log: []conversation.Entry{msg("m2", "user", "帮我创建PPT"),
				{Type: conversation.TypeMsg, ID: "m3", Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "tc001", Type: "function", Function: conversation.FunctionCall{Name: "skill_activate", Arguments: `{"name":"pptx"}`}}}},
				evt("e001", EventActivated, `{"skill":"pptx"}`, ""),
				{Type: conversation.TypeMsg, ID: "m4", Role: "tool", ToolCallID: "tc001", ToolName: "Skill", Content: conversation.Str("loaded")},
				meta("m5", "<skill-prompt>...")},
			active: []string{"pptx"}, bodies: map[string]string{"pptx": "<skill-prompt>..."}, pinned: []string{"m5"},
		},
		{
			name: "unknown and malformed events are ignored",
			log: []conversation.Entry{evt("x1", "mode_switch", `{"to":"agent"}`, ""), evt("x2", EventActivated, `not json`, ""),
				evt("x3", EventActivated, `{"skill":"Bad Name"}`, ""), evt("x4", EventDeactivated, `{}`, ""),
				evt("x5", "skill_activated_v2", `{"skill":"z"}`, ""), activatedEvt("e1", "a", "b1"),
				evt("x6", EventDeactivated, `{"skill":"never-active"}`, ""), meta("b1", "A"), meta("other", "an unrelated meta message")},
			active: []string{"a"}, bodies: map[string]string{"a": "A"}, pinned: []string{"b1"},
		},
		{
			name:   "a compacted body is still the body (the caller re-injects it)",
			log:    []conversation.Entry{activatedEvt("e1", "a", "b1"), compacted},
			active: []string{"a"}, bodies: map[string]string{"a": "<skill name=\"a\">A body</skill>"}, pinned: []string{"b1"},
		},
		{
			name:   "an activation whose body is not in the log yet",
			log:    []conversation.Entry{activatedEvt("e1", "a", "b1")},
			active: []string{"a"}, bodies: map[string]string{"a": ""}, pinned: []string{"b1"},
		},
		{
			name:   "activating again without deactivating replaces",
			log:    []conversation.Entry{activatedEvt("e1", "a", "b1"), meta("b1", "one"), activatedEvt("e2", "a", "b2"), meta("b2", "two")},
			active: []string{"a"}, bodies: map[string]string{"a": "two"}, pinned: []string{"b2"}, stale: []string{"b1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Derive(ptrs(tt.log))
			if got := st.Names(); !reflect.DeepEqual(got, tt.active) && !(len(got) == 0 && len(tt.active) == 0) {
				t.Errorf("active %q, want %q", got, tt.active)
			}
			for name, body := range tt.bodies {
				a, ok := st.Get(name)
				if !ok || a.Body != body || a.HasBody != (body != "") {
					t.Errorf("%s: %+v", name, a)
				}
			}
			if got := st.PinnedIDs(); !reflect.DeepEqual(got, tt.pinned) && !(len(got) == 0 && len(tt.pinned) == 0) {
				t.Errorf("pinned %q, want %q", got, tt.pinned)
			}
			if got := st.StaleIDs(); !reflect.DeepEqual(got, tt.stale) && !(len(got) == 0 && len(tt.stale) == 0) {
				t.Errorf("stale %q, want %q", got, tt.stale)
			}
			// applying one by one on a clone midway gives the same result
			half := Derive(ptrs(tt.log[:len(tt.log)/2])).Clone()
			for i := len(tt.log) / 2; i < len(tt.log); i++ {
				half.Apply(&tt.log[i])
			}
			if !reflect.DeepEqual(half.Active(), st.Active()) {
				t.Errorf("clone+apply differs: %+v vs %+v", half.Active(), st.Active())
			}
		})
	}
}

func TestDeriveAsOf(t *testing.T) {
	log := []conversation.Entry{msg("u1", "user", "hi"), activatedEvt("e1", "a", "b1"), meta("b1", "A"),
		msg("u2", "user", "next"), deactivatedEvt("e2", "a"), msg("u3", "user", "later")}
	for _, tt := range []struct {
		at     string
		active []string
	}{{"u1", nil}, {"e1", []string{"a"}}, {"b1", []string{"a"}}, {"u2", []string{"a"}}, {"e2", nil}, {"u3", nil}} {
		st, err := DeriveAsOf(ptrs(log), tt.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Names(); len(got) != len(tt.active) || (len(got) > 0 && got[0] != tt.active[0]) {
			t.Errorf("as of %s: %q, want %q", tt.at, got, tt.active)
		}
	}
	if _, err := DeriveAsOf(ptrs(log), "nope"); err == nil {
		t.Errorf("unknown id accepted")
	}
}

func TestStateIsSkillBody(t *testing.T) {
	st := Derive(ptrs([]conversation.Entry{activatedEvt("e1", "a", "b1"), meta("b1", "A"), deactivatedEvt("e2", "a"), meta("m9", "other")}))
	if name, ok := st.IsSkillBody("b1"); !ok || name != "a" {
		t.Errorf("b1: %s %v", name, ok)
	}
	if _, ok := st.IsSkillBody("m9"); ok {
		t.Errorf("m9 is not a skill body")
	}
	var nilState *State
	if nilState.IsActive("a") || nilState.Names() != nil || nilState.PinnedIDs() != nil {
		t.Errorf("nil state must be empty")
	}
}

func TestStateNarrowTools(t *testing.T) {
	current := []string{"fs.list", "fs.read", "fs.write", "skill.activate", "skill.deactivate"}
	log := []conversation.Entry{
		evt("e1", EventActivated, `{"skill":"reader","allowedTools":["fs.read"]}`, "b1"), meta("b1", "R"),
		evt("e2", EventActivated, `{"skill":"plain"}`, "b2"), meta("b2", "P"),
	}
	st := Derive(ptrs(log))
	if got := st.NarrowTools(current); !reflect.DeepEqual(got, []string{"fs.read", "skill.activate", "skill.deactivate"}) {
		t.Errorf("narrowed %q", got)
	}
	st.Apply(&[]conversation.Entry{deactivatedEvt("e3", "reader")}[0])
	if got := st.NarrowTools(current); !reflect.DeepEqual(got, current) {
		t.Errorf("after deactivation %q", got)
	}
	// declared but nothing available here: narrows to the kept tools
	st.Apply(&[]conversation.Entry{evt("e4", EventActivated, `{"skill":"bash-only","allowedTools":[]}`, "b4")}[0])
	if got := st.NarrowTools(current); !reflect.DeepEqual(got, []string{"skill.activate", "skill.deactivate"}) {
		t.Errorf("bash-only %q", got)
	}
}

func TestActivateActiveSkillGoneFromDisk(t *testing.T) {
	cat := Discover(nil)
	st := Derive(ptrs([]conversation.Entry{activatedEvt("e1", "gone", "b1"), meta("b1", "Gone body")}))
	act, err := cat.Activate(st, Request{Name: "gone", By: ByModel})
	if err != nil || act.Status != StatusAlreadyActive || len(act.Entries) != 0 || act.Skill.Path != "/p/gone/SKILL.md" {
		t.Errorf("got %+v, %v", act, err)
	}
	d, err := Deactivate(st, "gone", ByModel, "call_2", seqIDs("d"))
	if err != nil || d.Status != StatusDeactivated {
		t.Fatalf("got %+v, %v", d, err)
	}
	st.Apply(&d.Entries[0])
	if st.IsActive("gone") || len(st.StaleIDs()) != 1 {
		t.Errorf("after deactivation: %q %q", st.Names(), st.StaleIDs())
	}
}
