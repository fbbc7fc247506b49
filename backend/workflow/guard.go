package workflow

import (
	"bytes"
	"fmt"
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
//   - the workflow was not already complete, or the user confirmed the change: Confirm
//     returns true once per confirmation (E_PRECONDITION_FAILED, details.reason
//     "confirmation_required").
//
// When the previous content cannot be read as a state (missing, or damaged by hand) only
// the first rule and the node names are checked, so a valid state can repair it.
type Guard struct {
	Schema *StateSchema
	Graph  *packages.Graph
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
					"Ask with ui.ask_user (type \"confirmation\") describing the exact change, stop and wait; "+
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
