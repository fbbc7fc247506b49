package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/tasks"
)

// RunTurnRequest is one turn of a workflow run: the tool loop of Send in mode
// run, with a setup that may change before every LLM call.
type RunTurnRequest struct {
	ConversationID string
	// RunID and WorkflowID tag every entry the turn appends.
	RunID      string
	WorkflowID string
	// Input is the user message that starts the turn, prepared by the caller:
	// the text to send (a run wraps it as USER_INPUT) and, when it answers a
	// ui.ask_user widget, the answer in Widget. Nil when the turn has none (a
	// run started without a message, a resume). RunTurn tags it (keeping its
	// AgentID when set) and appends it before anything else.
	Input *conversation.Entry
	// Setup is called before every LLM call of the turn and returns what the
	// request is built with: the persona, the run blocks and the tool host of
	// the node the run is at now (a tool call of the turn may have moved it).
	// Its AgentID tags the entries appended after the call. An error ends the
	// turn and is returned as is (nothing more is persisted).
	Setup func() (*RunSetup, error)
	// MaxTurns caps the LLM calls of the turn (0: settings engine.maxTurns).
	MaxTurns int
}

// RunTurn runs one turn of a workflow run in its conversation. It works like
// Send (one send or turn at a time per conversation, Stop, compression,
// streaming and tool events, every entry persisted as it happens) with these
// differences:
//
//   - the user message is req.Input, or none;
//   - every appended entry has mode "run", the run id and the workflow id;
//   - before every LLM call after the first, req.Setup is called again and
//     the request is built for it: the system prompt (persona, tool policy),
//     the run blocks (before the newest user message) and the tool
//     definitions, over the same history (the loop's messages included);
//   - a stop is persisted as ENGINE_ABORTED (not LLM_ABORTED).
//
// The conversation's active type becomes "workflow". Failures that Send would
// persist (LLM errors, ENGINE_MAX_TURNS_EXCEEDED, ENGINE_LOOP_DETECTED,
// ENGINE_ABORTED) are persisted and come back in SendResult.Err; the error is
// non-nil for an invalid request, an LLM that is not configured (nothing is
// written then), a busy conversation, a Setup failure or a store failure, and
// the result then holds what the turn did so far (nil when nothing ran).
func (s *ChatService) RunTurn(ctx context.Context, req RunTurnRequest) (*SendResult, error) {
	switch {
	case req.ConversationID == "":
		return nil, invalid("a run turn needs its conversation")
	case req.RunID == "":
		return nil, invalid("a run turn needs its run id")
	case req.Setup == nil:
		return nil, invalid("a run turn needs a setup")
	case req.Input != nil && req.Input.Role != conversation.RoleUser:
		return nil, invalid("the input of a run turn must be a user message")
	}
	meta, err := s.opts.Store.Get(req.ConversationID)
	if err != nil {
		return nil, err
	}
	st, err := s.conversationSettings(meta)
	if err != nil {
		return nil, err
	}
	if err := st.RequireLLM(); err != nil {
		return nil, err
	}
	convID := meta.ID
	ctx, release, err := s.acquire(ctx, tasks.Task{ConversationID: convID, Kind: tasks.KindRun, RunID: req.RunID})
	if err != nil {
		return nil, err
	}
	defer release()
	if meta.ActiveType != conversation.ActiveWorkflow {
		if err := s.opts.Store.UpdateMeta(convID, func(m *conversation.ConversationMeta) { m.ActiveType = conversation.ActiveWorkflow }); err != nil {
			return nil, err
		}
	}
	r := &run{s: s, ctx: ctx, convID: convID, mode: conversation.ModeRun, st: st,
		runID: req.RunID, workflowID: req.WorkflowID, setup: req.Setup, maxTurns: req.MaxTurns,
		res: &SendResult{ConversationID: convID}}
	r.approve, r.noAsk = approvalsOf(ctx, "", "")
	if in := req.Input; in != nil {
		if in.PartType == "" {
			in.PartType = conversation.PartContent
		}
		r.agentID = in.AgentID
		r.tag(in)
		if len(in.Text()) > budgetOf(st.Context).TokenLimit()/4 {
			setup, err := req.Setup()
			if err != nil {
				return nil, err
			}
			if setup == nil || setup.Tools == nil || setup.Injector == nil {
				return nil, invalid("the run setup needs a persona, a run injector and a tool host")
			}
			p := &prepared{st: st, mode: conversation.ModeRun, model: st.LLM.Model, budget: budgetOf(st.Context)}
			s.useRun(p, setup)
			if err := s.checkInput(convID, p, in); err != nil {
				return nil, err
			}
		}
		if err := s.opts.Store.Append(convID, in); err != nil {
			return nil, err
		}
		r.res.UserMessageID = in.ID
	}
	return r.execute()
}

// nextSetup asks the run turn's callback for the setup of the next LLM call.
func (r *run) nextSetup() (*RunSetup, error) {
	setup, err := r.setup()
	if err != nil {
		return nil, err
	}
	if setup == nil || setup.Tools == nil || setup.Injector == nil {
		return nil, invalid("the run setup needs a persona, a run injector and a tool host")
	}
	r.agentID = setup.AgentID
	return setup, nil
}

// canonicalJSON re-encodes a JSON text with sorted keys (as is, when it is not
// JSON), so that equal tool arguments compare equal.
func canonicalJSON(s string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSpace(s))))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}
