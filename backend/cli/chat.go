package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"crewagent/backend/app"
	"crewagent/backend/attach"
	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
)

const chatUsage = "chat [--conversation ID] [--mode chat|agent] [--agent ID] [--skill NAME[,NAME]] [--approve ask|auto-edit|full-auto|read-only] [--endpoint NAME] [--model MODEL] [--attach FILE[,FILE]] MESSAGE | chat --conversation ID --retry"

// chatOutput is the --json output of chat.
type chatOutput struct {
	ConversationID string             `json:"conversationId"`
	MessageID      string             `json:"messageId"`
	Text           string             `json:"text"`
	Usage          chatTokens         `json:"usage"`
	Context        engine.ContextInfo `json:"context"`
	// Incomplete and FinishReason are set when the server cut the answer short
	// (finish_reason "length" or "content_filter").
	Incomplete   bool       `json:"incomplete,omitempty"`
	FinishReason string     `json:"finishReason,omitempty"`
	Error        *chatError `json:"error,omitempty"`
	// Tasks lists the tasks that ran when the conversation tools handed the
	// turn to other conversations (absent otherwise).
	Tasks []app.TaskReport `json:"tasks,omitempty"`
}

// chatTokens is what the servers reported for the LLM calls of this send
// (cachedTokens: the prompt tokens read from their prompt cache) and, in
// conversation, for all the conversation's calls so far.
type chatTokens struct {
	llm.Usage
	Conversation *conversation.UsageTotals `json:"conversation,omitempty"`
	// Cost is the conversation's, priced with llm.prices.
	Cost *conversation.Cost `json:"cost,omitempty"`
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
	case len(rest) == 0 && e.args.has("attach"):
	case len(rest) == 0:
		return fmt.Errorf("usage: crewagent %s (MESSAGE '-' reads it from stdin)", chatUsage)
	default:
		var err error
		if text, err = e.readMessage(rest); err != nil {
			return err
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

	approve, err := e.approveMode()
	if err != nil {
		return err
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	endpoint, model := e.args.get("endpoint"), e.args.get("model")
	if e.args.has("endpoint") && strings.TrimSpace(endpoint) == "" || e.args.has("model") && strings.TrimSpace(model) == "" {
		return errors.New("--endpoint and --model need a name (see 'crewagent models')")
	}
	if endpoint == "" || endpoint == settings.DefaultEndpoint {
		if err := e.requireLLM(); err != nil {
			return err
		}
	}
	var noAsk string
	if !stdinIsTerminal(e.stdin) {
		noAsk = noTerminal
	}
	convID := e.args.get("conversation")
	files, err := e.attachments(retry)
	if err != nil {
		return err
	}
	sendTo := convID
	if sendTo, err = e.activateSkills(ws, convID, mode, retry); err != nil {
		return err
	}
	reply, err := ws.Send(app.SendRequest{ConversationID: sendTo, Mode: mode, AgentID: e.args.get("agent"), Text: text, Retry: retry,
		Approve: approve, NoAsk: noAsk, Endpoint: endpoint, Model: model, Files: files})
	if err != nil {
		return err
	}
	chain, err := reply.Wait(e.ctx)
	if err != nil {
		return err
	}
	defer e.reportMCP(ws)
	res := chain.Result
	if e.asJSON() {
		o := chatOutput{ConversationID: res.ConversationID, MessageID: res.MessageID, Text: res.Text, Usage: chatTokens{Usage: res.Usage}, Context: res.Context}
		if meta, err := ws.GetConversation(res.ConversationID); err == nil {
			o.Usage.Conversation = meta.Usage
			o.Usage.Cost = ws.ConversationCost(meta)
		}
		if len(chain.Tasks) > 1 {
			o.Tasks = chain.Tasks
		}
		if res.Err != nil {
			o.Error = &chatError{Code: res.Err.Code, Message: res.Err.Message}
		}
		o.FinishReason, o.Incomplete = res.FinishReason, res.FinishReason != ""
		if err := e.printJSON(o); err != nil {
			return err
		}
	} else {
		e.printer.finish()
		if res.Err == nil && convID == "" {
			fmt.Fprintf(e.stderr, "conversation %s\n", res.ConversationID)
		}
		if res.FinishReason != "" {
			fmt.Fprintf(e.stderr, "crewagent: %s (saved in conversation %s; send \"continue\" to let the model go on, or retry with --conversation %s --retry)\n",
				incompleteNotice(res.FinishReason), res.ConversationID, res.ConversationID)
		}
	}
	if res.Err != nil {
		return &exitError{code: ExitLLMFailed, err: fmt.Errorf("%s (saved in conversation %s; send \"continue\" to resume, or retry with --conversation %s --retry)", res.Err.Error(), res.ConversationID, res.ConversationID)}
	}
	return nil
}

// incompleteNotice says why an answer is incomplete.
func incompleteNotice(finishReason string) string {
	switch finishReason {
	case llm.FinishLength:
		return "the answer is incomplete: the model reached its output limit (finish_reason length) and its tool calls were not run"
	case llm.FinishContentFilter:
		return "the answer is incomplete: the provider's content filter stopped it (finish_reason content_filter) and its tool calls were not run"
	}
	return "the answer is incomplete (finish_reason " + finishReason + ")"
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
	case events.TaskEvent:
		// A turn handed to another conversation, and the way back, under
		// headers that say whose words follow.
		if name != events.TaskStarted || (ev.Tool == "" && !ev.Continues) {
			return
		}
		if p.wrote && p.last != '\n' {
			p.write("\n")
		}
		if p.wrote {
			p.write("\n")
		}
		if ev.Continues {
			p.write("── back in " + quoteTitle(ev.Title) + " ──\n")
		} else {
			p.write("── " + quoteTitle(ev.Title) + " (" + ev.Tool + ", conversation " + ev.ConversationID + ") ──\n")
		}
	}
}

func quoteTitle(t string) string { return "“" + t + "”" }

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

// attachments reads the files of --attach (a comma-separated list, paths
// relative to the current folder).
func (e *env) attachments(retry bool) ([]attach.File, error) {
	if !e.args.has("attach") {
		return nil, nil
	}
	if retry {
		return nil, errors.New("--retry answers the last message again: it takes no --attach")
	}
	var files []attach.File
	for _, p := range strings.Split(e.args.get("attach"), ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot attach %s: %v", p, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("cannot attach %s: not a file", p)
		}
		if fi.Size() > attach.MaxFileBytes {
			return nil, fmt.Errorf("cannot attach %s: it is %d bytes, over the %d an attachment may have", p, fi.Size(), attach.MaxFileBytes)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("cannot attach %s: %v", p, err)
		}
		files = append(files, attach.File{Name: filepath.Base(p), Data: data})
	}
	if len(files) == 0 {
		return nil, errors.New("--attach needs a file")
	}
	return files, nil
}
