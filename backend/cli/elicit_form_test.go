package cli

import (
	"encoding/json"
	"testing"
)

func TestElicitFieldParse(t *testing.T) {
	fields := elicitFields(json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"},"s":{"type":"string"},
		"e":{"type":"string","enum":["red","blue"]},"o":{"type":"string","oneOf":[{"const":"a"},{"const":"b"}]}},
		"required":["s"]}`))
	if len(fields) != 6 || fields[0].name != "s" || !fields[0].required {
		t.Fatalf("fields %+v", fields)
	}
	by := map[string]elicitField{}
	for _, f := range fields {
		by[f.name] = f
	}
	tests := []struct {
		field, in string
		want      any
		bad       bool
	}{
		{"n", "42", int64(42), false},
		{"n", "4.2", nil, true},
		{"x", "4.5", 4.5, false},
		{"x", "x", nil, true},
		{"b", "Yes", true, false},
		{"b", "false", false, false},
		{"b", "maybe", nil, true},
		{"s", "anything at all", "anything at all", false},
		{"e", "blue", "blue", false},
		{"e", "1", "red", false},
		{"e", "3", nil, true},
		{"e", "green", nil, true},
		{"o", "b", "b", false},
	}
	for _, tt := range tests {
		got, err := by[tt.field].parse(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("%s %q: %v %v", tt.field, tt.in, got, err)
		}
	}
}

// FuzzElicitForm: any form a server sends is read without panicking, and what the user
// types is either a value of the field's type or a message.
func FuzzElicitForm(f *testing.F) {
	f.Add(`{"properties":{"a":{"type":"integer"}},"required":["a"]}`, "12")
	f.Add(`{"properties":{"e":{"enum":["x"]}}}`, "1")
	f.Add(`{"properties":{"o":{"oneOf":[{"const":1}]}}}`, "x")
	f.Fuzz(func(t *testing.T, schema, in string) {
		for _, fd := range elicitFields(json.RawMessage(schema)) {
			v, err := fd.parse(in)
			if err != nil {
				continue
			}
			switch fd.typ {
			case "integer":
				if _, ok := v.(int64); !ok && len(fd.enum) == 0 {
					t.Fatalf("integer field gave %T", v)
				}
			case "boolean":
				if _, ok := v.(bool); !ok && len(fd.enum) == 0 {
					t.Fatalf("boolean field gave %T", v)
				}
			}
		}
	})
}
