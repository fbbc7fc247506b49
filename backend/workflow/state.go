package workflow

import (
	"slices"
	"strings"

	"crewagent/backend/packages"
)

// StateFile is the run state file inside runs/<runId>/state/ (the model sees @state/workflow.md).
const StateFile = "workflow.md"

// StateAlias is the state file as the model addresses it.
const StateAlias = "@state/" + StateFile

// StatusComplete is the value of variables.workflowStatus that marks a finished workflow.
const StatusComplete = "complete"

// State is the frontmatter of a run's workflow.md, read leniently: fields of the wrong type
// read as empty (the guard is what enforces the schema on writes).
type State struct {
	// Fields is the whole frontmatter, JSON-compatible.
	Fields         map[string]any
	CurrentNodeID  string
	StepsCompleted []string
	Variables      map[string]any
	Artifacts      []string
	RunID          string
}

// ParseState reads the frontmatter of a state file.
func ParseState(content []byte) (*State, error) {
	fm, _, err := packages.ParseFrontmatter(content)
	if err != nil {
		return nil, err
	}
	return stateFromFields(fm), nil
}

func stateFromFields(fm map[string]any) *State {
	st := &State{Fields: fm}
	st.CurrentNodeID, _ = fm["currentNodeId"].(string)
	st.RunID, _ = fm["runId"].(string)
	st.StepsCompleted = stringList(fm["stepsCompleted"])
	st.Artifacts = stringList(fm["artifacts"])
	st.Variables, _ = fm["variables"].(map[string]any)
	return st
}

// stringList returns the string items of a list value (other items are skipped).
func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// EffectiveNode is the node the run is at: currentNodeId, or the graph's entry node when
// the run has not started ("").
func (st *State) EffectiveNode(g *packages.Graph) string {
	if st.CurrentNodeID == "" && g != nil {
		return g.EntryNodeID
	}
	return st.CurrentNodeID
}

// Complete reports whether the workflow is finished: variables.workflowStatus is
// "complete" (authoritative), or the current node is an end node listed in stepsCompleted.
func (st *State) Complete(g *packages.Graph) bool {
	if s, _ := st.Variables["workflowStatus"].(string); s == StatusComplete {
		return true
	}
	cur := st.EffectiveNode(g)
	return g != nil && g.IsEnd(cur) && slices.Contains(st.StepsCompleted, cur)
}

// Started reports whether the run has made any recorded progress.
func (st *State) Started() bool {
	return st.CurrentNodeID != "" || len(st.StepsCompleted) > 0
}

// NextEdge describes one allowed transition from a node.
type NextEdge struct {
	To            string `json:"to"`
	Label         string `json:"label"`
	Default       bool   `json:"default"`
	ConditionText string `json:"conditionText,omitempty"`
}

// allowedNext lists the edges leaving node from in graph order.
func allowedNext(g *packages.Graph, from string) []NextEdge {
	out := []NextEdge{}
	for _, e := range g.OutgoingEdges(from) {
		out = append(out, NextEdge{To: e.To, Label: e.Label, Default: e.IsDefault, ConditionText: e.ConditionText})
	}
	return out
}

// workflowGraph returns the workflow's graph or a clear error.
func workflowGraph(pkg *packages.Package, wf *packages.Workflow) (*packages.Graph, error) {
	if wf.Graph == nil || len(wf.Graph.Nodes) == 0 {
		return nil, errorf(CodeGraphMissing, "workflow %q of package %q has no usable graph (%s); import the package again", wf.ID, pkg.ID, wf.GraphPath)
	}
	if wf.Graph.Node(wf.Graph.EntryNodeID) == nil {
		return nil, errorf(CodeGraphMissing, "workflow %q of package %q: entry node %q is not in the graph", wf.ID, pkg.ID, wf.Graph.EntryNodeID)
	}
	return wf.Graph, nil
}

func findWorkflow(pkg *packages.Package, id string) (*packages.Workflow, error) {
	if wf := pkg.Workflow(id); wf != nil {
		return wf, nil
	}
	ids := make([]string, 0, len(pkg.Workflows))
	for _, w := range pkg.Workflows {
		ids = append(ids, w.ID)
	}
	return nil, errorf(CodeWorkflowNotFound, "package %q has no workflow %q (available: %s)", pkg.ID, id, joinOrNone(ids))
}

func findAgent(pkg *packages.Package, id string) (*packages.Agent, error) {
	if a := pkg.Agent(id); a != nil {
		return a, nil
	}
	ids := make([]string, 0, len(pkg.Agents))
	for _, a := range pkg.Agents {
		ids = append(ids, a.ID)
	}
	return nil, errorf(CodeAgentNotFound, "package %q has no agent %q (available: %s)", pkg.ID, id, joinOrNone(ids))
}

func joinOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// nodeAgent is the persona of a node: node.agentId, else the run's active agent.
func nodeAgent(g *packages.Graph, nodeID, activeAgentID string) string {
	if n := g.Node(nodeID); n != nil && n.AgentID != "" {
		return n.AgentID
	}
	return activeAgentID
}
