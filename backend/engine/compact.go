package engine

import (
	"context"
	"strconv"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/settings"
	"crewagent/backend/tasks"
	"crewagent/backend/tokens"
)

// CompactRequest asks for a compaction now (the composer's /compact and the
// command line's "conversations compact").
type CompactRequest struct {
	ConversationID string
	// Focus steers what the summary keeps.
	Focus string
	// Run is the setup of a workflow run's request, for a conversation in
	// run mode (nil: its chat or agent request is measured).
	Run *RunSetup
}

// CompactResult is what a manual compaction did (contracts: the --json
// shape of "conversations compact").
type CompactResult struct {
	ConversationID    string `json:"conversationId"`
	CompactedMessages int    `json:"compactedMessages"`
	UsedTokensBefore  int    `json:"usedTokensBefore"`
	UsedTokensAfter   int    `json:"usedTokensAfter"`
	SummaryID         string `json:"summaryId"`
	// Summary is the summary written ("" when nothing was compacted).
	Summary string `json:"summary,omitempty"`
	// Strategy is the one used (the digest when the LLM summary failed;
	// SummaryError says why).
	Strategy     string `json:"strategy,omitempty"`
	SummaryError string `json:"summaryError,omitempty"`
	TotalBudget  int    `json:"totalBudget"`
}

// Compact compacts the conversation now: every history unit before its
// newest user message (that message and what follows stay), with the focus
// steering the summary. A conversation with nothing to compact is left as it
// is (CompactedMessages 0). It fails with ENGINE_CONVERSATION_BUSY while a
// reply is running in the conversation.
func (s *ChatService) Compact(ctx context.Context, req CompactRequest) (*CompactResult, error) {
	meta, err := s.opts.Store.Get(req.ConversationID)
	if err != nil {
		return nil, err
	}
	convID := meta.ID
	st, err := s.conversationSettings(meta)
	if err != nil {
		return nil, err
	}
	task := tasks.Task{ConversationID: convID, Kind: tasks.KindChat}
	mode := conversation.ModeChat
	var agent *Agent
	switch {
	case req.Run != nil:
		task.Kind = tasks.KindRun
	case meta.ActiveType == conversation.ActiveAgent && meta.SelectedAgentID != "" && s.opts.Agents != nil:
		if a, aerr := s.resolve(meta.SelectedAgentID); aerr == nil {
			mode, agent, task.Kind = conversation.ModeAgent, a, tasks.KindAgent
		}
	}
	ctx, release, err := s.acquire(ctx, task)
	if err != nil {
		return nil, err
	}
	defer release()
	var p *prepared
	if req.Run != nil {
		p, err = s.prepareRun(convID, req.Run, st)
	} else {
		p, err = s.prepare(convID, mode, agent, st)
	}
	if err != nil {
		return nil, err
	}
	cx := s.contexter(p, convID, true)
	if st.Context.CompressionStrategy == settings.StrategyLLMSummary && st.RequireLLM() == nil {
		cx.sum = NewSummarizer(s.client(st.LLM), st.LLM.SummaryModelOrDefault())
	}
	before, err := cx.build(false)
	if err != nil {
		return nil, err
	}
	out := &CompactResult{ConversationID: convID, UsedTokensBefore: before.Debug.FullTokens, UsedTokensAfter: before.Debug.FullTokens, TotalBudget: cx.limit}
	after, err := cx.compact(ctx, before, ReasonManual, strings.TrimSpace(req.Focus), true)
	if err != nil {
		return nil, err
	}
	if len(cx.compactions) == 0 {
		return out, nil
	}
	c := cx.compactions[0]
	out.CompactedMessages, out.SummaryID, out.Summary = c.Count, c.SummaryID, c.Summary
	out.UsedTokensAfter = after.Debug.FullTokens
	out.Strategy, out.SummaryError = c.Data.Strategy, c.Data.SummaryError
	return out, nil
}

// Pin pins message msgID of the conversation: compaction keeps it word for
// word (in the PINNED message once the message itself is compacted).
func (s *ChatService) Pin(conversationID, msgID string) error {
	_, err := s.opts.Store.Pin(conversationID, msgID)
	return err
}

// Unpin removes the pin of message msgID.
func (s *ChatService) Unpin(conversationID, msgID string) error {
	_, err := s.opts.Store.Unpin(conversationID, msgID)
	return err
}

// checkInput refuses a message that can never fit the request limit: the
// system prompt, the tool definitions and the message alone exceed it.
// Nothing is written then. On success it stores the message's token count in
// e, so the store does not count it again.
func (s *ChatService) checkInput(convID string, p *prepared, e *conversation.Entry) error {
	limit := p.budget.TokenLimit()
	if l := s.learnedLimit(p.model); l > 0 && l < limit {
		limit = l
	}
	size := len(e.Text())
	if size <= limit/4 {
		return nil // a token is at least one byte: it fits
	}
	if least := size / tokens.MaxTokenBytes; least > limit {
		// No token covers more than MaxTokenBytes: refused by its size, before
		// any counting (a 15 MB paste costs seconds to count).
		return &Error{Code: CodeInputTooLarge, Message: "the message is " + strconv.Itoa(size) + " bytes, at least " + strconv.Itoa(least) +
			" tokens: more than the request limit of " + strconv.Itoa(limit) + " tokens (context.tokenBudget minus the reply reserve) can hold, " +
			"so it was not sent or saved. " + inputTooLargeAdvice}
	}
	e.Tokens = s.counter.CountMessage(p.model, e)
	e.TokenEncoding = s.counter.EncodingFor(p.model)
	cx := s.contexter(p, convID, false)
	p.history = []conversation.Entry{*e}
	res, err := cx.build(false)
	if err != nil {
		return err
	}
	if !res.Debug.OverBudget {
		return nil
	}
	fixed := res.Debug.UsedTokens - e.Tokens
	return &Error{Code: CodeInputTooLarge, Message: "the message is " + strconv.Itoa(e.Tokens) + " tokens; with the system prompt and the tool definitions (" +
		strconv.Itoa(fixed) + " tokens) it cannot fit the request limit of " + strconv.Itoa(limit) +
		" tokens (context.tokenBudget minus the reply reserve), so it was not sent or saved. " + inputTooLargeAdvice}
}

// inputTooLargeAdvice ends the refusal of a message that can never fit.
const inputTooLargeAdvice = "Shorten it, or save the text as a file in the project " +
	"and ask for it to be read with fs.read, which pages through long files (startLine/endLine)"
