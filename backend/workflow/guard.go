package workflow

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"crewagent/backend/packages"
	"crewagent/backend/tools"
)

// ReasonConfirmationRequired is details.reason of the E_PRECONDITION_FAILED error the guard
// returns for a change to the state of a completed workflow without the user's confirmation.
const ReasonConfirmationRequired = "confirmation_required"

// Guard validates every write of the model to @state/workflow.md (fs.write and
// fs.apply_patch); it implements tools.StateGuard. A write is accepted when:
//
//   - the file has a YAML frontmatter that holds the v1.1 workflow-frontmatter schema
//     (E_SCHEMA_VALIDATION, details.problems);
//   - stepsCompleted names only nodes of the graph and keeps the previous entries, in
//     order, as its start: it only grows (E_SCHEMA_VALIDATION);
//   - currentNodeId is unchanged, or names the node an edge of the graph leads to from the
//     previous one; from "" (not started) the entry node and its successors are reachable
//     (E_INVALID_TRANSITION, details.from, details.to, details.allowedNext);
//   - every artifacts[] entry it adds is a project-relative path (artifacts/brief.md) that
//     stays inside the project folder (E_SCHEMA_VALIDATION);
//   - the workflow was not already complete, or the user confirmed the change: Confirm
//     returns true once per confirmation (E_PRECONDITION_FAILED, details.reason
//     "confirmation_required").
//
// When the previous content cannot be read as a state (missing, or damaged by hand) only
// the first rule and the node names are checked, so a valid state can repair it.
type Guard struct {
	Schema *StateSchema
	Graph  *packages.Graph
	// ProjectRoot is the project folder: artifacts[] entries must name files inside it,
	// also once symbolic links are followed ("" checks the paths' form only).
	ProjectRoot string
	// Confirm is asked, after every other check passed, for a change to a completed
	// workflow; returning true uses up the user's confirmation. nil refuses such changes.
	Confirm func() bool
}

// ValidateStateWrite implements tools.StateGuard.
func (g *Guard) ValidateStateWrite(oldContent, newContent []byte) error {
	fm, _, err := packages.ParseFrontmatter(newContent)
	if err != nil {
		return tools.NewError(tools.CodeSchemaValidation, StateAlias+" rejected: "+err.Error()+
			"; the file must start with a --- YAML block holding schemaVersion, workflowType, currentNodeId and stepsCompleted", nil)
	}
	if probs := g.Schema.Validate(fm); len(probs) > 0 {
		msgs := make([]string, len(probs))
		for i, p := range probs {
			msgs[i] = p.String()
		}
		return tools.NewError(tools.CodeSchemaValidation,
			StateAlias+" rejected: the frontmatter breaks the workflow state schema: "+strings.Join(msgs, "; "),
			map[string]any{"problems": probs})
	}
	next := stateFromFields(fm)
	if err := g.checkArtifacts(oldContent, next); err != nil {
		return err
	}
	for i, s := range next.StepsCompleted {
		if g.Graph.Node(s) == nil {
			return tools.NewError(tools.CodeSchemaValidation,
				fmt.Sprintf("%s rejected: stepsCompleted[%d] is %q, which is not a node of the graph", StateAlias, i, s),
				map[string]any{"problems": []SchemaProblem{{Pointer: fmt.Sprintf("/stepsCompleted/%d", i), Message: "unknown node " + s}}})
		}
	}
	var prev *State
	if oldContent != nil {
		prev, _ = ParseState(oldContent) // unreadable: no progress checks
	}
	if prev == nil {
		if next.CurrentNodeID != "" && g.Graph.Node(next.CurrentNodeID) == nil {
			return g.transitionError(g.Graph.EntryNodeID, next.CurrentNodeID,
				fmt.Sprintf("currentNodeId %q is not a node of the graph", next.CurrentNodeID))
		}
		return nil
	}
	if err := checkStepsGrow(prev.StepsCompleted, next.StepsCompleted); err != nil {
		return err
	}
	if err := g.checkTransition(prev, next); err != nil {
		return err
	}
	if prev.Complete(g.Graph) && !bytes.Equal(oldContent, newContent) {
		if g.Confirm == nil || !g.Confirm() {
			return tools.NewError(tools.CodePreconditionFailed,
				"the workflow is complete, so "+StateAlias+" may only change after the user explicitly confirms it. "+
					"Ask with ui.ask_user (type \"confirmation\") saying in plain words what would change (not field, variable or file names), stop and wait; "+
					"after the user answers yes, make the write once.",
				map[string]any{"reason": ReasonConfirmationRequired})
		}
	}
	return nil
}

// checkStepsGrow requires prev to be the start of next.
func checkStepsGrow(prev, next []string) error {
	for i, s := range prev {
		if i >= len(next) || next[i] != s {
			return tools.NewError(tools.CodeSchemaValidation,
				fmt.Sprintf("%s rejected: stepsCompleted may only grow: keep [%s] in this order and append new steps after them (use {\"stepsCompleted\": {\"append\": [...]}})",
					StateAlias, strings.Join(prev, ", ")),
				map[string]any{"stepsCompleted": prev})
		}
	}
	return nil
}

func (g *Guard) checkTransition(prev, next *State) error {
	if next.CurrentNodeID == prev.CurrentNodeID {
		return nil
	}
	from := prev.EffectiveNode(g.Graph)
	to := next.CurrentNodeID
	switch {
	case to == "":
		return g.transitionError(from, to, "currentNodeId cannot be reset to \"\" once the run has started")
	case g.Graph.Node(to) == nil:
		return g.transitionError(from, to, fmt.Sprintf("currentNodeId %q is not a node of the graph", to))
	case prev.CurrentNodeID == "" && to == g.Graph.EntryNodeID:
		return nil
	}
	for _, e := range g.Graph.OutgoingEdges(from) {
		if e.To == to {
			return nil
		}
	}
	return g.transitionError(from, to, fmt.Sprintf("currentNodeId cannot move from %q to %q: no edge of the graph leads there", from, to))
}

func (g *Guard) transitionError(from, to, why string) error {
	next := allowedNext(g.Graph, from)
	opts := make([]string, len(next))
	for i, e := range next {
		opts[i] = fmt.Sprintf("%s (%s)", e.To, e.Label)
	}
	allowed := "none: " + from + " is the last node"
	if len(opts) > 0 {
		allowed = strings.Join(opts, ", ")
	}
	return tools.NewError(tools.CodeInvalidTransition,
		fmt.Sprintf("%s rejected: %s. Allowed next from %s: %s. Correct currentNodeId and write again.", StateAlias, why, from, allowed),
		map[string]any{"from": from, "to": to, "allowedNext": next})
}

// checkArtifacts refuses artifacts[] entries, new in this write, that are not paths inside
// the project: absolute, with "..", in alias form, or through a symbolic link that leads
// out of the project folder. Entries the previous state already had are left alone.
func (g *Guard) checkArtifacts(oldContent []byte, next *State) error {
	had := map[string]bool{}
	if oldContent != nil {
		if prev, err := ParseState(oldContent); err == nil {
			for _, a := range prev.Artifacts {
				had[a] = true
			}
		}
	}
	for i, a := range next.Artifacts {
		if had[a] {
			continue
		}
		if why := g.artifactProblem(a); why != "" {
			return tools.NewError(tools.CodeSchemaValidation,
				fmt.Sprintf("%s rejected: artifacts[%d] %q %s; artifacts are paths inside the project folder, relative to it, e.g. \"artifacts/brief.md\"", StateAlias, i, a, why),
				map[string]any{"problems": []SchemaProblem{{Pointer: fmt.Sprintf("/artifacts/%d", i), Message: why}}})
		}
	}
	return nil
}

// artifactProblem says why a is not a path inside the project ("" when it is one).
func (g *Guard) artifactProblem(a string) string {
	switch {
	case strings.TrimSpace(a) == "":
		return "is empty"
	case strings.HasPrefix(a, "@"):
		return "is in alias form"
	case strings.ContainsAny(a, "\\:") || strings.ContainsRune(a, 0):
		return "is not a project-relative path"
	case !filepath.IsLocal(filepath.FromSlash(a)):
		return "leaves the project folder"
	}
	if g.ProjectRoot == "" {
		return ""
	}
	root, err := filepath.EvalSymlinks(g.ProjectRoot)
	if err != nil {
		return ""
	}
	// Follow the symbolic links of the part that exists.
	p := filepath.Join(root, filepath.FromSlash(a))
	var tail []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			real = filepath.Join(append([]string{real}, tail...)...)
			if rel, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(rel) {
				return "leads out of the project folder through a symbolic link"
			}
			return ""
		}
		parent := filepath.Dir(p)
		if parent == p {
			return ""
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}
