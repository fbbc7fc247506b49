package convtools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/tools"
)

// Tool names, as the log, the UI and the commands show them.
const (
	Create  = conversation.ToolConvCreate
	Send    = conversation.ToolConvSend
	List    = conversation.ToolConvList
	History = conversation.ToolConvHistory
	Destroy = conversation.ToolConvDestroy
)

// Names lists the tools in the order they are offered.
var Names = []string{Create, Send, List, History, Destroy}

// Interrupting reports whether the tool hands the turn over.
func Interrupting(name string) bool { return name == Create || name == Send }

// Error codes of their results.
const (
	CodeNotFound    = errs.ConvNotFound
	CodeRefused     = errs.ConvRefused
	CodeTooDeep     = errs.ConvTooDeep
	CodeFailed      = errs.ConvFailed
	CodeStopped     = errs.ConvStopped
	CodeInterrupted = errs.ConvInterrupted
	CodeBadFile     = errs.ConvBadFile
	CodeTooLarge    = errs.ConvTooLarge
	CodeBudget      = errs.ConvBudget
)

// Limits of conv.history.
const (
	DefaultHistoryLimit = 20
	MaxHistoryLimit     = 200
)

const itemsSchema = `{"type":"array","description":"Message parts, e.g. [{\"type\":\"text\",\"text\":\"...\"}]; only text parts are sent.","items":{"type":"object","properties":{"type":{"type":"string"},"text":{"type":"string"}},"required":["type"]}}`

// Defs returns the tool definitions, in the order they are offered.
func Defs() []tools.ToolDef {
	return []tools.ToolDef{
		{Name: Create, Description: "Start a sub-conversation with a fresh context and let it answer a first message. Interrupting: your turn ends, it answers, then you go on with its last answer as this call's result (JSON). Instructions and tools not given are inherited; tools can only be narrowed.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"user_instruction":{"type":"string","description":"Its first message: the task, with all it needs to know."},` +
				`"items":` + itemsSchema + `,` +
				`"base_instruction_text":{"type":"string","description":"Its base instructions (role, rules)."},` +
				`"base_instruction_file":{"type":"string","description":"Or a project file holding them, e.g. @project/prompts/review.md."},` +
				`"title":{"type":"string"},` +
				`"tools":{"type":"array","items":{"type":"string"},"description":"Tools it may call, e.g. [\"fs.read\"]."},` +
				`"mcp_allowlist":{"type":"array","items":{"type":"string"},"description":"MCP servers it may use."},` +
				`"internal_tools":{"type":"object","description":"include_apply_patch_tool (false removes fs.apply_patch); others are ignored."}` +
				`}}`)},
		{Name: Send, Description: "Send a message to another conversation of the project. Interrupting: your turn ends, it answers, then you go on with its last answer as this call's result (JSON).",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"conversation_id":{"type":"string"},` +
				`"text":{"type":"string"},` +
				`"items":` + itemsSchema +
				`},"required":["conversation_id"]}`)},
		{Name: List, Description: "List the project's conversations (id, title, parent, messages, last activity, status).",
			Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: History, Description: "Read the newest messages of a conversation (texts only, no tool calls).",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"conversation_id":{"type":"string"},` +
				`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"Default 20."}` +
				`},"required":["conversation_id"]}`)},
		{Name: Destroy, Description: "Delete a conversation made with conv.create, with those it made. Not the user's conversations, nor those in the work in progress.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"conversation_id":{"type":"string"}},"required":["conversation_id"]}`)},
	}
}

// Item is one input item of a message (the InputItem shape other agent runtimes use).
type Item struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

// InternalTools are switches of built-in tools other runtimes have.
type InternalTools struct {
	IncludePlanTool        *bool `json:"include_plan_tool,omitempty"`
	IncludeApplyPatchTool  *bool `json:"include_apply_patch_tool,omitempty"`
	WebSearchRequest       *bool `json:"web_search_request,omitempty"`
	UseStreamableShellTool *bool `json:"use_streamable_shell_tool,omitempty"`
}

// CreateArgs are the arguments of conv.create.
type CreateArgs struct {
	UserInstruction     string         `json:"user_instruction,omitempty"`
	Items               []Item         `json:"items,omitempty"`
	BaseInstructionText *string        `json:"base_instruction_text,omitempty"`
	BaseInstructionFile *string        `json:"base_instruction_file,omitempty"`
	Title               string         `json:"title,omitempty"`
	Tools               *[]string      `json:"tools,omitempty"`
	MCPAllowlist        *[]string      `json:"mcp_allowlist,omitempty"`
	InternalTools       *InternalTools `json:"internal_tools,omitempty"`
}

// SendArgs are the arguments of conv.send.
type SendArgs struct {
	ConversationID string `json:"conversation_id"`
	Text           string `json:"text,omitempty"`
	Items          []Item `json:"items,omitempty"`
}

// HistoryArgs are the arguments of conv.history.
type HistoryArgs struct {
	ConversationID string `json:"conversation_id"`
	Limit          *int   `json:"limit,omitempty"`
}

// DestroyArgs are the arguments of conv.destroy.
type DestroyArgs struct {
	ConversationID string `json:"conversation_id"`
}

// Message is the first message a conversation gets from text and items:
// the text parts joined by blank lines; Items counts the items given and
// Ignored names those that cannot be sent.
type Message struct {
	Text    string
	Items   int
	Ignored []string
}

func message(text string, items []Item) Message {
	m := Message{Items: len(items)}
	var parts []string
	if t := strings.TrimSpace(text); t != "" {
		parts = append(parts, t)
	}
	for i, it := range items {
		switch it.Type {
		case "text", "input_text":
			if t := strings.TrimSpace(it.Text); t != "" {
				parts = append(parts, t)
			}
		default:
			m.Ignored = append(m.Ignored, fmt.Sprintf("items[%d] (%s: only text items are supported)", i, orUnnamed(it.Type)))
		}
	}
	m.Text = strings.Join(parts, "\n\n")
	return m
}

func orUnnamed(s string) string {
	if s == "" {
		return "no type"
	}
	return s
}

// ParseCreate decodes and checks the arguments of conv.create.
func ParseCreate(raw []byte) (CreateArgs, Message, *tools.ToolError) {
	var a CreateArgs
	if err := decode(raw, &a); err != nil {
		return a, Message{}, err
	}
	if a.BaseInstructionText != nil && a.BaseInstructionFile != nil {
		return a, Message{}, bad("give base_instruction_text or base_instruction_file, not both")
	}
	if a.BaseInstructionFile != nil && strings.TrimSpace(*a.BaseInstructionFile) == "" {
		return a, Message{}, bad("base_instruction_file is empty")
	}
	m := message(a.UserInstruction, a.Items)
	if m.Text == "" {
		return a, m, bad("the new conversation needs a first message: give user_instruction (or text items)")
	}
	return a, m, nil
}

// ParseSend decodes and checks the arguments of conv.send.
func ParseSend(raw []byte) (SendArgs, Message, *tools.ToolError) {
	var a SendArgs
	if err := decode(raw, &a); err != nil {
		return a, Message{}, err
	}
	if strings.TrimSpace(a.ConversationID) == "" {
		return a, Message{}, bad("conversation_id is required")
	}
	m := message(a.Text, a.Items)
	if m.Text == "" {
		return a, m, bad("the message is empty: give text (or text items)")
	}
	return a, m, nil
}

// ParseHistory decodes and checks the arguments of conv.history; the limit
// defaults to DefaultHistoryLimit.
func ParseHistory(raw []byte) (HistoryArgs, int, *tools.ToolError) {
	var a HistoryArgs
	if err := decode(raw, &a); err != nil {
		return a, 0, err
	}
	if strings.TrimSpace(a.ConversationID) == "" {
		return a, 0, bad("conversation_id is required")
	}
	limit := DefaultHistoryLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	if limit < 1 || limit > MaxHistoryLimit {
		return a, 0, bad(fmt.Sprintf("limit must be between 1 and %d, got %d", MaxHistoryLimit, limit))
	}
	return a, limit, nil
}

// ParseDestroy decodes and checks the arguments of conv.destroy.
func ParseDestroy(raw []byte) (DestroyArgs, *tools.ToolError) {
	var a DestroyArgs
	if err := decode(raw, &a); err != nil {
		return a, err
	}
	if strings.TrimSpace(a.ConversationID) == "" {
		return a, bad("conversation_id is required")
	}
	return a, nil
}

func bad(msg string) *tools.ToolError { return tools.NewError(tools.CodeBadArguments, msg, nil) }

// decode decodes a JSON object into v, refusing unknown fields with a
// message that names them.
func decode(raw []byte, v any) *tools.ToolError {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := strings.TrimPrefix(err.Error(), "json: ")
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Type != nil {
			msg = fmt.Sprintf("field %q must be %s", ute.Field, kind(ute.Type))
		}
		return bad("invalid arguments: " + msg)
	}
	if dec.More() {
		return bad("invalid arguments: extra data after the JSON object")
	}
	return nil
}

func kind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int:
		return "an integer"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "an array"
	}
	return "an object"
}

// Ignored names the internal tools asked for that have no counterpart here,
// and says what include_apply_patch_tool=false takes away.
func (t *InternalTools) Ignored() []string {
	if t == nil {
		return nil
	}
	var out []string
	add := func(name string, v *bool) {
		if v != nil {
			out = append(out, "internal_tools."+name+" (no such tool here)")
		}
	}
	add("include_plan_tool", t.IncludePlanTool)
	add("web_search_request", t.WebSearchRequest)
	add("use_streamable_shell_tool", t.UseStreamableShellTool)
	return out
}
