package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"crewagent/backend/approval"
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/tasks"
	"crewagent/backend/tools"
)

// Approvals. Before a call that writes, runs a command or calls an MCP tool
// runs, Options.Approvals decides: it runs, it is refused (the model gets a
// result that says why), or it waits for the user. A call that waits has
// its result persisted at once as a placeholder that holds the request
// (conversation.Approval, state waiting), so the log is complete at every
// moment and a restart shows the request again; the turn then blocks until
// the user answers through the app (never through the model) or Stop. The
// answer replaces the placeholder: the call's real result when allowed, a
// refusal with the user's reason when denied. A send whose sender cannot
// ask anyone (SendRequest.NoAsk, e.g. a command line whose input is not a
// terminal) gets a refusal in words instead of waiting.

// Approver decides the calls of sends and run turns that may need the
// user's approval (the app's approvals).
type Approver interface {
	// Decide decides one call.
	Decide(q ApprovalQuery) approval.Decision
	// Wait registers the call, runs ready (which persists and announces the
	// request) and blocks until the user answers or ctx ends.
	Wait(ctx context.Context, convID, callID string, ready func() error) (approval.Answer, error)
	// Grant records the allow rule an answer gives the conversation
	// (allow-conversation) or the project (allow-project).
	Grant(convID string, a approval.Answer, rule string) error
}

// ApprovalQuery is one call to decide.
type ApprovalQuery struct {
	ConversationID string
	// Mode is the send's mode (chat, agent, run); Override the approval
	// mode the send asked for ("" = the conversation's).
	Mode     string
	Override approval.Mode
	Call     approval.Call
	// Grants are the allow rules the conversation's active skills grant
	// (their allowed-tools' command prefixes).
	Grants []string
}

// Codes of approval refusals.
const (
	CodeApprovalDenied  = errs.ApprovalDenied
	CodeApprovalPending = errs.ApprovalPending
)

// planner is implemented by a tool host that can say what a call would do
// (*tools.Host).
type planner interface {
	Plan(name, argsJSON string) tools.Plan
}

// callTool runs one call of the model, through the approvals when the
// service has them. held is the placeholder result persisted while the call
// waited for the user (nil when it did not wait): the result replaces it.
func (r *run) callTool(msgID string, tc conversation.ToolCall) (res tools.Result, held *conversation.Entry, err error) {
	call := func() tools.Result {
		return r.p.host.Call(tools.WithToolCallID(r.ctx, tc.ID), tc.Function.Name, tc.Function.Arguments)
	}
	ap := r.s.opts.Approvals
	kind := approval.Classify(tc.Function.Name)
	offered := slices.ContainsFunc(r.p.toolDefs, func(d tools.ToolDef) bool { return d.Name == tc.Function.Name })
	if ap == nil || kind == approval.KindFree || kind == approval.KindRead || !offered {
		// (A tool the policy does not offer is refused by the host: nobody
		// is asked about a call that cannot run.)
		return call(), nil, nil
	}
	var plan tools.Plan
	if pl, ok := r.p.host.(planner); ok {
		plan = pl.Plan(tc.Function.Name, tc.Function.Arguments)
	}
	c := approval.Call{Tool: tc.Function.Name, Paths: plan.Paths, Command: plan.Command}
	var grants []string
	if r.p.sk != nil { // the skills of the request that made this call
		grants = r.p.sk.state.CommandGrants()
	}
	d := ap.Decide(ApprovalQuery{ConversationID: r.convID, Mode: r.mode, Override: r.approve, Call: c, Grants: grants})
	switch d.Effect {
	case approval.Allow:
		return call(), nil, nil
	case approval.Deny:
		return refusal(d.Reason, nil), nil, nil
	}
	if plan.Problem != "" {
		// The call cannot do anything: it fails on its own, nothing to ask.
		return call(), nil, nil
	}
	if r.noAsk != "" {
		return refusal("not run: "+d.Reason+", and "+r.noAsk, nil), nil, nil
	}
	card := describe(tc.Function.Name, tc.Function.Arguments, kind, plan)
	card.State, card.Why, card.Grant = conversation.ApprovalWaiting, d.Reason, approval.GrantFor(c)
	pending := tools.Failure(tools.NewError(CodeApprovalPending, "not run yet: this call waits for the user's approval", nil))
	held = &conversation.Entry{Role: conversation.RoleTool, Content: conversation.Str(pending.Content), ToolCallID: tc.ID,
		ToolName: tc.Function.Name, PartType: conversation.PartToolResult, IsError: true, Approval: card}
	ev := events.ApprovalEvent{ConversationID: r.convID, MessageID: msgID, ToolCallID: tc.ID, ToolName: tc.Function.Name}
	answer, werr := ap.Wait(r.ctx, r.convID, tc.ID, func() error {
		if err := r.append(held); err != nil {
			return err
		}
		ev.ResultMessageID, ev.Approval = held.ID, card
		r.s.opts.Emitter.Emit(events.ApprovalRequested, ev)
		return nil
	})
	if werr != nil && r.ctx.Err() == nil {
		return tools.Result{}, nil, werr // the placeholder could not be persisted
	}
	if werr != nil && tasks.ReasonOf(r.ctx) == tasks.Shutdown {
		// The app closes: the request stays in the log, waiting, and is
		// shown again when the app opens; nothing more of the send is
		// persisted.
		return tools.Result{}, nil, errLeftWaiting
	}
	res, err = r.settle(msgID, tc, held, answer, werr)
	return res, held, err
}

// errLeftWaiting ends a send whose call was waiting for approval when the
// app closed.
var errLeftWaiting = errs.New(errs.Closed, "the app closed while a call waited for the user's approval: the request waits in the conversation")

// settle applies the user's answer (or the stop, werr) to the call whose
// placeholder is held: it runs the call when allowed (recording a grant
// first), or makes the refusal. held.Approval becomes the answered request.
func (r *run) settle(msgID string, tc conversation.ToolCall, held *conversation.Entry, answer approval.Answer, werr error) (tools.Result, error) {
	var res tools.Result
	done := *held.Approval
	done.AnsweredAt = r.s.now()
	switch {
	case werr != nil:
		done.State = conversation.ApprovalStopped
		res = refusal("not run: the reply was stopped while this call waited for the user's approval", nil)
	case answer.Allows():
		done.State, done.Answer = conversation.ApprovalAllowed, answer.Decision
		if answer.Decision != approval.AnswerAllow {
			if err := r.s.opts.Approvals.Grant(r.convID, answer, done.Grant); err != nil {
				return tools.Result{}, err
			}
		}
		held.Approval = &done
		// The window learns the answer before the call runs (a command may run for minutes).
		r.resolved(msgID, tc, held)
		return r.p.host.Call(tools.WithToolCallID(r.ctx, tc.ID), tc.Function.Name, tc.Function.Arguments), nil
	default:
		done.State, done.Answer, done.Note = conversation.ApprovalDenied, answer.Decision, answer.Reason
		msg := "not run: the user denied this call"
		if reason := strings.TrimSpace(answer.Reason); reason != "" {
			msg += "; their reason: " + reason
		}
		res = refusal(msg, map[string]any{"deniedByUser": true})
	}
	held.Approval = &done
	r.resolved(msgID, tc, held)
	return res, nil
}

// resolved tells the window that the request of held was answered.
func (r *run) resolved(msgID string, tc conversation.ToolCall, held *conversation.Entry) {
	r.s.opts.Emitter.Emit(events.ApprovalResolved, events.ApprovalEvent{ConversationID: r.convID, MessageID: msgID, ToolCallID: tc.ID,
		ToolName: tc.Function.Name, ResultMessageID: held.ID, Approval: held.Approval})
}

// Resolution is the user's answer to a request that a send which ended
// left waiting in the log (the app closed while it waited): a send with it
// (ResolveRequest) runs the call or refuses it, replaces its
// placeholder, and goes on from there.
type Resolution struct {
	ToolCallID string
	Answer     approval.Answer
}

// resolveHeld settles the request of r.resolve before the loop goes on.
func (r *run) resolveHeld(res Resolution) error {
	var (
		held  *conversation.Entry
		call  conversation.ToolCall
		msgID string
	)
	for i := range r.p.history {
		e := &r.p.history[i]
		if e.Role == conversation.RoleAssistant {
			for _, c := range e.ToolCalls {
				if c.ID == res.ToolCallID {
					call, msgID = c, e.ID
				}
			}
		}
		if e.Role == conversation.RoleTool && e.ToolCallID == res.ToolCallID {
			cp := *e
			held = &cp
		}
	}
	if held == nil || !held.Approval.Waiting() || msgID == "" {
		return invalid("the call " + res.ToolCallID + " does not wait for an approval in this conversation")
	}
	start := r.s.opts.Now()
	result, err := r.settle(msgID, call, held, res.Answer, nil)
	if err != nil {
		return err
	}
	entry := &conversation.Entry{ID: held.ID, Role: conversation.RoleTool, Content: conversation.Str(result.Content), ToolCallID: call.ID,
		ToolName: call.Function.Name, PartType: conversation.PartToolResult, IsError: !result.OK,
		DurationMs: r.s.opts.Now().Sub(start).Milliseconds(), Approval: held.Approval}
	return r.replace(entry)
}

func refusal(msg string, details map[string]any) tools.Result {
	return tools.Failure(tools.NewError(CodeApprovalDenied, msg, details))
}

// describe says what a call will do, for the request the user sees.
func describe(name, args string, kind approval.Kind, plan tools.Plan) *conversation.Approval {
	a := &conversation.Approval{Kind: string(kind), Paths: plan.Paths, Command: plan.Command, Cwd: plan.Cwd}
	switch {
	case len(plan.Changes) == 1:
		ch := plan.Changes[0]
		a.Diff, a.Binary = approval.Diff(ch.Path, ch.Old, ch.New, ch.Existed)
		a.NewFile = !ch.Existed
		switch {
		case !ch.Existed:
			a.Summary = fmt.Sprintf("create %s (%s)", ch.Path, sizeWords(len(ch.New)))
		default:
			a.Summary = fmt.Sprintf("change %s (%s → %s)", ch.Path, sizeWords(len(ch.Old)), sizeWords(len(ch.New)))
		}
		if a.Binary {
			a.Summary += "; the content is binary, no diff is shown"
		}
	case kind == approval.KindCommand:
		a.Summary = fmt.Sprintf("run the command %q in %s", plan.Command, plan.Cwd)
		if plan.Network {
			a.Summary += " with network access"
		}
	case kind == approval.KindWrite && len(plan.Paths) > 0:
		a.Summary = fmt.Sprintf("%s %s", approval.Canonical(name), strings.Join(plan.Paths, " → "))
	default:
		text := strings.TrimSpace(args)
		if len(text) > 2000 {
			text = text[:2000] + "…"
		}
		a.Summary = fmt.Sprintf("call %s with %s", approval.Canonical(name), text)
	}
	return a
}

func sizeWords(n int) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 10<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 10<<20:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d MB", n>>20)
}

type approvalsKey struct{}

type approvalsCtx struct {
	mode  approval.Mode
	noAsk string
}

// WithApprovals returns a context whose sends and run turns use the
// approval mode mode ("" = the conversation's) unless their request
// chooses one, and, when noAsk is set, refuse a call that would wait for
// the user's approval, saying noAsk (why nobody can be asked).
func WithApprovals(ctx context.Context, mode approval.Mode, noAsk string) context.Context {
	return context.WithValue(ctx, approvalsKey{}, approvalsCtx{mode, noAsk})
}

// approvalsOf returns the approval mode and noAsk of a send: the request's,
// else the context's.
func approvalsOf(ctx context.Context, mode approval.Mode, noAsk string) (approval.Mode, string) {
	if v, ok := ctx.Value(approvalsKey{}).(approvalsCtx); ok {
		if mode == "" {
			mode = v.mode
		}
		if noAsk == "" {
			noAsk = v.noAsk
		}
	}
	return mode, noAsk
}
