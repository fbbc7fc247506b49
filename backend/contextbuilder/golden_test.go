package contextbuilder

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/conversation"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const runDirective = `RUN_DIRECTIVE
- runType: bmad-micro
- intent: continue
- workflow: product-brief
- state: @state/workflow.md
- graph: @pkg/workflows/product-brief/workflow.graph.json
- artifactsRoot: @project/artifacts/
- currentNodeId: n1-discovery
- effectiveAgentId: analyst
- autopilot: true
Protocol:
1) Read @state/workflow.md frontmatter to get currentNodeId.
2) Read the graph and open the step file for currentNodeId.
3) Follow the step instructions exactly.
4) If the step requires user answers, ask the user and WAIT.
5) Only after you have required inputs: write artifacts under @project/artifacts/... and
   update @state/workflow.md frontmatter.`

const nodeBrief = `NODE_BRIEF
- currentNodeId: n1-discovery (type=step)
- stepFile: @pkg/workflows/product-brief/steps/n1-discovery.md
- outputs: {brief: @project/artifacts/brief.md}
- allowedNext: [n2-scope (label: next, default: true)]`

const postRunDirective = `RUN_DIRECTIVE
- runType: bmad-micro
- intent: post-run
- workflow: product-brief
- state: @state/workflow.md
- artifactsRoot: @project/artifacts/
- effectiveAgentId: analyst
Post-Run Protocol:
1) The workflow is complete; there is no active step.
2) Answer questions about the run and its artifacts.
3) Any change to @state/workflow.md needs the user's explicit confirmation first.`

// storeCounts fills the token counts the store computes at append time.
func storeCounts(h []conversation.Entry) []conversation.Entry {
	for i := range h {
		if h[i].IsMessage() && h[i].Tokens == 0 {
			h[i].Tokens = counter.CountMessage(testModel, &h[i])
		}
	}
	return h
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		log   string
		mode  string
		run   RunInjector
		limit Budget
		omit  bool // includeToolResultsInContext=false
	}{
		{"chat", "conversation.jsonl", conversation.ModeChat, nil, Budget{}, false},
		{"agent", "conversation.jsonl", conversation.ModeAgent, nil, Budget{}, false},
		{"agent-trimmed", "conversation.jsonl", conversation.ModeAgent, nil, Budget{TokenBudget: 1380}, false},
		{"agent-summary", "summary.jsonl", conversation.ModeAgent, nil, Budget{}, false},
		{"run", "run.jsonl", conversation.ModeRun, fakeRun{runDirective, nodeBrief}, Budget{}, false},
		{"run-post-completion", "run.jsonl", conversation.ModeRun, fakeRun{postRunDirective}, Budget{}, false},
		{"agent-tool-results", "tool-results.jsonl", conversation.ModeAgent, nil, Budget{}, false},
		{"agent-tool-results-omitted", "tool-results.jsonl", conversation.ModeAgent, nil, Budget{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := storeCounts(readLog(t, filepath.Join("testdata", tt.log)))
			o := opts(tt.mode, h)
			o.Run = tt.run
			o.Budget = tt.limit
			o.OmitToolResults = tt.omit
			o.ToolTokens = 420
			res := mustBuild(t, o)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s differs from the built request (run with -update after checking the change):\n%s", path, buf.String())
			}
		})
	}
}
