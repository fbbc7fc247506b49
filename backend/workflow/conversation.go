package workflow

import (
	"errors"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/llm"
	"crewagent/backend/tools"
)

// The runs of a conversation, as the application asks for them.

// LatestRunOf is the conversation's latest run; RUN_NOT_FOUND saying how to
// start one when it has none.
func (s *Service) LatestRunOf(conversationID string) (Run, error) {
	run, err := s.LatestRun(conversationID)
	if errs.CodeOf(err) == CodeRunNotFound {
		return run, errs.Msg(errs.RunNotFound, "run.none", nil)
	}
	return run, err
}

// NextRunSetup is what the engine needs for the next request of the
// conversation's latest run.
func (s *Service) NextRunSetup(conversationID string) (*engine.RunSetup, error) {
	run, err := s.LatestRunOf(conversationID)
	if err != nil {
		return nil, err
	}
	setup, err := s.NextSetup(run.RunID)
	if err != nil {
		return nil, err
	}
	return &engine.RunSetup{AgentID: setup.AgentID, Persona: setup.Persona, Injector: setup.Injector, Tools: setup.Tools}, nil
}

// PersistedFailure reports the turn failures that the run records in its
// conversation as an error message (the user sees them there).
func PersistedFailure(err error) bool {
	switch errs.CodeOf(err) {
	case CodeMaxTurns, CodeLoopDetected, CodeAborted:
		return true
	}
	var le *llm.Error
	return errors.As(err, &le)
}

// CheckAnswer returns the run whose pending ui.ask_user question widgetID
// answer answers: a question that no longer waits fails with
// RUN_NO_PENDING_WIDGET, an answer that does not fit it with RUN_BAD_ANSWER.
func (s *Service) CheckAnswer(runID, widgetID string, answer tools.WidgetAnswer) (Run, error) {
	run, err := s.Get(runID)
	if err != nil {
		return run, err
	}
	w, err := s.PendingWidget(runID)
	if err != nil {
		return run, err
	}
	if w == nil || w.ID != widgetID {
		return run, errs.Msg(errs.NoWidget, "run.answered", nil)
	}
	if terr := w.ValidateAnswer(answer); terr != nil {
		return run, errs.New(errs.BadAnswer, terr.Message)
	}
	return run, nil
}

// SetupIfRun is NextRunSetup when mode is run, or when mode is empty and the
// conversation is a workflow's; nil otherwise.
func (s *Service) SetupIfRun(conversationID, mode string) (*engine.RunSetup, error) {
	if mode == "" {
		meta, err := s.cfg.Store.Get(conversationID)
		if err != nil {
			return nil, err
		}
		if meta.ActiveType == conversation.ActiveWorkflow {
			mode = conversation.ModeRun
		}
	}
	if mode != conversation.ModeRun {
		return nil, nil
	}
	return s.NextRunSetup(conversationID)
}
