package engine

import (
	"context"
	"strconv"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/settings"
)

// PreviewRequest names the conversation and the mode to preview.
type PreviewRequest struct {
	ConversationID string
	// Mode is chat or agent; empty takes the conversation's active mode.
	Mode string
	// AgentID (agent mode) defaults to the conversation's selected agent.
	AgentID string
	Agent   *Agent
	// Run is what a run-mode request is built with (persona, run blocks, tool
	// host); required for mode run, which the workflow service supplies.
	Run *RunSetup
}

// RunSetup is what the next model request of a workflow run is built with.
type RunSetup struct {
	AgentID  string
	Persona  contextbuilder.Persona
	Injector contextbuilder.RunInjector
	Tools    ToolHost
}

// Preview is exactly what the next request of a conversation would send, and
// why: the messages (after compression when it would run), the tool names,
// the usage, and the decisions of the context builder and of compression.
type Preview struct {
	ConversationID string           `json:"conversationId"`
	Mode           string           `json:"mode"`
	AgentID        string           `json:"agentId,omitempty"`
	Model          string           `json:"model"`
	Messages       []PreviewMessage `json:"messages"`
	ToolNames      []string         `json:"toolNames"`
	// ToolTokens is what the tool definitions cost (part of the usage).
	ToolTokens int        `json:"toolTokens"`
	Usage      UsageEvent `json:"usage"`
	// Build explains the context builder's request (before compression):
	// rows, kept, dropped and compressed entries with their reasons.
	Build contextbuilder.Debug `json:"build"`
	// Compression is set when the request is over the trigger threshold: the
	// messages above are then the compressed ones.
	Compression *PreviewCompression `json:"compression,omitempty"`
	Notes       []string            `json:"notes,omitempty"`
}

// PreviewMessage is one message of the previewed request.
type PreviewMessage struct {
	Index      int                `json:"index"`
	Role       string             `json:"role"`
	Content    *string            `json:"content"`
	ToolCalls  []convlog.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string             `json:"tool_call_id,omitempty"`
	Name       string             `json:"name,omitempty"`
	SourceID   string             `json:"sourceId,omitempty"`
	Kind       string             `json:"kind"`
	Tokens     int                `json:"tokens"`
	Reason     string             `json:"reason"`
}

// PreviewCompression is what compression would do to the next request.
type PreviewCompression struct {
	Strategy string            `json:"strategy"`
	Before   compression.Usage `json:"before"`
	After    compression.Usage `json:"after"`
	// Output explains the result unit by unit (Explanation), with the ids
	// dropped and truncated.
	Output *compression.Output `json:"output"`
	// Record is what a send would persist (compacted ids, the event's data).
	Record compression.Record `json:"record"`
}

// Preview builds the next request of a conversation without calling the LLM
// and without writing anything. When the request is over the compression
// threshold it shows the compressed request (with the LLM summary strategy,
// the key-message result: the summary itself needs the LLM).
func (s *ChatService) Preview(ctx context.Context, req PreviewRequest) (*Preview, error) {
	meta, err := s.opts.Store.Get(req.ConversationID)
	if err != nil {
		return nil, err
	}
	mode := req.Mode
	if mode == "" {
		mode = meta.ActiveType
	}
	switch mode {
	case convlog.ModeChat, convlog.ModeAgent:
	case convlog.ModeRun, convlog.ActiveWorkflow:
		if req.Run == nil {
			return nil, &Error{Code: CodeUnsupportedMode, Message: "previewing run-mode requests needs the workflow run; use chat or agent mode"}
		}
		mode = convlog.ModeRun
	default:
		return nil, invalid("mode must be chat, agent or run, got " + strconv.Quote(mode))
	}
	st := s.opts.Settings.Effective()
	var (
		p       *prepared
		agentID string
	)
	if mode == convlog.ModeRun {
		agentID = req.Run.AgentID
		p, err = s.prepareRun(req.ConversationID, req.Run, st)
	} else {
		agentID = req.AgentID
		if agentID == "" && req.Agent == nil && mode == convlog.ModeAgent {
			agentID = meta.SelectedAgentID
		}
		var agent *Agent
		if agent, err = s.agentFor(mode, agentID, req.Agent); err != nil {
			return nil, err
		}
		if agent != nil {
			agentID = agent.ID
		}
		p, err = s.prepare(req.ConversationID, mode, agent, st)
	}
	if err != nil {
		return nil, err
	}
	out := &Preview{ConversationID: req.ConversationID, Mode: mode, AgentID: agentID, Model: p.model,
		ToolNames: p.built.ToolNames, ToolTokens: p.toolTokens, Build: p.built.Debug}
	if out.ToolNames == nil {
		out.ToolNames = []string{}
	}
	if st.Context.CompressionStrategy == settings.StrategyLLMSummary {
		out.Notes = append(out.Notes, "compression strategy llm-summary: a preview does not call the LLM, so compression is shown with key-message extraction (a send adds the summary)")
	}
	pipe := p.pipeline(s.opts.Counter, nil, 0)
	msgs := p.built.Messages
	usage := pipe.Usage(msgs)
	reasons := make(map[string]string, len(p.built.Debug.Rows))
	for _, row := range p.built.Debug.Rows {
		if row.SourceID != "" {
			reasons[row.SourceID] = row.Reason
		}
	}
	var truncated map[string]bool
	if pipe.ShouldCompress(msgs) {
		res, err := pipe.Compress(ctx, msgs, 0)
		if err != nil {
			return nil, err
		}
		out.Compression = &PreviewCompression{Strategy: res.Output.Strategy, Before: res.Before, After: res.After, Output: res.Output, Record: res.Record}
		out.Notes = append(out.Notes, "the request uses "+strconv.FormatFloat(round1(usage.UsagePercent), 'f', -1, 64)+
			"% of the budget, over the compression threshold: the next send compresses it first; the messages shown are the compressed request")
		msgs, usage = res.Output.Messages, res.After
		truncated = make(map[string]bool, len(res.Output.Truncated))
		for _, id := range res.Output.Truncated {
			truncated[id] = true
		}
	}
	out.Usage = usageEvent(req.ConversationID, usage, "")
	out.Usage.UsagePercent = round1(out.Usage.UsagePercent)
	out.Messages = make([]PreviewMessage, len(msgs))
	for i, m := range msgs {
		pm := PreviewMessage{Index: i, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID,
			Name: m.Name, SourceID: m.SourceID, Kind: string(m.Kind), Tokens: m.Tokens}
		switch {
		case truncated[m.SourceID]:
			pm.Reason = "compressed: shortened by compression (the log keeps it whole)"
		case m.SourceID != "" && reasons[m.SourceID] != "":
			pm.Reason = reasons[m.SourceID]
		case m.Kind == contextbuilder.KindSystem && i < len(p.built.Debug.Rows):
			pm.Reason = p.built.Debug.Rows[i].Reason
		case m.Role == convlog.RoleSystem && contextbuilder.IsSummary(m.Text()):
			pm.Reason = "compressed: summary of the dropped messages"
		case m.Role == convlog.RoleTool && m.SourceID == "":
			pm.Reason = "synthetic: interrupted tool call"
		default:
			pm.Reason = "kept"
		}
		out.Messages[i] = pm
	}
	return out, nil
}
