package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestApplyDefaults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"ok":{"type":"boolean","default":false},"free":{"type":"string"}}}`)
	tests := []struct {
		name    string
		schema  json.RawMessage
		content map[string]any
		want    map[string]any
	}{
		{"all left out", schema, nil, map[string]any{"name": "John Doe", "age": 30.0, "ok": false}},
		{"given values win", schema, map[string]any{"name": "Ada", "free": "x"}, map[string]any{"name": "Ada", "free": "x", "age": 30.0, "ok": false}},
		{"no schema", nil, map[string]any{"a": 1}, map[string]any{"a": 1}},
		{"not a schema", json.RawMessage(`[1]`), map[string]any{"a": 1}, map[string]any{"a": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ApplyDefaults(tt.schema, tt.content); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzApplyDefaults: any schema a server sends is read without panicking, and what the
// user gave is kept as it is.
func FuzzApplyDefaults(f *testing.F) {
	f.Add(`{"properties":{"a":{"default":1}}}`, `{"b":2}`)
	f.Add(`{"properties":{"a":null}}`, `{}`)
	f.Add(`{"properties":[]}`, `null`)
	f.Fuzz(func(t *testing.T, schema, content string) {
		var c map[string]any
		_ = json.Unmarshal([]byte(content), &c)
		got := ApplyDefaults(json.RawMessage(schema), c)
		for k, v := range c {
			if !reflect.DeepEqual(got[k], v) {
				t.Fatalf("%q changed from %v to %v", k, v, got[k])
			}
		}
	})
}

func TestProgressString(t *testing.T) {
	for _, tt := range []struct {
		p    Progress
		want string
	}{
		{Progress{Progress: 3, Total: 10, Message: "copying\nfiles"}, "3/10 copying files"},
		{Progress{Progress: 0.5}, "0.50"},
		{Progress{Progress: 2, Message: "  "}, "2"},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.p, got, tt.want)
		}
	}
}
