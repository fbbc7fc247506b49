package packages

import (
	"encoding/json"
	"testing"
)

// An agent's tools block: fs on and MCP off unless it says otherwise; the command tool on
// unless its shell block turns it off.
func TestAgentToolPolicyDefaults(t *testing.T) {
	tests := []struct {
		name                       string
		doc                        string
		wantFS, wantMCP, wantShell bool
	}{
		{"no tools block", `{"id":"a"}`, true, false, true},
		{"empty tools block", `{"id":"a","tools":{}}`, true, false, true},
		{"commands off", `{"id":"a","tools":{"shell":{"enabled":false}}}`, true, false, false},
		{"commands on, fs off", `{"id":"a","tools":{"fs":{"enabled":false},"shell":{"enabled":true}}}`, false, false, true},
		{"a shell block without enabled", `{"id":"a","tools":{"shell":{}}}`, true, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a Agent
			if err := json.Unmarshal([]byte(tc.doc), &a); err != nil {
				t.Fatal(err)
			}
			if a.Tools.FS.Enabled != tc.wantFS || a.Tools.MCP.Enabled != tc.wantMCP || a.Tools.Shell.Enabled != tc.wantShell {
				t.Fatalf("tools %+v", a.Tools)
			}
		})
	}
}
