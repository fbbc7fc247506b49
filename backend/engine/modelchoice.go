package engine

import (
	"encoding/json"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/settings"
)

// choice is the endpoint and model a send asks for, over the conversation's
// own: a model alone stays on the conversation's endpoint, an endpoint
// alone takes its first model, "default" names the settings' endpoint.
func choice(meta conversation.ConversationMeta, endpoint, model string) conversation.ModelChoice {
	c := conversation.ModelChoice{Endpoint: meta.Endpoint, Model: meta.Model}
	switch {
	case endpoint != "":
		c = conversation.ModelChoice{Endpoint: endpoint, Model: model}
	case model != "":
		c.Model = model
	}
	if c.Endpoint == settings.DefaultEndpoint {
		c.Endpoint = ""
	}
	return c
}

// settingsFor returns the settings a conversation's requests use: its
// endpoint and model over the settings in effect.
func settingsFor(st settings.Settings, c conversation.ModelChoice) (settings.Settings, error) {
	l, err := st.LLM.For(c.Endpoint, c.Model)
	if err != nil {
		return st, err
	}
	st.LLM = l
	return st, nil
}

// conversationSettings returns the settings in effect for the conversation.
func (s *ChatService) conversationSettings(meta conversation.ConversationMeta) (settings.Settings, error) {
	st, err := settingsFor(s.opts.Settings.Effective(), choice(meta, "", ""))
	if err != nil {
		return st, err
	}
	return s.withWindow(st), nil
}

// WindowReporter is a client that knows the context windows its server
// reported for its models (*llm.Client); a wrapper of a client passes it on.
type WindowReporter interface {
	ContextWindow(model string) int
}

// withWindow lowers the token budget of st to the context window the
// server reported for the model, when that is smaller: a request never
// asks for more than the model takes.
func (s *ChatService) withWindow(st settings.Settings) settings.Settings {
	if st.LLM.BaseURL == "" || st.LLM.Model == "" {
		return st
	}
	wr, ok := s.client(st.LLM).(WindowReporter)
	if !ok {
		return st
	}
	budget := st.Context.TokenBudget
	if budget <= 0 {
		budget = contextbuilder.DefaultTokenBudget
	}
	if w := wr.ContextWindow(st.LLM.Model); w > 0 && w < budget {
		st.Context.TokenBudget = w
	}
	return st
}

// SelectModel records the endpoint and model the conversation's answers come
// from ("" for both: the settings' default), in its log and its index
// record. An endpoint the settings do not have is refused.
func (s *ChatService) SelectModel(convID, endpoint, model string) error {
	meta, err := s.opts.Store.Get(convID)
	if err != nil {
		return err
	}
	c := choice(conversation.ConversationMeta{}, endpoint, model)
	if _, err := settingsFor(s.opts.Settings.Effective(), c); err != nil {
		return invalid(err.Error())
	}
	return s.recordChoice(meta, c)
}

func (s *ChatService) recordChoice(meta conversation.ConversationMeta, c conversation.ModelChoice) error {
	if meta.Endpoint == c.Endpoint && meta.Model == c.Model {
		return nil
	}
	data, _ := json.Marshal(c)
	ev := &conversation.Entry{Type: conversation.TypeEvt, ID: s.opts.NewID(), CreatedAt: s.now(), Event: conversation.EventModelSelected, Data: data}
	if err := s.opts.Store.Append(meta.ID, ev); err != nil {
		return err
	}
	return s.opts.Store.UpdateMeta(meta.ID, func(m *conversation.ConversationMeta) { m.Endpoint, m.Model = c.Endpoint, c.Model })
}
