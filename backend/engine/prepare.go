package engine

import (
	"context"
	"errors"
	"slices"
	"strings"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// prepared is everything a request is built from: the tool host, the
// persona and run blocks, the budget and the history.
type prepared struct {
	st         settings.Settings
	mode       string
	agent      *Agent
	model      string
	host       ToolHost
	llmTools   []llm.Tool
	toolTokens int
	// toolDefs are the host's tools and toolCost what each costs; the
	// request offers toolNames of them (all, unless active skills narrow
	// them: see skills.go), which llmTools and toolTokens describe.
	toolDefs  []tools.ToolDef
	toolCost  []int
	toolNames []string
	sk        *skillsState
	budget    contextbuilder.Budget
	persona   *contextbuilder.Persona
	run       contextbuilder.RunInjector
	// history is the log since the last compaction (from the oldest entry it
	// still needs), with the entries of this send appended as they are
	// written and compactions applied as they happen.
	history []conversation.Entry
	// readAt is the log's size before history was read (0: unknown): a
	// compaction hands the store the versions it read with it.
	readAt int64
	// turnStart is the first entry this send wrote (see
	// contextbuilder.Options.TurnStart).
	turnStart string
	// instructions are those of a conversation created by another one.
	instructions *conversation.Instructions
	// memory are the project's instruction files, read once per send.
	memory []contextbuilder.MemoryFile
}

// prepare loads the history of convID and sets up the request of mode.
func (s *ChatService) prepare(convID, mode string, agent *Agent, st settings.Settings) (*prepared, error) {
	p, err := s.frame(convID, mode, agent, st)
	if err != nil {
		return nil, err
	}
	if err = s.loadInto(p, convID); err != nil {
		return nil, err
	}
	return p, nil
}

// loadInto reads the history of convID into p, noting the log's size first.
func (s *ChatService) loadInto(p *prepared, convID string) error {
	p.readAt = 0
	if ls, ok := s.opts.Store.(logSizer); ok {
		if n, err := ls.LogSize(convID); err == nil {
			p.readAt = n
		}
	}
	var err error
	p.history, err = s.history(s.opts.Store, convID)
	return err
}

// logSizer is implemented by a store that tells how long a log is
// (*convlog.Store): a compaction then gives it the versions of the
// compacted messages it read instead of having them read again.
type logSizer interface {
	LogSize(id string) (int64, error)
}

// frame sets up the request of mode without its history: tools, persona,
// budget.
func (s *ChatService) frame(convID, mode string, agent *Agent, st settings.Settings) (*prepared, error) {
	p := &prepared{st: st, mode: mode, agent: agent, model: st.LLM.Model, budget: budgetOf(st.Context), memory: s.memory()}
	policy := systemPolicy(st.Tools).Normalized()
	if agent != nil {
		policy = tools.Merge(systemPolicy(st.Tools), agent.Tools)
	}
	scope := ToolScope{ConversationID: convID, Mode: mode, Agent: agent, Policy: policy}
	if convID != "" {
		// A conversation created by another one keeps what it was created
		// with: its base instructions and its narrower tools.
		if meta, err := s.opts.Store.Get(convID); err == nil && meta.Instructions != nil {
			p.instructions = meta.Instructions
			scope.Allow, scope.MCPServers = meta.Instructions.Tools, meta.Instructions.MCPServers
		}
	}
	host, err := s.opts.Tools(scope)
	if err != nil {
		return nil, err
	}
	s.useTools(p, host)
	if agent != nil {
		pp := agent.Persona
		p.persona = &pp
	}
	return p, nil
}

// prepareRun sets up the run-mode request of convID with the run's persona,
// blocks and tool host.
func (s *ChatService) prepareRun(convID string, run *RunSetup, st settings.Settings) (*prepared, error) {
	p := &prepared{st: st, mode: conversation.ModeRun, model: st.LLM.Model, budget: budgetOf(st.Context), memory: s.memory()}
	s.useRun(p, run)
	if err := s.loadInto(p, convID); err != nil {
		return nil, err
	}
	return p, nil
}

// memory returns the project's instruction files (Options.Memory).
func (s *ChatService) memory() []contextbuilder.MemoryFile {
	if s.opts.Memory == nil {
		return nil
	}
	return s.opts.Memory()
}

// useRun makes setup the frame of p's requests: persona, run blocks, tools.
func (s *ChatService) useRun(p *prepared, setup *RunSetup) {
	persona := setup.Persona
	p.persona, p.run = &persona, setup.Injector
	s.useTools(p, setup.Tools)
}

// useTools makes host the tool host of p's requests: its definitions and what
// they cost.
func (s *ChatService) useTools(p *prepared, host ToolHost) {
	p.host, p.toolDefs, p.toolCost, p.sk = host, host.Tools(), nil, nil
	for _, d := range p.toolDefs {
		p.toolCost = append(p.toolCost, toolDefTokens(s.counter, p.model, d))
	}
	s.offerTools(p, nil)
}

// options are the context builder's options for p over its history.
func (s *ChatService) options(p *prepared) contextbuilder.Options {
	skillsPart := s.skillsOption(p) // narrows the tools first
	hp := p.host.Policy()
	cp := contextbuilder.ToolPolicy{Enabled: p.toolNames, MaxReadBytes: hp.FS.MaxReadBytes, MaxWriteBytes: hp.FS.MaxWriteBytes}
	if hp.MCP.Enabled {
		cp.MCPServers = mcpServers(cp.Enabled)
	}
	return contextbuilder.Options{
		Mode:         p.mode,
		History:      p.history,
		ToolPolicy:   cp,
		ToolNames:    p.toolNames,
		ToolTokens:   p.toolTokens,
		Skills:       skillsPart,
		Budget:       p.budget,
		Counter:      s.counter,
		Model:        p.model,
		Agent:        p.persona,
		Instructions: instructionsText(p.instructions),
		Memory:       p.memory,
		Run:          p.run,
		TurnStart:    p.turnStart,
		// Results of earlier turns enter as stubs when the setting is off.
		OmitToolResults:          !p.st.Context.IncludeToolResultsInContext,
		IncludeCollapsedUIEvents: p.st.Context.IncludeCollapsedUIEventsInContext,
	}
}

// mcpServers lists, in order of appearance, the servers of the MCP tools
// (mcp__<server>__<tool>) among names: those the policy text names.
func mcpServers(names []string) []string {
	var out []string
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, conversation.ToolMCPPrefix)
		if !ok {
			continue
		}
		if srv, _, ok := strings.Cut(rest, "__"); ok && srv != "" && !slices.Contains(out, srv) {
			out = append(out, srv)
		}
	}
	return out
}

// compressionConfig is the compaction configuration of p for a request
// limit (the settings' limit, or one lowered after a context-length error).
func (s *ChatService) compressionConfig(p *prepared, limit int, sum compression.Summarizer, focus string) compression.Config {
	c := p.st.Context
	return compression.Config{
		Limit:        limit,
		Trigger:      c.TriggerThreshold,
		Target:       c.TargetAfterCompression,
		MaxMessages:  c.MaxMessages,
		MaxChars:     c.MaxChars,
		SummaryShare: c.SummaryShare,
		Strategy:     c.CompressionStrategy,
		Summarizer:   sum,
		Focus:        focus,
		Counter:      s.counter,
		Model:        p.model,
	}
}

// budgetOf maps the context settings to the builder's budget. The reply
// reserve is capped at a quarter of the budget (contextbuilder.Budget.Reserve),
// so the request limit never shrinks when the budget grows.
func budgetOf(c settings.Context) contextbuilder.Budget {
	b := contextbuilder.Budget{TokenBudget: c.TokenBudget, ReserveForResponse: c.ReserveForResponse,
		MaxMessages: c.MaxMessages, MaxChars: c.MaxChars}
	if b.TokenBudget <= 0 {
		b.TokenBudget = contextbuilder.DefaultTokenBudget
	}
	if b.ReserveForResponse < 0 {
		b.ReserveForResponse = 0
	}
	if b.MaxMessages < 0 {
		b.MaxMessages = 0
	}
	if b.MaxChars < 0 {
		b.MaxChars = 0
	}
	return b
}

// toolDefTokens estimates what one tool definition costs in a request: its
// name, description and parameter schema plus a small framing overhead.
func toolDefTokens(c Counter, model string, d tools.ToolDef) int {
	return 8 + c.Count(model, d.Name) + c.Count(model, d.Description) + c.Count(model, string(d.Parameters))
}

// toLLM converts request messages to the client's form (without images:
// see withImages).
func toLLM(msgs []contextbuilder.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = llm.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name}
	}
	return out
}

// attachmentReader reads the files attached to messages (*convlog.Store).
type attachmentReader interface {
	ReadAttachment(alias string) ([]byte, error)
}

// withImages adds the attached images of msgs to out (toLLM(msgs)), read from
// the store; an image that cannot be read is said so in the message's text.
func (s *ChatService) withImages(out []llm.Message, msgs []contextbuilder.Message) []llm.Message {
	r, _ := s.opts.Store.(attachmentReader)
	for i, m := range msgs {
		for _, a := range m.Images {
			var data []byte
			err := errors.New("no attachment store")
			if r != nil {
				data, err = r.ReadAttachment(a.Path)
			}
			if err != nil {
				text := out[i].Content
				note := "(The attached image " + a.Name + " could not be read: " + err.Error() + ".)"
				if text != nil {
					note = *text + "\n" + note
				}
				out[i].Content = &note
				continue
			}
			out[i].Images = append(out[i].Images, llm.Image{Name: a.Name, MIME: a.MIME, Data: data})
		}
	}
	return out
}

// llmSummarizer implements compression.Summarizer with the LLM client.
type llmSummarizer struct {
	client LLM
	model  string
}

// NewSummarizer returns a compression.Summarizer that asks client (with model,
// or the client's model when empty) for the summary, without streaming.
func NewSummarizer(client LLM, model string) compression.Summarizer {
	return &llmSummarizer{client: client, model: model}
}

// Summarize implements compression.Summarizer.
func (s *llmSummarizer) Summarize(ctx context.Context, msgs []compression.Message) (string, error) {
	req := llm.Request{Messages: toLLM(msgs), Model: s.model}
	res, err := s.client.Complete(ctx, req)
	if err != nil {
		return "", err
	}
	return res.Content, nil
}

// instructionsText is the base instruction of a child conversation ("" for none).
func instructionsText(in *conversation.Instructions) string {
	if in == nil {
		return ""
	}
	return in.Base
}
