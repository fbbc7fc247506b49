// Package conversation is the message model of the runtime and its protocol
// encodings, without I/O: the entries of a conversation log and its index
// record, the USER_INPUT header of a run's input, the LLM_ERROR block of a
// failed reply and what it means in words (problem.go), the preview of a
// large tool result, the pending-question rule, the branches that edits and
// regenerations make (branch.go: how the log records versions of a
// conversation and which one is shown), and the view of each entry the
// conversation screen shows.
package conversation

import (
	"encoding/json"
	"strings"
)

// Entry types as written in the "type" field of each log line.
const (
	TypeMsg = "msg"
	TypeEvt = "evt"
)

// Roles of message entries (a superset of the OpenAI chat roles).
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
	RoleDeveloper = "developer"
)

// Modes a message can be produced in.
const (
	ModeChat  = "chat"
	ModeAgent = "agent"
	ModeRun   = "run"
)

// Part types used by the UI and the context builder.
const (
	PartContent    = "content"
	PartThinking   = "thinking"
	PartToolStart  = "tool_start"
	PartToolResult = "tool_result"
	PartError      = "error"
)

// Active types of a conversation (ConversationMeta.ActiveType): the mode its
// next request is built for (run mode is recorded as "workflow").
const (
	ActiveChat     = "chat"
	ActiveAgent    = "agent"
	ActiveWorkflow = "workflow"
)

// Event names recorded as "evt" entries (also EventBranch and
// EventBranchSwitch, branch.go).
const (
	EventCompaction = "compaction"
	EventCheckpoint = "checkpoint"
	EventModeSwitch = "mode_switch"
	EventForkOrigin = "fork_origin"
	EventRunStarted = "run_started"
)

// ToolCall has the OpenAI shape: {"id","type":"function","function":{"name","arguments"}}.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function part of a tool call.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Entry is one line of messages.jsonl: a message ("msg") or an event ("evt").
// Message fields and event fields share one struct so a line decodes in one pass.
type Entry struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CreatedAt string `json:"createdAt"`

	// message fields
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ToolCalls        []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	ToolName         string          `json:"tool_name,omitempty"`
	Mode             string          `json:"mode,omitempty"`
	RunID            string          `json:"runId,omitempty"`
	AgentID          string          `json:"agentId,omitempty"`
	WorkflowID       string          `json:"workflowId,omitempty"`
	IncludeInContext *bool           `json:"includeInContext,omitempty"`
	PartType         string          `json:"partType,omitempty"`
	IsError          bool            `json:"is_error,omitempty"`
	IsMeta           bool            `json:"is_meta,omitempty"`
	Compacted        bool            `json:"compacted,omitempty"`
	Tokens           int             `json:"tokens,omitempty"`
	TokenEncoding    string          `json:"tokenEncoding,omitempty"`
	DurationMs       int64           `json:"duration,omitempty"`
	FullOutputPath   string          `json:"fullOutputPath,omitempty"`
	IsCollapsed      bool            `json:"isCollapsed,omitempty"`
	Widget           json.RawMessage `json:"widget,omitempty"`
	// Approval is set on the result of a call that waited for the user's
	// approval (approval.go).
	Approval *Approval `json:"approval,omitempty"`
	// FinishReason is set on an answer the server cut short ("length": the output limit,
	// "content_filter": the provider's filter). Such an answer is incomplete: its text is
	// partial, its tool calls were never run, and it can be continued or retried.
	FinishReason string `json:"finishReason,omitempty"`
	// EditOf names the user message this one replaces (an edit sent again:
	// see the branches in branch.go).
	EditOf string `json:"editOf,omitempty"`
	// Usage is what the server reported for the LLM call that produced this
	// assistant message (its answer, tool calls or error), cached prompt
	// tokens included.
	Usage *Usage `json:"usage,omitempty"`
	// Model and Endpoint name what produced an assistant message: the model
	// and the endpoint (omitted for the settings' default endpoint).
	Model    string `json:"model,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Attachments are the files the user attached to a user message
	// (attachment.go).
	Attachments []Attachment `json:"attachments,omitempty"`

	// event fields
	Event    string          `json:"event,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	RefMsgID string          `json:"ref_msg_id,omitempty"`

	// UpdatedAt is set on the lines that update an earlier entry (Store.Update,
	// Store.MarkCompacted). A line without it introduces its id; readers that
	// scan the log backwards rely on this to place updated entries correctly.
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// IsMessage reports whether the entry is a message line.
func (e *Entry) IsMessage() bool { return e.Type == TypeMsg }

// IsEvent reports whether the entry is an event line.
func (e *Entry) IsEvent() bool { return e.Type == TypeEvt }

// Text returns the content or "" when it is null.
func (e *Entry) Text() string {
	if e.Content == nil {
		return ""
	}
	return *e.Content
}

// Incomplete reports whether the message is an answer the server cut short (FinishReason
// "length" or "content_filter").
func (e *Entry) Incomplete() bool {
	return e.FinishReason == FinishLength || e.FinishReason == FinishContentFilter
}

// Finish reasons recorded on incomplete answers (Entry.FinishReason).
const (
	FinishLength        = "length"
	FinishContentFilter = "content_filter"
)

// InContext reports whether the message may enter an LLM request (default true).
func (e *Entry) InContext() bool { return e.IncludeInContext == nil || *e.IncludeInContext }

// Summary-class prefixes: a system message whose content starts with one of
// these (after leading blanks) is a summary, kept by the context builder
// wherever it lies in the log.
const (
	SummaryPrefix             = "SUMMARY"
	ConversationSummaryPrefix = "CONVERSATION_SUMMARY"
)

// IsSummaryText reports whether a system message content is summary-class.
func IsSummaryText(content string) bool {
	s := strings.TrimLeft(content, " \t\r\n")
	return strings.HasPrefix(s, ConversationSummaryPrefix) || strings.HasPrefix(s, SummaryPrefix)
}

// IsSummary reports whether e may be a summary-class message: a system or
// developer message with summary-class content. ConversationMeta.HasSummary
// records whether a log holds one.
func (e *Entry) IsSummary() bool {
	return e.Type == TypeMsg && (e.Role == RoleSystem || e.Role == RoleDeveloper) && IsSummaryText(e.Text())
}

// Str returns a pointer to s, for Content.
func Str(s string) *string { return &s }

// Bool returns a pointer to b, for IncludeInContext.
func Bool(b bool) *bool { return &b }

// ConversationMeta is one record of conversations/index.json.
type ConversationMeta struct {
	ID                   string       `json:"id"`
	Title                string       `json:"title"`
	EntryType            string       `json:"entryType,omitempty"`
	ActiveType           string       `json:"activeType"` // chat | agent | workflow
	CreatedAt            string       `json:"createdAt"`
	LastActiveAt         string       `json:"lastActiveAt"`
	MessageCount         int          `json:"messageCount"`
	ParentID             string       `json:"parentId,omitempty"`
	ForkedFromMsgID      string       `json:"forkedFromMessageId,omitempty"`
	ForkedFromCheckpoint string       `json:"forkedFromCheckpoint,omitempty"`
	SelectedAgentID      string       `json:"selectedAgentId,omitempty"`
	SelectedWorkflowID   string       `json:"selectedWorkflowId,omitempty"`
	Runs                 []RunRef     `json:"runs,omitempty"`
	Checkpoints          []Checkpoint `json:"checkpoints,omitempty"`
	// LogSize is the size of messages.jsonl that MessageCount and
	// LastActiveAt account for; a log of another size was written after the
	// record (the store then recomputes them from the log).
	LogSize int64 `json:"logSize,omitempty"`
	// HasSummary is set when the log holds a summary-class message
	// (Entry.IsSummary); readers that stop short of the start of the log
	// must then read back to the last compaction event.
	HasSummary bool `json:"hasSummary,omitempty"`
	// Origin, Instructions: a child conversation (conv.create; ParentID is
	// then its parent). Waiting: a tool call of it waits for another
	// conversation (children.go).
	Origin       *Origin       `json:"origin,omitempty"`
	Instructions *Instructions `json:"instructions,omitempty"`
	Waiting      *Waiting      `json:"waiting,omitempty"`
	// Usage adds up what the servers reported for the conversation's LLM
	// calls (derived from the Usage of its messages).
	Usage *UsageTotals `json:"usage,omitempty"`
	// ApprovalMode and ApprovalAllow mirror the conversation's approval
	// events (approval.go): its mode ("" = the project's default) and the
	// allow rules the user gave it.
	ApprovalMode  string   `json:"approvalMode,omitempty"`
	ApprovalAllow []string `json:"approvalAllow,omitempty"`
	// Endpoint and Model mirror the conversation's EventModelSelected: the
	// endpoint (by name) and model its answers come from ("" = the
	// settings' default).
	Endpoint string `json:"endpoint,omitempty"`
	Model    string `json:"model,omitempty"`
}

// RunRef links a workflow run to the conversation that holds its messages.
type RunRef struct {
	RunID         string `json:"runId"`
	WorkflowID    string `json:"workflowId"`
	Phase         string `json:"phase"`
	StartedAt     string `json:"startedAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
}

// Checkpoint is a named position in a conversation log.
type Checkpoint struct {
	Name      string `json:"name"`
	MessageID string `json:"messageId"` // the last entry id at the time of the checkpoint
	CreatedAt string `json:"createdAt"`
}

// Usage is the token usage a server reported for a request. CachedTokens are
// the prompt tokens the server read from its prompt cache (OpenAI's
// prompt_tokens_details.cached_tokens, DeepSeek's prompt_cache_hit_tokens).
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens"`
	CachedTokens     int `json:"cachedTokens"`
}

// UsageTotals adds up the usage servers reported for a conversation's LLM
// calls (the Usage of its messages).
type UsageTotals struct {
	// Calls counts the LLM calls whose usage was reported.
	Calls            int `json:"calls"`
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens"`
	CachedTokens     int `json:"cachedTokens"`
	// Last is the usage of the newest call.
	Last *Usage `json:"last,omitempty"`
	// Models splits the totals by the model that answered (Entry.Model; ""
	// for answers recorded before models were), which prices apply to.
	Models map[string]*ModelUsage `json:"models,omitempty"`
}

// Cost is what usage cost at the prices of the settings (llm.prices).
type Cost struct {
	// Amount adds up the models that have a price.
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
	// Unpriced names the models that were used and have no price (their
	// tokens are not in Amount); "" stands for answers of an unknown model.
	Unpriced []string `json:"unpriced,omitempty"`
}

// ModelUsage is what the calls of one model used.
type ModelUsage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	CachedTokens     int `json:"cachedTokens"`
}

// Add counts one call's usage, made by model.
func (t *UsageTotals) Add(model string, u Usage) {
	t.Calls++
	t.PromptTokens += u.PromptTokens
	t.CompletionTokens += u.CompletionTokens
	t.TotalTokens += u.TotalTokens
	t.CachedTokens += u.CachedTokens
	last := u
	t.Last = &last
	if t.Models == nil {
		t.Models = map[string]*ModelUsage{}
	}
	m := t.Models[model]
	if m == nil {
		m = &ModelUsage{}
		t.Models[model] = m
	}
	m.Calls++
	m.PromptTokens += u.PromptTokens
	m.CompletionTokens += u.CompletionTokens
	m.CachedTokens += u.CachedTokens
}

// Merge adds the totals of o (another conversation's) to t; Last is o's
// when t has none.
func (t *UsageTotals) Merge(o *UsageTotals) {
	if o == nil {
		return
	}
	t.Calls += o.Calls
	t.PromptTokens += o.PromptTokens
	t.CompletionTokens += o.CompletionTokens
	t.TotalTokens += o.TotalTokens
	t.CachedTokens += o.CachedTokens
	if t.Last == nil && o.Last != nil {
		l := *o.Last
		t.Last = &l
	}
	for name, m := range o.Models {
		if t.Models == nil {
			t.Models = map[string]*ModelUsage{}
		}
		into := t.Models[name]
		if into == nil {
			into = &ModelUsage{}
			t.Models[name] = into
		}
		into.Calls += m.Calls
		into.PromptTokens += m.PromptTokens
		into.CompletionTokens += m.CompletionTokens
		into.CachedTokens += m.CachedTokens
	}
}

// TokenCounter counts the tokens of an entry once, when it is appended. The
// store keeps the count in Entry.Tokens and the encoding in Entry.TokenEncoding.
type TokenCounter interface {
	CountEntry(e *Entry) (n int, encoding string)
}
