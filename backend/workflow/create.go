package workflow

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/fsx"
	"crewagent/backend/packages"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// WorkflowRef is the workflowRef of a run's state: where its workflow comes from.
type WorkflowRef struct {
	PackageID  string `json:"packageId"`
	WorkflowID string `json:"workflowId"`
	Workflow   string `json:"workflow"` // @pkg/<workflow.md>
	Graph      string `json:"graph"`    // @pkg/<workflow.graph.json>
}

// CreateRun creates a run of workflow workflowID of the installed package packageID:
//
//   - runs/<runId>/state/workflow.md, a copy of the package's workflow.md whose frontmatter
//     gets runId, activeAgentId, workflowRef and updatedAt, and empty stepsCompleted,
//     variables, decisionLog and artifacts (the body is kept byte for byte);
//   - runs/<runId>/state/logs/execution.jsonl, starting with a run_created line;
//   - a row in runsIndex.json with phase idle;
//   - a run reference in the conversation's metadata (the conversation becomes a workflow
//     conversation with this workflow and agent selected) and a run_started event in its log.
//
// activeAgentID "" takes the entry node's agent, else the package's first agent;
// conversationID "" creates a conversation titled after the workflow. An unknown package,
// workflow, agent or conversation, or a workflow without a usable graph, is an error and
// nothing is created.
func (s *Service) CreateRun(packageID, workflowID, activeAgentID, conversationID string) (Run, error) {
	if strings.TrimSpace(packageID) == "" {
		return Run{}, errorf(CodeNoPackage, "no package given for the run (see \"package list\")")
	}
	pkg, err := s.loadPackage(packageID)
	if err != nil {
		return Run{}, err
	}
	wf, err := findWorkflow(pkg, workflowID)
	if err != nil {
		return Run{}, err
	}
	g, err := workflowGraph(pkg, wf)
	if err != nil {
		return Run{}, err
	}
	if activeAgentID == "" {
		activeAgentID = nodeAgent(g, g.EntryNodeID, "")
		if activeAgentID == "" && len(pkg.Agents) > 0 {
			activeAgentID = pkg.Agents[0].ID
		}
	}
	if _, err := findAgent(pkg, activeAgentID); err != nil {
		return Run{}, err
	}
	template, err := os.ReadFile(filepath.Join(pkg.Root, filepath.FromSlash(wf.WorkflowPath)))
	if err != nil {
		return Run{}, fmt.Errorf("package %s: cannot read %s: %w", pkg.ID, wf.WorkflowPath, err)
	}

	var conv conversation.ConversationMeta
	if conversationID == "" {
		title := wf.DisplayName
		if title == "" {
			title = wf.ID
		}
		conv, err = s.cfg.Store.Create(title, conversation.ActiveWorkflow)
	} else {
		conv, err = s.cfg.Store.Get(conversationID)
		if err != nil && errs.CodeOf(err) != "" {
			err = wrap(CodeConversationNotFound, err, fmt.Sprintf("conversation %q cannot be used for the run", conversationID))
		}
	}
	if err != nil {
		return Run{}, err
	}

	runID := s.cfg.NewID()
	now := s.now()
	ref := WorkflowRef{PackageID: pkg.ID, WorkflowID: wf.ID, Workflow: "@pkg/" + wf.WorkflowPath, Graph: "@pkg/" + wf.GraphPath}
	update, _ := json.Marshal(map[string]any{
		"runId":          map[string]any{"set": runID},
		"activeAgentId":  map[string]any{"set": activeAgentID},
		"workflowRef":    map[string]any{"set": ref},
		"updatedAt":      map[string]any{"set": now},
		"stepsCompleted": map[string]any{"set": []string{}},
		"variables":      map[string]any{"set": map[string]any{}},
		"decisionLog":    map[string]any{"set": []any{}},
		"artifacts":      map[string]any{"set": []string{}},
	})
	state, _, terr := tools.UpdateFrontmatter(template, update)
	if terr != nil {
		return Run{}, fmt.Errorf("package %s: %s cannot be used as a run state: %s", pkg.ID, wf.WorkflowPath, terr.Message)
	}
	st, err := ParseState(state)
	if err != nil {
		return Run{}, fmt.Errorf("package %s: %s cannot be used as a run state: %w", pkg.ID, wf.WorkflowPath, err)
	}
	if probs := s.schema.Validate(st.Fields); len(probs) > 0 {
		return Run{}, fmt.Errorf("package %s: %s breaks the workflow state schema: %s", pkg.ID, wf.WorkflowPath, probs[0])
	}

	dir := s.runDir(runID)
	fail := func(err error) (Run, error) {
		_ = os.RemoveAll(dir)
		return Run{}, err
	}
	if err := os.MkdirAll(filepath.Dir(s.execLogPath(runID)), 0o755); err != nil {
		return fail(err)
	}
	if err := fsx.WriteFile(s.statePath(runID), state, 0o644); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(s.execLogPath(runID), nil, 0o644); err != nil {
		return fail(err)
	}
	s.execLog(runID, map[string]any{"type": "run_created", "runId": runID, "packageId": pkg.ID, "workflowId": wf.ID,
		"activeAgentId": activeAgentID, "conversationId": conv.ID})
	run, _, err := s.index.update(runID, true, func(r *Run) {
		*r = Run{RunID: runID, PackageID: pkg.ID, WorkflowID: wf.ID, ActiveAgentID: activeAgentID, ConversationID: conv.ID,
			Phase: PhaseIdle, CreatedAt: now, UpdatedAt: now}
		applyState(r, st)
	})
	if err != nil {
		return fail(err)
	}
	if err := s.cfg.Store.UpdateMeta(conv.ID, func(m *conversation.ConversationMeta) {
		m.ActiveType = conversation.ActiveWorkflow
		m.SelectedWorkflowID = wf.ID
		m.SelectedAgentID = activeAgentID
		m.Runs = append(m.Runs, conversation.RunRef{RunID: runID, WorkflowID: wf.ID, Phase: PhaseIdle, StartedAt: now, LastUpdatedAt: now})
	}); err != nil {
		return run, err
	}
	data, _ := json.Marshal(map[string]string{"runId": runID, "workflowId": wf.ID, "packageId": pkg.ID, "activeAgentId": activeAgentID})
	if err := s.cfg.Store.Append(conv.ID, &conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventRunStarted, Data: data,
		RunID: runID, WorkflowID: wf.ID}); err != nil {
		return run, err
	}
	s.emitProgress(&runCtx{run: run, pkg: pkg, wf: wf, graph: g}, run, st)
	return run, nil
}

// ---- the tool host of a run ----

// toolHost is the tool host of one model request of a run. A new file under the artifacts
// folder is recorded in the state's artifacts[]; when that fails the file is removed again
// and the call fails with E_INTERNAL, so the model never believes in an unrecorded artifact.
func (s *Service) toolHost(rc *runCtx, agent *packages.Agent, ss *session, set settings.Settings) *tools.Host {
	runID := rc.run.RunID
	roots := s.cfg.Roots
	roots.Package, roots.State, roots.Conversation = rc.pkg.Root, s.stateDir(runID), rc.run.ConversationID
	policy := tools.Merge(systemPolicy(set.Tools), agentPolicy(agent))
	var providers []tools.Provider
	if s.cfg.Providers != nil {
		providers = s.cfg.Providers(tools.Scope{ConversationID: rc.run.ConversationID, Mode: conversation.ModeRun, AgentID: agent.ID,
			RunID: runID, WorkflowID: rc.wf.ID, Policy: policy})
	}
	var onOutput func(tools.ToolOutput)
	if s.cfg.OnToolOutput != nil {
		onOutput = s.cfg.OnToolOutput(rc.run.ConversationID)
	}
	return tools.NewHost(tools.Config{
		OnToolOutput:      onOutput,
		Roots:             roots,
		Policy:            policy,
		Providers:         providers,
		StateGuard:        &Guard{Schema: s.schema, Graph: rc.graph, Confirm: ss.useGrant, ProjectRoot: s.cfg.Project.Root},
		ArtifactsDir:      s.artifactsDir(),
		OnArtifactWritten: func(rel string) error { return s.recordArtifact(rc, rel) },
		ExecLogPath:       s.execLogPath(runID),
		Shell:             s.shellConfig(set.Tools.Shell),
		Changes:           s.cfg.Changes,
		Now:               s.cfg.Now,
	})
}

// recordArtifact appends a project-relative path to the state's artifacts[] (once). When the
// state cannot be updated, the artifact file is removed and the error says so.
func (s *Service) recordArtifact(rc *runCtx, rel string) error {
	runID := rc.run.RunID
	err := func() error {
		old, err := os.ReadFile(s.statePath(runID))
		if err != nil {
			return err
		}
		st, err := ParseState(old)
		if err != nil {
			return err
		}
		for _, a := range st.Artifacts {
			if a == rel {
				return nil
			}
		}
		update, _ := json.Marshal(map[string]any{
			"artifacts": map[string]any{"append": []string{rel}},
			"updatedAt": map[string]any{"set": s.now()},
		})
		out, _, terr := tools.UpdateFrontmatter(old, update)
		if terr != nil {
			return terr
		}
		if err := fsx.WriteFile(s.statePath(runID), out, 0o644); err != nil {
			return err
		}
		if st, err := ParseState(out); err == nil {
			s.syncMirror(rc, st)
		}
		return nil
	}()
	if err == nil {
		s.execLog(runID, map[string]any{"type": "artifact_recorded", "path": rel})
		return nil
	}
	rmErr := os.Remove(filepath.Join(s.cfg.Project.Root, filepath.FromSlash(rel)))
	why := "the state file could not be read or written"
	if te, ok := tools.AsToolError(err); ok {
		why = te.Message
	}
	s.execLog(runID, map[string]any{"type": "artifact_rollback", "path": rel, "error": why, "removed": rmErr == nil})
	msg := fmt.Sprintf("@project/%s was written but could not be recorded in %s, so it was removed again", rel, StateAlias)
	if rmErr != nil {
		msg = fmt.Sprintf("@project/%s was written but could not be recorded in %s, and removing it failed too", rel, StateAlias)
	}
	return fmt.Errorf("%s; check the state file's frontmatter (artifacts must be a list) and write the file again", msg)
}
