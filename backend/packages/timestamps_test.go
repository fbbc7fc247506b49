package packages

import (
	"reflect"
	"testing"
)

func TestWithoutEmptyTimestamps(t *testing.T) {
	in := map[string]any{
		"updatedAt":   "",
		"keep":        "",
		"decisionLog": []any{map[string]any{"from": "a", "to": "b", "label": "x", "decidedAt": " "}, map[string]any{"from": "b", "to": "c", "label": "y", "decidedAt": "2025-01-02T03:04:05Z"}},
	}
	got := WithoutEmptyTimestamps(in)
	want := map[string]any{
		"keep":        "",
		"decisionLog": []any{map[string]any{"from": "a", "to": "b", "label": "x"}, map[string]any{"from": "b", "to": "c", "label": "y", "decidedAt": "2025-01-02T03:04:05Z"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v", got)
	}
	if in["updatedAt"] != "" || in["decisionLog"].([]any)[0].(map[string]any)["decidedAt"] != " " {
		t.Fatal("the input was changed")
	}
	if got := WithoutEmptyTimestamps(map[string]any{"updatedAt": "2025-01-02T03:04:05Z"}); got["updatedAt"] == nil {
		t.Fatal("a real timestamp was dropped")
	}
}
