package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/tools"
	"crewagent/backend/watcher"
	"crewagent/backend/workflow"
)

// Limits of RunLog and ReadArtifact.
const (
	defaultRunLogLines = 200
	maxRunLogLines     = 2000
	maxRunLogBytes     = 4 << 20 // read from the end of execution.jsonl at most
	maxArtifactBytes   = 2 << 20
)

// StartRunRequest starts a workflow run from the conversation view.
type StartRunRequest struct {
	// ConversationID is the conversation the run talks in ("" for a new one).
	ConversationID string `json:"conversationId"`
	WorkflowID     string `json:"workflowId"`
	// AgentID is the run's active agent ("" for the entry node's agent).
	AgentID string `json:"agentId"`
	// Message is the user's first message (optional).
	Message string `json:"message"`
}

// StartRun creates a run of a workflow of the project's active package and
// starts its first turn in the background; it returns the run at once.
// Progress arrives as events (runs:progressUpdated, llm:stream-*,
// context:usage, conversation:changed with streaming true/false, as for
// SendMessage). Problems found before the turn starts (no LLM, no active
// package, unknown workflow or agent, a reply running in the conversation)
// fail the call and create nothing.
func (a *App) StartRun(req StartRunRequest) (workflow.Run, error) {
	ws, err := a.workspace()
	if err != nil {
		return workflow.Run{}, err
	}
	if err := (settingsProvider{a}).Effective().RequireLLM(); err != nil {
		return workflow.Run{}, toAppError(err)
	}
	pkgID := a.activePackageID()
	if pkgID == "" {
		return workflow.Run{}, &AppError{Code: workflow.CodeNoPackage, Message: "this project has no active package: choose one in Settings → Packages"}
	}
	if strings.TrimSpace(req.WorkflowID) == "" {
		return workflow.Run{}, &AppError{Code: engine.CodeInvalidRequest, Message: "choose a workflow to run"}
	}
	if req.ConversationID != "" {
		if _, err := ws.store.Get(req.ConversationID); err != nil {
			return workflow.Run{}, toAppError(err)
		}
		if ws.chat.streaming(req.ConversationID) {
			return workflow.Run{}, busyError()
		}
	}
	run, err := ws.runs.CreateRun(pkgID, req.WorkflowID, req.AgentID, req.ConversationID)
	if err != nil {
		return workflow.Run{}, toAppError(err)
	}
	if req.ConversationID == "" {
		a.changed(run.ConversationID, watcher.Created)
	} else {
		a.titleAfterWorkflow(ws, run)
		a.changed(run.ConversationID, watcher.Updated)
	}
	message := req.Message
	if !a.startRunTurn(ws, run, func(ctx context.Context) (*workflow.TurnResult, error) {
		return ws.runs.Continue(ctx, run.RunID, message)
	}) {
		return run, busyError()
	}
	return run, nil
}

// titleAfterWorkflow names a conversation that still has the default title
// after the workflow its run follows (the first message of a run is its
// USER_INPUT block, which makes a poor title).
func (a *App) titleAfterWorkflow(ws *workspace, run workflow.Run) {
	meta, err := ws.store.Get(run.ConversationID)
	if err != nil || meta.Title != convlog.DefaultTitle {
		return
	}
	title := run.WorkflowID
	if pkg, err := a.packages.Load(run.PackageID); err == nil {
		if wf := pkg.Workflow(run.WorkflowID); wf != nil && wf.DisplayName != "" {
			title = wf.DisplayName
		}
	}
	if err := ws.store.Rename(run.ConversationID, title); err != nil {
		a.log.Warn("naming the run's conversation", "conversation", run.ConversationID, "error", err)
	}
}

func noRunError() *AppError {
	return &AppError{Code: workflow.CodeRunNotFound, Message: "this conversation has no workflow run yet: choose a workflow and start one"}
}

func busyError() *AppError {
	return &AppError{Code: CodeBusy, Message: "a reply is already being generated in this conversation; wait for it or stop it"}
}

// continueRun sends a message of the conversation view to the conversation's
// latest run (SendMessage in run mode).
func (a *App) continueRun(ws *workspace, conversationID, text string) error {
	run, err := ws.runs.LatestRun(conversationID)
	if workflow.CodeOf(err) == workflow.CodeRunNotFound {
		return noRunError()
	}
	if err != nil {
		return toAppError(err)
	}
	if !a.startRunTurn(ws, run, func(ctx context.Context) (*workflow.TurnResult, error) {
		return ws.runs.Continue(ctx, run.RunID, text)
	}) {
		return busyError()
	}
	return nil
}

// AnswerRunWidget answers the pending ui.ask_user widget of a run with the
// user's structured answer (confirmed for a confirmation, selected for a
// selection, values for a form) and runs the next turn in the background.
// An answer to a widget that is no longer pending (RUN_NO_PENDING_WIDGET) or
// that does not fit it (RUN_BAD_ANSWER) fails the call.
func (a *App) AnswerRunWidget(runID, widgetID string, answer tools.WidgetAnswer) error {
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	if err := (settingsProvider{a}).Effective().RequireLLM(); err != nil {
		return toAppError(err)
	}
	run, err := ws.runs.Get(runID)
	if err != nil {
		return toAppError(err)
	}
	w, err := ws.runs.PendingWidget(runID)
	if err != nil {
		return toAppError(err)
	}
	if w == nil || w.ID != widgetID {
		return &AppError{Code: workflow.CodeNoWidget, Message: "this question was already answered or replaced by a newer one"}
	}
	if terr := w.ValidateAnswer(answer); terr != nil {
		return &AppError{Code: workflow.CodeBadAnswer, Message: terr.Message}
	}
	if !a.startRunTurn(ws, run, func(ctx context.Context) (*workflow.TurnResult, error) {
		return ws.runs.AnswerWidget(ctx, runID, widgetID, answer)
	}) {
		return busyError()
	}
	return nil
}

// startRunTurn runs one turn of a run in the background, as SendMessage runs
// a reply: conversation:changed with streaming=true, then streaming=false
// once it has ended, with the error when the turn failed in a way the
// conversation does not show (failures of the model and the loop guards are
// persisted as error messages; others, such as a damaged state file, are not).
// The context meter is refreshed from the next request of the run at the end.
func (a *App) startRunTurn(ws *workspace, run workflow.Run, turn func(ctx context.Context) (*workflow.TurnResult, error)) bool {
	id := run.ConversationID
	var failure *eventError
	started := ws.chat.start(id, func(ctx context.Context) {
		_, err := turn(ctx)
		if err != nil && !persistedFailure(err) {
			a.log.Warn("run turn failed", "run", run.RunID, "error", err)
			failure = &eventError{Code: codeOf(err), Message: err.Error()}
		}
		a.emitRunUsage(ws, id)
	}, func() {
		a.emitter.Emit(events.ConversationChanged, conversationChange{ConversationID: id, Kind: watcher.Updated, Streaming: boolPtr(false), Error: failure})
	})
	if started {
		a.emitter.Emit(events.ConversationChanged, conversationChange{ConversationID: id, Kind: watcher.Updated, Streaming: boolPtr(true)})
	}
	return started
}

// persistedFailure reports the turn failures that the run records in its
// conversation as an error message (the user sees them there).
func persistedFailure(err error) bool {
	switch workflow.CodeOf(err) {
	case workflow.CodeMaxTurns, workflow.CodeLoopDetected, workflow.CodeAborted:
		return true
	}
	var le *llm.Error
	return errors.As(err, &le)
}

// emitRunUsage sends context:usage for the next request of the
// conversation's run, so the meter follows run turns.
func (a *App) emitRunUsage(ws *workspace, conversationID string) {
	p, err := a.previewRun(ws, conversationID, "")
	if err != nil {
		return
	}
	u := p.Usage
	status := u.Status
	if status == "" || status == "compressing" {
		status = usageStatus(u.UsagePercent)
	}
	a.emitter.Emit(events.ContextUsage, engine.UsageEvent{ConversationID: conversationID, UsedTokens: u.UsedTokens,
		TotalBudget: u.TotalBudget, UsagePercent: u.UsagePercent, Remaining: u.Remaining, Status: status})
}

// usageStatus is the meter status of a usage percentage (contracts.md).
func usageStatus(percent float64) string {
	switch {
	case percent > 80:
		return "critical"
	case percent >= 60:
		return "warning"
	}
	return "normal"
}

// previewRun previews the next request of the conversation's latest run.
func (a *App) previewRun(ws *workspace, conversationID, agentID string) (*engine.Preview, error) {
	run, err := ws.runs.LatestRun(conversationID)
	if workflow.CodeOf(err) == workflow.CodeRunNotFound {
		return nil, noRunError()
	}
	if err != nil {
		return nil, err
	}
	setup, err := ws.runs.NextSetup(run.RunID)
	if err != nil {
		return nil, err
	}
	return ws.engine.Preview(a.lifetime, engine.PreviewRequest{
		ConversationID: conversationID,
		Mode:           convlog.ModeRun,
		AgentID:        agentID,
		Run:            &engine.RunSetup{AgentID: setup.AgentID, Persona: setup.Persona, Injector: setup.Injector, Tools: setup.Tools},
	})
}

// ConversationRun returns the progress of a conversation's latest run (nodes
// with their status, artifacts, phase, the pending question), or null when
// the conversation has no run.
func (a *App) ConversationRun(conversationID string) (*workflow.RunStatus, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	run, err := ws.runs.LatestRun(conversationID)
	if workflow.CodeOf(err) == workflow.CodeRunNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, toAppError(err)
	}
	return a.runStatus(ws, run.RunID)
}

// RunStatus returns a run's progress, read from its state file.
func (a *App) RunStatus(runID string) (*workflow.RunStatus, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	return a.runStatus(ws, runID)
}

func (a *App) runStatus(ws *workspace, runID string) (*workflow.RunStatus, error) {
	st, err := ws.runs.Status(runID)
	if err != nil {
		return nil, toAppError(err)
	}
	if ws.chat.streaming(st.ConversationID) {
		st.Active = true
	}
	return st, nil
}

// ListRuns returns every run of the open project, oldest first.
func (a *App) ListRuns() ([]workflow.Run, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	runs, err := ws.runs.List()
	if runs == nil && err == nil {
		runs = []workflow.Run{}
	}
	return runs, toAppError(err)
}

// ExecLogLine is one line of a run's execution.jsonl: a tool call (type
// "tool_call", with tool, arguments, ok and code) or a runtime record
// (run_created, turn_start, turn_end, artifact_recorded, ...).
type ExecLogLine struct {
	TS         string `json:"ts"`
	Type       string `json:"type"`
	Tool       string `json:"tool,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// Args are the call's arguments as compact JSON (long contents cut by
	// the tool host).
	Args       string `json:"args,omitempty"`
	OK         *bool  `json:"ok,omitempty"`
	Code       string `json:"code,omitempty"`
	DurationMs int64  `json:"durationMs,omitempty"`
	// Raw is the whole line as written.
	Raw string `json:"raw"`
}

// RunLogView is the end of a run's execution log, oldest line first.
type RunLogView struct {
	RunID string        `json:"runId"`
	Lines []ExecLogLine `json:"lines"`
	// Truncated is true when older lines exist before Lines[0].
	Truncated bool `json:"truncated"`
}

// RunLog returns the last limit lines of a run's execution log
// (runs/<runId>/state/logs/execution.jsonl; limit <= 0: 200, at most 2000).
// Lines that are not JSON are returned with only Raw set.
func (a *App) RunLog(runID string, limit int) (RunLogView, error) {
	ws, err := a.workspace()
	if err != nil {
		return RunLogView{}, err
	}
	if _, err := ws.runs.Get(runID); err != nil {
		return RunLogView{}, toAppError(err)
	}
	if runID != filepath.Base(runID) || runID == "." || runID == ".." {
		return RunLogView{}, &AppError{Code: workflow.CodeRunNotFound, Message: fmt.Sprintf("%q is not a run id", runID)}
	}
	switch {
	case limit <= 0:
		limit = defaultRunLogLines
	case limit > maxRunLogLines:
		limit = maxRunLogLines
	}
	path := filepath.Join(filepath.Dir(ws.runs.StatePath(runID)), filepath.FromSlash(workflow.ExecLogRel))
	raw, more, err := tailLines(path, limit, maxRunLogBytes)
	if errors.Is(err, os.ErrNotExist) {
		return RunLogView{RunID: runID, Lines: []ExecLogLine{}}, nil
	}
	if err != nil {
		return RunLogView{}, toAppError(err)
	}
	out := RunLogView{RunID: runID, Lines: make([]ExecLogLine, 0, len(raw)), Truncated: more}
	for _, l := range raw {
		out.Lines = append(out.Lines, parseExecLine(l))
	}
	return out, nil
}

func parseExecLine(line string) ExecLogLine {
	out := ExecLogLine{Raw: line}
	var rec struct {
		TS         string          `json:"ts"`
		Type       string          `json:"type"`
		Tool       string          `json:"tool"`
		ToolCallID string          `json:"toolCallId"`
		Args       json.RawMessage `json:"args"`
		OK         *bool           `json:"ok"`
		Code       string          `json:"code"`
		DurationMs int64           `json:"durationMs"`
	}
	if json.Unmarshal([]byte(line), &rec) != nil {
		return out
	}
	out.TS, out.Type, out.Tool, out.ToolCallID = rec.TS, rec.Type, rec.Tool, rec.ToolCallID
	out.OK, out.Code, out.DurationMs = rec.OK, rec.Code, rec.DurationMs
	if len(rec.Args) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, rec.Args) == nil {
			out.Args = b.String()
		} else {
			out.Args = string(rec.Args)
		}
	}
	return out
}

// tailLines returns the last n non-empty lines of the file at path, reading
// at most maxBytes from its end; more is true when older lines exist. A last
// line cut by a write in progress is returned as it is.
func tailLines(path string, n int, maxBytes int64) (lines []string, more bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	size := st.Size()
	const chunk = 64 << 10
	var buf []byte
	pos := size
	for pos > 0 && size-pos < maxBytes {
		step := int64(chunk)
		if step > pos {
			step = pos
		}
		if size-pos+step > maxBytes {
			step = maxBytes - (size - pos)
		}
		pos -= step
		part := make([]byte, step)
		if _, err := f.ReadAt(part, pos); err != nil && err != io.EOF {
			return nil, false, err
		}
		buf = append(part, buf...)
		if bytes.Count(buf, []byte{'\n'}) > n {
			break
		}
	}
	partialFirst := pos > 0
	all := strings.Split(string(buf), "\n")
	if partialFirst && len(all) > 0 {
		all = all[1:] // the first piece may be the end of an older line
	}
	for _, l := range all {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, "\r"))
		}
	}
	more = partialFirst
	if len(lines) > n {
		lines, more = lines[len(lines)-n:], true
	}
	return lines, more, nil
}

// ArtifactView is a project file shown read-only (an artifact of a run).
type ArtifactView struct {
	// Path is project-relative, slash-separated.
	Path string `json:"path"`
	// Content is the text (the first 2 MB when Truncated; empty for Binary).
	Content    string `json:"content"`
	Size       int64  `json:"size"`
	Truncated  bool   `json:"truncated"`
	Binary     bool   `json:"binary"`
	ModifiedAt string `json:"modifiedAt"`
}

// ReadArtifact reads a file of the open project by its project-relative path
// (as runs list their artifacts) for a read-only view. Paths that leave the
// project folder, also through symbolic links, fail with E_ARTIFACT_PATH; a
// missing file with E_NOT_FOUND.
func (a *App) ReadArtifact(path string) (ArtifactView, error) {
	ws, err := a.workspace()
	if err != nil {
		return ArtifactView{}, err
	}
	rel := filepath.FromSlash(strings.TrimSpace(path))
	if rel == "" || !filepath.IsLocal(rel) {
		return ArtifactView{}, &AppError{Code: CodeArtifactPath, Message: fmt.Sprintf("%q is not a path inside the project", path)}
	}
	root := ws.project.Root
	host, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if errors.Is(err, os.ErrNotExist) {
		return ArtifactView{}, &AppError{Code: convlog.ErrNotFound.Code, Message: fmt.Sprintf("%s does not exist in the project (it may have been moved or deleted)", filepath.ToSlash(rel))}
	}
	if err != nil {
		return ArtifactView{}, toAppError(err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return ArtifactView{}, toAppError(err)
	}
	if inside, err := filepath.Rel(realRoot, host); err != nil || !filepath.IsLocal(inside) {
		return ArtifactView{}, &AppError{Code: CodeArtifactPath, Message: fmt.Sprintf("%s leads outside the project folder", filepath.ToSlash(rel))}
	}
	f, err := os.Open(host)
	if err != nil {
		return ArtifactView{}, toAppError(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ArtifactView{}, toAppError(err)
	}
	if !st.Mode().IsRegular() {
		return ArtifactView{}, &AppError{Code: CodeArtifactPath, Message: fmt.Sprintf("%s is not a file", filepath.ToSlash(rel))}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxArtifactBytes+1))
	if err != nil {
		return ArtifactView{}, toAppError(err)
	}
	out := ArtifactView{Path: filepath.ToSlash(rel), Size: st.Size(), ModifiedAt: st.ModTime().UTC().Format(time.RFC3339)}
	if len(data) > maxArtifactBytes {
		data, out.Truncated = trimPartialRune(data[:maxArtifactBytes]), true
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		out.Binary = true
		return out, nil
	}
	out.Content = string(data)
	return out, nil
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b (where
// a cut fell inside a character).
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}
