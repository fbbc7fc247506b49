package workflow

import (
	"fmt"
	"path"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/packages"
)

// Intents of a RUN_DIRECTIVE.
const (
	// IntentStart: the first turn of a run that has made no progress yet.
	IntentStart = "start"
	// IntentContinue: a further turn in the same process.
	IntentContinue = "continue"
	// IntentResume: the first turn after the process restarted, or after a failed or
	// interrupted turn.
	IntentResume = "resume"
	// IntentPostRun: the workflow is complete (post-completion profile).
	IntentPostRun = "post-run"
)

// Injector renders the run-only user blocks of one model request (it implements
// contextbuilder.RunInjector). While a step is active they are RUN_DIRECTIVE and
// NODE_BRIEF; once the workflow is complete only a RUN_DIRECTIVE with the post-run protocol
// (no current node, no node brief, no step text).
type Injector struct {
	Intent     string
	WorkflowID string
	// GraphPath is the graph file relative to the package root (slash-separated).
	GraphPath string
	// ArtifactsDir is the project-relative artifacts folder (slash-separated, no slashes
	// around it).
	ArtifactsDir     string
	EffectiveAgentID string
	// Node is the current node (nil after completion); Next are its outgoing edges.
	Node     *packages.Node
	Next     []NextEdge
	Complete bool
}

// NewInjector describes the request for a run at state st of workflow wf.
func NewInjector(intent string, wf *packages.Workflow, st *State, activeAgentID, artifactsDir string) *Injector {
	g := wf.Graph
	in := &Injector{
		Intent:       intent,
		WorkflowID:   wf.ID,
		GraphPath:    wf.GraphPath,
		ArtifactsDir: strings.Trim(artifactsDir, "/"),
		Complete:     st.Complete(g),
	}
	if in.ArtifactsDir == "" {
		in.ArtifactsDir = "artifacts"
	}
	cur := st.EffectiveNode(g)
	in.EffectiveAgentID = nodeAgent(g, cur, activeAgentID)
	if in.Complete {
		in.Intent = IntentPostRun
		return in
	}
	in.Node = g.Node(cur)
	in.Next = allowedNext(g, cur)
	return in
}

// Blocks implements contextbuilder.RunInjector.
func (in *Injector) Blocks() []string {
	if in.Complete || in.Node == nil {
		return []string{in.PostRunDirective()}
	}
	return []string{in.RunDirective(), in.NodeBrief()}
}

func (in *Injector) artifactsRoot() string { return "@project/" + in.ArtifactsDir + "/" }

// RunDirective renders the RUN_DIRECTIVE block of an active run.
func (in *Injector) RunDirective() string {
	var b strings.Builder
	root := in.artifactsRoot()
	b.WriteString("RUN_DIRECTIVE\n")
	b.WriteString("- runType: bmad-micro\n")
	fmt.Fprintf(&b, "- intent: %s\n", in.Intent)
	fmt.Fprintf(&b, "- workflow: %s\n", in.WorkflowID)
	fmt.Fprintf(&b, "- state: %s\n", StateAlias)
	fmt.Fprintf(&b, "- graph: @pkg/%s\n", in.GraphPath)
	fmt.Fprintf(&b, "- artifactsRoot: %s\n", root)
	fmt.Fprintf(&b, "- currentNodeId: %s\n", in.Node.ID)
	fmt.Fprintf(&b, "- effectiveAgentId: %s\n", in.EffectiveAgentID)
	b.WriteString("- autopilot: true\n")
	b.WriteString("Protocol:\n")
	fmt.Fprintf(&b, "1) Read %s frontmatter to get currentNodeId.\n", StateAlias)
	b.WriteString("2) Read the graph and open the step file for currentNodeId.\n")
	b.WriteString("3) Follow the step instructions exactly.\n")
	b.WriteString("4) If the step requires user answers, ask the user and WAIT.\n")
	fmt.Fprintf(&b, "5) Only after you have required inputs: write artifacts under %s... and\n", root)
	fmt.Fprintf(&b, "   update %s frontmatter.", StateAlias)
	return b.String()
}

// NodeBrief renders the NODE_BRIEF block of the current node.
func (in *Injector) NodeBrief() string {
	n := in.Node
	var b strings.Builder
	b.WriteString("NODE_BRIEF\n")
	fmt.Fprintf(&b, "- currentNodeId: %s (type=%s)\n", n.ID, n.Type)
	fmt.Fprintf(&b, "- stepFile: @pkg/%s\n", n.File)
	fmt.Fprintf(&b, "- outputs: %s\n", outputsMap(n.Outputs))
	if len(in.Next) == 0 {
		fmt.Fprintf(&b, "- allowedNext: [] (end node: finish by setting variables.workflowStatus to %q)", StatusComplete)
		return b.String()
	}
	b.WriteString("- allowedNext:")
	for _, e := range in.Next {
		fmt.Fprintf(&b, "\n  - %s (label: %s, default: %t", e.To, e.Label, e.Default)
		if e.ConditionText != "" {
			fmt.Fprintf(&b, ", conditionText: %s", e.ConditionText)
		}
		b.WriteString(")")
	}
	return b.String()
}

// outputsMap renders a node's outputs as {name: path}, the name being the file name
// without its extension.
func outputsMap(outputs []string) string {
	if len(outputs) == 0 {
		return "{}"
	}
	parts := make([]string, len(outputs))
	for i, o := range outputs {
		name := path.Base(o)
		name = strings.TrimSuffix(name, path.Ext(name))
		parts[i] = name + ": " + o
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// PostRunDirective renders the RUN_DIRECTIVE of the post-completion profile.
func (in *Injector) PostRunDirective() string {
	var b strings.Builder
	b.WriteString("RUN_DIRECTIVE\n")
	b.WriteString("- runType: bmad-micro\n")
	fmt.Fprintf(&b, "- intent: %s\n", IntentPostRun)
	fmt.Fprintf(&b, "- workflow: %s\n", in.WorkflowID)
	fmt.Fprintf(&b, "- state: %s\n", StateAlias)
	fmt.Fprintf(&b, "- artifactsRoot: %s\n", in.artifactsRoot())
	fmt.Fprintf(&b, "- effectiveAgentId: %s\n", in.EffectiveAgentID)
	b.WriteString("Post-Run Protocol:\n")
	b.WriteString("1) The workflow is complete; there is no active step.\n")
	b.WriteString("2) Answer questions about the run and its artifacts.\n")
	fmt.Fprintf(&b, "3) Any change to %s needs the user's explicit confirmation first:\n", StateAlias)
	b.WriteString("   ask with ui.ask_user (type \"confirmation\") saying in plain words what would change (not field, variable or file names), WAIT, and after a yes make exactly one write.")
	return b.String()
}

// UserInput renders a user message sent during a run (conversation.RunInput).
func UserInput(forNodeID, text string) string {
	return conversation.RunInput(forNodeID, text)
}
