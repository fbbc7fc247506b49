package engine

import (
	"encoding/json"

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
	return settingsFor(s.opts.Settings.Effective(), choice(meta, "", ""))
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
