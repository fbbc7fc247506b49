package mcp

import (
	"strings"
	"testing"
)

func TestServerNames(t *testing.T) {
	for _, tt := range []struct {
		name, wire string
		ok         bool
	}{
		{"github", "github", true},
		{"my-server_2", "my-server_2", true},
		{"files.local", "files_local", true},
		{"Café", "Caf_", false}, // ends in "_" on the wire
		{"über", "_ber", true},
		{"a..b", "a__b", false},
		{"a b", "a_b", true},
		{"tools ", "tools_", false},
		{"", "", false},
		{strings.Repeat("x", MaxServerNameLen), strings.Repeat("x", MaxServerNameLen), true},
		{strings.Repeat("x", MaxServerNameLen+1), strings.Repeat("x", MaxServerNameLen+1), false},
		{"tab\there", "tab_here", false},
		{"bad\xffutf8", "bad_utf8", false},
	} {
		if got := ServerWireName(tt.name); got != tt.wire {
			t.Errorf("ServerWireName(%q) = %q, want %q", tt.name, got, tt.wire)
		}
		if err := CheckServerName(tt.name); (err == nil) != tt.ok {
			t.Errorf("CheckServerName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestWireNamesSplitBack(t *testing.T) {
	for _, tt := range []struct{ server, tool, wire string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"files.local", "read.file", "mcp__files_local__read_file"},
		{"everything", "get-sum", "mcp__everything__get-sum"},
		{"s", "a__b", "mcp__s__a__b"}, // "__" in a tool is fine: the server part ends at the first one
	} {
		w := WireName(tt.server, tt.tool)
		if w != tt.wire {
			t.Errorf("WireName(%q, %q) = %q, want %q", tt.server, tt.tool, w, tt.wire)
		}
		sw, tw, ok := SplitWireName(w)
		if !ok || sw != ServerWireName(tt.server) || tw != strings.TrimPrefix(w, WirePrefix+sw+"__") {
			t.Errorf("SplitWireName(%q) = %q, %q, %v", w, sw, tw, ok)
		}
		if !IsWireName(w) {
			t.Errorf("IsWireName(%q) is false", w)
		}
	}
	for _, bad := range []string{"fs.read", "mcp__", "mcp__x", "mcp____t", "mcp__x__", "mcp_x__t"} {
		if _, _, ok := SplitWireName(bad); ok {
			t.Errorf("SplitWireName(%q) accepted it", bad)
		}
	}
}

func TestToolWireNamesAreUniqueAndShort(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 5)
	names := toolWireNames("srv", []string{"get.item", "get_item", "get item", long, long + "2", "ok"})
	seen := map[string]bool{}
	for i, w := range names {
		if len(w) > MaxWireNameLen || seen[w] || !strings.HasPrefix(w, "mcp__srv__") {
			t.Errorf("name %d: %q (len %d, dup %v)", i, w, len(w), seen[w])
		}
		for _, r := range w {
			if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				t.Errorf("name %q has %q", w, r)
			}
		}
		seen[w] = true
	}
	if names[0] != "mcp__srv__get_item" || names[5] != "mcp__srv__ok" {
		t.Errorf("plain names changed: %v", names)
	}
	if !strings.HasPrefix(names[1], "mcp__srv__get_item_") || len(names[1]) != len("mcp__srv__get_item_")+8 {
		t.Errorf("collision not resolved with a hash: %q", names[1])
	}
	// Stable: the same list gives the same names.
	again := toolWireNames("srv", []string{"get.item", "get_item", "get item", long, long + "2", "ok"})
	for i := range names {
		if names[i] != again[i] {
			t.Fatalf("names not stable: %v vs %v", names, again)
		}
	}
	// The longest server name still leaves room.
	maxServer := strings.Repeat("s", MaxServerNameLen)
	for _, w := range toolWireNames(maxServer, []string{long}) {
		if len(w) > MaxWireNameLen {
			t.Fatalf("%q is too long", w)
		}
	}
}
