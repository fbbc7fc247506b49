package engine

import (
	"context"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// The kinds of sends: a new message or a retry (SendRequest, from the
// application layer), the answer of a message another conversation put in
// the log (AnswerNewest), the continuation of a send that handed over
// (Continue) and the answer of a call left waiting for an approval
// (ResolveRequest). The requests of the last three are built here only, and
// every request is checked by check.

// CheckMessage checks the message of a send: a new one has text or
// attachments, a retry (the newest message answered again) brings no
// attachments. The application checks a message with it before the send
// starts in the background; Send checks it again.
func CheckMessage(text string, attachments int, retry bool) error {
	switch {
	case !retry && strings.TrimSpace(text) == "" && attachments == 0:
		return errs.Msg(errs.InvalidRequest, "chat.empty", nil)
	case retry && attachments > 0:
		return errs.Msg(errs.InvalidRequest, "chat.retryAttachments", nil)
	}
	return nil
}

// check refuses a request whose kinds contradict each other or that lacks
// what its kind needs.
func (req *SendRequest) check() error {
	if req.resolve != nil {
		req.resume = true
	}
	again := req.Retry || req.resume
	switch {
	case req.Retry && req.resume:
		return invalid("a send is a retry or a continuation, not both")
	case again && req.ConversationID == "":
		return invalid("a retry or a continuation needs the conversation")
	case again && req.Text != "":
		return invalid("a retry or a continuation sends no new text")
	case req.resume && len(req.Attachments) > 0:
		return invalid("a continuation takes no attachments")
	}
	return CheckMessage(req.Text, len(req.Attachments), again)
}

// AnswerNewest answers the newest message of the user in a conversation,
// one already in its log and not answered yet (a message another
// conversation handed to it), in mode with agentID (as a retry: see
// SendRequest.Retry). The approval mode comes from ctx (WithApprovals).
func (s *ChatService) AnswerNewest(ctx context.Context, conversationID, mode, agentID string) (*SendResult, error) {
	return s.Send(ctx, SendRequest{ConversationID: conversationID, Mode: mode, AgentID: agentID, Retry: true})
}

// Continue goes on with a send of a conversation that handed over to
// another one, from where its log stands (the other conversation's answer
// is the result of its call now), in mode. turnsUsed are the LLM calls the
// work it goes on with made already: they count against settings
// engine.maxTurns. The approval mode comes from ctx (WithApprovals).
func (s *ChatService) Continue(ctx context.Context, conversationID, mode string, turnsUsed int) (*SendResult, error) {
	return s.Send(ctx, SendRequest{ConversationID: conversationID, Mode: mode, resume: true, turnsUsed: turnsUsed})
}

// SendText sends a message of text in a conversation (a new one when the
// id is empty), in its active mode, with nothing else chosen.
func (s *ChatService) SendText(ctx context.Context, conversationID, text string) (*SendResult, error) {
	return s.Send(ctx, SendRequest{ConversationID: conversationID, Text: text})
}

// ResolveRequest is the send that answers the call of a conversation a
// send left waiting for an approval when it ended (the app closed while it
// waited): it runs the call or refuses it (r), then goes on from there, in
// the conversation's active mode (chat or agent) and with its agent.
func (s *ChatService) ResolveRequest(conversationID string, r Resolution) (SendRequest, error) {
	meta, err := s.opts.Store.Get(conversationID)
	if err != nil {
		return SendRequest{}, err
	}
	mode := conversation.ModeChat
	if meta.ActiveType == conversation.ActiveAgent {
		mode = conversation.ModeAgent
	}
	return SendRequest{ConversationID: conversationID, Mode: mode, AgentID: meta.SelectedAgentID, resolve: &r}, nil
}
