package engine

import (
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// ReplyMode checks what every reply needs (a known mode, an agent in agent
// mode, an LLM, the conversation) and returns the mode (chat when empty).
func (s *ChatService) ReplyMode(conversationID, mode, agentID string) (string, string, error) {
	if mode == "" || (mode == conversation.ModeAgent && agentID == "") {
		// An agent conversation answers in agent mode, with its agent.
		if meta, err := s.opts.Store.Get(conversationID); err == nil && meta.ActiveType == conversation.ActiveAgent {
			if mode == "" {
				mode = conversation.ModeAgent
			}
			if mode == conversation.ModeAgent && agentID == "" {
				agentID = meta.SelectedAgentID
			}
		}
	}
	if mode == "" {
		mode = conversation.ModeChat
	}
	if mode != conversation.ModeChat && mode != conversation.ModeAgent && mode != conversation.ModeRun {
		return "", "", errs.Msg(errs.InvalidMode, "chat.unknownMode", errs.Params{"mode": mode})
	}
	if mode == conversation.ModeAgent && agentID == "" {
		return "", "", s.NoAgent()
	}
	if err := s.opts.Settings.Effective().RequireLLM(); err != nil {
		return "", "", err
	}
	if conversationID == "" {
		if mode == conversation.ModeRun {
			return "", "", errs.Msg(errs.InvalidRequest, "chat.runNeedsRun", nil)
		}
		return mode, agentID, nil
	}
	if _, err := s.opts.Store.Get(conversationID); err != nil {
		return "", "", err
	}
	return mode, agentID, nil
}
