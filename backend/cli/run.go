package cli

import (
	"errors"
	"fmt"
	"strings"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/llm"
	"crewagent/backend/tools"
	"crewagent/backend/workflow"
)

const (
	runStartUsage    = "run start --workflow ID [--package ID] [--agent ID] [MESSAGE]"
	runContinueUsage = "run continue RUN_ID MESSAGE"
)

// runOutput is the --json output of run start and run continue.
type runOutput struct {
	RunID          string        `json:"runId"`
	ConversationID string        `json:"conversationId"`
	WorkflowID     string        `json:"workflowId"`
	PackageID      string        `json:"packageId"`
	Phase          string        `json:"phase"`
	CurrentNodeID  string        `json:"currentNodeId"`
	StepsCompleted []string      `json:"stepsCompleted"`
	Artifacts      []string      `json:"artifacts"`
	Intent         string        `json:"intent,omitempty"`
	Text           string        `json:"text"`
	PendingWidget  *tools.Widget `json:"pendingWidget,omitempty"`
	Error          *chatError    `json:"error,omitempty"`
}

func cmdRunStart(e *env, rest []string) error {
	wfID := e.args.get("workflow")
	if wfID == "" {
		return fmt.Errorf("usage: crewagent %s", runStartUsage)
	}
	text, err := e.readMessage(rest)
	if err != nil {
		return err
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	if err := e.requireLLM(); err != nil {
		return err
	}
	run, err := ws.CreateRun(app.StartRunRequest{WorkflowID: wfID, PackageID: e.args.get("package"), AgentID: e.args.get("agent")})
	if err != nil {
		return err
	}
	if !e.asJSON() {
		fmt.Fprintf(e.stdout, "run %s\nconversation %s\n", run.RunID, run.ConversationID)
	}
	res, err := ws.RunTurn(e.ctx, run.RunID, text)
	if res == nil {
		res = &workflow.TurnResult{Run: run}
	}
	return e.finishTurn(res, err)
}

func cmdRunContinue(e *env, rest []string) error {
	if len(rest) < 2 {
		return fmt.Errorf("usage: crewagent %s (MESSAGE '-' reads it from stdin)", runContinueUsage)
	}
	text, err := e.readMessage(rest[1:])
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("the message is empty")
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	if err := e.requireLLM(); err != nil {
		return err
	}
	res, err := ws.RunTurn(e.ctx, rest[0], text)
	if res == nil {
		return err
	}
	return e.finishTurn(res, err)
}

// finishTurn prints the outcome of a turn and maps its error to the exit code: 2 for an
// LLM failure (persisted in the conversation), 1 for anything else.
func (e *env) finishTurn(res *workflow.TurnResult, turnErr error) error {
	r := res.Run
	if e.asJSON() {
		o := runOutput{RunID: r.RunID, ConversationID: r.ConversationID, WorkflowID: r.WorkflowID, PackageID: r.PackageID,
			Phase: r.Phase, CurrentNodeID: r.CurrentNodeID, StepsCompleted: r.StepsCompleted, Artifacts: r.Artifacts,
			Intent: res.Intent, Text: res.Text, PendingWidget: res.Pending}
		if turnErr != nil {
			o.Error = &chatError{Code: errorCode(turnErr), Message: turnErr.Error()}
		}
		if err := e.printJSON(o); err != nil {
			return err
		}
	} else {
		e.printer.finish()
		fmt.Fprintf(e.stdout, "phase: %s", r.Phase)
		if r.CurrentNodeID != "" {
			fmt.Fprintf(e.stdout, " (node %s)", r.CurrentNodeID)
		}
		fmt.Fprintln(e.stdout)
		if w := res.Pending; w != nil {
			fmt.Fprintf(e.stdout, "question: %s\n", describeWidget(w))
		}
	}
	if turnErr == nil {
		return nil
	}
	hint := fmt.Sprintf("saved in conversation %s; run 'crewagent run continue %s MESSAGE' to resume", r.ConversationID, r.RunID)
	var failed *llm.Error
	if errors.As(turnErr, &failed) {
		return &exitError{code: ExitLLMFailed, err: fmt.Errorf("%s (%s)", turnErr.Error(), hint)}
	}
	if c := errs.CodeOf(turnErr); c == workflow.CodeMaxTurns || c == workflow.CodeLoopDetected || c == workflow.CodeAborted {
		return fmt.Errorf("%s: %s (%s)", c, turnErr.Error(), hint)
	}
	return turnErr
}

func errorCode(err error) string { return errs.From(err).Code }

// describeWidget renders a pending question on one line, with how to answer it.
func describeWidget(w *tools.Widget) string {
	switch w.Type {
	case tools.WidgetConfirmation:
		return w.Prompt + " (answer yes or no)"
	case tools.WidgetSelection:
		opts := make([]string, len(w.Options))
		for i, o := range w.Options {
			opts[i] = o.Value
		}
		return w.Prompt + " (answer one of: " + strings.Join(opts, ", ") + ")"
	case tools.WidgetForm:
		names := make([]string, len(w.Fields))
		for i, f := range w.Fields {
			names[i] = f.Name
		}
		return w.Prompt + " (answer with a JSON object of: " + strings.Join(names, ", ") + ")"
	}
	return w.Prompt
}

func cmdRunStatus(e *env, rest []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	st, err := ws.Runs().Status(rest[0])
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(st)
	}
	fmt.Fprintf(e.stdout, "run %s (workflow %s, package %s)\n", st.RunID, st.WorkflowID, st.PackageID)
	fmt.Fprintf(e.stdout, "conversation: %s\n", st.ConversationID)
	fmt.Fprintf(e.stdout, "phase: %s\n", st.Phase)
	if !st.Complete {
		cur := st.CurrentNodeID
		if cur == "" {
			cur = "(not started)"
		}
		fmt.Fprintf(e.stdout, "current node: %s (agent %s)\n", cur, st.EffectiveAgent)
	}
	fmt.Fprintf(e.stdout, "steps completed: %s\n", orNone(strings.Join(st.StepsCompleted, ", ")))
	fmt.Fprintf(e.stdout, "artifacts: %s\n", orNone(strings.Join(st.Artifacts, ", ")))
	marks := map[string]string{workflow.NodeCompleted: "[x]", workflow.NodeCurrent: "[>]", workflow.NodePending: "[ ]"}
	nodes := make([]string, len(st.Nodes))
	for i, n := range st.Nodes {
		nodes[i] = marks[n.Status] + " " + n.ID
	}
	fmt.Fprintf(e.stdout, "nodes: %s\n", strings.Join(nodes, "  "))
	if st.Pending != nil {
		fmt.Fprintf(e.stdout, "question: %s\n", describeWidget(st.Pending))
	}
	if st.LastError != nil {
		fmt.Fprintf(e.stdout, "last error: %s: %s\n", st.LastError.Code, st.LastError.Message)
	}
	return nil
}

func cmdRunList(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	runs, err := ws.Runs().List()
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(runs)
	}
	if len(runs) == 0 {
		fmt.Fprintln(e.stdout, "no runs in this project (start one with 'crewagent run start --workflow ID')")
		return nil
	}
	for _, r := range runs {
		cur := r.CurrentNodeID
		if cur == "" {
			cur = "-"
		}
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\tnode %s\tsteps %d\tartifacts %d\tconversation %s\n",
			r.RunID, r.WorkflowID, r.Phase, cur, len(r.StepsCompleted), len(r.Artifacts), r.ConversationID)
	}
	return nil
}
