package engine

import (
	"context"
	"strings"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// prepared is everything a request is built from: the tool host, the budget,
// the history and the built request.
type prepared struct {
	st         settings.Settings
	mode       string
	agent      *Agent
	model      string
	host       ToolHost
	llmTools   []llm.Tool
	toolTokens int
	budget     contextbuilder.Budget
	history    []convlog.Entry
	built      *contextbuilder.Result
}

// prepare loads the history of convID and builds the request of mode.
func (s *ChatService) prepare(convID, mode string, agent *Agent, st settings.Settings) (*prepared, error) {
	p := &prepared{st: st, mode: mode, agent: agent, model: st.LLM.Model, budget: budgetOf(st.Context)}
	policy := systemPolicy(st.Tools).Normalized()
	if agent != nil {
		policy = tools.Merge(systemPolicy(st.Tools), agent.Tools)
	}
	host, err := s.opts.Tools(ToolScope{ConversationID: convID, Mode: mode, Agent: agent, Policy: policy})
	if err != nil {
		return nil, err
	}
	var persona *contextbuilder.Persona
	if agent != nil {
		pp := agent.Persona
		persona = &pp
	}
	if err := s.build(p, convID, host, persona, nil); err != nil {
		return nil, err
	}
	return p, nil
}

// prepareRun builds the run-mode request of convID with the run's persona,
// blocks and tool host.
func (s *ChatService) prepareRun(convID string, run *RunSetup, st settings.Settings) (*prepared, error) {
	p := &prepared{st: st, mode: convlog.ModeRun, model: st.LLM.Model, budget: budgetOf(st.Context)}
	persona := run.Persona
	if err := s.build(p, convID, run.Tools, &persona, run.Injector); err != nil {
		return nil, err
	}
	return p, nil
}

// build loads the history of convID and builds p's request with host's
// tools, the persona (agent and run modes) and the run blocks (run mode).
//
// The log is read from its end only as far as the request can use (see
// loadTail): the request is built over each window read, and reading stops
// once the builder reports that older entries cannot change it. That report
// cannot account for summary-class messages older than the window, which the
// builder keeps wherever they are; so with the llm-summary strategy (which
// writes them right after its compaction event), or when the log holds one
// (ConversationMeta.HasSummary, see loadHistory), the history is read back to
// the last compaction event instead (loadSinceCompaction).
func (s *ChatService) build(p *prepared, convID string, host ToolHost, persona *contextbuilder.Persona, run contextbuilder.RunInjector) error {
	s.useTools(p, host)
	opts := s.buildOptions(p, persona, run, nil)
	var check dependsOnOlder
	if p.st.Context.CompressionStrategy != settings.StrategyLLMSummary {
		check = func(h []convlog.Entry) (bool, error) {
			o := opts
			o.History = h
			res, err := contextbuilder.Build(o)
			if err != nil {
				return false, err
			}
			p.built = res
			return res.DependsOnOlder, nil
		}
	}
	history, built, err := s.history(s.opts.Store, convID, check)
	if err != nil {
		return err
	}
	p.history = history
	if built {
		return nil
	}
	opts.History = history
	p.built, err = contextbuilder.Build(opts)
	return err
}

// useTools makes host the tool host of p's requests: its definitions and what
// they cost.
func (s *ChatService) useTools(p *prepared, host ToolHost) {
	p.host, p.llmTools, p.toolTokens = host, nil, 0
	for _, d := range host.Tools() {
		p.llmTools = append(p.llmTools, llm.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		p.toolTokens += toolDefTokens(s.opts.Counter, p.model, d)
	}
}

// buildOptions are the context builder's options for p's mode, tool host,
// persona and run blocks over history.
func (s *ChatService) buildOptions(p *prepared, persona *contextbuilder.Persona, run contextbuilder.RunInjector, history []convlog.Entry) contextbuilder.Options {
	hp := p.host.Policy()
	cp := contextbuilder.ToolPolicy{Enabled: p.host.ToolNames(), MaxReadBytes: hp.FS.MaxReadBytes, MaxWriteBytes: hp.FS.MaxWriteBytes}
	if hp.MCP.Enabled {
		cp.MCPServers = hp.MCP.AllowedServers
	}
	return contextbuilder.Options{
		Mode:       p.mode,
		History:    history,
		ToolPolicy: cp,
		ToolNames:  p.host.ToolNames(),
		ToolTokens: p.toolTokens,
		Budget:     p.budget,
		Counter:    s.opts.Counter,
		Model:      p.model,
		Agent:      persona,
		Run:        run,
		// Results of earlier turns enter as stubs when the setting is off.
		OmitToolResults: !p.st.Context.IncludeToolResultsInContext,
	}
}

// pipeline returns the compression pipeline for the settings: primary is the
// configured strategy (nil: key messages); target is the share of the budget
// compression aims for (0: settings).
func (p *prepared) pipeline(c Counter, primary compression.Strategy, target float64) *compression.Pipeline {
	if target <= 0 {
		target = p.st.Context.TargetAfterCompression
	}
	return compression.NewPipeline(compression.Config{
		Budget:           p.budget.TokenLimit(),
		ToolTokens:       p.toolTokens,
		TriggerThreshold: p.st.Context.TriggerThreshold,
		Target:           target,
		Primary:          primary,
		Counter:          c,
		Model:            p.model,
	})
}

// strategy returns the configured primary strategy; the LLM summary needs a
// summarizer (nil falls back to key messages).
func (p *prepared) strategy(sum compression.Summarizer) compression.Strategy {
	if p.st.Context.CompressionStrategy == settings.StrategyLLMSummary && sum != nil {
		return compression.NewLLMSummary(sum, nil, 0)
	}
	return compression.NewKeyMessages(compression.KeyMessageConfig{})
}

// budgetOf maps the context settings to the builder's budget. A reserve for
// the reply that leaves no room for the request (a small token budget set
// through CREWAGENT_TOKEN_BUDGET with the default reserve) is cut to a quarter
// of the budget.
func budgetOf(c settings.Context) contextbuilder.Budget {
	b := contextbuilder.Budget{TokenBudget: c.TokenBudget, ReserveForResponse: c.ReserveForResponse,
		MaxMessages: c.MaxMessages, MaxChars: c.MaxChars}
	if b.TokenBudget <= 0 {
		b.TokenBudget = contextbuilder.DefaultTokenBudget
	}
	if b.ReserveForResponse < 0 {
		b.ReserveForResponse = 0
	}
	if b.ReserveForResponse >= b.TokenBudget {
		b.ReserveForResponse = b.TokenBudget / 4
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

// toLLM converts request messages to the client's form.
func toLLM(msgs []contextbuilder.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = llm.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name}
	}
	return out
}

// requestMessage is the request form of an entry appended during the loop,
// the way the context builder renders it from the log.
func requestMessage(c Counter, model string, e *convlog.Entry) contextbuilder.Message {
	m := contextbuilder.Message{Role: e.Role, Content: e.Content, SourceID: e.ID, Kind: contextbuilder.KindHistory}
	n := e.Tokens
	if n <= 0 {
		n = c.CountMessage(model, e)
	}
	switch e.Role {
	case convlog.RoleAssistant:
		m.ToolCalls = append([]convlog.ToolCall(nil), e.ToolCalls...)
		if m.Content != nil && *m.Content == "" && len(m.ToolCalls) > 0 {
			m.Content = nil
		}
	case convlog.RoleTool:
		m.ToolCallID, m.Name = e.ToolCallID, e.ToolName
		text := e.Text()
		if p := e.FullOutputPath; strings.HasPrefix(p, "@") && !strings.Contains(text, p) {
			line := "\nFull output: " + p
			text += line
			m.Content = &text
			n += c.Count(model, line)
		} else if text == "" {
			m.Content = convlog.Str(contextbuilder.EmptyToolResult)
			n += c.Count(model, contextbuilder.EmptyToolResult)
		}
	}
	m.Tokens = n
	return m
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
	req := llm.Request{Messages: toLLM(compression.SummaryRequest(msgs, 0)), Model: s.model}
	res, err := s.client.Complete(ctx, req)
	if err != nil {
		return "", err
	}
	return res.Content, nil
}
