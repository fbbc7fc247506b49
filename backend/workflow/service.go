package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tasks"
	"crewagent/backend/tools"
)

// Store is the part of *convlog.Store the service and the engine's tool loop use.
type Store interface {
	engine.Store
}

var _ Store = (*convlog.Store)(nil)

// PackageLoader loads installed packages (*packages.Manager implements it).
type PackageLoader interface {
	Load(id string) (*packages.Package, error)
}

var _ PackageLoader = (*packages.Manager)(nil)

// SettingsProvider returns the settings in effect now (*settings.Store implements it).
type SettingsProvider interface {
	Effective() settings.Settings
}

// Config wires a Service from the parts of its project: Project, Packages, Store,
// Settings, Roots and Engine (or Loop and Tasks) are required; nothing is built here.
type Config struct {
	Project  *project.Project
	Packages PackageLoader
	Store    Store
	Settings SettingsProvider
	// Emitter receives runs:progressUpdated (default: dropped).
	Emitter events.Emitter
	// Engine runs the turns (NewEngineLoop): the chat service of the conversations, so a
	// run turn shares its rule of one send or turn at a time per conversation, its Stop,
	// streaming, context and compression. Required unless Loop is given.
	Engine *engine.ChatService
	// Loop replaces the engine's loop for every turn.
	Loop Loop
	// Tasks is the project's task registry: a turn is a task of its run's conversation,
	// one at a time there (default: the Engine's; required without an Engine).
	Tasks *tasks.Scheduler
	// Roots are the folders of every run's tools: Project, ToolResults, Deny and ReadOnly
	// (the service adds each run's Package, State and Conversation): the sandbox of the
	// application's chat and agent sends, so every mode sees the same. Required.
	Roots tools.Roots
	// Providers builds the tools beyond the built-in ones of each request of a run (nil: none).
	Providers tools.ProviderFactory
	// Changes, when set, records the changes the run's tools make to the
	// project's files (tools.Config.Changes).
	Changes tools.ChangeRecorder
	// RunWithoutSandbox reports the project's choice to run commands (shell.run) without a
	// sandbox where bubblewrap cannot start (nil: never).
	RunWithoutSandbox func() bool
	// OnToolOutput, when set, gives the receiver of the live output of the running tool
	// calls of a run's conversation (tools.Config.OnToolOutput).
	OnToolOutput func(conversationID string) func(tools.ToolOutput)
	// WatchDebounce is the quiet time Watch waits after a state file event (default 100ms).
	WatchDebounce time.Duration
	Now           func() time.Time
	NewID         func() string
}

// Service runs the workflow runs of one project: it creates them, drives their turns, keeps
// runsIndex.json, and reports progress. It is safe for concurrent use; one turn per run runs
// at a time. Everything it needs to resume a run (after a restart too) is on disk: the state
// file, the package's graph and the conversation log.
type Service struct {
	cfg    Config
	schema *StateSchema
	index  *runIndex

	mu       sync.Mutex
	sessions map[string]*session
	pkgs     map[string]*packages.Package

	watchMu sync.Mutex
	watch   *stateWatcher
}

// session is what the service keeps in memory about a run while it is open; none of it is
// needed to resume.
type session struct {
	mu    sync.Mutex
	turns int  // turns run by this process
	grant bool // the user's confirmation for one change of a completed state
}

func (ss *session) useGrant() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.grant {
		return false
	}
	ss.grant = false
	return true
}

// New checks cfg and compiles the state schema.
func New(cfg Config) (*Service, error) {
	switch {
	case cfg.Project == nil:
		return nil, errors.New("workflow: Config.Project is required")
	case cfg.Packages == nil:
		return nil, errors.New("workflow: Config.Packages is required")
	case cfg.Store == nil:
		return nil, errors.New("workflow: Config.Store is required")
	case cfg.Settings == nil:
		return nil, errors.New("workflow: Config.Settings is required")
	case cfg.Engine == nil && cfg.Loop == nil:
		return nil, errors.New("workflow: Config.Engine is required")
	case cfg.Roots.Project == "":
		return nil, errors.New("workflow: Config.Roots is required")
	}
	if cfg.Emitter == nil {
		cfg.Emitter = events.Nop{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tasks == nil && cfg.Engine != nil {
		cfg.Tasks = cfg.Engine.Tasks()
	}
	if cfg.Tasks == nil {
		return nil, errors.New("workflow: Config.Tasks is required")
	}
	if cfg.Loop == nil {
		cfg.Loop = NewEngineLoop(cfg.Engine)
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	if cfg.WatchDebounce <= 0 {
		cfg.WatchDebounce = 100 * time.Millisecond
	}
	schema, err := CompileStateSchema()
	if err != nil {
		return nil, err
	}
	return &Service{
		cfg:      cfg,
		schema:   schema,
		index:    newRunIndex(cfg.Project.DataDir),
		sessions: map[string]*session{},
		pkgs:     map[string]*packages.Package{},
	}, nil
}

// ---- paths ----

func (s *Service) runDir(id string) string    { return filepath.Join(s.cfg.Project.DataDir, RunsDir, id) }
func (s *Service) stateDir(id string) string  { return filepath.Join(s.runDir(id), "state") }
func (s *Service) statePath(id string) string { return filepath.Join(s.stateDir(id), StateFile) }
func (s *Service) execLogPath(id string) string {
	return filepath.Join(s.stateDir(id), filepath.FromSlash(ExecLogRel))
}

// StatePath returns the host path of a run's state file (for the UI's "open state" action
// and tests; never shown to the model).
func (s *Service) StatePath(runID string) string { return s.statePath(runID) }

// artifactsDir is the project-relative artifacts folder, slash-separated.
func (s *Service) artifactsDir() string {
	p := s.cfg.Project
	if p.ArtifactsDir != "" {
		if rel, err := filepath.Rel(p.Root, p.ArtifactsDir); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return tools.DefaultArtifactsDir
}

func (s *Service) now() string { return stamp(s.cfg.Now()) }

// ---- packages ----

func (s *Service) loadPackage(id string) (*packages.Package, error) {
	s.mu.Lock()
	pkg := s.pkgs[id]
	s.mu.Unlock()
	if pkg != nil {
		return pkg, nil
	}
	pkg, err := s.cfg.Packages.Load(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.pkgs[id] = pkg
	s.mu.Unlock()
	return pkg, nil
}

// runCtx is a run with its package, workflow and graph.
type runCtx struct {
	run   Run
	pkg   *packages.Package
	wf    *packages.Workflow
	graph *packages.Graph
}

func (s *Service) open(runID string) (*runCtx, error) {
	run, err := s.index.get(runID)
	if err != nil {
		return nil, err
	}
	pkg, err := s.loadPackage(run.PackageID)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", runID, err)
	}
	wf, err := findWorkflow(pkg, run.WorkflowID)
	if err != nil {
		return nil, err
	}
	g, err := workflowGraph(pkg, wf)
	if err != nil {
		return nil, err
	}
	return &runCtx{run: run, pkg: pkg, wf: wf, graph: g}, nil
}

func (s *Service) readState(runID string) (*State, error) {
	b, err := os.ReadFile(s.statePath(runID))
	if err != nil {
		return nil, wrap(CodeStateCorrupt, err, fmt.Sprintf("run %s: cannot read its state file", runID))
	}
	st, err := ParseState(b)
	if err != nil {
		return nil, wrap(CodeStateCorrupt, err, fmt.Sprintf("run %s: the state file is damaged (%s); fix its frontmatter by hand", runID, s.statePath(runID)))
	}
	return st, nil
}

// ---- sessions ----

func (s *Service) session(runID string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[runID]
	if ss == nil {
		ss = &session{}
		s.sessions[runID] = ss
	}
	return ss
}

// Abort stops the turn in progress of a run; it reports whether one was running.
func (s *Service) Abort(runID string) bool {
	run, err := s.index.get(runID)
	if err != nil {
		return false
	}
	return s.cfg.Tasks.StopIf(run.ConversationID, func(t tasks.Task) bool { return t.RunID == runID })
}

// turnRunning reports whether a turn of the run is in progress.
func (s *Service) turnRunning(run Run) bool {
	t, ok := s.cfg.Tasks.Running(run.ConversationID)
	return ok && t.RunID == run.RunID
}

// DeleteConversationRuns removes the runs that talk in a conversation, for the deletion of
// the conversation: their rows of runsIndex.json first (they leave "run list" at once),
// then their folders runs/<runId>/ (state file and execution log). Turns in progress are
// stopped. It returns the ids of the runs removed. Call it before deleting the
// conversation itself: a crash in between leaves a conversation without its runs, never a
// run without its conversation.
func (s *Service) DeleteConversationRuns(conversationID string) ([]string, error) {
	removed, err := s.index.removeWhere(func(r Run) bool { return r.ConversationID == conversationID })
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(removed))
	var firstErr error
	for _, r := range removed {
		ids = append(ids, r.RunID)
		s.Abort(r.RunID)
		s.mu.Lock()
		delete(s.sessions, r.RunID)
		s.mu.Unlock()
		if !validRunID(r.RunID) {
			continue // never a path outside runs/
		}
		if err := os.RemoveAll(s.runDir(r.RunID)); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("removing run %s: %w", r.RunID, err)
		}
	}
	return ids, firstErr
}

// validRunID reports whether id can name a folder under runs/ (one path element).
func validRunID(id string) bool {
	return id != "" && id != "." && id != ".." && filepath.Base(id) == id && !strings.ContainsAny(id, `/\`)
}

// ---- turns ----

// StartOptions choose what Start runs.
type StartOptions struct {
	PackageID  string
	WorkflowID string
	// AgentID is the run's active agent ("" for the entry node's agent, else the first
	// agent of the package).
	AgentID string
	// ConversationID is the conversation the run talks in ("" for a new one).
	ConversationID string
	// Message is the user's first message (optional).
	Message string
}

// TurnResult is the outcome of a turn. It is returned together with the turn's error when
// the turn ran but failed (the failure is then already persisted and in Run.LastError).
type TurnResult struct {
	Run      Run           `json:"run"`
	Intent   string        `json:"intent"`
	Text     string        `json:"text"`
	Pending  *tools.Widget `json:"pendingWidget,omitempty"`
	Requests int           `json:"requests"`
}

// Start creates a run (CreateRun) and runs its first turn.
func (s *Service) Start(ctx context.Context, o StartOptions) (*TurnResult, error) {
	run, err := s.CreateRun(o.PackageID, o.WorkflowID, o.AgentID, o.ConversationID)
	if err != nil {
		return nil, err
	}
	rc, err := s.open(run.RunID)
	if err != nil {
		return &TurnResult{Run: run}, err
	}
	var in *turnInput
	if strings.TrimSpace(o.Message) != "" {
		in = &turnInput{text: o.Message}
	}
	return s.turn(ctx, rc, in)
}

// Continue sends user input to a run and runs a turn; it also resumes a run after a
// restart or a failure. While a ui.ask_user widget is pending, a message that reads as an
// answer to it (yes/no for a confirmation, an option for a selection, a JSON object for a
// form) is recorded as that answer. An empty message resumes without input.
func (s *Service) Continue(ctx context.Context, runID, message string) (*TurnResult, error) {
	rc, err := s.open(runID)
	if err != nil {
		return nil, err
	}
	var in *turnInput
	if strings.TrimSpace(message) != "" {
		in = &turnInput{text: message}
		w, err := s.pendingWidgetIn(rc.run.ConversationID, runID)
		if err != nil {
			return nil, err
		}
		if w != nil {
			if a, ok := answerFromText(w, message); ok {
				in.text = w.AnswerText(a)
				in.answer = &WidgetAnswerRecord{WidgetID: w.ID, Type: w.Type, Answer: a}
			}
		}
	}
	return s.turn(ctx, rc, in)
}

// AnswerWidget answers the pending ui.ask_user widget of a run (the UI's structured answer)
// and runs a turn with it.
func (s *Service) AnswerWidget(ctx context.Context, runID, widgetID string, answer tools.WidgetAnswer) (*TurnResult, error) {
	rc, err := s.open(runID)
	if err != nil {
		return nil, err
	}
	w, err := s.pendingWidgetIn(rc.run.ConversationID, runID)
	if err != nil {
		return nil, err
	}
	if w == nil || w.ID != widgetID {
		return nil, errorf(CodeNoWidget, "run %s has no pending question %q (it was answered or superseded)", runID, widgetID)
	}
	if terr := w.ValidateAnswer(answer); terr != nil {
		return nil, errorf(CodeBadAnswer, "%s", terr.Message)
	}
	return s.turn(ctx, rc, &turnInput{text: w.AnswerText(answer),
		answer: &WidgetAnswerRecord{WidgetID: w.ID, Type: w.Type, Answer: answer}})
}

// PendingWidget returns the run's unanswered ui.ask_user widget, or nil.
func (s *Service) PendingWidget(runID string) (*tools.Widget, error) {
	run, err := s.index.get(runID)
	if err != nil {
		return nil, err
	}
	return s.pendingWidgetIn(run.ConversationID, runID)
}

type turnInput struct {
	text   string
	answer *WidgetAnswerRecord
}

// turn runs one turn of rc: the input (if any), then the loop until the model stops.
func (s *Service) turn(ctx context.Context, rc *runCtx, in *turnInput) (*TurnResult, error) {
	runID := rc.run.RunID
	ss := s.session(runID)
	ctx, release, err := s.cfg.Tasks.Enter(ctx, tasks.Task{ConversationID: rc.run.ConversationID, Kind: tasks.KindRun, RunID: runID})
	if errors.Is(err, tasks.ErrBusy) {
		return nil, errorf(CodeRunBusy, "run %s is already answering, or a reply is being generated in its conversation; wait for it or stop it", runID)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		ss.mu.Lock()
		ss.turns++
		ss.mu.Unlock()
		release()
	}()

	res := &TurnResult{Run: rc.run}
	st, err := s.readState(runID)
	if err != nil {
		return res, err
	}
	entries, err := s.cfg.Store.Load(rc.run.ConversationID)
	if err != nil {
		return res, err
	}
	ss.mu.Lock()
	res.Intent = s.intent(rc, st, ss.turns, entries)
	ss.mu.Unlock()

	var input *conversation.Entry
	if in != nil {
		node := st.EffectiveNode(rc.graph)
		input = &conversation.Entry{Role: conversation.RoleUser, PartType: conversation.PartContent,
			Content: conversation.Str(UserInput(node, in.text)), AgentID: nodeAgent(rc.graph, node, rc.run.ActiveAgentID)}
		if in.answer != nil {
			b, err := json.Marshal(in.answer)
			if err != nil {
				return res, err
			}
			input.Widget = b
		}
		entries = append(entries, &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, RunID: runID, Widget: input.Widget})
	}
	ss.mu.Lock()
	ss.grant = confirmationAvailable(entries, runID)
	ss.mu.Unlock()

	s.execLog(runID, map[string]any{"type": "turn_start", "intent": res.Intent, "input": in != nil})
	if run, err := s.setPhase(rc, PhaseRunning, nil, st); err == nil {
		res.Run = run
	} else {
		return res, err
	}

	set := s.cfg.Settings.Effective()
	maxTurns := set.Engine.MaxTurns
	if maxTurns <= 0 {
		maxTurns = settings.Defaults().Engine.MaxTurns
	}
	out, loopErr := s.cfg.Loop.RunTurn(ctx, &Turn{
		ConversationID: rc.run.ConversationID,
		RunID:          runID,
		WorkflowID:     rc.wf.ID,
		Input:          input,
		MaxTurns:       maxTurns,
		Prepare:        func() (*Setup, error) { return s.prepare(rc, res.Intent, ss, set) },
	})
	if out != nil {
		res.Text, res.Pending, res.Requests = out.Text, out.Pending, out.Requests
	}

	// The phase comes from the state as the turn left it.
	final, stErr := s.readState(runID)
	complete := stErr == nil && final.Complete(rc.graph)
	phase, lastErr := PhaseWaitingUser, (*RunError)(nil)
	switch code := errCode(loopErr); {
	case loopErr == nil && complete:
		phase = PhaseCompleted
	case loopErr == nil:
		phase = PhaseWaitingUser
	default:
		lastErr = &RunError{Code: code, Message: errMessage(loopErr)}
		switch {
		case complete:
			phase = PhaseCompleted
		case code == CodeMaxTurns || code == CodeAborted:
			phase = PhaseWaitingUser
		default:
			phase = PhaseFailed
		}
	}
	if stErr != nil {
		final = nil
	}
	endLine := map[string]any{"type": "turn_end", "phase": phase, "requests": res.Requests}
	if loopErr != nil {
		endLine["code"] = errCode(loopErr)
	}
	s.execLog(runID, endLine)
	run, err := s.setPhase(rc, phase, lastErr, final)
	if err == nil {
		res.Run = run
	}
	if loopErr != nil {
		return res, loopErr
	}
	return res, err
}

func errCode(err error) string {
	if err == nil {
		return ""
	}
	return errs.From(err).Code
}

// errMessage is the message of a turn's failure without its code: an
// *Error's, a failed model call's (without its HTTP status and provider).
func errMessage(err error) string {
	var e *Error
	var le *llm.Error
	switch {
	case errors.As(err, &e):
		return e.Message
	case errors.As(err, &le):
		return le.Message
	}
	return err.Error()
}

// intent is start for a run without progress or earlier exchanges, resume for the first
// turn of this process or after a failed or interrupted turn, continue otherwise.
func (s *Service) intent(rc *runCtx, st *State, turnsHere int, entries []*conversation.Entry) string {
	spoken := slices.ContainsFunc(entries, func(e *conversation.Entry) bool {
		return e.IsMessage() && e.RunID == rc.run.RunID && e.Role == conversation.RoleAssistant
	})
	switch {
	case !st.Started() && !spoken:
		return IntentStart
	case turnsHere == 0, rc.run.Phase == PhaseFailed, rc.run.Phase == PhaseRunning:
		return IntentResume
	}
	return IntentContinue
}

// prepare is called before each model request: it reads the state, keeps the index in
// step, and returns the persona, run blocks and tool host of the current node.
func (s *Service) prepare(rc *runCtx, intent string, ss *session, set settings.Settings) (*Setup, error) {
	st, err := s.readState(rc.run.RunID)
	if err != nil {
		return nil, err
	}
	s.syncMirror(rc, st)
	return s.setupFor(rc, st, intent, ss, set)
}

// setupFor returns the persona, run blocks and tool host of the node the state is at.
func (s *Service) setupFor(rc *runCtx, st *State, intent string, ss *session, set settings.Settings) (*Setup, error) {
	agentID := nodeAgent(rc.graph, st.EffectiveNode(rc.graph), rc.run.ActiveAgentID)
	agent, err := findAgent(rc.pkg, agentID)
	if err != nil {
		return nil, err
	}
	return &Setup{
		AgentID:  agentID,
		Persona:  personaOf(agent),
		Injector: NewInjector(intent, rc.wf, st, rc.run.ActiveAgentID, s.artifactsDir()),
		Tools:    s.toolHost(rc, agent, ss, set),
	}, nil
}

// personaOf converts a package agent to the persona of the system prompt,
// as Agent mode does.
func personaOf(a *packages.Agent) contextbuilder.Persona {
	return AgentFromPackage(nil, a).Persona
}

// agentPolicy is an agent's tools block in the tool host's form.
func agentPolicy(a *packages.Agent) *tools.AgentTools {
	return AgentFromPackage(nil, a).Tools
}

func systemPolicy(t settings.Tools) tools.Policy {
	return tools.Policy{
		FS:    tools.FSPolicy{Enabled: t.FS.Enabled, MaxReadBytes: int64(t.FS.MaxReadBytes), MaxWriteBytes: int64(t.FS.MaxWriteBytes)},
		MCP:   tools.SettingsMCP(t.MCP.Enabled, t.MCP.AllowedServers),
		Shell: tools.ShellPolicy{Enabled: t.Shell.Enabled},
	}
}

// shellConfig is how the commands of a run's turns run: the settings' time limit and
// network, and the project's choice where the sandbox cannot start.
func (s *Service) shellConfig(t settings.ShellTools) tools.ShellConfig {
	c := tools.ShellConfig{Timeout: time.Duration(t.TimeoutSeconds) * time.Second}
	if t.AllowNetwork {
		c.Network = func(string) bool { return true }
	}
	if s.cfg.RunWithoutSandbox != nil {
		c.RunWithoutSandbox = s.cfg.RunWithoutSandbox()
	}
	return c
}

// ---- phases, index and progress ----

// applyState copies the state's progress into the index row; it reports a change.
func applyState(r *Run, st *State) bool {
	if st == nil {
		return false
	}
	changed := r.CurrentNodeID != st.CurrentNodeID || !slices.Equal(r.StepsCompleted, st.StepsCompleted) ||
		!slices.Equal(r.Artifacts, st.Artifacts)
	r.CurrentNodeID = st.CurrentNodeID
	r.StepsCompleted = slices.Clone(st.StepsCompleted)
	r.Artifacts = slices.Clone(st.Artifacts)
	return changed
}

// setPhase records a phase (and the state's progress) in the index and the conversation's
// run reference, then reports progress.
func (s *Service) setPhase(rc *runCtx, phase string, lastErr *RunError, st *State) (Run, error) {
	now := s.now()
	var recs []*conversation.Entry
	run, _, err := s.index.update(rc.run.RunID, false, func(r *Run) {
		r.Phase = phase
		r.LastError = lastErr
		recs = s.progressRecords(rc, r, st)
		applyState(r, st)
		r.UpdatedAt = now
	})
	if err == nil {
		s.writeRecords(rc, recs)
	}
	if err != nil {
		return rc.run, err
	}
	rc.run = run
	err = s.cfg.Store.UpdateMeta(run.ConversationID, func(m *conversation.ConversationMeta) {
		for i := range m.Runs {
			if m.Runs[i].RunID == run.RunID {
				m.Runs[i].Phase, m.Runs[i].LastUpdatedAt = phase, now
				return
			}
		}
		m.Runs = append(m.Runs, conversation.RunRef{RunID: run.RunID, WorkflowID: run.WorkflowID, Phase: phase, StartedAt: run.CreatedAt, LastUpdatedAt: now})
	})
	s.emitProgress(rc, run, st)
	return run, err
}

// syncMirror refreshes the index row from the state and reports progress when it changed.
func (s *Service) syncMirror(rc *runCtx, st *State) {
	now := s.now()
	var recs []*conversation.Entry
	run, changed, err := s.index.update(rc.run.RunID, false, func(r *Run) {
		recs = s.progressRecords(rc, r, st)
		if applyState(r, st) {
			r.UpdatedAt = now
		}
	})
	if err != nil || !changed {
		return
	}
	s.writeRecords(rc, recs)
	rc.run = run
	s.emitProgress(rc, run, st)
}

// Runtime records: what compaction keeps of a run whatever happens to the
// rest of the conversation. When the state shows a step completed or an
// artifact saved that the run's index row does not list yet, a record goes to
// the conversation: a system message with partType "record" and a content
// starting with NODE_COMPLETE or ARTIFACT_SAVED, naming the workflow and the
// run.
const (
	RecordNodeComplete  = conversation.RecordNodeComplete
	RecordArtifactSaved = conversation.RecordArtifactSaved
)

// progressRecords returns the records of what st holds beyond row r.
func (s *Service) progressRecords(rc *runCtx, r *Run, st *State) []*conversation.Entry {
	if st == nil {
		return nil
	}
	tag := " — workflow " + rc.run.WorkflowID + ", run " + rc.run.RunID
	var out []*conversation.Entry
	add := func(text string) {
		// A system message: the chat hides it, the rules that read a run's
		// user and assistant messages (the pending question, the user's
		// confirmation) pass it by, and the context builder quotes it in its
		// PINNED message, where every compaction carries it.
		out = append(out, &conversation.Entry{Type: conversation.TypeMsg, ID: s.cfg.NewID(), CreatedAt: s.now(), Role: conversation.RoleSystem,
			Content: conversation.Str(text), PartType: conversation.PartRecord, Mode: conversation.ModeRun,
			RunID: rc.run.RunID, WorkflowID: rc.run.WorkflowID, AgentID: rc.run.ActiveAgentID})
	}
	for _, n := range st.StepsCompleted {
		if slices.Contains(r.StepsCompleted, n) {
			continue
		}
		title := ""
		if rc.graph != nil {
			if node := rc.graph.Node(n); node != nil && node.Title != "" {
				title = " (" + node.Title + ")"
			}
		}
		add(RecordNodeComplete + " " + n + title + tag)
	}
	for _, a := range st.Artifacts {
		if slices.Contains(r.Artifacts, a) {
			continue
		}
		path := a
		if !strings.HasPrefix(path, "@") {
			path = "@project/" + strings.TrimPrefix(path, "/")
		}
		add(RecordArtifactSaved + " " + path + tag + ", node " + st.CurrentNodeID)
	}
	return out
}

// writeRecords appends records to the run's conversation; a failure is
// logged in the run's execution log (the state still holds the progress).
func (s *Service) writeRecords(rc *runCtx, recs []*conversation.Entry) {
	if len(recs) == 0 {
		return
	}
	if err := s.cfg.Store.Append(rc.run.ConversationID, recs...); err != nil {
		s.execLog(rc.run.RunID, map[string]any{"type": "record_failed", "error": err.Error()})
	}
}

// NodeProgress is one node of a run's graph as the run panel shows it (events.NodeProgress).
type NodeProgress = events.NodeProgress

// Node statuses of NodeProgress.
const (
	NodeCompleted = "completed"
	NodeCurrent   = "current"
	NodePending   = "pending"
)

// Progress is the payload of runs:progressUpdated and the body of a run's status
// (events.ProgressEvent).
type Progress = events.ProgressEvent

func progressOf(run Run, g *packages.Graph, st *State) Progress {
	p := Progress{
		RunID: run.RunID, ConversationID: run.ConversationID, PackageID: run.PackageID, WorkflowID: run.WorkflowID,
		ActiveAgentID: run.ActiveAgentID, Phase: run.Phase, CurrentNodeID: run.CurrentNodeID,
		StepsCompleted: slices.Clone(run.StepsCompleted), Artifacts: slices.Clone(run.Artifacts),
		LastError: run.LastError, UpdatedAt: run.UpdatedAt,
	}
	if p.StepsCompleted == nil {
		p.StepsCompleted = []string{}
	}
	if p.Artifacts == nil {
		p.Artifacts = []string{}
	}
	if g == nil {
		return p
	}
	if st == nil {
		st = &State{CurrentNodeID: run.CurrentNodeID, StepsCompleted: run.StepsCompleted}
	}
	p.Complete = st.Complete(g)
	cur := st.EffectiveNode(g)
	p.EffectiveAgent = nodeAgent(g, cur, run.ActiveAgentID)
	for _, n := range g.Nodes {
		status := NodePending
		switch {
		case slices.Contains(st.StepsCompleted, n.ID):
			status = NodeCompleted
		case n.ID == cur && !p.Complete:
			status = NodeCurrent
		}
		p.Nodes = append(p.Nodes, NodeProgress{ID: n.ID, Title: n.Title, Type: n.Type, Status: status})
	}
	return p
}

func (s *Service) emitProgress(rc *runCtx, run Run, st *State) {
	var g *packages.Graph
	if rc != nil {
		g = rc.graph
	}
	s.cfg.Emitter.Emit(events.RunsProgressUpdated, progressOf(run, g, st))
}

// execLog appends one runtime line to the run's execution.jsonl (beside the tool calls the
// tool host logs there). Failures to log are ignored: the log is a record, not a source.
func (s *Service) execLog(runID string, fields map[string]any) {
	fields["ts"] = s.now()
	b, err := json.Marshal(fields)
	if err != nil {
		return
	}
	p := s.execLogPath(runID)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// ---- queries ----

// Status returns a run's progress, read from its state file (the index row may lag behind
// while a turn runs), with the graph's nodes and the pending widget, if any.
func (s *Service) Status(runID string) (*RunStatus, error) {
	rc, err := s.open(runID)
	if err != nil {
		return nil, err
	}
	st, err := s.readState(runID)
	if err != nil {
		return nil, err
	}
	run := rc.run
	applyState(&run, st)
	out := &RunStatus{Progress: progressOf(run, rc.graph, st)}
	if w, err := s.pendingWidgetIn(run.ConversationID, runID); err == nil {
		out.Pending = w
	}
	out.Active = s.turnRunning(run)
	return out, nil
}

// RunStatus is a run's progress with its pending question.
type RunStatus struct {
	Progress
	// Pending is the unanswered ui.ask_user widget, if any.
	Pending *tools.Widget `json:"pendingWidget,omitempty"`
	// Active is true while this process runs a turn of the run.
	Active bool `json:"active"`
}

// List returns every run of the project in creation order, their progress read from the
// state files.
func (s *Service) List() ([]Run, error) {
	runs, err := s.index.list()
	if err != nil {
		return nil, err
	}
	for i := range runs {
		if st, err := s.readState(runs[i].RunID); err == nil {
			applyState(&runs[i], st)
		}
	}
	return runs, nil
}

// Get returns the index row of a run.
func (s *Service) Get(runID string) (Run, error) { return s.index.get(runID) }

// LatestRun returns the newest run that talks in a conversation (RUN_NOT_FOUND when none).
func (s *Service) LatestRun(conversationID string) (Run, error) {
	runs, err := s.index.list()
	if err != nil {
		return Run{}, err
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].ConversationID == conversationID {
			return runs[i], nil
		}
	}
	return Run{}, errorf(CodeRunNotFound, "conversation %s has no workflow run (start one with 'crewagent run start --workflow ID')", conversationID)
}

// NextSetup returns what the next model request of a run would be built with (persona, run
// blocks, tool host), as the first turn of a new process would build it, without writing
// anything: for previews of run-mode requests.
func (s *Service) NextSetup(runID string) (*Setup, error) {
	rc, err := s.open(runID)
	if err != nil {
		return nil, err
	}
	st, err := s.readState(runID)
	if err != nil {
		return nil, err
	}
	entries, err := s.cfg.Store.Load(rc.run.ConversationID)
	if err != nil {
		return nil, err
	}
	ss := s.session(runID)
	ss.mu.Lock()
	intent := s.intent(rc, st, ss.turns, entries)
	ss.mu.Unlock()
	return s.setupFor(rc, st, intent, &session{}, s.cfg.Settings.Effective())
}
