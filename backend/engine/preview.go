package engine

import (
	"context"
	"strconv"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/llm"
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
	// Full lists every message of the log with its fate (Conversation.Entries).
	// It reads the whole log; without it a preview reads what a send reads
	// (the log since the last compaction) and explains the older part from
	// the compaction events' data.
	Full bool
}

// RunSetup is what the next model request of a workflow run is built with.
type RunSetup struct {
	AgentID  string
	Persona  contextbuilder.Persona
	Injector contextbuilder.RunInjector
	Tools    ToolHost
}

// Preview is exactly what the next request of a conversation would send, and
// why: the messages (after the compaction a send would do first), the tool
// names as sent, the usage, the builder's decisions, and what happened to the
// rest of the conversation.
type Preview struct {
	ConversationID string           `json:"conversationId"`
	Mode           string           `json:"mode"`
	AgentID        string           `json:"agentId,omitempty"`
	Model          string           `json:"model"`
	Messages       []PreviewMessage `json:"messages"`
	// ToolNames are the tool names as the request sends them (wire form:
	// fs_read, not fs.read).
	ToolNames []string `json:"toolNames"`
	// ToolTokens is what the tool definitions cost (part of the usage).
	ToolTokens int        `json:"toolTokens"`
	Usage      UsageEvent `json:"usage"`
	// Build explains the request: rows, kept, dropped and compressed
	// entries with their reasons, recalled messages.
	Build contextbuilder.Debug `json:"build"`
	// Compression is set when the next send compacts before it sends: what
	// it would compact and the summary it would write.
	Compression *PreviewCompression `json:"compression,omitempty"`
	// Conversation explains the whole conversation, not only what was read.
	Conversation ConversationView `json:"conversation"`
	Notes        []string         `json:"notes,omitempty"`
}

// PreviewMessage is one message of the previewed request.
type PreviewMessage struct {
	Index      int                     `json:"index"`
	Role       string                  `json:"role"`
	Content    *string                 `json:"content"`
	ToolCalls  []conversation.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string                  `json:"tool_call_id,omitempty"`
	Name       string                  `json:"name,omitempty"`
	SourceID   string                  `json:"sourceId,omitempty"`
	Kind       string                  `json:"kind"`
	Tokens     int                     `json:"tokens"`
	Reason     string                  `json:"reason"`
	// Skills names the active skills whose bodies the message carries.
	Skills []string `json:"skills,omitempty"`
}

// PreviewCompression is the compaction the next send would do first.
type PreviewCompression struct {
	Strategy string            `json:"strategy"`
	Reason   string            `json:"reason"`
	Before   compression.Usage `json:"before"`
	After    compression.Usage `json:"after"`
	Record   PreviewRecord     `json:"record"`
	// Summary is the summary it would write (with llm-summary, the digest:
	// a preview does not call the LLM).
	Summary string                      `json:"summary"`
	Data    conversation.CompactionData `json:"data"`
}

// PreviewRecord lists what a compaction would mark.
type PreviewRecord struct {
	CompactedIDs []string `json:"compactedIds"`
	// TruncatedIDs are messages the safety net would shorten (previews).
	TruncatedIDs []string `json:"truncatedIds"`
}

// ConversationView explains the whole conversation for a preview.
type ConversationView struct {
	// Messages is the number of messages in the log.
	Messages int `json:"messages"`
	// Loaded is the number of entries read for the request.
	Loaded int `json:"loaded"`
	// Compacted is the number of messages compacted so far (with the
	// preview's compaction).
	Compacted int `json:"compacted"`
	// Compactions lists every compaction, oldest first (the last 200).
	Compactions []conversation.CompactionRef `json:"compactions"`
	// Summary is the summary the request holds.
	Summary *SummaryView `json:"summary,omitempty"`
	// Pins are the pinned and carried messages.
	Pins []contextbuilder.Pin `json:"pins"`
	// Recalled are the compacted messages brought back, with why.
	Recalled []contextbuilder.RecallItem `json:"recalled"`
	// Full is set when Entries lists every message (PreviewRequest.Full).
	Full    bool        `json:"full"`
	Entries []EntryFate `json:"entries,omitempty"`
}

// SummaryView is the summary message of a request.
type SummaryView struct {
	ID     string `json:"id"`
	Tokens int    `json:"tokens"`
	Text   string `json:"text"`
	// Screen is the text as a person reads it (compression.ForScreen).
	Screen string `json:"screen"`
}

// EntryFate is what happened to one message of the log.
type EntryFate struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	// Fate is request, compacted, dropped or excluded.
	Fate   string `json:"fate"`
	Reason string `json:"reason"`
	// Compaction is the event that compacted it.
	Compaction string `json:"compaction,omitempty"`
}

// Entry fates.
const (
	FateRequest   = "request"
	FateCompacted = "compacted"
	FateDropped   = "dropped"
	FateExcluded  = "excluded"
)

// Preview builds the next request of a conversation without calling the LLM
// and without writing anything: when a send would compact first, the
// compaction is done in memory and the request shown is the one after it.
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
	case conversation.ModeChat, conversation.ModeAgent:
	case conversation.ModeRun, conversation.ActiveWorkflow:
		if req.Run == nil {
			return nil, &Error{Code: CodeUnsupportedMode, Message: "previewing run-mode requests needs the workflow run; use chat or agent mode"}
		}
		mode = conversation.ModeRun
	default:
		return nil, invalid("mode must be chat, agent or run, got " + strconv.Quote(mode))
	}
	st, cerr := s.conversationSettings(meta)
	if cerr != nil {
		// The preview calls no server: it shows the request for the
		// settings' endpoint (a send says what is wrong with the choice).
		st = s.opts.Settings.Effective()
	}
	var (
		p       *prepared
		agentID string
	)
	if mode == conversation.ModeRun {
		agentID = req.Run.AgentID
		p, err = s.prepareRun(req.ConversationID, req.Run, st)
	} else {
		agentID = req.AgentID
		if agentID == "" && req.Agent == nil && mode == conversation.ModeAgent {
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
	loaded := len(p.history)
	if req.Full {
		all, err := s.opts.Store.Load(req.ConversationID)
		if err != nil {
			return nil, err
		}
		p.history = deref(all)
	}
	cx := s.contexter(p, req.ConversationID, false)
	before, err := cx.build(false)
	if err != nil {
		return nil, err
	}
	res, err := cx.next(ctx, ReasonThreshold)
	if err != nil {
		return nil, err
	}
	out := &Preview{ConversationID: req.ConversationID, Mode: mode, AgentID: agentID, Model: p.model,
		ToolTokens: p.toolTokens, Build: res.Debug, Notes: cx.notes}
	names := llm.NewNameMap(res.ToolNames...)
	out.ToolNames = make([]string, 0, len(res.ToolNames))
	for _, n := range res.ToolNames {
		out.ToolNames = append(out.ToolNames, names.Wire(n))
	}
	if st.Context.CompressionStrategy == compression.NameLLMSummary {
		out.Notes = append(out.Notes, "compression strategy llm-summary: a preview does not call the LLM, so a compaction is shown with the digest (a send asks the summary model)")
	}
	if len(cx.compactions) > 0 {
		c := cx.compactions[len(cx.compactions)-1]
		pc := &PreviewCompression{Strategy: c.Data.Strategy, Reason: compression.Over(before, cx.config("")),
			Before: compression.UsageOf(before.Debug.FullTokens, cx.limit), After: compression.UsageOf(res.Debug.UsedTokens, cx.limit),
			Record: PreviewRecord{CompactedIDs: c.CompactedIDs, TruncatedIDs: []string{}}, Summary: c.Summary, Data: c.Data}
		for _, d := range res.Debug.Compressed {
			pc.Record.TruncatedIDs = append(pc.Record.TruncatedIDs, d.SourceID)
		}
		out.Compression = pc
		out.Notes = append(out.Notes, "the request is over the compaction trigger ("+pc.Reason+"): the next send compacts "+
			strconv.Itoa(c.Count)+" messages first; the messages shown are the request after it")
	}
	u := compression.UsageOf(res.Debug.UsedTokens, cx.limit)
	out.Usage = usageEvent(req.ConversationID, u, "")
	out.Usage.UsagePercent = round1(out.Usage.UsagePercent)
	out.Usage.Reported = s.reportedUsage(req.ConversationID)
	out.Usage.Cost = st.LLM.CostOf(out.Usage.Reported)
	out.Messages = make([]PreviewMessage, len(res.Messages))
	for i, m := range res.Messages {
		pm := PreviewMessage{Index: i, Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID,
			SourceID: m.SourceID, Kind: string(m.Kind), Tokens: m.Tokens, Reason: res.Debug.Rows[i].Reason, Skills: res.Debug.Rows[i].Skills}
		if m.Name != "" {
			pm.Name = names.Wire(m.Name)
		}
		for _, tc := range m.ToolCalls {
			tc.Function.Name = names.Wire(tc.Function.Name)
			pm.ToolCalls = append(pm.ToolCalls, tc)
		}
		out.Messages[i] = pm
	}
	out.Conversation = s.explain(meta, p.history, loaded, res, req.Full)
	return out, nil
}

// explain describes the whole conversation around request res, built over
// history (the whole log when full).
func (s *ChatService) explain(meta conversation.ConversationMeta, history []conversation.Entry, loaded int, res *contextbuilder.Result, full bool) ConversationView {
	v := ConversationView{Messages: meta.MessageCount, Loaded: loaded, Recalled: res.Debug.Recalled, Full: full,
		Compactions: []conversation.CompactionRef{}, Pins: make([]contextbuilder.Pin, len(res.Pins))}
	for i, p := range res.Pins {
		p.Words = p.Text
		if p.Kind == conversation.CarriedRecord {
			p.Words = conversation.RecordWords(p.Text)
		}
		v.Pins[i] = p
	}
	if v.Recalled == nil {
		v.Recalled = []contextbuilder.RecallItem{}
	}
	var events []int
	for i := range history {
		if history[i].IsEvent() && history[i].Event == conversation.EventCompaction {
			events = append(events, i)
		}
	}
	if n := len(events); n > 0 {
		last := &history[events[n-1]]
		if d, ok := conversation.ParseCompactionData(last.Data); ok {
			v.Compacted = d.CompactedTotal
			if !full {
				v.Compactions = append(v.Compactions, d.Earlier...)
			}
		}
	}
	listed := map[string]bool{}
	for _, c := range v.Compactions {
		listed[c.EventID] = true
	}
	for _, i := range events {
		e := &history[i]
		if listed[e.ID] {
			continue
		}
		d, _ := conversation.ParseCompactionData(e.Data)
		v.Compactions = append(v.Compactions, conversation.CompactionRef{EventID: e.ID, From: d.From, To: d.To, Count: d.Count, CreatedAt: e.CreatedAt, Reason: d.Reason})
	}
	for _, m := range res.Messages {
		if m.Kind == contextbuilder.KindSummary {
			v.Summary = &SummaryView{ID: m.SourceID, Tokens: m.Tokens, Text: m.Text(), Screen: compression.ForScreen(m.Text())}
		}
	}
	if !full {
		return v
	}
	// Every message: in the request, compacted (by which event), or left out.
	inRequest := map[string]string{}
	for _, k := range res.Debug.Kept {
		inRequest[k.SourceID] = k.Reason
	}
	pos := map[string]int{}
	for i := range history {
		pos[history[i].ID] = i
	}
	byEvent := make([]string, len(history)) // compaction event of each position
	lastEnd := -1
	for _, i := range events {
		d, _ := conversation.ParseCompactionData(history[i].Data)
		to, ok := pos[d.To]
		if !ok {
			to = i
		}
		for j := lastEnd + 1; j <= to && j < len(history); j++ {
			if byEvent[j] == "" {
				byEvent[j] = history[i].ID
			}
		}
		lastEnd = max(lastEnd, to)
	}
	dropped := map[string]string{}
	for _, d := range res.Debug.Dropped {
		from, ok := pos[d.SourceID]
		if !ok {
			continue
		}
		to := from
		if t, ok := pos[d.ThroughID]; ok {
			to = t
		}
		for j := from; j <= to; j++ {
			if history[j].IsMessage() {
				dropped[history[j].ID] = d.Reason
			}
		}
	}
	for i := range history {
		e := &history[i]
		if !e.IsMessage() {
			continue
		}
		f := EntryFate{ID: e.ID, Role: e.Role}
		switch {
		case inRequest[e.ID] != "":
			f.Fate, f.Reason = FateRequest, inRequest[e.ID]
		case e.Compacted:
			f.Fate, f.Reason, f.Compaction = FateCompacted, "compacted: in the summary's digest, the recall index and (when pinned or a record) the PINNED message", byEvent[i]
		case dropped[e.ID] != "":
			f.Fate, f.Reason = FateDropped, dropped[e.ID]
			if len(f.Reason) > 9 && f.Reason[:9] == "excluded:" {
				f.Fate = FateExcluded
			}
		default:
			f.Fate, f.Reason = FateExcluded, "not part of any request"
		}
		v.Entries = append(v.Entries, f)
	}
	return v
}

// NextUsage is the context:usage event of conversationID that the preview's
// measure gives: the usage of its next request, with a status told from the
// percentage when it has none or says "compressing".
func (p *Preview) NextUsage(conversationID string) UsageEvent {
	u := p.Usage
	u.ConversationID = conversationID
	if u.Status == "" || u.Status == compression.StatusCompressing {
		u.Status = compression.Status(u.UsagePercent)
	}
	return u
}
