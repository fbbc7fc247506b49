package app

import (
	"context"
	"strings"

	"crewagent/backend/approval"
	"crewagent/backend/attach"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/coordinator"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
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
	// Attachments are files attached to the message (chat and agent mode):
	// the window's, in base64; Files the command line's, read already.
	Attachments []AttachmentInput `json:"attachments,omitempty"`
	Files       []attach.File     `json:"-"`
	// Endpoint and Model choose where the conversation's answers come from
	// from this message on (the command line's --endpoint and --model; the
	// window's model chip calls SelectModel).
	Endpoint string `json:"-"`
	Model    string `json:"-"`
	// Approve is the approval mode of the reply's tool calls instead of
	// the project's (the command line's --approve), and NoAsk why nobody
	// can be asked (no terminal): the command line's, not the window's.
	Approve approval.Mode `json:"-"`
	NoAsk   string        `json:"-"`
}

// Reply is a message on its way (Send).
type Reply struct {
	ws             *Workspace
	h              *coordinator.Handle
	conversationID string
	made           bool // Send made the conversation
}

// ConversationID is the conversation the message was sent in (made by
// Send when none was given).
func (r *Reply) ConversationID() string { return r.conversationID }

// Wait returns once the message's answer and every task it led to are done
// (the conversation tools may hand its turn to other conversations): the
// conversation's final result and the tasks that ran. When ctx ends first,
// that work stops. A message to a run (run mode) has nothing to wait for.
func (r *Reply) Wait(ctx context.Context) (*ChainResult, error) {
	if r.h == nil {
		return &ChainResult{}, nil
	}
	res, err := r.h.Wait(ctx)
	if err != nil {
		if r.made {
			// Refused before its message was stored (an unknown agent): the
			// conversation Send made goes again.
			if entries, lerr := r.ws.store.Load(r.conversationID); lerr == nil && len(entries) == 0 {
				_ = r.ws.store.Delete(r.conversationID)
			}
		}
		return nil, r.ws.coord.Busy(err, r.conversationID)
	}
	return res, nil
}

// Send starts answering a message as a task of the project's scheduler and
// returns at once, for the window and the command line alike (the command
// line waits on the Reply). An empty conversation id makes a conversation
// first, as the window does. Progress arrives as events (llm:stream-*,
// context:usage, conversation:changed with streaming true when the reply
// starts and false, with the error if one stopped it before anything was
// answered, when it has ended). In run mode the message goes to the
// conversation's latest workflow run (its next turn). Problems found before
// starting (no LLM configured, empty text, a reply already running, run
// mode without a run) fail the call: the checks of a message are here.
func (ws *Workspace) Send(req SendRequest) (*Reply, error) {
	files, err := DecodeAttachments(req.Attachments)
	if err != nil {
		return nil, err
	}
	files = append(files, req.Files...)
	if err := engine.CheckMessage(req.Text, len(files), req.Retry); err != nil {
		return nil, err
	}
	mode, agentID, err := ws.engine.ReplyMode(req.ConversationID, req.Mode, req.AgentID)
	if err != nil {
		return nil, err
	}
	ws.coord.NoteUserWrote(req.ConversationID)
	if mode == conversation.ModeRun {
		if len(files) > 0 {
			return nil, errs.Msg(errs.InvalidRequest, "chat.runAttachments", nil)
		}
		if req.Retry {
			return nil, errs.Msg(errs.InvalidRequest, "chat.runRetry", nil)
		}
		return &Reply{conversationID: req.ConversationID}, ws.continueInBackground(req.ConversationID, req.Text)
	}
	return ws.answer(engine.SendRequest{ConversationID: req.ConversationID, Mode: mode, AgentID: agentID, Text: req.Text, Retry: req.Retry,
		Approve: req.Approve, NoAsk: req.NoAsk, Endpoint: req.Endpoint, Model: req.Model}, files)
}

// answer runs req as the first task of a chain; without a conversation, it
// makes one first (removed again when the task cannot start). The files are
// saved with the conversation and go with the message.
func (ws *Workspace) answer(req engine.SendRequest, files []attach.File) (*Reply, error) {
	made := ""
	if req.ConversationID == "" {
		title := req.Text
		if strings.TrimSpace(title) == "" && len(files) > 0 {
			title = files[0].Name
		}
		meta, err := ws.store.Create(convlog.TitleOf(title), conversation.ActiveChat)
		if err != nil {
			return nil, err
		}
		req.ConversationID, made = meta.ID, meta.ID
	}
	if len(files) > 0 {
		var err error
		if req.Attachments, err = ws.SaveAttachments(req.ConversationID, files); err != nil {
			if made != "" {
				_ = ws.store.Delete(made)
			}
			return nil, err
		}
	}
	h, err := ws.coord.Reply(req, nil)
	if err != nil {
		if made != "" {
			_ = ws.store.Delete(made)
		}
		return nil, ws.coord.Busy(err, req.ConversationID)
	}
	return &Reply{ws: ws, h: h, conversationID: req.ConversationID, made: made != ""}, nil
}

// reply runs an engine send as the conversation's task in the background,
// the first of a chain (coordinator.Coordinator.Reply); prepare, when
// given, runs first within the task.
func (ws *Workspace) reply(req engine.SendRequest, prepare func() error) error {
	if _, err := ws.coord.Reply(req, prepare); err != nil {
		return ws.coord.Busy(err, req.ConversationID)
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
	ws.coord.NoteUserWrote(req.ConversationID)
	r, err := ws.answer(req, nil)
	if err != nil {
		return nil, err
	}
	return r.Wait(ctx)
}

// Stop cancels the reply or run turn running in a conversation; the partial
// answer is kept with an LLM_ABORTED (ENGINE_ABORTED for a run) block. When
// the conversation takes part in work handed from conversation to
// conversation (it answers for another one, or waits for one), all of that
// work stops: the conversations that wait get a result that says so. It
// reports whether something was running.
func (ws *Workspace) Stop(conversationID string) bool { return ws.coord.Stop(conversationID) }

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
	return ws.Explain(ctx, ExplainRequest{ConversationID: conversationID, Mode: mode, AgentID: agentID})
}
