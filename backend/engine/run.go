package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"crewagent/backend/approval"
	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// run is one send (or run turn) after the user message was persisted.
type run struct {
	s       *ChatService
	ctx     context.Context
	convID  string
	mode    string
	agent   *Agent
	agentID string
	st      settings.Settings
	res     *SendResult

	// Run turns only: the tags of every entry, the setup callback called
	// before each LLM call, and the cap of LLM calls (0: settings).
	runID      string
	workflowID string
	setup      func() (*RunSetup, error)
	maxTurns   int
	// turnsUsed are LLM calls made earlier in the work a continuation goes
	// on with: they count against the cap.
	turnsUsed int

	p         *prepared
	client    LLM
	cx        *contexter
	lastUsage compression.Usage
	failing   map[string]int // failed tool calls of this send by name and arguments
	// callUsage is the usage the server reported for the LLM call whose
	// message is callMsgID: append records it on that message.
	callUsage *conversation.Usage
	callMsgID string

	// approve is the approval mode the send asked for ("" = the
	// conversation's); noAsk, when set, says why nobody can be asked: a call
	// that would wait for approval is refused instead.
	approve approval.Mode
	noAsk   string
	// resolve answers a request left waiting before the loop goes on.
	resolve *Resolution
}

func (r *run) execute() (*SendResult, error) {
	s := r.s
	r.client = s.client(r.st.LLM)
	var (
		p   *prepared
		err error
	)
	if r.setup != nil {
		setup, serr := r.nextSetup()
		if serr != nil {
			return r.res, serr
		}
		p, err = s.prepareRun(r.convID, setup, r.st)
	} else {
		p, err = s.prepare(r.convID, r.mode, r.agent, r.st)
	}
	if err != nil {
		return r.result(err)
	}
	r.p = p
	r.cx = s.contexter(p, r.convID, true)
	r.cx.sum = NewSummarizer(r.client, r.st.LLM.SummaryModelOrDefault())
	r.cx.runID, r.cx.workflowID = r.runID, r.workflowID
	r.cx.onCompacting = func() {
		r.res.Context.Compressed = true
		r.s.opts.Usage(usageEvent(r.convID, r.lastUsage, compression.StatusCompressing))
	}

	if r.resolve != nil {
		if err := r.resolveHeld(*r.resolve); err != nil {
			return r.result(err)
		}
	}

	maxTurns := r.maxTurns
	if maxTurns <= 0 {
		maxTurns = r.st.Engine.MaxTurns
	}
	if maxTurns <= 0 {
		maxTurns = settings.Defaults().Engine.MaxTurns
	}
	r.failing = map[string]int{}
	if r.turnsUsed >= maxTurns {
		return r.fail("", nil, "", maxTurnsError(maxTurns))
	}
	for turn := 0; ; turn++ {
		if turn > 0 && r.setup != nil {
			if err := r.ctx.Err(); err != nil {
				return r.fail("", nil, "", r.aborted(err))
			}
			setup, err := r.nextSetup()
			if err != nil {
				return r.res, err
			}
			s.useRun(r.p, setup)
		}
		if err := r.ctx.Err(); err != nil {
			return r.fail("", nil, "", r.aborted(err))
		}
		reason := ReasonThreshold
		if turn > 0 {
			reason = ReasonInLoop
		}
		req, err := r.cx.next(r.ctx, reason)
		if err != nil {
			return r.stopped(err)
		}
		if req.Debug.OverBudget {
			return r.fail("", nil, "", tooLargeError(req, r.cx.limit))
		}
		r.emitUsage(req, "")
		out, msgID, announced, err := r.call(turn, req)
		if err != nil {
			r.interrupt(msgID, announced, nil)
			if cerr := r.ctx.Err(); cerr != nil && r.mode == conversation.ModeRun {
				err = r.aborted(cerr)
			}
			return r.fail(out.Content, out.ToolCalls, msgID, err)
		}
		if out.Reasoning != "" {
			if err := r.append(&conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(out.Reasoning),
				PartType: conversation.PartThinking, IncludeInContext: conversation.Bool(false)}); err != nil {
				return r.result(err)
			}
		}
		if len(out.ToolCalls) == 0 || out.Incomplete() {
			// An answer the server cut short (length, content_filter) is kept as an
			// incomplete answer: its text is partial and its tool calls never run.
			answer := &conversation.Entry{ID: msgID, Role: conversation.RoleAssistant, Content: conversation.Str(out.Content), PartType: conversation.PartContent}
			if out.Incomplete() {
				answer.FinishReason = out.FinishReason
				r.interrupt(msgID, announced, nil)
			}
			if err := r.append(answer); err != nil {
				return r.result(err)
			}
			r.res.MessageID, r.res.Text, r.res.FinishReason = msgID, out.Content, answer.FinishReason
			return r.res, nil
		}

		var content *string
		if out.Content != "" {
			content = conversation.Str(out.Content)
		}
		call := &conversation.Entry{ID: msgID, Role: conversation.RoleAssistant, Content: content, ToolCalls: out.ToolCalls, PartType: conversation.PartToolStart}
		if err := r.append(call); err != nil {
			return r.result(err)
		}
		pending, err := r.runTools(msgID, out.ToolCalls, announced)
		if errors.As(err, new(handedOff)) {
			r.res.MessageID, r.res.Text, r.res.HandedOff = msgID, out.Content, true
			return r.res, nil
		}
		if err != nil {
			var le *llm.Error
			if errors.As(err, &le) {
				return r.fail("", nil, "", le)
			}
			return r.result(err)
		}
		if pending != nil {
			r.res.MessageID, r.res.Text, r.res.Pending = msgID, out.Content, pending
			return r.res, nil
		}
		if r.turnsUsed+turn+1 >= maxTurns {
			return r.fail("", nil, "", maxTurnsError(maxTurns))
		}
	}
}

// call streams one LLM call of request req. A context-length error before
// any output lowers the request limit — by the overflow the provider
// reported, or by a quarter — builds the request again (compacting as
// needed) and retries once, under a new message id; a request that would
// not be smaller than the one refused is not sent (CONTEXT_STILL_TOO_LARGE).
// It returns the result (partial on error), the message id and the tool
// calls announced.
func (r *run) call(turn int, req *contextbuilder.Result) (*llm.Result, string, []ToolStartEvent, error) {
	s := r.s
	retried := false
	for {
		msgID := s.opts.NewID()
		s.opts.Emitter.Emit(events.StreamStart, StreamStartEvent{ConversationID: r.convID, MessageID: msgID, Mode: r.mode, AgentID: r.agentID, Turn: turn})
		se := newStreamEmitter(s.opts.Emitter, r.convID, msgID, s.opts.FlushInterval, s.opts.FlushChars)
		lreq := llm.Request{Messages: s.withImages(toLLM(req.Messages), req.Messages), Tools: r.p.llmTools, Model: r.p.model, CacheKey: r.convID}
		out, err := r.client.Stream(r.ctx, lreq, se)
		if out == nil {
			out = &llm.Result{}
		}
		r.res.Turns++
		r.addUsage(out)
		r.callUsage, r.callMsgID = nil, msgID
		if out.UsageReported {
			u := out.Usage
			r.callUsage = &u
		}
		end := StreamEndEvent{FinishReason: out.FinishReason, ToolCalls: len(out.ToolCalls), Error: eventError(err)}
		if out.UsageReported {
			u := out.Usage
			end.Usage = &u
		}
		retry := err != nil && !retried && errs.CodeOf(err) == llm.CodeContextLength && out.Content == "" && len(out.ToolCalls) == 0
		end.Retrying = retry
		announced := se.end(end)
		if !retry {
			return out, msgID, announced, err
		}
		retried = true
		r.interrupt(msgID, announced, nil)
		sent := req.Debug.UsedTokens
		limit, why := lowerLimit(r.cx.limit, sent, err)
		r.cx.limit = limit
		s.learnLimit(r.p.model, limit)
		r.cx.notes = append(r.cx.notes, fmt.Sprintf("context-length error: %s; the request limit is now %d tokens", why, limit))
		next, berr := r.cx.next(r.ctx, ReasonContextLength)
		if berr != nil {
			if r.ctx.Err() != nil {
				return out, msgID, nil, r.aborted(r.ctx.Err())
			}
			return out, msgID, nil, berr
		}
		if next.Debug.OverBudget || next.Debug.UsedTokens >= sent {
			return out, msgID, nil, stillTooLargeAfter(err, sent, next, limit)
		}
		req = next
		r.emitUsage(req, "")
	}
}

// runTools runs the calls of one assistant message in order, persisting each
// result as soon as it is there. It stops at a cancellation (returning an
// *llm.Error LLM_ABORTED, ENGINE_ABORTED in a run turn; the calls not run get
// no result, which the context builder completes with an interrupted result)
// and returns the ui.ask_user widget that asks for the user's answer, if any.
// A failing call (same name and arguments) made for the LoopFailThreshold-th
// time in the send returns an *llm.Error ENGINE_LOOP_DETECTED once every call
// of the message has run.
func (r *run) runTools(msgID string, calls []conversation.ToolCall, announced []ToolStartEvent) (*tools.Widget, error) {
	s := r.s
	seen := make(map[string]bool, len(announced))
	for _, a := range announced {
		seen[a.ToolCallID] = true
	}
	var (
		pending *tools.Widget
		loopErr *llm.Error
	)
	limit := r.st.Engine.MaxToolCallsPerMessage
	if limit <= 0 {
		limit = settings.Defaults().Engine.MaxToolCallsPerMessage
	}
	for i, tc := range calls {
		if err := r.ctx.Err(); err != nil {
			r.interrupt(msgID, nil, calls[i:])
			return nil, r.aborted(err)
		}
		if !seen[tc.ID] {
			s.opts.Emitter.Emit(events.StreamToolStart, ToolStartEvent{ConversationID: r.convID, MessageID: msgID, ToolCallID: tc.ID, ToolName: tc.Function.Name, Index: i})
		}
		start := s.opts.Now()
		var (
			result tools.Result
			held   *conversation.Entry // the placeholder of a call that waited for approval
		)
		if refused, ok := r.refuseNarrowed(tc.Function.Name); ok && i < limit {
			result = refused
		} else if i < limit {
			var err error
			if result, held, err = r.callTool(msgID, tc); err != nil {
				return nil, err
			}
		} else {
			// Over the cap: answered, never run, so every call still has its result.
			result = tools.Failure(tools.NewError(tools.CodeTooManyCalls, fmt.Sprintf(
				"not run: one message may make at most %d tool calls (this one made %d); make the remaining calls in your next message", limit, len(calls)),
				map[string]any{"limit": limit, "calls": len(calls)}))
		}
		dur := s.opts.Now().Sub(start)
		entry := &conversation.Entry{Role: conversation.RoleTool, Content: conversation.Str(result.Content), ToolCallID: tc.ID,
			ToolName: tc.Function.Name, PartType: conversation.PartToolResult, IsError: !result.OK, DurationMs: dur.Milliseconds()}
		if result.Pending != nil {
			if w, err := json.Marshal(result.Pending); err == nil {
				entry.Widget = w
			}
			pending = result.Pending
		}
		if held != nil {
			entry.ID, entry.Approval = held.ID, held.Approval
			if err := r.replace(entry); err != nil {
				return nil, err
			}
		} else if err := r.append(entry); err != nil {
			return nil, err
		}
		if fx, ok := result.Effect.(EntriesAfterResult); ok {
			if err := r.appendAfterResult(fx); err != nil {
				return nil, err
			}
		}
		if !result.OK && i < limit {
			key := tc.Function.Name + "\x00" + canonicalJSON(tc.Function.Arguments)
			r.failing[key]++
			if n := r.failing[key]; n >= LoopFailThreshold && loopErr == nil {
				loopErr = loopDetectedError(tc.Function.Name, n, result.Code())
			}
		}
		end := ToolEndEvent{ConversationID: r.convID, MessageID: msgID, ToolCallID: tc.ID, ToolName: tc.Function.Name,
			OK: result.OK, DurationMs: dur.Milliseconds(), ResultMessageID: entry.ID, Pending: result.Pending != nil}
		if result.Error != nil {
			end.Error = &EventError{Code: result.Error.Code, Message: result.Error.Message}
		}
		s.opts.Emitter.Emit(events.StreamToolEnd, end)
		if h, ok := result.Effect.(*Handoff); ok && h != nil && h.Start != nil && result.OK {
			started, err := r.startHandoff(h, entry)
			if err != nil {
				return nil, err
			}
			if started {
				// The task ends here (the handover cancelled it on purpose):
				// the calls after this one are answered, not run.
				if err := r.skipAfterHandoff(msgID, tc.Function.Name, calls[i+1:]); err != nil {
					return nil, err
				}
				return nil, handedOff{}
			}
		}
	}
	if err := r.ctx.Err(); err != nil {
		return nil, r.aborted(err)
	}
	if loopErr != nil {
		return nil, loopErr
	}
	return pending, nil
}

// interrupt emits tool-end (interrupted) for calls that will not run: those
// announced during a failed stream, or the rest of a message's calls.
func (r *run) interrupt(msgID string, announced []ToolStartEvent, calls []conversation.ToolCall) {
	em := r.s.opts.Emitter
	for _, a := range announced {
		em.Emit(events.StreamToolEnd, ToolEndEvent{ConversationID: r.convID, MessageID: msgID, ToolCallID: a.ToolCallID, ToolName: a.ToolName, Interrupted: true})
	}
	for _, c := range calls {
		em.Emit(events.StreamToolEnd, ToolEndEvent{ConversationID: r.convID, MessageID: msgID, ToolCallID: c.ID, ToolName: c.Function.Name, Interrupted: true})
	}
}

// fail persists a failure as an assistant error message: the partial text,
// then the LLM_ERROR block. Only complete tool calls (id, name and arguments
// that parse) are kept on it, for the record; the context builder never sends
// the calls of an error message.
func (r *run) fail(partial string, calls []conversation.ToolCall, msgID string, err error) (*SendResult, error) {
	e := llm.AsError(err)
	if msgID == "" {
		msgID = r.s.opts.NewID()
	}
	content := conversation.ErrorContent(partial, llm.ErrorBlockOf(e))
	entry := &conversation.Entry{ID: msgID, Role: conversation.RoleAssistant, Content: conversation.Str(content), PartType: conversation.PartError,
		ToolCalls: completeCalls(calls)}
	if aerr := r.append(entry); aerr != nil {
		return r.result(aerr)
	}
	r.res.MessageID, r.res.Text, r.res.Err = msgID, partial, e
	return r.res, nil
}

// stopped handles a context step that failed: a cancellation is persisted
// like any abort; anything else is returned.
func (r *run) stopped(err error) (*SendResult, error) {
	if cerr := r.ctx.Err(); cerr != nil {
		return r.fail("", nil, "", r.aborted(cerr))
	}
	return r.result(err)
}

// result returns a failure that is not persisted (a store error): a send
// returns no result with it, a run turn the result so far (its LLM calls).
func (r *run) result(err error) (*SendResult, error) {
	if r.mode == conversation.ModeRun {
		return r.res, err
	}
	return nil, err
}

// aborted is the failure of a cancelled send: LLM_ABORTED, or ENGINE_ABORTED
// in a run turn.
func (r *run) aborted(cause error) *llm.Error {
	if r.mode == conversation.ModeRun {
		return runAbortedError(cause)
	}
	return abortedError(cause)
}

func completeCalls(calls []conversation.ToolCall) []conversation.ToolCall {
	var out []conversation.ToolCall
	for _, c := range calls {
		args := strings.TrimSpace(c.Function.Arguments)
		if c.ID == "" || c.Function.Name == "" || (args != "" && !json.Valid([]byte(args))) {
			continue
		}
		c.Type = "function"
		out = append(out, c)
	}
	return out
}

// append persists one entry of this send (tagged with mode and agent, and in a
// run turn with the run and workflow ids) and adds it to the history the
// next request is built from.
func (r *run) append(e *conversation.Entry) error {
	r.tag(e)
	if e.ID == r.callMsgID && r.callUsage != nil {
		e.Usage, r.callUsage = r.callUsage, nil
	}
	if err := r.s.opts.Store.Append(r.convID, e); err != nil {
		return err
	}
	if r.p != nil {
		r.p.history = append(r.p.history, *e)
		if r.p.turnStart == "" {
			r.p.turnStart = e.ID
		}
	}
	return nil
}

// replace persists e as the new version of an entry of this send (the same
// id) and puts it in its place in the history.
func (r *run) replace(e *conversation.Entry) error {
	r.tag(e)
	if err := r.s.opts.Store.Update(r.convID, e); err != nil {
		return err
	}
	if r.p != nil {
		for i := range r.p.history {
			if r.p.history[i].ID == e.ID {
				r.p.history[i] = *e
			}
		}
	}
	return nil
}

// tag fills what every message of this send carries: type, id, time, mode and
// agent, and in a run turn the run and workflow ids.
func (r *run) tag(e *conversation.Entry) {
	e.Type = conversation.TypeMsg
	if e.ID == "" {
		e.ID = r.s.opts.NewID()
	}
	if e.CreatedAt == "" {
		e.CreatedAt = r.s.now()
	}
	e.Mode, e.AgentID = r.mode, r.agentID
	if e.Role == conversation.RoleAssistant && e.Model == "" {
		e.Model, e.Endpoint = r.st.LLM.Model, r.st.LLM.EndpointName
	}
	if r.mode == conversation.ModeRun {
		e.RunID, e.WorkflowID = r.runID, r.workflowID
	}
}

func (r *run) addUsage(out *llm.Result) {
	r.res.Usage.PromptTokens += out.Usage.PromptTokens
	r.res.Usage.CompletionTokens += out.Usage.CompletionTokens
	r.res.Usage.TotalTokens += out.Usage.TotalTokens
	r.res.Usage.CachedTokens += out.Usage.CachedTokens
}

// emitUsage measures the request and emits context:usage (status "" derives
// it from the usage).
func (r *run) emitUsage(req *contextbuilder.Result, status string) {
	u := compression.UsageOf(req.Debug.UsedTokens, r.cx.limit)
	r.lastUsage = u
	r.res.Context.UsedTokens, r.res.Context.TotalBudget, r.res.Context.UsagePercent = u.UsedTokens, u.TotalBudget, round1(u.UsagePercent)
	ev := usageEvent(r.convID, u, status)
	ev.Reported = r.s.reportedUsage(r.convID)
	ev.Cost = r.st.LLM.CostOf(ev.Reported)
	r.s.opts.Usage(ev)
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
