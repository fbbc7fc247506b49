package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/coordinator"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/tasks"
)

// SendRequest is one message typed in a conversation.
type SendRequest struct {
	ConversationID string `json:"conversationId"`
	Text           string `json:"text"`
	Mode           string `json:"mode"` // chat | agent | run
	AgentID        string `json:"agentId"`
	// Retry answers the newest user message again instead of sending Text
	// (chat and agent mode; see engine.SendRequest.Retry).
	Retry bool `json:"retry,omitempty"`
}

// Send starts answering a message in the background and returns at once.
// Progress arrives as events (llm:stream-*, context:usage,
// conversation:changed with streaming true when the reply starts and false,
// with the error if one stopped it before anything was answered, when it has
// ended). In run mode the message goes to the conversation's latest workflow
// run (its next turn). Problems found before starting (no LLM configured,
// empty text, a reply already running, run mode without a run) fail the call.
func (ws *Workspace) Send(req SendRequest) error {
	if !req.Retry && strings.TrimSpace(req.Text) == "" {
		return errs.New(errs.InvalidRequest, "the message is empty")
	}
	mode, err := ws.replyMode(req.ConversationID, req.Mode, req.AgentID)
	if err != nil {
		return err
	}
	ws.coord.NoteUserWrote(req.ConversationID)
	if mode == conversation.ModeRun {
		if req.Retry {
			return errs.New(errs.InvalidRequest, "a run takes its input again as a new message: send it")
		}
		return ws.continueInBackground(req.ConversationID, req.Text)
	}
	ereq := engine.SendRequest{ConversationID: req.ConversationID, Mode: mode, AgentID: req.AgentID, Text: req.Text, Retry: req.Retry}
	return ws.reply(ereq, nil)
}

// replyMode checks what every reply needs (a known mode, an agent in agent
// mode, an LLM, the conversation) and returns the mode (chat when empty).
func (ws *Workspace) replyMode(conversationID, mode, agentID string) (string, error) {
	if mode == "" {
		mode = conversation.ModeChat
	}
	if mode != conversation.ModeChat && mode != conversation.ModeAgent && mode != conversation.ModeRun {
		return "", errs.Errorf(errs.InvalidMode, "unknown mode %q: messages are sent in chat, agent or run mode", mode)
	}
	if mode == conversation.ModeAgent && agentID == "" {
		return "", errs.New(errs.InvalidRequest, "agent mode needs an agent: choose one first")
	}
	if err := ws.rt.Effective().RequireLLM(); err != nil {
		return "", err
	}
	if _, err := ws.store.Get(conversationID); err != nil {
		return "", err
	}
	return mode, nil
}

// reply runs an engine send as the conversation's task in the background,
// the first of a chain (coordinator.Coordinator.Reply); prepare, when
// given, runs first within the task.
func (ws *Workspace) reply(req engine.SendRequest, prepare func() error) error {
	if err := ws.coord.Reply(req, prepare); err != nil {
		return ws.busy(err, req.ConversationID)
	}
	return nil
}

// ChainResult is what a message answered through a chain did.
type ChainResult = coordinator.ChainResult

// TaskReport is one task of a chain as the command line lists it.
type TaskReport = coordinator.TaskReport

// Chat answers a message in the foreground and returns when the answer is
// complete (the command line). An empty conversation id creates one. LLM
// failures are persisted and come back in the result's Err. When the
// conversation tools hand the turn to other conversations, Chat returns
// once their answers and the continuation are done: the result is the
// conversation's final one.
func (ws *Workspace) Chat(ctx context.Context, req engine.SendRequest) (*engine.SendResult, error) {
	res, err := ws.ChatChain(ctx, req)
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// ChatChain is Chat with every task the message led to.
func (ws *Workspace) ChatChain(ctx context.Context, req engine.SendRequest) (*ChainResult, error) {
	res, err := ws.coord.Answer(ctx, req)
	if err != nil {
		return nil, ws.busy(err, req.ConversationID)
	}
	return res, nil
}

// Stop cancels the reply or run turn running in a conversation; the partial
// answer is kept with an LLM_ABORTED (ENGINE_ABORTED for a run) block. When
// the conversation takes part in work handed from conversation to
// conversation (it answers for another one, or waits for one), all of that
// work stops: the conversations that wait get a result that says so. It
// reports whether something was running.
func (ws *Workspace) Stop(conversationID string) bool { return ws.coord.Stop(conversationID) }

// busy says which conversation keeps a new reply from starting: one task
// runs at a time in a project.
func (ws *Workspace) busy(err error, conversationID string) error {
	if !errors.Is(err, tasks.ErrBusy) && !errors.Is(err, engine.ErrConversationBusy) {
		return err
	}
	for _, t := range append(ws.tasks.All(), ws.tasks.Queued()...) {
		if t.ConversationID == conversationID {
			break
		}
		if m, gerr := ws.store.Get(t.ConversationID); gerr == nil {
			return errs.Wrap(errs.Busy, err, fmt.Sprintf("%q is being answered: one reply runs at a time in a project; wait for it or stop it", m.Title))
		}
	}
	return err
}

// Streaming lists the conversations with a reply or run turn in progress.
func (ws *Workspace) Streaming() []string {
	all := ws.tasks.All()
	out := make([]string, len(all))
	for i, t := range all {
		out[i] = t.ConversationID
	}
	return out
}

// SetMode switches a conversation's active mode (chat, agent or run) and,
// when agentID is given, its agent, and returns its record. The history is
// kept; only the mode the next request is built for changes.
func (ws *Workspace) SetMode(conversationID, mode, agentID string) (conversation.ConversationMeta, error) {
	if err := ws.engine.SetMode(conversationID, mode, agentID); err != nil {
		return conversation.ConversationMeta{}, err
	}
	return ws.store.Get(conversationID)
}

// Preview returns exactly what the next request of a conversation would
// send, token by token, and why, without calling the LLM. An empty mode is
// the conversation's active mode; in run mode it is the next request of the
// conversation's latest workflow run (RUN_NOT_FOUND when it has none).
func (ws *Workspace) Preview(ctx context.Context, conversationID, mode, agentID string) (*engine.Preview, error) {
	if mode == "" {
		meta, err := ws.store.Get(conversationID)
		if err != nil {
			return nil, err
		}
		if meta.ActiveType == conversation.ActiveWorkflow {
			mode = conversation.ModeRun
		}
	}
	if mode == conversation.ModeRun {
		return ws.previewRun(ctx, conversationID, agentID)
	}
	return ws.engine.Preview(ctx, engine.PreviewRequest{ConversationID: conversationID, Mode: mode, AgentID: agentID})
}
