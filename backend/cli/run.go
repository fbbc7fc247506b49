package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
	"crewagent/backend/workflow"
)

const (
	runStartUsage    = "run start --workflow ID [--package ID] [--agent ID] [MESSAGE]"
	runContinueUsage = "run continue RUN_ID MESSAGE"
	runStatusUsage   = "run status RUN_ID"
	runListUsage     = "run list"
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

// readMessage joins the words of a message; "-" reads it from stdin.
func (e *env) readMessage(words []string) (string, error) {
	text := strings.Join(words, " ")
	if text == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return "", fmt.Errorf("reading the message from stdin: %v", err)
		}
		text = strings.TrimRight(string(b), "\r\n")
	}
	return text, nil
}

// runService builds the workflow service over the workspace.
func (w *workspace) runService(em events.Emitter) (*workflow.Service, error) {
	return workflow.New(workflow.Config{
		Project:  w.project,
		Packages: w.packages(),
		Store:    w.store,
		Settings: workflow.StaticSettings(w.settings),
		Counter:  w.counter,
		Emitter:  em,
	})
}

// choosePackage picks the package of a new run: --package, else the project's active
// package, else the only installed package (or the only one with the workflow), else the
// bundled demo (installed now). A project without an active package is bound to it.
func (w *workspace) choosePackage(explicit, workflowID string) (string, error) {
	mgr := w.packages()
	id := explicit
	switch {
	case id != "":
		if _, err := mgr.Get(id); err != nil {
			return "", err
		}
	case w.project.ActivePackageID != "":
		id = w.project.ActivePackageID
		if _, err := mgr.Get(id); err != nil {
			return "", fmt.Errorf("the project's package %q is not installed: import it again or choose one with --package (see 'crewagent package list')", id)
		}
	default:
		list, err := mgr.List()
		if err != nil {
			return "", err
		}
		switch len(list) {
		case 0:
			inst, err := mgr.EnsureDemo()
			if errors.Is(err, packages.ErrDemoRemoved) {
				return "", errors.New("no package is installed (the bundled demo was removed): import one with 'crewagent package import FILE' or put the demo back with 'crewagent package install-demo'")
			}
			if err != nil {
				return "", err
			}
			id = inst.ID
		case 1:
			id = list[0].ID
		default:
			var with []string
			for _, p := range list {
				if slices.ContainsFunc(p.Workflows, func(wf packages.WorkflowInfo) bool { return wf.ID == workflowID }) {
					with = append(with, p.ID)
				}
			}
			if len(with) != 1 {
				return "", fmt.Errorf("%d installed packages could run workflow %q; choose one with --package (see 'crewagent package list')", len(with), workflowID)
			}
			id = with[0]
		}
	}
	if w.project.ActivePackageID == "" {
		if err := project.SetActivePackage(w.project, id); err != nil {
			return "", err
		}
	}
	return id, nil
}

func cmdRunStart(e *env, rest []string) error {
	if err := e.args.allowOnly("run start", "workflow", "package", "agent"); err != nil {
		return err
	}
	wfID := e.args.get("workflow")
	if wfID == "" {
		return fmt.Errorf("usage: crewagent %s", runStartUsage)
	}
	text, err := e.readMessage(rest)
	if err != nil {
		return err
	}
	w, err := e.openWorkspace(true)
	if err != nil {
		return err
	}
	defer w.close()
	if err := requireLLM(w); err != nil {
		return err
	}
	pkgID, err := w.choosePackage(e.args.get("package"), wfID)
	if err != nil {
		return err
	}
	out, em := e.turnPrinter()
	svc, err := w.runService(em)
	if err != nil {
		return err
	}
	run, err := svc.CreateRun(pkgID, wfID, e.args.get("agent"), "")
	if err != nil {
		return err
	}
	if out != nil {
		fmt.Fprintf(e.stdout, "run %s\nconversation %s\n", run.RunID, run.ConversationID)
	}
	res, err := svc.Continue(e.ctx, run.RunID, text)
	if res == nil {
		res = &workflow.TurnResult{Run: run}
	}
	return e.finishTurn(out, res, err)
}

func cmdRunContinue(e *env, rest []string) error {
	if err := e.args.allowOnly("run continue"); err != nil {
		return err
	}
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
	w, err := e.openWorkspace(true)
	if err != nil {
		return err
	}
	defer w.close()
	if err := requireLLM(w); err != nil {
		return err
	}
	out, em := e.turnPrinter()
	svc, err := w.runService(em)
	if err != nil {
		return err
	}
	res, err := svc.Continue(e.ctx, rest[0], text)
	if res == nil {
		return err
	}
	return e.finishTurn(out, res, err)
}

func requireLLM(w *workspace) error {
	if err := w.requireSettings(); err != nil {
		return err
	}
	if err := w.settings.RequireLLM(); err != nil {
		return fmt.Errorf("no LLM is configured: set CREWAGENT_LLM_BASE_URL and CREWAGENT_LLM_MODEL, or llm.baseUrl and llm.model in %s", settings.Path(w.home))
	}
	return nil
}

// turnPrinter streams the answer to stdout (nil printer with --json).
func (e *env) turnPrinter() (*streamPrinter, events.Emitter) {
	if e.args.has("json") {
		return nil, events.Nop{}
	}
	p := &streamPrinter{w: e.stdout}
	return p, p
}

// finishTurn prints the outcome of a turn and maps its error to the exit code: 2 for an
// LLM failure (persisted in the conversation), 1 for anything else.
func (e *env) finishTurn(out *streamPrinter, res *workflow.TurnResult, turnErr error) error {
	r := res.Run
	if out == nil {
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
		out.finish()
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
	if llm.CodeOf(turnErr) != "" {
		return &exitError{code: ExitLLMFailed, err: fmt.Errorf("%s (%s)", turnErr.Error(), hint)}
	}
	if c := workflow.CodeOf(turnErr); c == workflow.CodeMaxTurns || c == workflow.CodeLoopDetected || c == workflow.CodeAborted {
		return fmt.Errorf("%s: %s (%s)", c, turnErr.Error(), hint)
	}
	return turnErr
}

func errorCode(err error) string {
	if c := workflow.CodeOf(err); c != "" {
		return c
	}
	if c := llm.CodeOf(err); c != "" {
		return c
	}
	return "E_INTERNAL"
}

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
	if err := e.checkArgs(rest, 1); err != nil {
		return err
	}
	w, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer w.close()
	svc, err := w.runService(nil)
	if err != nil {
		return err
	}
	st, err := svc.Status(rest[0])
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

func cmdRunList(e *env, rest []string) error {
	if err := e.checkArgs(rest, 0); err != nil {
		return err
	}
	w, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer w.close()
	svc, err := w.runService(nil)
	if err != nil {
		return err
	}
	runs, err := svc.List()
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
