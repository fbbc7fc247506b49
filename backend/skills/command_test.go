package skills

import (
	"encoding/json"
	"testing"

	"crewagent/backend/conversation"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in   string
		want Command
		ok   bool
	}{
		{"/skill pptx", Command{Name: "pptx"}, true},
		{"  /skill   pptx  ", Command{Name: "pptx"}, true},
		{"/skill off pptx", Command{Off: true, Name: "pptx"}, true},
		{"/skill off off", Command{Off: true, Name: "off"}, true},
		{"/skill off", Command{Off: true}, true},
		{"/skill", Command{}, true},
		{"/skills pptx", Command{}, false},
		{"/skill pptx and more words", Command{}, false},
		{"please use /skill pptx", Command{}, false},
		{"", Command{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseCommand(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseCommand(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestToolArgsAndDefs(t *testing.T) {
	for in, want := range map[string]string{`{"name":"pptx"}`: "pptx", `{"name":"  pdf "}`: "pdf"} {
		if got, err := ToolArgs(json.RawMessage(in)); err != nil || got != want {
			t.Errorf("ToolArgs(%s) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{``, `{}`, `{"name":""}`, `{"name":3}`, `{"name":"x","extra":1}`, `[1]`, `{"name":"x"`} {
		if _, err := ToolArgs(json.RawMessage(in)); err == nil || err.(*Error).Code != CodeBadArguments {
			t.Errorf("ToolArgs(%s) = %v", in, err)
		}
	}
	defs := ToolDefs()
	if len(defs) != 2 || defs[0].Name != conversation.ToolSkillActivate || defs[1].Name != conversation.ToolSkillDeactivate {
		t.Fatalf("%+v", defs)
	}
	for _, d := range defs {
		var schema map[string]any
		if err := json.Unmarshal(d.Parameters, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s schema: %v", d.Name, err)
		}
	}
}
