package conversation

import "testing"

func TestToolNames(t *testing.T) {
	tests := []struct {
		name, dotted, family string
		mcp                  bool
	}{
		{"fs.read", "fs.read", "fs", false},
		{"fs_apply_patch", "fs.apply_patch", "fs", false},
		{"shell_run", "shell.run", "shell", false},
		{"conv_create", "conv.create", "conv", false},
		{"skill_activate", "skill.activate", "skill", false},
		{"ui_ask_user", "ui.ask_user", "ui", false},
		{"mcp__github__list_issues", "mcp__github__list_issues", "", true},
		{"other_tool", "other_tool", "", false},
		{"plain", "plain", "", false},
	}
	for _, tt := range tests {
		d := DottedToolName(tt.name)
		if d != tt.dotted || ToolFamily(d) != tt.family || IsMCPTool(tt.name) != tt.mcp {
			t.Errorf("%q: dotted %q family %q mcp %v", tt.name, d, ToolFamily(d), IsMCPTool(tt.name))
		}
	}
	if !IsHandoverTool("conv_send") || !IsHandoverTool(ToolConvCreate) || IsHandoverTool(ToolConvList) {
		t.Error("IsHandoverTool")
	}
}
