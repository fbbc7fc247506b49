package convlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

func TestCreate(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	tests := []struct {
		title, active string
		wantTitle     string
		wantActive    string
		wantErr       error
	}{
		{"", "", DefaultTitle, conversation.ActiveChat, nil},
		{"  Plan  ", "agent", "Plan", conversation.ActiveAgent, nil},
		{"Run it", "workflow", "Run it", conversation.ActiveWorkflow, nil},
		{"x", "run", "", "", ErrInvalidArgument},
	}
	for _, tt := range tests {
		m, err := s.Create(tt.title, tt.active)
		if !errors.Is(err, tt.wantErr) {
			t.Fatalf("Create(%q,%q) err = %v, want %v", tt.title, tt.active, err, tt.wantErr)
		}
		if err != nil {
			continue
		}
		if !IsValidID(m.ID) || m.Title != tt.wantTitle || m.ActiveType != tt.wantActive || m.CreatedAt == "" || m.LastActiveAt == "" || m.MessageCount != 0 {
			t.Errorf("Create(%q,%q) = %+v", tt.title, tt.active, m)
		}
		if fi, err := os.Stat(logPath(dir, m.ID)); err != nil || fi.Size() != 0 {
			t.Errorf("log of new conversation: %v %v", fi, err)
		}
		// written durably: a read-only store sees it at once
		ro, err := OpenReadOnly(dir, Options{Logger: discard})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ro.Get(m.ID); err != nil {
			t.Errorf("read-only Get after Create: %v", err)
		}
		ro.Close()
	}
}

func TestAppendFillsFieldsCountsOnceAndUpdatesIndex(t *testing.T) {
	c := &lenCounter{}
	s, _, _ := openTest(t, Options{Counter: c, IndexFlushDelay: time.Hour})
	id := mustCreate(t, s)
	meta := &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("<skill-prompt>"), IsMeta: true}
	u := msg(conversation.RoleUser, "  Please   build\n a deck for the quarterly review meeting with all the numbers in it\nsecond line")
	a := msg(conversation.RoleAssistant, "sure")
	pre := &conversation.Entry{ID: "m-pre", CreatedAt: "2001-01-01T00:00:00.000Z", Role: conversation.RoleAssistant, Content: conversation.Str("x"), Tokens: 99, TokenEncoding: "o200k_base"}
	ev := &conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventModeSwitch, Data: json.RawMessage(`{"to":"agent"}`)}
	before := time.Now().UTC().Add(-time.Second)
	if err := s.Append(id, meta, u, a, pre, ev); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*conversation.Entry{meta, u, a} {
		if _, err := uuid.Parse(e.ID); err != nil || e.Type != conversation.TypeMsg || e.Tokens != len(e.Text())/4+4 || e.TokenEncoding != "test_base" {
			t.Errorf("filled entry = %+v", e)
		}
		ts, err := time.Parse(time.RFC3339Nano, e.CreatedAt)
		if err != nil || ts.Before(before) {
			t.Errorf("createdAt %q", e.CreatedAt)
		}
	}
	if pre.ID != "m-pre" || pre.CreatedAt != "2001-01-01T00:00:00.000Z" || pre.Tokens != 99 || pre.TokenEncoding != "o200k_base" {
		t.Errorf("preset fields changed: %+v", pre)
	}
	if ev.Type != conversation.TypeEvt || ev.Tokens != 0 {
		t.Errorf("event: %+v", ev)
	}
	if c.Calls() != 3 {
		t.Errorf("counter calls = %d, want 3 (messages without a count)", c.Calls())
	}
	got, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{meta.ID, u.ID, a.ID, "m-pre", ev.ID}) || got[1].Tokens != u.Tokens {
		t.Errorf("Load = %v", ids(got))
	}
	if c.Calls() != 3 {
		t.Errorf("Load counted tokens again")
	}
	m, _ := s.Get(id)
	if m.MessageCount != 4 {
		t.Errorf("messageCount = %d, want 4", m.MessageCount)
	}
	if want := "Please build"; m.Title != want {
		t.Errorf("title = %q, want %q", m.Title, want)
	}
	if m.LastActiveAt < m.CreatedAt {
		t.Errorf("lastActiveAt %s < createdAt %s", m.LastActiveAt, m.CreatedAt)
	}
	// a title that is set is kept
	if err := s.Rename(id, "Mine"); err != nil {
		t.Fatal(err)
	}
	s.Append(id, msg(conversation.RoleUser, "other"))
	if m, _ := s.Get(id); m.Title != "Mine" || m.MessageCount != 5 {
		t.Errorf("after rename+append: %+v", m)
	}
}

func TestTitleFrom(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello", "hello"},
		{"\n\n  a   b\t c \nnext", "a b c"},
		{"", ""},
		{strings.Repeat("é", 70), strings.Repeat("é", 60) + "…"},
		{"USER_INPUT\n- forNodeId: n1\nWrite about  tides\nmore", "Write about tides"},
		{"USER_INPUT\n- forNodeId: n1", ""},
		{"USER_INPUT is a word", "USER_INPUT is a word"},
	}
	for _, tt := range tests {
		if got := titleFrom(tt.in); got != tt.want {
			t.Errorf("titleFrom(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAppendRejectsInvalidEntries(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	tests := []struct {
		name    string
		entries []*conversation.Entry
		want    error
	}{
		{"nil", []*conversation.Entry{nil}, ErrInvalidArgument},
		{"unknown role", []*conversation.Entry{msg("robot", "x")}, ErrInvalidArgument},
		{"no role", []*conversation.Entry{{Content: conversation.Str("x")}}, ErrInvalidArgument},
		{"event without name", []*conversation.Entry{{Type: conversation.TypeEvt}}, ErrInvalidArgument},
		{"unknown type", []*conversation.Entry{{Type: "note", Role: conversation.RoleUser}}, ErrInvalidArgument},
		{"bad data", []*conversation.Entry{{Type: conversation.TypeEvt, Event: "x", Data: json.RawMessage(`{`)}}, ErrInvalidArgument},
		{"bad widget", []*conversation.Entry{{Role: conversation.RoleAssistant, Widget: json.RawMessage(`[1,`)}}, ErrInvalidArgument},
		{"duplicate id", []*conversation.Entry{{ID: "a", Role: conversation.RoleUser}, {ID: "a", Role: conversation.RoleUser}}, ErrInvalidArgument},
		{"slash id", []*conversation.Entry{{ID: "a/b", Role: conversation.RoleUser}}, ErrInvalidID},
		{"dotdot id", []*conversation.Entry{{ID: "a..b", Role: conversation.RoleUser}}, ErrInvalidID},
		{"parent id", []*conversation.Entry{{ID: "..", Role: conversation.RoleUser}}, ErrInvalidID},
		{"hidden id", []*conversation.Entry{{ID: ".x", Role: conversation.RoleUser}}, ErrInvalidID},
		{"backslash id", []*conversation.Entry{{ID: `a\b`, Role: conversation.RoleUser}}, ErrInvalidID},
		{"long id", []*conversation.Entry{{ID: strings.Repeat("a", 129), Role: conversation.RoleUser}}, ErrInvalidID},
		{"valid then invalid", []*conversation.Entry{msg(conversation.RoleUser, "ok"), msg("robot", "x")}, ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Append(id, tt.entries...)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if data := readFile(t, logPath(dir, id)); data != "" {
		t.Errorf("rejected appends wrote %q", data)
	}
	if err := s.Append(id); err != nil {
		t.Errorf("empty append: %v", err)
	}
	if err := s.Append(uuid.NewString(), msg(conversation.RoleUser, "x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("append to unknown conversation: %v", err)
	}
}

func TestInvalidConversationIDs(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	good := uuid.NewString()
	bad := []string{"", "../x", "../../etc", "x", strings.ToUpper(good), "{" + good + "}", "urn:uuid:" + good,
		strings.ReplaceAll(good, "-", ""), good + "/..", good[:35] + "/"}
	for _, id := range bad {
		calls := map[string]error{}
		calls["Get"] = func() error { _, err := s.Get(id); return err }()
		calls["Load"] = func() error { _, err := s.Load(id); return err }()
		calls["LoadTail"] = func() error { _, err := s.LoadTail(id, 5); return err }()
		calls["LoadSinceCompaction"] = func() error { _, err := s.LoadSinceCompaction(id); return err }()
		calls["Append"] = s.Append(id, msg(conversation.RoleUser, "x"))
		calls["Update"] = s.Update(id, &conversation.Entry{ID: "a", Role: conversation.RoleUser})
		calls["Rename"] = s.Rename(id, "t")
		calls["UpdateMeta"] = s.UpdateMeta(id, func(*conversation.ConversationMeta) {})
		calls["Checkpoint"] = func() error { _, err := s.Checkpoint(id, "c"); return err }()
		calls["Fork"] = func() error { _, err := s.Fork(id, ForkOptions{}); return err }()
		calls["MarkCompacted"] = func() error { _, err := s.MarkCompacted(id, []string{"a"}, nil); return err }()
		calls["Delete"] = s.Delete(id)
		for name, err := range calls {
			if !errors.Is(err, ErrInvalidID) || errs.CodeOf(err) != "E_INVALID_ID" {
				t.Errorf("%s(%q) = %v, want ErrInvalidID", name, id, err)
			}
		}
	}
	des, _ := os.ReadDir(filepath.Join(dir, ConversationsDir))
	for _, de := range des {
		if de.Name() != IndexFile {
			t.Errorf("unexpected file %s", de.Name())
		}
	}
}

func TestUpdateLastLineWins(t *testing.T) {
	c := &lenCounter{}
	s, dir, _ := openTest(t, Options{Counter: c})
	id := mustCreate(t, s)
	a, b, d := msg(conversation.RoleUser, "one"), msg(conversation.RoleAssistant, "two"), msg(conversation.RoleUser, "three")
	if err := s.Append(id, a, b, d); err != nil {
		t.Fatal(err)
	}
	upd := &conversation.Entry{ID: b.ID, Role: conversation.RoleAssistant, Content: conversation.Str("two, edited at length")}
	if err := s.Update(id, upd); err != nil {
		t.Fatal(err)
	}
	if upd.Type != conversation.TypeMsg || upd.CreatedAt != b.CreatedAt || upd.UpdatedAt == "" || upd.Tokens != len("two, edited at length")/4+4 {
		t.Errorf("update filled %+v", upd)
	}
	got, _ := s.Load(id)
	if !slices.Equal(texts(got), []string{"one", "two, edited at length", "three"}) {
		t.Errorf("Load after update = %q", texts(got))
	}
	if n := len(lines(readFile(t, logPath(dir, id)))); n != 4 {
		t.Errorf("log has %d lines, want 4 (append-only)", n)
	}
	if m, _ := s.Get(id); m.MessageCount != 3 {
		t.Errorf("messageCount after update = %d", m.MessageCount)
	}
	if err := s.Update(id, &conversation.Entry{ID: "nope", Role: conversation.RoleUser}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update of unknown entry: %v", err)
	}
	if err := s.Update(id, &conversation.Entry{ID: "../x", Role: conversation.RoleUser}); !errors.Is(err, ErrInvalidID) {
		t.Errorf("update with unsafe id: %v", err)
	}
	// unchanged content keeps the stored count
	calls := c.Calls()
	same := *got[1]
	if err := s.Update(id, &same); err != nil {
		t.Fatal(err)
	}
	if c.Calls() != calls {
		t.Errorf("unchanged update recounted tokens")
	}
}

func TestRenameAndUpdateMeta(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	if err := s.Rename(id, "  New name "); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "  ", "a\nb"} {
		if err := s.Rename(id, bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Rename(%q) = %v", bad, err)
		}
	}
	err := s.UpdateMeta(id, func(m *conversation.ConversationMeta) {
		m.ID = "hijack"
		m.ActiveType = conversation.ActiveWorkflow
		m.SelectedAgentID = "pm"
		m.Runs = append(m.Runs, conversation.RunRef{RunID: "r1", WorkflowID: "w", Phase: "running"})
	})
	if err != nil {
		t.Fatal(err)
	}
	var recs []conversation.ConversationMeta
	if err := json.Unmarshal([]byte(readFile(t, indexPath(dir))), &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].ID != id || recs[0].Title != "New name" || recs[0].ActiveType != conversation.ActiveWorkflow ||
		recs[0].SelectedAgentID != "pm" || len(recs[0].Runs) != 1 {
		t.Errorf("index.json = %+v", recs)
	}
	if err := s.UpdateMeta(uuid.NewString(), func(*conversation.ConversationMeta) {}); !errors.Is(err, ErrNotFound) {
		t.Errorf("UpdateMeta unknown: %v", err)
	}
}

func TestListOrder(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	a, b, c := mustCreate(t, s), mustCreate(t, s), mustCreate(t, s)
	time.Sleep(2 * time.Millisecond)
	s.Append(a, msg(conversation.RoleUser, "x"))
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	got := []string{list[0].ID, list[1].ID, list[2].ID}
	if got[0] != a || !slices.Contains(got, b) || !slices.Contains(got, c) {
		t.Errorf("List order = %v, want %s first", got, a)
	}
	for i := 1; i < len(list); i++ {
		if list[i-1].LastActiveAt < list[i].LastActiveAt {
			t.Errorf("not sorted by lastActiveAt desc: %v", list)
		}
	}
}

func TestCheckpoint(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	a := msg(conversation.RoleUser, "a")
	s.Append(id, a)
	cp, err := s.Checkpoint(id, " before-refactor ")
	if err != nil {
		t.Fatal(err)
	}
	if cp.Name != "before-refactor" || cp.MessageID != a.ID || cp.CreatedAt == "" {
		t.Errorf("checkpoint = %+v", cp)
	}
	if _, err := s.Checkpoint(id, "before-refactor"); !errors.Is(err, ErrCheckpointExists) || errs.CodeOf(err) != "E_CHECKPOINT_EXISTS" {
		t.Errorf("duplicate checkpoint: %v", err)
	}
	for _, bad := range []string{"", "a\nb", strings.Repeat("x", 201)} {
		if _, err := s.Checkpoint(id, bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Checkpoint(%q) = %v", bad, err)
		}
	}
	if _, err := s.Checkpoint(id, "second"); err != nil {
		t.Fatal(err)
	}
	m, _ := s.Get(id)
	if len(m.Checkpoints) != 2 || m.Checkpoints[0].Name != "before-refactor" || m.Checkpoints[1].MessageID == a.ID {
		t.Errorf("meta checkpoints = %+v", m.Checkpoints)
	}
	got, _ := s.Load(id)
	if len(got) != 3 || got[1].Event != conversation.EventCheckpoint || !strings.Contains(string(got[1].Data), `"name":"before-refactor"`) {
		t.Errorf("log = %+v", got)
	}
	if m.MessageCount != 1 {
		t.Errorf("events counted as messages: %d", m.MessageCount)
	}
	empty := mustCreate(t, s)
	if cp, err := s.Checkpoint(empty, "start"); err != nil || cp.MessageID != "" {
		t.Errorf("checkpoint of empty conversation = %+v, %v", cp, err)
	}
	_ = dir
}

func TestMarkCompacted(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	var es []*conversation.Entry
	for i := range 6 {
		es = append(es, msg(conversation.RoleUser, fmt.Sprint("m", i)))
	}
	s.Append(id, es...)
	s.Update(id, &conversation.Entry{ID: es[1].ID, Role: conversation.RoleUser, Content: conversation.Str("m1 edited")})
	evt, err := s.MarkCompacted(id, []string{es[0].ID, es[1].ID, es[2].ID, es[1].ID}, map[string]any{"summary": "s1"})
	if err != nil {
		t.Fatal(err)
	}
	summary := msg(conversation.RoleSystem, "SUMMARY of m0-m2")
	tail := msg(conversation.RoleUser, "after")
	s.Append(id, summary, tail)

	if evt.Event != conversation.EventCompaction || string(evt.Data) != `{"summary":"s1"}` {
		t.Errorf("event = %+v", evt)
	}
	all, _ := s.Load(id)
	if len(all) != 9 {
		t.Fatalf("Load = %d entries, want 9 (nothing deleted)", len(all))
	}
	for i, e := range all[:6] {
		if e.Compacted != (i < 3) {
			t.Errorf("entry %d compacted = %v", i, e.Compacted)
		}
	}
	if all[1].Text() != "m1 edited" {
		t.Errorf("compaction lost the edit: %q", all[1].Text())
	}
	// 6 + 1 update + 3 compacted lines + evt + 2
	if n := len(lines(readFile(t, logPath(dir, id)))); n != 13 {
		t.Errorf("log lines = %d, want 13", n)
	}
	since, err := s.LoadSinceCompaction(id)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(since), []string{evt.ID, summary.ID, tail.ID}) {
		t.Errorf("LoadSinceCompaction = %v", ids(since))
	}
	if _, err := s.MarkCompacted(id, []string{"missing", es[3].ID}, nil); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("unknown ids: %v", err)
	}
	evt2, err := s.MarkCompacted(id, []string{es[3].ID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(evt2.Data) != fmt.Sprintf(`{"messageIds":[%q]}`, es[3].ID) {
		t.Errorf("default data = %s", evt2.Data)
	}
	since, _ = s.LoadSinceCompaction(id)
	if !slices.Equal(ids(since), []string{evt2.ID}) {
		t.Errorf("since second compaction = %v", ids(since))
	}
	if m, _ := s.Get(id); m.MessageCount != 8 {
		t.Errorf("messageCount = %d, want 8", m.MessageCount)
	}
}

func TestForkTitles(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	parent, _ := s.Create("Plan", "chat")
	s.Append(parent.ID, msg(conversation.RoleUser, "hello"))
	var titles []string
	fork := func(id string) conversation.ConversationMeta {
		m, err := s.Fork(id, ForkOptions{})
		if err != nil {
			t.Fatal(err)
		}
		titles = append(titles, m.Title)
		return m
	}
	first := fork(parent.ID)
	fork(parent.ID)
	fork(first.ID) // a fork of a fork: numbered after the same title
	s.Rename(first.ID, "Plan B")
	fork(first.ID)
	fork(parent.ID) // "Plan (fork)" is free again
	want := []string{"Plan (fork)", "Plan (fork 2)", "Plan (fork 3)", "Plan B (fork)", "Plan (fork)"}
	if !slices.Equal(titles, want) {
		t.Errorf("titles = %q, want %q", titles, want)
	}
}

func TestLoadSinceCompactionWithoutCompaction(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	s.Append(id, msg(conversation.RoleUser, "a"), msg(conversation.RoleAssistant, "b"))
	got, err := s.LoadSinceCompaction(id)
	if err != nil || !slices.Equal(texts(got), []string{"a", "b"}) {
		t.Errorf("= %q, %v", texts(got), err)
	}
}

func TestFork(t *testing.T) {
	s, dir, _ := openTest(t, Options{LargeOutputThreshold: 100})
	parent, _ := s.Create("Design", "agent")
	s.UpdateMeta(parent.ID, func(m *conversation.ConversationMeta) { m.SelectedAgentID = "architect" })
	u := msg(conversation.RoleUser, "question")
	call := &conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/a"}`}}}}
	big := &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: conversation.Str(strings.Repeat("data ", 100))}
	if err := s.Append(parent.ID, u, call, big); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkpoint(parent.ID, "cp1"); err != nil {
		t.Fatal(err)
	}
	later := msg(conversation.RoleAssistant, "answer")
	s.Append(parent.ID, later)
	s.Update(parent.ID, &conversation.Entry{ID: u.ID, Role: conversation.RoleUser, Content: conversation.Str("question, edited after the checkpoint")})

	tests := []struct {
		name      string
		opts      ForkOptions
		wantIDs   []string
		wantFirst string
		wantTitle string // each fork of the same conversation has a title of its own
	}{
		{"whole", ForkOptions{}, []string{u.ID, call.ID, big.ID, "<cp>", later.ID}, "question, edited after the checkpoint", "Design (fork)"},
		{"at message", ForkOptions{AtMessageID: call.ID}, []string{u.ID, call.ID}, "question, edited after the checkpoint", "Design (fork 2)"},
		{"at checkpoint", ForkOptions{Checkpoint: "cp1"}, []string{u.ID, call.ID, big.ID, "<cp>"}, "question", "Design (fork 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := s.Fork(parent.ID, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !IsValidID(m.ID) || m.ID == parent.ID || m.ParentID != parent.ID || m.ForkedFromMsgID != tt.opts.AtMessageID ||
				m.ForkedFromCheckpoint != tt.opts.Checkpoint || m.ActiveType != conversation.ActiveAgent || m.SelectedAgentID != "architect" || m.Title != tt.wantTitle {
				t.Errorf("fork meta = %+v", m)
			}
			got, err := s.Load(m.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got[0].Event != conversation.EventForkOrigin || !strings.Contains(string(got[0].Data), `"parentId":"`+parent.ID+`"`) {
				t.Errorf("first entry = %+v", got[0])
			}
			gotIDs := ids(got[1:])
			for i, e := range got[1:] {
				if e.Event == conversation.EventCheckpoint {
					gotIDs[i] = "<cp>"
				}
				if e.UpdatedAt != "" {
					t.Errorf("copied entry keeps updatedAt: %+v", e)
				}
			}
			if !slices.Equal(gotIDs, tt.wantIDs) {
				t.Errorf("fork entries = %v, want %v", gotIDs, tt.wantIDs)
			}
			if got[1].Text() != tt.wantFirst {
				t.Errorf("first message = %q, want %q", got[1].Text(), tt.wantFirst)
			}
			wantMsgs := 0
			for _, x := range tt.wantIDs {
				if x != "<cp>" {
					wantMsgs++
				}
			}
			if m.MessageCount != wantMsgs {
				t.Errorf("messageCount = %d, want %d", m.MessageCount, wantMsgs)
			}
			hasCP := slices.Contains(tt.wantIDs, "<cp>")
			if (len(m.Checkpoints) == 1) != hasCP {
				t.Errorf("checkpoints = %+v", m.Checkpoints)
			}
			for _, e := range got {
				if e.ID != big.ID {
					continue
				}
				alias := ToolResultAlias(m.ID, big.ID)
				if e.FullOutputPath != alias || !strings.Contains(e.Text(), "\nFull output: "+alias+"\n") ||
					!strings.Contains(e.Text(), "fs.read "+ToolResultTextAlias(m.ID, big.ID)) {
					t.Errorf("copied tool result entry: %q %q", e.FullOutputPath, e.Text())
				}
				p, err := ToolResultHostPath(dir, alias)
				if err != nil {
					t.Fatal(err)
				}
				var rec conversation.ToolResultFile
				if err := json.Unmarshal([]byte(readFile(t, p)), &rec); err != nil || rec.ConversationID != m.ID || rec.Content != strings.Repeat("data ", 100) {
					t.Errorf("copied tool result file = %+v, %v", rec, err)
				}
			}
		})
	}
	if _, err := s.Fork(parent.ID, ForkOptions{AtMessageID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork at unknown message: %v", err)
	}
	if _, err := s.Fork(parent.ID, ForkOptions{Checkpoint: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork at unknown checkpoint: %v", err)
	}
	if _, err := s.Fork(parent.ID, ForkOptions{Checkpoint: "cp1", AtMessageID: u.ID}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("fork with both: %v", err)
	}
	// the forks survive the parent's deletion
	list, _ := s.List()
	if err := s.Delete(parent.ID); err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		if m.ID == parent.ID {
			continue
		}
		got, err := s.Load(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got {
			if e.FullOutputPath != "" {
				p, _ := ToolResultHostPath(dir, e.FullOutputPath)
				if _, err := os.Stat(p); err != nil {
					t.Errorf("fork %s lost its tool result: %v", m.ID, err)
				}
			}
		}
	}
}

func TestDelete(t *testing.T) {
	s, dir, _ := openTest(t, Options{LargeOutputThreshold: 10})
	id := mustCreate(t, s)
	keep := mustCreate(t, s)
	s.Append(id, &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "c", Content: conversation.Str(strings.Repeat("x", 100))})
	s.Append(keep, &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "c", Content: conversation.Str(strings.Repeat("y", 100))})
	if !pathExists(toolResultsDir(dir, id)) {
		t.Fatal("no tool results written")
	}
	if err := s.Delete(id); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{toolResultsDir(dir, id), convDir(dir, id)} {
		if pathExists(p) {
			t.Errorf("%s still exists", p)
		}
	}
	if strings.Contains(readFile(t, indexPath(dir)), id) {
		t.Error("index.json still lists the deleted conversation")
	}
	if _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get deleted: %v", err)
	}
	if err := s.Delete(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
	if !pathExists(toolResultsDir(dir, keep)) || !pathExists(convDir(dir, keep)) {
		t.Error("Delete touched another conversation")
	}
	// a folder that is already gone is not an error
	os.RemoveAll(convDir(dir, keep))
	if err := s.Delete(keep); err != nil {
		t.Errorf("Delete with missing folder: %v", err)
	}
	if pathExists(toolResultsDir(dir, keep)) {
		t.Error("tool results left behind")
	}
	des, _ := os.ReadDir(conversationsDir(dir))
	for _, de := range des {
		if strings.HasPrefix(de.Name(), trashPrefix) {
			t.Errorf("trash left: %s", de.Name())
		}
	}
}

func TestDeleteInterruptedHealsOnLoad(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{LargeOutputThreshold: 10})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := mustCreate(t, s), mustCreate(t, s), mustCreate(t, s)
	for _, id := range []string{a, b, c} {
		s.Append(id, &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "t", Content: conversation.Str(strings.Repeat("z", 50))})
	}
	s.Close()
	// a: crashed after removing tool results and renaming the folder to trash
	os.RemoveAll(toolResultsDir(dir, a))
	os.Rename(convDir(dir, a), filepath.Join(conversationsDir(dir), trashPrefix+a+"-x"))
	// b: crashed after removing tool results only
	os.RemoveAll(toolResultsDir(dir, b))
	// c: folder removed by hand, tool results remain
	os.RemoveAll(convDir(dir, c))

	lb := &logBuf{}
	s = openDir(t, dir, Options{Logger: lb.logger()})
	list, _ := s.List()
	if len(list) != 1 || list[0].ID != b {
		t.Fatalf("List after crash = %+v", list)
	}
	idx := readFile(t, indexPath(dir))
	if strings.Contains(idx, a) || strings.Contains(idx, c) {
		t.Error("index.json not healed")
	}
	if pathExists(filepath.Join(conversationsDir(dir), trashPrefix+a+"-x")) || pathExists(toolResultsDir(dir, c)) {
		t.Error("leftovers not removed")
	}
	if !strings.Contains(lb.String(), "folder is gone") {
		t.Errorf("no warning logged: %s", lb.String())
	}
	if err := s.Delete(b); err != nil {
		t.Fatal(err)
	}
	// a folder removed while the store is open: List and Load drop the record
	d := mustCreate(t, s)
	os.RemoveAll(convDir(dir, d))
	if _, err := s.Load(d); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load of vanished conversation: %v", err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Errorf("List = %+v", list)
	}
	if strings.Contains(readFile(t, indexPath(dir)), d) {
		t.Error("vanished conversation still in index.json")
	}
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	if pid := strings.TrimSpace(readFile(t, filepath.Join(dir, LockFile))); pid != fmt.Sprint(os.Getpid()) {
		t.Errorf("lock file holds %q, want our pid", pid)
	}
	_, err = Open(dir, Options{Logger: discard})
	if !errors.Is(err, ErrProjectLocked) || errs.CodeOf(err) != "E_PROJECT_LOCKED" {
		t.Fatalf("second Open = %v, want ErrProjectLocked", err)
	}
	for _, want := range []string{"another crewagent process", fmt.Sprintf("pid %d", os.Getpid()), "close it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// a read-only store opens next to the writer
	ro, err := OpenReadOnly(dir, Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Options{Logger: discard})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s2.Close()
}

func TestClosed(t *testing.T) {
	s, _, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Append(id, msg(conversation.RoleUser, "x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	if _, err := s.List(); !errors.Is(err, ErrClosed) {
		t.Errorf("List after Close: %v", err)
	}
}

func TestReadOnly(t *testing.T) {
	w, dir, _ := openTest(t, Options{IndexFlushDelay: 5 * time.Millisecond})
	id := mustCreate(t, w)
	w.Append(id, msg(conversation.RoleUser, "hello"), msg(conversation.RoleAssistant, "hi"))

	ro, err := OpenReadOnly(dir, Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if !ro.ReadOnly() || w.ReadOnly() {
		t.Error("ReadOnly() wrong")
	}
	got, err := ro.Load(id)
	if err != nil || len(got) != 2 {
		t.Fatalf("read-only Load = %v, %v", got, err)
	}
	if tail, err := ro.LoadTail(id, 1); err != nil || len(tail) != 1 || tail[0].Text() != "hi" {
		t.Errorf("read-only LoadTail = %v, %v", tail, err)
	}
	writes := map[string]error{
		"Create":        func() error { _, err := ro.Create("", ""); return err }(),
		"Append":        ro.Append(id, msg(conversation.RoleUser, "x")),
		"Update":        ro.Update(id, &conversation.Entry{ID: got[0].ID, Role: conversation.RoleUser}),
		"Rename":        ro.Rename(id, "t"),
		"UpdateMeta":    ro.UpdateMeta(id, func(*conversation.ConversationMeta) {}),
		"Checkpoint":    func() error { _, err := ro.Checkpoint(id, "c"); return err }(),
		"Fork":          func() error { _, err := ro.Fork(id, ForkOptions{}); return err }(),
		"MarkCompacted": func() error { _, err := ro.MarkCompacted(id, []string{got[0].ID}, nil); return err }(),
		"Delete":        ro.Delete(id),
	}
	for name, err := range writes {
		if !errors.Is(err, ErrReadOnly) || errs.CodeOf(err) != "E_READ_ONLY" {
			t.Errorf("read-only %s = %v", name, err)
		}
	}
	// follows the writer
	id2 := mustCreate(t, w)
	if _, err := ro.Get(id2); err != nil {
		t.Errorf("read-only store does not see a new conversation: %v", err)
	}
	w.Append(id2, msg(conversation.RoleUser, "first words"))
	deadline := time.Now().Add(2 * time.Second)
	for {
		m, _ := ro.Get(id2)
		if m.MessageCount == 1 && m.Title == "first words" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("read-only store never saw the append: %+v", m)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ro.IsOwnWrite(logPath(dir, id)) {
		t.Error("read-only store claims a write")
	}
	// read-only on a directory that does not exist
	empty, err := OpenReadOnly(filepath.Join(t.TempDir(), "none"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := empty.List(); err != nil || len(l) != 0 {
		t.Errorf("List of empty dir = %v, %v", l, err)
	}
}

func TestIsOwnWrite(t *testing.T) {
	s, dir, _ := openTest(t, Options{IndexFlushDelay: -1})
	id := mustCreate(t, s)
	log := logPath(dir, id)
	if !s.IsOwnWrite(log) || !s.IsOwnWrite(convDir(dir, id)) || !s.IsOwnWrite(indexPath(dir)) {
		t.Error("Create not recognised as own write")
	}
	s.Append(id, msg(conversation.RoleUser, "x"))
	if !s.IsOwnWrite(log) || !s.IsOwnWrite(indexPath(dir)) {
		t.Error("Append not recognised as own write")
	}
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"msg","id":"ext","role":"user","content":"from outside"}` + "\n")
	f.Close()
	if s.IsOwnWrite(log) {
		t.Error("external append taken for an own write")
	}
	if s.IsOwnWrite(filepath.Join(dir, "other")) {
		t.Error("unknown path taken for an own write")
	}
	s.Delete(id)
	if !s.IsOwnWrite(convDir(dir, id)) || !s.IsOwnWrite(log) {
		t.Error("Delete not recognised as own write")
	}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, indexPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsOwnWrite(rel) {
		t.Error("relative path not resolved")
	}
}

func TestConcurrentUse(t *testing.T) {
	s, _, _ := openTest(t, Options{Counter: &lenCounter{}, IndexFlushDelay: time.Millisecond})
	convs := []string{mustCreate(t, s), mustCreate(t, s), mustCreate(t, s)}
	const writers, per = 6, 12
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			id := convs[w%len(convs)]
			for i := range per {
				if err := s.Append(id, msg(conversation.RoleUser, fmt.Sprint(w, "-", i))); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 0 {
					if _, err := s.LoadTail(id, 5); err != nil {
						t.Error(err)
					}
					if _, err := s.List(); err != nil {
						t.Error(err)
					}
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 6 {
			m, err := s.Fork(convs[0], ForkOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			if err := s.Delete(m.ID); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	for _, id := range convs {
		got, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := s.Get(id)
		want := writers / len(convs) * per
		if len(got) != want || m.MessageCount != want {
			t.Errorf("%s: %d entries, count %d, want %d", id, len(got), m.MessageCount, want)
		}
	}
}

func TestUpdateAndAppend(t *testing.T) {
	s, dir, _ := openTest(t, Options{IndexFlushDelay: -1})
	id := mustCreate(t, s)
	u, a := msg(conversation.RoleUser, "question"), msg(conversation.RoleAssistant, "answer")
	if err := s.Append(id, u, a); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "conversations", id, "messages.jsonl")
	before, _ := os.ReadFile(path)

	// An update of an entry that does not exist writes nothing at all.
	out := &conversation.Entry{ID: a.ID, Role: conversation.RoleAssistant, Content: conversation.Str("answer"), IncludeInContext: conversation.Bool(false)}
	err := s.UpdateAndAppend(id, []*conversation.Entry{out, {ID: "missing", Role: conversation.RoleUser, Content: conversation.Str("x")}}, &conversation.Entry{Type: conversation.TypeEvt, Event: "branch", Data: []byte(`{}`)})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing id: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("a failed write changed the log:\n%s", after[len(before):])
	}
	// The same id twice is refused.
	if err := s.UpdateAndAppend(id, []*conversation.Entry{out}, &conversation.Entry{ID: a.ID, Role: conversation.RoleUser, Content: conversation.Str("y")}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("duplicate id: %v", err)
	}

	evt := &conversation.Entry{Type: conversation.TypeEvt, Event: "branch", Data: []byte(`{"after":"x"}`)}
	edit := &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("question, again"), EditOf: u.ID}
	if err := s.UpdateAndAppend(id, []*conversation.Entry{out}, evt, edit); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(after[len(before):])), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"includeInContext":false`) || !strings.Contains(lines[0], `"updatedAt"`) ||
		!strings.Contains(lines[1], `"event":"branch"`) || !strings.Contains(lines[2], `"editOf":"`+u.ID+`"`) {
		t.Fatalf("appended lines:\n%s", strings.Join(lines, "\n"))
	}
	got, _ := s.Load(id)
	if !slices.Equal(ids(got), []string{u.ID, a.ID, evt.ID, edit.ID}) || got[1].InContext() || got[1].CreatedAt != a.CreatedAt {
		t.Fatalf("entries = %v, %+v", ids(got), got[1])
	}
	if m, _ := s.Get(id); m.MessageCount != 3 {
		t.Errorf("messageCount = %d, want 3 (updates are not new messages)", m.MessageCount)
	}
}
