package tools_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/convtools"
	"crewagent/backend/tools"
)

// The JSON schema the model sees of each tool is written by hand beside the
// struct its arguments decode into; the two must say the same: the same
// property names, the fields without omitempty required (at the top), and
// matching types (recursively, through lists and objects that list their
// properties).
func TestToolSchemasMatchTheirParams(t *testing.T) {
	params := map[string]any{
		conversation.ToolFSList:       tools.FSListParams{},
		conversation.ToolFSRead:       tools.FSReadParams{},
		conversation.ToolFSSearch:     tools.FSSearchParams{},
		conversation.ToolFSWrite:      tools.FSWriteParams{},
		conversation.ToolFSApplyPatch: tools.FSApplyPatchParams{},
		conversation.ToolShellRun:     tools.ShellRunParams{},
		conversation.ToolUIAskUser:    tools.UIAskUserParams{},
		convtools.Create:              convtools.CreateArgs{},
		convtools.Send:                convtools.SendArgs{},
		convtools.List:                struct{}{},
		convtools.History:             convtools.HistoryArgs{},
		convtools.Destroy:             convtools.DestroyArgs{},
	}
	policy := tools.DefaultPolicy()
	policy.Shell.Enabled = true
	defs := append(tools.NewHost(tools.Config{Roots: tools.Roots{Project: t.TempDir()}, Policy: policy}).Tools(), convtools.Defs()...)
	seen := map[string]bool{}
	for _, d := range defs {
		p, ok := params[d.Name]
		if !ok {
			t.Errorf("%s: no params struct to check its schema against", d.Name)
			continue
		}
		seen[d.Name] = true
		var schema map[string]any
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			t.Errorf("%s: the schema is not JSON: %v", d.Name, err)
			continue
		}
		for _, problem := range compareSchema(schema, reflect.TypeOf(p), d.Name, true) {
			if !slices.Contains(notOffered, problem) {
				t.Error(problem)
			}
		}
	}
	for name := range params {
		if !seen[name] {
			t.Errorf("%s: not offered (DefaultPolicy with shell on, convtools.Defs)", name)
		}
	}
}

// notOffered are the differences on purpose: an image item is decoded only to
// be reported as ignored (only text parts are sent), so the schema does not
// offer image_url.
var notOffered = []string{
	convtools.Create + ".items[].image_url: in the struct, not in the schema",
	convtools.Send + ".items[].image_url: in the struct, not in the schema",
}

var unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// compareSchema lists where schema and the Go type typ disagree (at is the
// path for the messages; top: required is checked).
func compareSchema(schema map[string]any, typ reflect.Type, at string, top bool) []string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == reflect.TypeOf(json.RawMessage{}) || reflect.PointerTo(typ).Implements(unmarshaler) {
		return nil // decodes itself: any shape its schema allows
	}
	var out []string
	if want := jsonType(typ); want != "" {
		if got, ok := schema["type"].(string); ok && got != want {
			out = append(out, at+": the schema says "+got+", the struct has "+typ.String())
		}
	}
	switch typ.Kind() {
	case reflect.Slice:
		if items, ok := schema["items"].(map[string]any); ok {
			out = append(out, compareSchema(items, typ.Elem(), at+"[]", false)...)
		}
	case reflect.Struct:
		props, ok := schema["properties"].(map[string]any)
		if !ok {
			return out // an object the schema does not detail
		}
		fields := map[string]reflect.StructField{}
		var required []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields[name] = f
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
		for name := range props {
			if _, ok := fields[name]; !ok {
				out = append(out, at+"."+name+": in the schema, not in the struct")
			}
		}
		for name, f := range fields {
			p, ok := props[name].(map[string]any)
			if !ok {
				out = append(out, at+"."+name+": in the struct, not in the schema")
				continue
			}
			out = append(out, compareSchema(p, f.Type, at+"."+name, false)...)
		}
		if top {
			var got []string
			if r, ok := schema["required"].([]any); ok {
				for _, n := range r {
					got = append(got, n.(string))
				}
			}
			sort.Strings(got)
			sort.Strings(required)
			if !slices.Equal(got, required) {
				out = append(out, at+": the schema requires "+strings.Join(got, ", ")+"; the struct's fields without omitempty are "+strings.Join(required, ", "))
			}
		}
	}
	return out
}

// jsonType is the JSON schema type of a Go type ("" when any will do).
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return ""
}

// The comparison itself finds what differs.
func TestCompareSchema(t *testing.T) {
	type inner struct {
		A string `json:"a"`
	}
	type params struct {
		Path  string  `json:"path"`
		Count *int    `json:"count,omitempty"`
		List  []inner `json:"list,omitempty"`
	}
	tests := []struct {
		name, schema, want string
	}{
		{"equal", `{"type":"object","properties":{"path":{"type":"string"},"count":{"type":"integer"},"list":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}}},"required":["path"]}`, ""},
		{"a property too many", `{"properties":{"path":{},"count":{},"list":{},"extra":{}},"required":["path"]}`, "x.extra: in the schema, not in the struct"},
		{"a property missing", `{"properties":{"path":{},"list":{}},"required":["path"]}`, "x.count: in the struct, not in the schema"},
		{"a type", `{"properties":{"path":{"type":"integer"},"count":{},"list":{}},"required":["path"]}`, "x.path: the schema says integer, the struct has string"},
		{"a nested type", `{"properties":{"path":{},"count":{},"list":{"items":{"properties":{"a":{"type":"boolean"}}}}},"required":["path"]}`, "x.list[].a: the schema says boolean, the struct has string"},
		{"required", `{"properties":{"path":{},"count":{},"list":{}},"required":["path","count"]}`, "x: the schema requires count, path; the struct's fields without omitempty are path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s map[string]any
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(compareSchema(s, reflect.TypeOf(params{}), "x", true), "\n")
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
