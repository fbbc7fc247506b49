package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

func TestUIAskUser(t *testing.T) {
	var shown []Widget
	hs := newHarness(t, func(c *Config) {
		c.AskUser = AskUserFunc(func(_ context.Context, w Widget) error {
			shown = append(shown, w)
			return nil
		})
	})
	ctx := WithToolCallID(context.Background(), "call_9")
	res := hs.h.Call(ctx, conversation.ToolUIAskUser, `{"type":"selection","prompt":"Pick a tone","options":["formal",{"value":"casual","label":"Casual tone"}]}`)
	if !res.OK || res.Pending == nil {
		t.Fatalf("result: %s", res.Content)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Content), &m); err != nil {
		t.Fatal(err)
	}
	if m["pending"] != true || m["widgetId"] != "w1" {
		t.Fatalf("content: %s", res.Content)
	}
	w := *res.Pending
	if w.ID != "w1" || w.ToolCallID != "call_9" || w.CreatedAt != "2025-01-02T03:04:05.000Z" ||
		len(w.Options) != 2 || w.Options[0] != (WidgetOption{"formal", "formal"}) || w.Options[1] != (WidgetOption{"casual", "Casual tone"}) {
		t.Fatalf("widget: %+v", w)
	}
	if len(shown) != 1 || shown[0].ID != "w1" {
		t.Fatalf("handler saw %v", shown)
	}
	if p := hs.h.PendingWidgets(); len(p) != 1 || p[0].ID != "w1" {
		t.Fatalf("pending: %v", p)
	}
	if terr := w.ValidateAnswer(WidgetAnswer{Selected: "casual"}); terr != nil {
		t.Fatal(terr)
	}
	if terr := w.ValidateAnswer(WidgetAnswer{Selected: "rude"}); terr == nil || terr.Code != CodeBadArguments {
		t.Fatalf("bad selection accepted: %v", terr)
	}
	if got := w.AnswerText(WidgetAnswer{Selected: "casual"}); got != "Answer to \"Pick a tone\" (widget w1):\nCasual tone" {
		t.Fatalf("answer text %q", got)
	}
	if _, ok := hs.h.ResolveWidget("w1"); !ok {
		t.Fatal("resolve failed")
	}
	if _, ok := hs.h.ResolveWidget("w1"); ok {
		t.Fatal("resolved twice")
	}
	if len(hs.h.PendingWidgets()) != 0 {
		t.Fatal("still pending")
	}

	m = hs.mustOK(conversation.ToolUIAskUser, map[string]any{"type": "confirmation", "prompt": "Proceed?"})
	if m["widgetId"] != "w2" {
		t.Fatalf("confirmation: %v", m)
	}
	form := hs.mustOK(conversation.ToolUIAskUser, map[string]any{"type": "form", "prompt": "Details", "fields": []map[string]any{
		{"name": "title", "label": "Title", "required": true},
		{"name": "pages", "label": "Pages", "type": "number"},
		{"name": "draft", "label": "Draft", "type": "boolean"},
		{"name": "kind", "label": "Kind", "type": "select", "options": []string{"a", "b"}},
	}})
	fw := hs.h.PendingWidgets()[1]
	if fw.ID != form["widgetId"] || fw.Fields[0].Type != FieldText {
		t.Fatalf("form widget: %+v", fw)
	}
	good := WidgetAnswer{Values: map[string]any{"title": "T", "pages": 3.0, "draft": true, "kind": "b"}}
	if terr := fw.ValidateAnswer(good); terr != nil {
		t.Fatal(terr)
	}
	for _, bad := range []WidgetAnswer{
		{Values: map[string]any{"pages": 3.0}},
		{Values: map[string]any{"title": "T", "pages": "three"}},
		{Values: map[string]any{"title": "T", "draft": "yes"}},
		{Values: map[string]any{"title": "T", "kind": "c"}},
		{Values: map[string]any{"title": "T", "other": 1}},
	} {
		if terr := fw.ValidateAnswer(bad); terr == nil {
			t.Errorf("accepted %v", bad.Values)
		}
	}
	if txt := fw.AnswerText(good); !strings.Contains(txt, "- title: T\n- pages: 3\n- draft: true\n- kind: b") {
		t.Fatalf("form answer text %q", txt)
	}
	cw := hs.h.PendingWidgets()[0]
	if terr := cw.ValidateAnswer(WidgetAnswer{}); terr == nil {
		t.Fatal("confirmation without answer accepted")
	}
}

func TestUIAskUserInvalid(t *testing.T) {
	hs := newHarness(t, nil)
	for _, args := range []string{
		`{"prompt":"x"}`,
		`{"type":"wizard","prompt":"x"}`,
		`{"type":"confirmation"}`,
		`{"type":"confirmation","prompt":"   "}`,
		`{"type":"confirmation","prompt":"x","options":["a"]}`,
		`{"type":"selection","prompt":"x"}`,
		`{"type":"selection","prompt":"x","options":["a","a"]}`,
		`{"type":"selection","prompt":"x","options":[""]}`,
		`{"type":"selection","prompt":"x","options":[1]}`,
		`{"type":"selection","prompt":"x","fields":[{"name":"a","label":"A"}],"options":["a"]}`,
		`{"type":"form","prompt":"x"}`,
		`{"type":"form","prompt":"x","fields":[{"name":"","label":"A"}]}`,
		`{"type":"form","prompt":"x","fields":[{"name":"a","label":"A"},{"name":"a","label":"B"}]}`,
		`{"type":"form","prompt":"x","fields":[{"name":"a","label":"A","type":"date"}]}`,
		`{"type":"form","prompt":"x","fields":[{"name":"a","label":"A","type":"select"}]}`,
		`{"type":"form","prompt":"x","fields":[{"name":"a","label":"A","options":["x"]}]}`,
		`{"type":"confirmation","prompt":"` + strings.Repeat("x", maxPromptBytes+1) + `"}`,
	} {
		hs.mustFail(conversation.ToolUIAskUser, args, CodeBadArguments)
	}
	if len(hs.h.PendingWidgets()) != 0 {
		t.Fatal("invalid widgets left pending")
	}
}

func TestUIAskUserHandlerError(t *testing.T) {
	hs := newHarness(t, func(c *Config) {
		c.AskUser = AskUserFunc(func(context.Context, Widget) error { return errors.New("ui gone") })
	})
	hs.mustFail(conversation.ToolUIAskUser, map[string]any{"type": "confirmation", "prompt": "ok?"}, CodeInternal)
	if len(hs.h.PendingWidgets()) != 0 {
		t.Fatal("failed widget left pending")
	}
}
