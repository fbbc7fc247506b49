package desktop

import (
	"strings"
	"testing"
)

func TestReadNotification(t *testing.T) {
	long := strings.Repeat("x", 400)
	tests := []struct {
		name string
		data []any
		want notification
		ok   bool
	}{
		{"title and body", []any{map[string]any{"title": "Reply ready", "body": "Offsite planning"}}, notification{"Reply ready", "Offsite planning"}, true},
		{"title only", []any{map[string]any{"title": " Run finished "}}, notification{"Run finished", ""}, true},
		{"no title", []any{map[string]any{"body": "x"}}, notification{"", "x"}, false},
		{"not an object", []any{"Reply ready"}, notification{}, false},
		{"nothing", nil, notification{}, false},
		{"a long body is cut", []any{map[string]any{"title": "t", "body": long}}, notification{"t", strings.Repeat("x", maxNotifyChars-1) + "…"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := readNotification(tt.data)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("readNotification = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
