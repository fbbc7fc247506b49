package app

import (
	"context"
	"strings"

	"crewagent/backend/errs"
	"crewagent/backend/tasks"
	"crewagent/backend/tools"
	"crewagent/backend/workflow"
)

// StartRunRequest starts a workflow run.
type StartRunRequest struct {
	// ConversationID is the conversation the run talks in ("" for a new one).
	ConversationID string `json:"conversationId"`
	WorkflowID     string `json:"workflowId"`
	// PackageID is the package of the workflow ("" to choose it: ChoosePackage).
	PackageID string `json:"packageId,omitempty"`
	// AgentID is the run's active agent ("" for the entry node's agent).
	AgentID string `json:"agentId"`
	// Message is the user's first message (optional).
	Message string `json:"message"`
}

// CreateRun checks a request and creates the run (nothing runs yet): the LLM
// must be configured, the package is chosen (ChoosePackage) and bound to a
// project that has none, the conversation must exist and be free. A new
// conversation is created; one with the default title is named after the
// workflow.
func (ws *Workspace) CreateRun(req StartRunRequest) (workflow.Run, error) {
	if err := ws.rt.Effective().RequireLLM(); err != nil {
		return workflow.Run{}, err
	}
	if strings.TrimSpace(req.WorkflowID) == "" {
		return workflow.Run{}, errs.New(errs.InvalidRequest, "choose a workflow to run")
	}
	if req.ConversationID != "" {
		if _, err := ws.store.Get(req.ConversationID); err != nil {
			return workflow.Run{}, err
		}
	}
	// One task at a time in a project: a run that could not start its first
	// turn now is not created.
	if len(ws.tasks.All()) > 0 || len(ws.tasks.Queued()) > 0 {
		return workflow.Run{}, ws.coord.Busy(tasks.ErrBusy, req.ConversationID)
	}
	pkgID, err := ws.ChoosePackage(req.PackageID, req.WorkflowID)
	if err != nil {
		return workflow.Run{}, err
	}
	run, err := ws.runs.CreateRun(pkgID, req.WorkflowID, req.AgentID, req.ConversationID)
	if err != nil {
		return workflow.Run{}, err
	}
	if req.ConversationID != "" {
		ws.titleAfterWorkflow(run)
	}
	return run, nil
}

// StartRun creates a run (CreateRun) and starts its first turn in the
// background; it returns the run at once. Progress arrives as events
// (runs:progressUpdated, llm:stream-*, context:usage, conversation:changed
// with streaming true/false, as for Send).
func (ws *Workspace) StartRun(req StartRunRequest) (workflow.Run, error) {
	run, err := ws.CreateRun(req)
	if err != nil {
		return workflow.Run{}, err
	}
	message := req.Message
	err = ws.runInBackground(run, func(ctx context.Context) (*workflow.TurnResult, error) {
		return ws.runs.Continue(ctx, run.RunID, message)
	})
	return run, err
}

// titleAfterWorkflow names a conversation that still has the default title
// after the workflow its run follows (the first message of a run is its
// USER_INPUT block, which makes a poor title).
func (ws *Workspace) titleAfterWorkflow(run workflow.Run) {
	meta, err := ws.store.Get(run.ConversationID)
	if err != nil || meta.Title != defaultTitle {
		return
	}
	title := run.WorkflowID
	if pkg, err := ws.rt.packages.Load(run.PackageID); err == nil {
		if wf := pkg.Workflow(run.WorkflowID); wf != nil && wf.DisplayName != "" {
			title = wf.DisplayName
		}
	}
	if err := ws.store.Rename(run.ConversationID, title); err != nil {
		ws.rt.log.Warn("naming the run's conversation", "conversation", run.ConversationID, "error", err)
	}
}

// continueInBackground sends a message to the conversation's latest run
// (Send in run mode).
func (ws *Workspace) continueInBackground(conversationID, text string) error {
	run, err := ws.runs.LatestRunOf(conversationID)
	if err != nil {
		return err
	}
	return ws.runInBackground(run, func(ctx context.Context) (*workflow.TurnResult, error) {
		return ws.runs.Continue(ctx, run.RunID, text)
	})
}

// AnswerQuestion answers the pending ui.ask_user question of a run with the
// user's structured answer (confirmed for a confirmation, selected for a
// selection, values for a form) and runs the next turn in the background. An
// answer to a question that no longer waits (RUN_NO_PENDING_WIDGET) or that
// does not fit it (RUN_BAD_ANSWER) fails the call.
func (ws *Workspace) AnswerQuestion(runID, widgetID string, answer tools.WidgetAnswer) error {
	if err := ws.rt.Effective().RequireLLM(); err != nil {
		return err
	}
	run, err := ws.runs.CheckAnswer(runID, widgetID, answer)
	if err != nil {
		return err
	}
	return ws.runInBackground(run, func(ctx context.Context) (*workflow.TurnResult, error) {
		return ws.runs.AnswerWidget(ctx, runID, widgetID, answer)
	})
}

// runInBackground runs one turn of a run as a task of its conversation, as
// Send runs a reply. The task's failure is the error the conversation does
// not show (failures of the model and the loop guards are persisted there;
// others, such as a damaged state file, are not). The context meter is
// refreshed from the next request of the run at the end.
func (ws *Workspace) runInBackground(run workflow.Run, turn func(ctx context.Context) (*workflow.TurnResult, error)) error {
	id := run.ConversationID
	_, err := ws.tasks.Start(tasks.Task{ConversationID: id, Kind: tasks.KindRun, RunID: run.RunID}, func(ctx context.Context) error {
		_, err := turn(ctx)
		ws.emitNextUsage(ctx, id)
		if err != nil && !workflow.PersistedFailure(err) {
			ws.rt.log.Warn("run turn failed", "run", run.RunID, "error", err)
			return err
		}
		return nil
	})
	return ws.coord.Busy(err, id)
}

// RunTurn runs one turn of a run in the foreground (the command line):
// Continue with the message. The result and the turn's error come back
// together when the turn ran but failed (the failure is then persisted).
func (ws *Workspace) RunTurn(ctx context.Context, runID, message string) (*workflow.TurnResult, error) {
	return ws.runs.Continue(ctx, runID, message)
}

// emitNextUsage sends context:usage for the next request of the
// conversation in its active mode (in run mode, of its run), measured by the
// preview the context inspector shows: after a reply, a run turn or a
// compaction, the meter and the inspector show the same number.
func (ws *Workspace) emitNextUsage(ctx context.Context, conversationID string) {
	p, err := ws.Preview(context.WithoutCancel(ctx), conversationID, "", "")
	if err != nil {
		return
	}
	ws.publishUsage(p.NextUsage(conversationID))
}

// ConversationRun returns the progress of a conversation's latest run, or
// nil when the conversation has none.
func (ws *Workspace) ConversationRun(conversationID string) (*workflow.RunStatus, error) {
	run, err := ws.runs.LatestRun(conversationID)
	if errs.CodeOf(err) == workflow.CodeRunNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ws.RunStatus(run.RunID)
}

// RunStatus returns a run's progress, read from its state file.
func (ws *Workspace) RunStatus(runID string) (*workflow.RunStatus, error) {
	st, err := ws.runs.Status(runID)
	if err != nil {
		return nil, err
	}
	if ws.tasks.Busy(st.ConversationID) {
		st.Active = true
	}
	return st, nil
}

// ListRuns returns every run of the project, oldest first.
func (ws *Workspace) ListRuns() ([]workflow.Run, error) {
	runs, err := ws.runs.List()
	if runs == nil && err == nil {
		runs = []workflow.Run{}
	}
	return runs, err
}

// RunLog returns the last limit lines of a run's execution log
// (workflow.Service.Log).
func (ws *Workspace) RunLog(runID string, limit int) (workflow.RunLogView, error) {
	return ws.runs.Log(runID, limit)
}

// ArtifactView is a project file shown read-only (an artifact of a run).
type ArtifactView = tools.FileView

// ReadArtifact reads a file of the project by its project-relative path (as
// runs list their artifacts) for a read-only view, through the sandbox the
// tools use (tools.Sandbox.ReadView).
func (ws *Workspace) ReadArtifact(path string) (ArtifactView, error) {
	return ws.sandbox.ReadView(path)
}
