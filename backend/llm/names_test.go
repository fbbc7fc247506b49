package llm

import (
	"strings"
	"testing"
)

func TestWireName(t *testing.T) {
	long := strings.Repeat("a.", 40)
	tests := []struct{ in, want string }{
		{"fs.read", "fs_read"},
		{"fs_read", "fs_read"},
		{"ui.ask_user", "ui_ask_user"},
		{"bmad-core.agent:run", "bmad-core_agent_run"},
		{"ünïcode", "__n__code"},
		{"", "_"},
		{"a b/c", "a_b_c"},
	}
	for _, tt := range tests {
		if got := WireName(tt.in); got != tt.want {
			t.Errorf("WireName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	w := WireName(long)
	if len(w) != 64 || !ValidWireName(w) || w == WireName(long+"b") {
		t.Errorf("long name %q", w)
	}
}

func TestNameMapRoundTrip(t *testing.T) {
	tests := []struct {
		names []string
		wire  []string
	}{
		{[]string{"fs.read", "fs.list", "ui.ask_user"}, []string{"fs_read", "fs_list", "ui_ask_user"}},
		// a valid name keeps its form; the dotted one that collides with it gets a suffix
		{[]string{"fs.read", "fs_read"}, []string{"fs_read_2", "fs_read"}},
		{[]string{"a.b", "a:b", "a/b"}, []string{"a_b", "a_b_2", "a_b_3"}},
		{[]string{"x", "x"}, []string{"x", "x"}},
	}
	for _, tt := range tests {
		m := NewNameMap(tt.names...)
		for i, n := range tt.names {
			w := m.Wire(n)
			if w != tt.wire[i] {
				t.Errorf("%v: Wire(%q) = %q, want %q", tt.names, n, w, tt.wire[i])
			}
			if !ValidWireName(w) {
				t.Errorf("invalid wire name %q", w)
			}
			if back := m.Name(w); back != n {
				t.Errorf("%v: Name(%q) = %q, want %q", tt.names, w, back, n)
			}
		}
	}
	m := NewNameMap("fs.read")
	if m.Name("fs.read") != "fs.read" || m.Name("unknown_tool") != "unknown_tool" || m.Wire("other.tool") != "other_tool" {
		t.Error("names outside the map are not passed through")
	}
}

func FuzzNameMap(f *testing.F) {
	f.Add("fs.read", "fs_read")
	f.Add("ui.ask_user", "ui:ask.user")
	f.Add(strings.Repeat("x.", 40), strings.Repeat("x_", 40))
	f.Fuzz(func(t *testing.T, a, b string) {
		m := NewNameMap(a, b)
		wa, wb := m.Wire(a), m.Wire(b)
		if !ValidWireName(wa) || !ValidWireName(wb) {
			t.Fatalf("invalid wire names %q %q", wa, wb)
		}
		if m.Name(wa) != a || m.Name(wb) != b {
			t.Fatalf("round trip failed: %q->%q->%q, %q->%q->%q", a, wa, m.Name(wa), b, wb, m.Name(wb))
		}
		if a != b && wa == wb {
			t.Fatalf("distinct names %q %q share wire name %q", a, b, wa)
		}
	})
}
