package mcp

import (
	"reflect"
	"testing"
)

func TestNarrow(t *testing.T) {
	base := []string{"github", "files.local", "search"}
	for _, tt := range []struct {
		name   string
		limits [][]string
		want   []string
	}{
		{"no limits", nil, base},
		{"nil limits do not narrow", [][]string{nil, nil}, base},
		{"settings list", [][]string{{"search", "github"}}, []string{"github", "search"}},
		{"agent narrows the settings", [][]string{{"search", "github"}, {"github"}}, []string{"github"}},
		{"child narrows the agent", [][]string{nil, {"github", "search"}, {"search", "unknown"}}, []string{"search"}},
		{"an empty list allows none", [][]string{{}}, []string{}},
		{"an agent cannot widen", [][]string{{"github"}, {"github", "search"}}, []string{"github"}},
		{"wire forms match", [][]string{{"files_local"}}, []string{"files.local"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Narrow(base, tt.limits...); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFilterToolsAndToolAllowed(t *testing.T) {
	tools := []Tool{{Server: "a", WireName: "mcp__a__x"}, {Server: "b.c", WireName: "mcp__b_c__y"}, {Server: "d", WireName: "mcp__d__z"}}
	got := FilterTools(tools, []string{"b.c", "d"})
	if len(got) != 2 || got[0].Server != "b.c" || got[1].Server != "d" {
		t.Fatalf("FilterTools: %+v", got)
	}
	if len(FilterTools(tools, nil)) != 0 {
		t.Fatal("FilterTools with no servers kept tools")
	}
	for _, tt := range []struct {
		wire    string
		servers []string
		want    bool
	}{
		{"mcp__a__x", []string{"a"}, true},
		{"mcp__b_c__y", []string{"b.c"}, true},
		{"mcp__a__x", []string{"b.c"}, false},
		{"mcp__a__x", nil, false},
		{"fs.read", []string{"a"}, false},
	} {
		if got := ToolAllowed(tt.wire, tt.servers); got != tt.want {
			t.Errorf("ToolAllowed(%q, %v) = %v", tt.wire, tt.servers, got)
		}
	}
}
