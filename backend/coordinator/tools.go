package coordinator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convtools"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/fsx"
	"crewagent/backend/mcp"
	"crewagent/backend/tasks"
	"crewagent/backend/tokens"
	"crewagent/backend/tools"
)

// Providers builds the conversation tools of one tool host: in chat and
// agent mode (a run's turns follow its workflow and do not hand over).
func (co *Coordinator) Providers(s tools.Scope) []tools.Provider {
	if s.Mode != conversation.ModeChat && s.Mode != conversation.ModeAgent {
		return nil
	}
	return []tools.Provider{&convProvider{co: co, scope: s}}
}

// convProvider runs conv.create, conv.send, conv.list, conv.history and
// conv.destroy for the conversation of one send.
type convProvider struct {
	co    *Coordinator
	scope tools.Scope
	host  []string // every tool of the host (HostTools)
}

// HostTools implements tools.HostAware.
func (p *convProvider) HostTools(names []string) { p.host = slices.Clone(names) }

// Tools implements tools.Provider: create and send only while handing over
// is allowed (settings engine.maxInterruptChainDepth > 0).
func (p *convProvider) Tools() []tools.ToolDef {
	defs := convtools.Defs()
	if p.co.settings().Engine.MaxInterruptChainDepth <= 0 {
		defs = slices.DeleteFunc(defs, func(d tools.ToolDef) bool { return convtools.Interrupting(d.Name) })
	}
	return defs
}

// Call implements tools.Provider.
func (p *convProvider) Call(ctx context.Context, name string, args []byte) (tools.Result, bool) {
	switch name {
	case convtools.Create:
		return p.create(ctx, args), true
	case convtools.Send:
		return p.send(ctx, args), true
	case convtools.List:
		return p.list(ctx), true
	case convtools.History:
		return p.history(args), true
	case convtools.Destroy:
		return p.destroy(ctx, args), true
	}
	return tools.Result{}, false
}

// handoverContext checks that the call may hand the turn over and returns
// the chain and the task it runs in.
func (p *convProvider) handoverContext(ctx context.Context) (*chain, tasks.Task, *tools.Result) {
	c := chainFromContext(ctx)
	t, ok := p.co.tasks.Current(ctx)
	if c == nil || !ok {
		r := convtools.Refusal(convtools.CodeRefused, "conversations can only be handed a turn from a reply of a conversation")
		return nil, t, &r
	}
	limit := p.co.settings().Engine.MaxInterruptChainDepth
	if t.Depth+1 > limit {
		r := convtools.Refusal(convtools.CodeTooDeep, fmt.Sprintf(
			"not handed over: %d conversations already wait for one another in this work, the limit (settings engine.maxInterruptChainDepth) is %d; do this part yourself, or finish and let the conversations before you go on", t.Depth, limit))
		return nil, t, &r
	}
	return c, t, nil
}

func (p *convProvider) create(ctx context.Context, raw []byte) tools.Result {
	args, msg, terr := convtools.ParseCreate(raw)
	if terr != nil {
		return tools.Failure(terr)
	}
	c, task, refused := p.handoverContext(ctx)
	if refused != nil {
		return *refused
	}
	parent, err := p.co.store.Get(p.scope.ConversationID)
	if err != nil {
		return convtools.Refusal(convtools.CodeNotFound, "this conversation cannot be read: "+err.Error())
	}
	in, ignored, terr := p.instructions(parent, args)
	if terr != nil {
		return tools.Failure(terr)
	}
	base := ""
	if in != nil {
		base = in.Base
	}
	if terr := p.co.checkToolMessage(msg.Text, base, "not created: the first message with its base instructions"); terr != nil {
		return tools.Failure(terr)
	}
	title := strings.TrimSpace(args.Title)
	if utf8.RuneCountInString(title) > maxTitleRunes {
		title = string([]rune(title)[:maxTitleRunes]) + "…"
	}
	ignored = append(msg.Ignored, ignored...)
	mode, agent := task.Kind, p.scope.AgentID
	if mode != conversation.ModeAgent {
		mode, agent = conversation.ModeChat, ""
	}
	first := &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str(msg.Text),
		Mode: mode, AgentID: agent, PartType: conversation.PartContent}
	if limit := p.co.settings().Engine.ConversationsPerMessage(); !c.spendConversation(limit) {
		return convtools.Refusal(convtools.CodeBudget, fmt.Sprintf(
			"not created: the work the user's message started has created %d conversations, the limit for one message (settings engine.maxConversationsPerMessage). "+
				"Do this part yourself, or finish with what you have; the user can ask for more in a new message", limit))
	}
	toolCallID := tools.ToolCallID(ctx)
	child, err := p.co.store.CreateRecord(conversation.ConversationMeta{
		Title: title, ActiveType: mode, SelectedAgentID: agent, ParentID: parent.ID,
		Origin:       &conversation.Origin{ConversationID: parent.ID, ToolCallID: toolCallID},
		Instructions: in,
	}, first)
	if err != nil {
		return tools.Failure(tools.NewError(tools.CodeInternal, "could not create the conversation: "+err.Error(), nil))
	}
	h := handover{tool: convtools.Create, toolCallID: toolCallID, target: child.ID, title: child.Title, mode: mode, agent: agent,
		inputID: first.ID, firstMessage: msg.Text, items: msg.Items, ignored: ignored, reach: p.reachOf()}
	return p.waitFor(ctx, c, task, h)
}

// instructions works out what a child is created with: the base
// instruction (given, read from a project file, or the parent's), and its
// tools, which can only be narrower than the parent's.
func (p *convProvider) instructions(parent conversation.ConversationMeta, args convtools.CreateArgs) (*conversation.Instructions, []string, *tools.ToolError) {
	in := &conversation.Instructions{}
	inherited := parent.Instructions.Clone()
	if inherited == nil {
		inherited = &conversation.Instructions{}
	}
	switch {
	case args.BaseInstructionText != nil:
		if n := len(*args.BaseInstructionText); n > maxInstructionBytes {
			return nil, nil, tools.NewError(tools.CodeBadArguments, fmt.Sprintf(
				"base_instruction_text is %d bytes, more than the %d KB base instructions may hold: shorten it, or write it to a project file and give base_instruction_file", n, maxInstructionBytes>>10), nil)
		}
		in.Base = strings.TrimSpace(*args.BaseInstructionText)
	case args.BaseInstructionFile != nil:
		text, err := p.co.readProjectText(*args.BaseInstructionFile)
		if err != nil {
			return nil, nil, tools.NewError(convtools.CodeBadFile, "base_instruction_file: "+err.Error(), nil)
		}
		in.Base, in.BaseFile = strings.TrimSpace(text), *args.BaseInstructionFile
	default:
		in.Base, in.BaseFile = inherited.Base, inherited.BaseFile
	}
	var ignored []string
	have := p.host // what the parent may call
	in.Tools = inherited.Tools
	if args.Tools != nil {
		var kept []string
		for _, name := range *args.Tools {
			switch {
			case conversation.IsMCPTool(name):
				ignored = append(ignored, "tools: "+name+" (MCP tools are chosen by server with mcp_allowlist)")
			case slices.Contains(have, name):
				kept = append(kept, name)
			default:
				ignored = append(ignored, "tools: "+name+" (this conversation cannot call it, so neither can the new one)")
			}
		}
		if kept == nil {
			kept = []string{}
		}
		in.Tools = kept
	}
	if it := args.InternalTools; it != nil {
		ignored = append(ignored, it.Ignored()...)
		if it.IncludeApplyPatchTool != nil && !*it.IncludeApplyPatchTool {
			if in.Tools == nil {
				in.Tools = slices.DeleteFunc(slices.Clone(have), func(n string) bool { return conversation.IsMCPTool(n) })
			}
			in.Tools = slices.DeleteFunc(in.Tools, func(n string) bool { return n == conversation.ToolFSApplyPatch })
		}
	}
	in.MCPServers = inherited.MCPServers
	if args.MCPAllowlist != nil {
		// The servers this conversation's tools come from.
		var servers []string
		for _, n := range have {
			if rest, ok := strings.CutPrefix(n, conversation.ToolMCPPrefix); ok {
				if srv, _, ok := strings.Cut(rest, "__"); ok && !slices.Contains(servers, srv) {
					servers = append(servers, srv)
				}
			}
		}
		list := slices.DeleteFunc(slices.Clone(*args.MCPAllowlist), func(srv string) bool {
			if !slices.Contains(servers, mcpWireServer(srv)) {
				ignored = append(ignored, "mcp_allowlist: "+srv+" (this conversation cannot use that server)")
				return true
			}
			return false
		})
		if list == nil {
			list = []string{}
		}
		in.MCPServers = list
	}
	if in.Base == "" && in.BaseFile == "" && in.Tools == nil && in.MCPServers == nil {
		in = nil
	}
	if in != nil && len(ignored) > 0 {
		in.Ignored = append([]string(nil), ignored...)
	}
	return in, ignored, nil
}

// mcpWireServer is a server name as it appears in its tools' wire names.
func mcpWireServer(name string) string { return mcp.ServerWireName(name) }

// maxInstructionBytes bounds base instructions, given as text or as a file.
const maxInstructionBytes = 256 << 10

// maxTitleRunes bounds the title conv.create gives a conversation.
const maxTitleRunes = 200

// checkToolMessage applies to a message the conversation tools write into
// a conversation (the first message of conv.create with its base
// instructions, the message of conv.send) the rule a message the user types
// is held to: one that can never fit the request limit (settings
// context.tokenBudget minus the reply reserve) is refused before anything
// is stored; what names it in the refusal.
func (co *Coordinator) checkToolMessage(text, base, what string) *tools.ToolError {
	st := co.settings()
	limit := contextbuilder.Budget{TokenBudget: st.Context.TokenBudget, ReserveForResponse: st.Context.ReserveForResponse}.TokenLimit()
	size := len(text) + len(base)
	if size <= limit/4 {
		return nil // a token is at least one byte: it fits
	}
	refuse := func(measured string) *tools.ToolError {
		return tools.NewError(convtools.CodeTooLarge, fmt.Sprintf(
			"%s is %s, more than the request limit of %d tokens (settings context.tokenBudget minus the reply reserve) can hold, so it could never be sent; nothing was stored. "+
				"Give a shorter task, or write the material to a project file and say to read the file with fs.read", what, measured, limit), nil)
	}
	if least := size / tokens.MaxTokenBytes; least > limit {
		return refuse(fmt.Sprintf("%d bytes (at least %d tokens)", size, least))
	}
	model := st.LLM.Model
	n := co.counter.Count(model, text) + co.counter.Count(model, base)
	if n > limit {
		return refuse(fmt.Sprintf("%d tokens", n))
	}
	return nil
}

// readProjectText reads a text file of the project through the tools'
// sandbox (an @project path, or a path relative to the project folder).
func (co *Coordinator) readProjectText(path string) (string, error) {
	path = strings.TrimSpace(path)
	if !strings.HasPrefix(path, "@") {
		path = "@project/" + strings.TrimPrefix(path, "./")
	}
	if !strings.HasPrefix(path, "@project/") {
		return "", fmt.Errorf("%s is not a project file: use a path under @project", path)
	}
	b, err := co.readFile(path, maxInstructionBytes)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not a UTF-8 text file", path)
	}
	return string(b), nil
}

func (p *convProvider) send(ctx context.Context, raw []byte) tools.Result {
	args, msg, terr := convtools.ParseSend(raw)
	if terr != nil {
		return tools.Failure(terr)
	}
	target, err := p.co.store.Get(args.ConversationID)
	if err != nil {
		return convtools.Refusal(convtools.CodeNotFound, "conversation not found: "+args.ConversationID+" (conv.list lists them)")
	}
	switch {
	case target.ID == p.scope.ConversationID:
		return convtools.Refusal(convtools.CodeRefused, "this is the conversation you are in: answer here instead")
	case target.ActiveType == conversation.ActiveWorkflow:
		return convtools.Refusal(convtools.CodeRefused, fmt.Sprintf("%q runs a workflow: its messages go to its run, not through conv.send", target.Title))
	}
	c, task, refused := p.handoverContext(ctx)
	if refused != nil {
		return *refused
	}
	if terr := p.co.checkToolMessage(msg.Text, "", "not sent: the message"); terr != nil {
		return tools.Failure(terr)
	}
	if c.isWaiting(target.ID) {
		return convtools.Refusal(convtools.CodeRefused, fmt.Sprintf("%q is waiting for this conversation's answer: it cannot be asked before you answer it", target.Title))
	}
	if p.co.tasks.Busy(target.ID) {
		return convtools.Refusal(convtools.CodeRefused, fmt.Sprintf("%q is answering something else right now", target.Title))
	}
	mode, agent := conversation.ModeChat, ""
	if target.ActiveType == conversation.ActiveAgent {
		mode, agent = conversation.ModeAgent, target.SelectedAgentID
	}
	input := &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str(msg.Text),
		Mode: mode, AgentID: agent, PartType: conversation.PartContent}
	h := handover{tool: convtools.Send, toolCallID: tools.ToolCallID(ctx), target: target.ID, title: target.Title, mode: mode, agent: agent,
		input: input, ignored: msg.Ignored, reach: p.reachOf()}
	return p.waitFor(ctx, c, task, h)
}

// waitFor is the result of a call that hands the turn over: a placeholder
// that says what it waits for, and the Handoff that queues the other
// conversation's task and the continuation once it is persisted.
func (p *convProvider) waitFor(ctx context.Context, c *chain, task tasks.Task, h handover) tools.Result {
	placeholder := convtools.Handover{OK: true, Status: convtools.StatusWaiting, ConversationID: h.target, Title: h.title,
		FirstUserMessage: h.firstMessage, FirstItemsCount: h.items, Ignored: h.ignored,
		Message: fmt.Sprintf("%q is answering; its last answer will be the result of this call", h.title)}
	res := placeholder.Result()
	if t, ok := tools.TurnOf(ctx); ok {
		c.turnFor(t) // the conversations it hands over to change files for this turn
	}
	res.Effect = &engine.Handoff{Start: func(resultID string) error {
		h.resultID = resultID
		return p.co.handOver(c, task, h)
	}}
	return res
}

// handover is one call of conv.create or conv.send on its way.
type handover struct {
	tool, toolCallID, resultID string
	target, title, mode, agent string
	// input is the message conv.send appends to the target when the turn is
	// handed over; inputID the message the target answers.
	input   *conversation.Entry
	inputID string
	// firstMessage, items and ignored go into the result.
	firstMessage string
	items        int
	ignored      []string
	// failed is why the target's task failed without an answer in its log
	// (e.g. its agent is gone), for the result.
	failed error
	// reach is what the caller may do: the target answers with no more.
	reach *reach
}

// reach is what a conversation that hands its turn over may do, which the
// conversation answering for it may not exceed: restrictions are
// transitive. A conversation reached by conv.send (or created by
// conv.create) answers, and hands over in turn, with the intersection of
// its own tools and the caller's: the fs switch and limits, MCP on or off
// and its servers, and the other tools by name. The user's own messages to
// it are answered with its own tools again.
type reach struct {
	policy tools.Policy
	// allow names the caller's tools other than MCP ones; mcp narrows the
	// MCP servers further (nil: no further).
	allow []string
	mcp   []string
}

// reachOf is what the conversation of p may do.
func (p *convProvider) reachOf() *reach {
	r := &reach{policy: p.scope.Policy, allow: []string{}}
	if p.scope.MCPAllowlist != nil {
		r.mcp = slices.Clone(p.scope.MCPAllowlist)
	}
	for _, n := range p.host {
		if !conversation.IsMCPTool(n) {
			r.allow = append(r.allow, n)
		}
	}
	return r
}

// WithinReach narrows the tool scope of a conversation that answers for
// another one to what that one may do (see reach).
func (co *Coordinator) WithinReach(scope engine.ToolScope) engine.ToolScope {
	r := co.chains.reachOf(scope.ConversationID)
	if r == nil {
		return scope
	}
	p, q := scope.Policy.Normalized(), r.policy.Normalized()
	p.FS.Enabled = p.FS.Enabled && q.FS.Enabled
	p.FS.MaxReadBytes = min(p.FS.MaxReadBytes, q.FS.MaxReadBytes)
	p.FS.MaxWriteBytes = min(p.FS.MaxWriteBytes, q.FS.MaxWriteBytes)
	p.MCP.Enabled = p.MCP.Enabled && q.MCP.Enabled
	p.MCP.AllowedServers = intersectServers(p.MCP.AllowedServers, q.MCP.AllowedServers)
	scope.Policy = p
	if scope.Allow == nil {
		scope.Allow = slices.Clone(r.allow)
	} else {
		scope.Allow = slices.DeleteFunc(slices.Clone(scope.Allow), func(n string) bool { return !slices.Contains(r.allow, n) })
	}
	scope.MCPServers = intersectServers(scope.MCPServers, r.mcp)
	return scope
}

// intersectServers is the servers both lists allow, matched by their wire
// names; nil allows every server.
func intersectServers(a, b []string) []string {
	switch {
	case a == nil:
		return slices.Clone(b)
	case b == nil:
		return slices.Clone(a)
	}
	out := []string{}
	for _, s := range a {
		if slices.ContainsFunc(b, func(t string) bool { return mcp.ServerWireName(t) == mcp.ServerWireName(s) }) {
			out = append(out, s)
		}
	}
	return out
}

// handOver hands the running task of from over to the target conversation
// (the task ends as replaced), then the continuation of from: the waiting
// call is recorded on from's index record first, so a crash in between is
// recovered on the next open (RecoverWaits).
func (co *Coordinator) handOver(c *chain, from tasks.Task, hv handover) error {
	h := &hv
	if h.input != nil {
		if err := co.store.Append(h.target, h.input); err != nil {
			return err
		}
		h.inputID = h.input.ID
	}
	w := &conversation.Waiting{ConversationID: h.target, ToolCallID: h.toolCallID, ResultID: h.resultID, InputID: h.inputID,
		Tool: h.tool, Since: fsx.Stamp(time.Now())}
	if err := co.store.UpdateMeta(from.ConversationID, func(m *conversation.ConversationMeta) { m.Waiting = w }); err != nil {
		return err
	}
	c.push(from.ConversationID)
	c.add(2)
	// The target answers (and hands over in turn) within what from may do,
	// until from goes on.
	co.chains.setReach(h.target, h.reach)
	answer := tasks.Plan{
		Task: tasks.Task{ConversationID: h.target, Kind: h.mode, Chain: c.id, Depth: from.Depth + 1, Tool: h.tool, For: from.ConversationID},
		Run: func(ctx context.Context) error {
			res, err := co.engine.AnswerNewest(withChain(ctx, c), h.target, h.mode, h.agent)
			co.report(c, h.target, h.tool, false, from.Depth+1, res, err)
			co.afterTask(ctx, h.target)
			h.failed = err
			return err
		},
		OnDrop: func(string) { co.chains.end(c) },
	}
	cont := tasks.Plan{
		Task: tasks.Task{ConversationID: from.ConversationID, Kind: from.Kind, Chain: c.id, Depth: from.Depth, Continues: true},
		Run: func(ctx context.Context) error {
			co.chains.setReach(h.target, nil)
			if err := co.closeWaitAfter(from.ConversationID, "", h.failed); err != nil {
				return err
			}
			c.pop(from.ConversationID)
			res, err := co.engine.Continue(withChain(ctx, c), from.ConversationID, from.Kind, c.turnsOf(from.ConversationID))
			co.report(c, from.ConversationID, "", true, from.Depth, res, err)
			co.afterTask(ctx, from.ConversationID)
			return err
		},
		OnDrop: func(why string) {
			co.chains.setReach(h.target, nil)
			if err := co.closeWait(from.ConversationID, why); err != nil {
				co.log.Warn("closing a call that waited for another conversation", "conversation", from.ConversationID, "error", err)
			}
			c.pop(from.ConversationID)
			co.chains.end(c)
		},
	}
	if _, err := co.tasks.Replace(from.ConversationID, answer, cont); err != nil {
		co.chains.setReach(h.target, nil)
		c.pop(from.ConversationID)
		c.add(-2)
		_ = co.store.UpdateMeta(from.ConversationID, func(m *conversation.ConversationMeta) { m.Waiting = nil })
		return err
	}
	return nil
}

// report records a task of a chain.
func (co *Coordinator) report(c *chain, conversationID, tool string, continues bool, depth int, res *engine.SendResult, err error) {
	r := TaskReport{ConversationID: conversationID, Tool: tool, Continues: continues, Depth: depth}
	if m, gerr := co.store.Get(conversationID); gerr == nil {
		r.Title = m.Title
	}
	switch {
	case err != nil:
		e := errs.From(err)
		r.Outcome, r.Error = OutcomeFailed, &events.Error{Code: e.Code, Message: e.Message}
	case res == nil:
		r.Outcome = OutcomeFailed
	default:
		r.MessageID, r.Text = res.MessageID, res.Text
		switch {
		case res.HandedOff:
			r.Outcome = OutcomeHandedOver
		case res.Err != nil:
			r.Outcome, r.Error = OutcomeFailed, &events.Error{Code: res.Err.Code, Message: res.Err.Message}
		case res.FinishReason != "":
			r.Outcome = OutcomeIncomplete
		case res.Pending != nil:
			r.Outcome = OutcomeQuestion
		default:
			r.Outcome = OutcomeAnswered
		}
	}
	c.record(r, res)
}

// closeWait gives the call a conversation waits on its result: the other
// conversation's answer, or, when it has none, why (why is "" when the
// chain goes on; tasks.Interrupted when the user stopped the work,
// tasks.Shutdown when the app closed, whyCrashed after a crash). The
// placeholder result is replaced (an update of the same entry) and the wait
// is cleared. Nothing happens when the conversation waits for nothing.
func (co *Coordinator) closeWait(conversationID, why string) error {
	return co.closeWaitAfter(conversationID, why, nil)
}

// closeWaitAfter is closeWait once the other conversation's task ended with
// failed (nil when it did not fail).
func (co *Coordinator) closeWaitAfter(conversationID, why string, failed error) error {
	meta, err := co.store.Get(conversationID)
	if err != nil || meta.Waiting == nil {
		return err
	}
	w := *meta.Waiting
	result := co.answerOf(w, why)
	if failed != nil && !result.OK && result.LastAssistantMessage == "" && result.Status == convtools.StatusFailed {
		e := errs.From(failed)
		result.Error = tools.NewError(convtools.CodeFailed, fmt.Sprintf("%q could not answer: %s", result.Title, e.Message), map[string]any{"code": e.Code})
		result.Message = result.Error.Message
	}
	entries, err := co.store.LoadTail(conversationID, 400)
	if err != nil {
		return err
	}
	var placeholder *conversation.Entry
	for _, e := range entries {
		if e.ID == w.ResultID {
			placeholder = e
		}
	}
	if placeholder == nil {
		all, err := co.store.Load(conversationID)
		if err != nil {
			return err
		}
		for _, e := range all {
			if e.ID == w.ResultID {
				placeholder = e
			}
		}
	}
	if placeholder != nil {
		if prev, ok := convtools.Decode(placeholder.Text()); ok {
			result.FirstUserMessage, result.FirstItemsCount, result.Ignored = prev.FirstUserMessage, prev.FirstItemsCount, prev.Ignored
		}
		res := result.Result()
		out := *placeholder
		out.Content, out.IsError = conversation.Str(res.Content), !res.OK
		if err := co.store.Update(conversationID, &out); err != nil {
			return err
		}
	}
	return co.store.UpdateMeta(conversationID, func(m *conversation.ConversationMeta) {
		if m.Waiting != nil && m.Waiting.ResultID == w.ResultID {
			m.Waiting = nil
		}
	})
}

// whyCrashed is closeWait's reason after a crash.
const whyCrashed = "crashed"

// answerOf reads what the conversation a call waited for answered after
// the message it was given: its last answer, or why there is none.
func (co *Coordinator) answerOf(w conversation.Waiting, why string) convtools.Handover {
	h := convtools.Handover{ConversationID: w.ConversationID}
	meta, err := co.store.Get(w.ConversationID)
	if err != nil || co.chains.isDeleting(w.ConversationID) {
		h.Status = convtools.StatusFailed
		h.Error = tools.NewError(convtools.CodeNotFound, "the conversation is gone (it was deleted)", nil)
		h.Message = h.Error.Message
		return h
	}
	h.Title = meta.Title
	entries, err := co.store.LoadTail(w.ConversationID, 400)
	if err != nil {
		h.Status = convtools.StatusFailed
		h.Error = tools.NewError(convtools.CodeFailed, "its log cannot be read: "+err.Error(), nil)
		h.Message = h.Error.Message
		return h
	}
	after := -1
	for i, e := range entries {
		if e.ID == w.InputID {
			after = i
		}
	}
	var last *conversation.Entry
	for _, e := range entries[after+1:] {
		if e.IsMessage() && e.Role == conversation.RoleAssistant && !e.IsMeta && e.InContext() && e.PartType != conversation.PartThinking {
			last = e
		}
	}
	unanswered := func(partial string) convtools.Handover {
		h.LastAssistantMessage = partial
		switch why {
		case tasksInterrupted:
			h.Status = convtools.StatusStopped
			h.Error = tools.NewError(convtools.CodeStopped, fmt.Sprintf("the user stopped the work while %q was answering; it did not finish", meta.Title), nil)
		case tasksShutdown:
			h.Status = convtools.StatusInterrupted
			h.Error = tools.NewError(convtools.CodeInterrupted, fmt.Sprintf("the app was closed while %q was answering; it did not finish", meta.Title), nil)
		case whyCrashed:
			h.Status = convtools.StatusInterrupted
			h.Error = tools.NewError(convtools.CodeInterrupted, fmt.Sprintf("the app stopped (closed or crashed) while %q was answering; it did not finish. Ask it again with conv.send, or read what it wrote with conv.history", meta.Title), nil)
		default:
			h.Status = convtools.StatusFailed
			h.Error = tools.NewError(convtools.CodeFailed, fmt.Sprintf("%q did not answer", meta.Title), nil)
		}
		h.Message = h.Error.Message
		return h
	}
	switch {
	case last == nil:
		return unanswered("")
	case last.PartType == conversation.PartError:
		partial, block := conversation.ParseErrorContent(last.Text())
		if conversation.IsStop(block) {
			if why == "" {
				why = tasksInterrupted
			}
			return unanswered(partial)
		}
		h.Status, h.LastAssistantMessage = convtools.StatusFailed, partial
		p := conversation.Describe(block)
		h.Error = tools.NewError(convtools.CodeFailed, fmt.Sprintf("%q could not answer: %s", meta.Title, p.Title), map[string]any{"code": block.Code, "message": block.Message})
		h.Message = h.Error.Message
		return h
	case len(last.ToolCalls) > 0 && last.Widget == nil && !hasQuestion(entries, last):
		// It was still at work (a tool step) when it stopped.
		return unanswered(last.Text())
	case last.Incomplete():
		h.Status, h.LastAssistantMessage = convtools.StatusFailed, last.Text()
		h.Error = tools.NewError(convtools.CodeFailed, fmt.Sprintf("the answer of %q was cut short by the server (finish_reason %s)", meta.Title, last.FinishReason), nil)
		h.Message = h.Error.Message
		return h
	}
	h.OK, h.Status, h.LastAssistantMessage = true, convtools.StatusCompleted, last.Text()
	if len(last.ToolCalls) > 0 {
		h.Message = fmt.Sprintf("%q asked the user a question and waits for the answer", meta.Title)
	}
	return h
}

// hasQuestion reports whether the tool calls of msg include a ui.ask_user
// call whose result carries a question for the user.
func hasQuestion(entries []*conversation.Entry, msg *conversation.Entry) bool {
	ids := map[string]bool{}
	for _, c := range msg.ToolCalls {
		ids[c.ID] = true
	}
	for _, e := range entries {
		if e.Role == conversation.RoleTool && ids[e.ToolCallID] && len(e.Widget) > 0 {
			return true
		}
	}
	return false
}

// Reasons closeWait is given (those of the scheduler).
const (
	tasksInterrupted = tasks.Interrupted
	tasksShutdown    = tasks.Shutdown
)

// RecoverWaits closes the calls that were waiting for another conversation
// when the app stopped (a crash or a kill: a closed app closes them
// itself): each gets the other conversation's answer when it had finished,
// or an error result that says why there is none. The conversations then
// end with a tool result, which the user continues.
func (co *Coordinator) RecoverWaits() {
	list, err := co.store.List()
	if err != nil {
		return
	}
	for _, m := range list {
		if m.Waiting == nil {
			continue
		}
		if err := co.closeWait(m.ID, whyCrashed); err != nil {
			co.log.Warn("closing a call that waited for another conversation", "conversation", m.ID, "error", err)
		}
	}
}

func (p *convProvider) list(ctx context.Context) tools.Result {
	metas, err := p.co.store.List()
	if err != nil {
		return tools.Failure(tools.NewError(tools.CodeInternal, "could not list the conversations: "+err.Error(), nil))
	}
	out := make([]convtools.ListEntry, 0, len(metas))
	for _, m := range metas {
		e := convtools.ListEntry{ID: m.ID, Title: m.Title, MessageCount: m.MessageCount, LastActiveAt: m.LastActiveAt, Status: "idle",
			Current: m.ID == p.scope.ConversationID}
		if m.IsChild() {
			e.ParentID = m.ParentID
		}
		switch {
		case m.Waiting != nil:
			e.Status = "waiting"
		case p.co.tasks.Busy(m.ID):
			e.Status = "answering"
		}
		out = append(out, e)
	}
	return tools.Success(struct {
		Conversations []convtools.ListEntry `json:"conversations"`
	}{out})
}

func (p *convProvider) history(raw []byte) tools.Result {
	args, limit, terr := convtools.ParseHistory(raw)
	if terr != nil {
		return tools.Failure(terr)
	}
	if _, err := p.co.store.Get(args.ConversationID); err != nil {
		return convtools.Refusal(convtools.CodeNotFound, "conversation not found: "+args.ConversationID)
	}
	entries, err := p.co.store.Load(args.ConversationID)
	if err != nil {
		return tools.Failure(tools.NewError(tools.CodeInternal, "could not read the conversation: "+err.Error(), nil))
	}
	var out []convtools.HistoryEntry
	for _, e := range entries {
		if text, ok := historyText(e); ok {
			out = append(out, convtools.HistoryEntry{Role: e.Role, Text: text})
		}
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	if out == nil {
		out = []convtools.HistoryEntry{}
	}
	return tools.Success(struct {
		ConversationID string                   `json:"conversation_id"`
		Entries        []convtools.HistoryEntry `json:"entries"`
	}{args.ConversationID, out})
}

// historyText is what conv.history shows of an entry: the messages of the
// user and the assistant on the version of the conversation shown, without
// tool calls, tool outputs, meta messages or failures.
func historyText(e *conversation.Entry) (string, bool) {
	if !e.IsMessage() || e.IsMeta || !e.InContext() && !e.Compacted {
		return "", false
	}
	switch e.Role {
	case conversation.RoleUser:
		text := conversation.RunInputText(e.Text())
		return text, strings.TrimSpace(text) != ""
	case conversation.RoleAssistant:
		if e.PartType == conversation.PartThinking || e.PartType == conversation.PartError {
			return "", false
		}
		return e.Text(), strings.TrimSpace(e.Text()) != ""
	}
	return "", false
}

func (p *convProvider) destroy(ctx context.Context, raw []byte) tools.Result {
	args, terr := convtools.ParseDestroy(raw)
	if terr != nil {
		return tools.Failure(terr)
	}
	target, err := p.co.store.Get(args.ConversationID)
	if err != nil {
		return convtools.Refusal(convtools.CodeNotFound, "conversation not found")
	}
	askUser := "; if it should go, ask the user to delete it (they can, from the list of conversations)"
	if !target.IsChild() {
		return convtools.Refusal(convtools.CodeRefused, fmt.Sprintf("%q is a root conversation (the user's): only conversations created with conv.create in this conversation's work can be destroyed%s", target.Title, askUser))
	}
	list, err := p.co.store.List()
	if err != nil {
		return tools.Failure(tools.NewError(tools.CodeInternal, "could not list the conversations: "+err.Error(), nil))
	}
	metas := map[string]conversation.ConversationMeta{}
	for _, m := range list {
		metas[m.ID] = m
	}
	if rootOf(metas, target.ID) != rootOf(metas, p.scope.ConversationID) {
		return convtools.Refusal(convtools.CodeRefused, fmt.Sprintf("%q was not created in this conversation's work: it belongs to another conversation of the user%s", target.Title, askUser))
	}
	doomed := descendantsIn(list, target.ID)
	c := chainFromContext(ctx)
	for _, id := range doomed {
		inChain := id == p.scope.ConversationID || (c != nil && c.isWaiting(id))
		if inChain {
			return convtools.Refusal(convtools.CodeRefused, "it takes part in the work in progress (a conversation waiting for an answer, or this one): it can be destroyed once that work is done")
		}
		if m := metas[id]; m.Origin != nil && m.Origin.UserWroteAt != "" {
			what := "it"
			if id != target.ID {
				what = fmt.Sprintf("%q, created from it,", m.Title)
			}
			return convtools.Refusal(convtools.CodeRefused, fmt.Sprintf("%q was not destroyed: %s holds messages the user wrote%s", target.Title, what, askUser))
		}
	}
	// Deepest first, so that no child outlives its parent.
	for i := len(doomed) - 1; i >= 0; i-- {
		if _, err := p.co.delete(doomed[i]); err != nil {
			return tools.Failure(tools.NewError(tools.CodeInternal, "could not delete the conversation: "+err.Error(), nil))
		}
	}
	return tools.Success(struct {
		Deleted []string `json:"deleted"`
	}{doomed})
}

// rootOf is the conversation of the user that id was created from (id
// itself when it is one).
func rootOf(metas map[string]conversation.ConversationMeta, id string) string {
	seen := map[string]bool{}
	for {
		m, ok := metas[id]
		if !ok || !m.IsChild() || seen[id] {
			return id
		}
		seen[id] = true
		id = m.ParentID
	}
}

// NoteUserWrote records that the user wrote in a conversation created by
// conv.create (Origin.UserWroteAt): conv.destroy no longer deletes it.
func (co *Coordinator) NoteUserWrote(id string) {
	if id == "" {
		return
	}
	meta, err := co.store.Get(id)
	if err != nil || !meta.IsChild() || meta.Origin.UserWroteAt != "" {
		return
	}
	stamp := fsx.Stamp(time.Now())
	if err := co.store.UpdateMeta(id, func(m *conversation.ConversationMeta) {
		if m.Origin != nil && m.Origin.UserWroteAt == "" {
			o := *m.Origin
			o.UserWroteAt = stamp
			m.Origin = &o
		}
	}); err != nil {
		co.log.Warn("noting that the user wrote in a conversation", "conversation", id, "error", err)
	}
}

// descendantsIn returns id and the conversations created from it, parents
// before their children, among the records of list.
func descendantsIn(list []conversation.ConversationMeta, id string) []string {
	children := map[string][]string{}
	for _, m := range list {
		if m.IsChild() {
			children[m.ParentID] = append(children[m.ParentID], m.ID)
		}
	}
	out := []string{id}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
