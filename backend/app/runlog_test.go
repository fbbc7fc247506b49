package app

import (
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

func TestLogLineWords(t *testing.T) {
	info := &conversation.RunInfo{Nodes: map[string]conversation.RunNode{"draft-brief": {Title: "Draft the brief", Type: "step"}}}
	tests := []struct{ line, want string }{
		{`{"ts":"t","type":"run_created","runId":"4e67","workflowId":"write-brief"}`, "The run was created"},
		{`{"ts":"t","type":"turn_start","intent":"start","input":true}`, "The run started"},
		{`{"ts":"t","type":"turn_start","intent":"continue","input":true}`, "A turn started with your message"},
		{`{"ts":"t","type":"turn_start","intent":"resume","input":false}`, "A turn started"},
		{`{"ts":"t","type":"tool_call","tool":"fs.read","args":{"path":"@state/workflow.md"},"ok":true}`, "Read the run's state"},
		{`{"ts":"t","type":"tool_call","tool":"fs.write","args":{"path":"@project/artifacts/brief.md","content":"…"},"ok":false,"code":"E_SANDBOX_VIOLATION"}`, "Tried: wrote brief.md (failed)"},
		{`{"ts":"t","type":"tool_call","tool":"fs.apply_patch","args":{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"currentNodeId":{"set":"draft-brief"}}},"ok":true}`, "Moved to “Draft the brief”"},
		{`{"ts":"t","type":"turn_end","phase":"waiting-user","requests":3}`, "The turn ended: waiting for you (3 model requests)"},
		{`{"ts":"t","type":"turn_end","phase":"completed","requests":1}`, "The turn ended: the run is complete (1 model request)"},
		{`{"ts":"t","type":"artifact_recorded","path":"artifacts/idea-notes.md"}`, "Recorded the file idea-notes.md among the run's artifacts"},
		{`{"ts":"t","type":"artifact_rollback","path":"artifacts/x.md","removed":true}`, "Removed x.md: the run could not record it"},
		{`{"ts":"t","type":"something_new"}`, "Something new"},
		{`garbage`, "A line the app cannot read"},
	}
	for _, tt := range tests {
		l := parseExecLine(tt.line)
		got := logLineWords(l, info)
		if got != tt.want {
			t.Errorf("logLineWords(%s) = %q, want %q", tt.line, got, tt.want)
		}
		for _, leak := range []string{"@state", "@project", "draft-brief", "E_", "_"} {
			if strings.Contains(got, leak) {
				t.Errorf("logLineWords(%s) names %q: %q", tt.line, leak, got)
			}
		}
	}
}
