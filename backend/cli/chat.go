package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm"
)

const chatUsage = "chat [--conversation ID] [--mode chat|agent] [--agent ID] MESSAGE | chat --conversation ID --retry"

// chatOutput is the --json output of chat.
type chatOutput struct {
	ConversationID string             `json:"conversationId"`
	MessageID      string             `json:"messageId"`
	Text           string             `json:"text"`
	Usage          llm.Usage          `json:"usage"`
	Context        engine.ContextInfo `json:"context"`
	Error          *chatError         `json:"error,omitempty"`
}

type chatError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func cmdChat(e *env, rest []string) error {
	retry := e.args.has("retry")
	var text string
	switch {
	case retry && (len(rest) > 0 || e.args.get("conversation") == ""):
		return errors.New("--retry answers a conversation's last message again: give --conversation ID and no message")
	case retry:
	case len(rest) == 0:
		return fmt.Errorf("usage: crewagent %s (MESSAGE '-' reads it from stdin)", chatUsage)
	default:
		var err error
		if text, err = e.readMessage(rest); err != nil {
			return err
		}
		if strings.TrimSpace(text) == "" {
			return errors.New("the message is empty")
		}
	}
	mode := e.args.get("mode")
	switch mode {
	case "", conversation.ModeChat, conversation.ModeAgent:
	default:
		return fmt.Errorf("--mode must be chat or agent, got %q", mode)
	}
	if e.args.has("agent") && mode == "" {
		mode = conversation.ModeAgent
	}

	ws, err := e.workspace()
	if err != nil {
		return err
	}
	if err := e.requireLLM(); err != nil {
		return err
	}
	convID := e.args.get("conversation")
	res, err := ws.Chat(e.ctx, engine.SendRequest{ConversationID: convID, Mode: mode, AgentID: e.args.get("agent"), Text: text, Retry: retry})
	if err != nil {
		return err
	}
	if e.asJSON() {
		o := chatOutput{ConversationID: res.ConversationID, MessageID: res.MessageID, Text: res.Text, Usage: res.Usage, Context: res.Context}
		if res.Err != nil {
			o.Error = &chatError{Code: res.Err.Code, Message: res.Err.Message}
		}
		if err := e.printJSON(o); err != nil {
			return err
		}
	} else {
		e.printer.finish()
		if res.Err == nil && convID == "" {
			fmt.Fprintf(e.stderr, "conversation %s\n", res.ConversationID)
		}
	}
	if res.Err != nil {
		return &exitError{code: ExitLLMFailed, err: fmt.Errorf("%s (saved in conversation %s; send \"continue\" to resume, or retry with --conversation %s --retry)", res.Err.Error(), res.ConversationID, res.ConversationID)}
	}
	return nil
}

// readMessage joins the words of a message; "-" reads it from stdin.
func (e *env) readMessage(words []string) (string, error) {
	text := strings.Join(words, " ")
	if text == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return "", fmt.Errorf("reading the message from stdin: %v", err)
		}
		text = strings.TrimRight(string(b), "\r\n")
	}
	return text, nil
}

// streamPrinter writes the answer text to stdout as it streams, with a line
// break between the texts of successive LLM calls.
type streamPrinter struct {
	w     io.Writer
	mu    sync.Mutex
	wrote bool
	last  byte
}

// Emit implements events.Emitter.
func (p *streamPrinter) Emit(name string, payload any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := payload.(type) {
	case events.StreamStartEvent:
		if p.wrote && p.last != '\n' {
			p.write("\n")
		}
	case events.StreamChunkEvent:
		if name == events.StreamChunk && ev.Delta != "" {
			p.write(ev.Delta)
		}
	}
}

func (p *streamPrinter) write(s string) {
	_, _ = io.WriteString(p.w, s)
	p.wrote, p.last = true, s[len(s)-1]
}

// finish ends the output with a line break.
func (p *streamPrinter) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wrote && p.last != '\n' {
		p.write("\n")
	}
}
