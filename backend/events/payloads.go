package events

import "crewagent/backend/conversation"

// The payload of every event, defined once; frontend/src/bridge/events.ts
// mirrors them.

// Error is a failure carried by an event (and a run's last error).
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// UsageEvent is the payload of context:usage.
type UsageEvent struct {
	ConversationID string  `json:"conversationId"`
	UsedTokens     int     `json:"usedTokens"`
	TotalBudget    int     `json:"totalBudget"`
	UsagePercent   float64 `json:"usagePercent"`
	Remaining      int     `json:"remaining"`
	Status         string  `json:"status"` // normal | warning | critical | compressing
	// Reported adds up the usage servers reported for the conversation's LLM
	// calls (prompt tokens read from the prompt cache included) and holds
	// the newest call's; nil before any was reported.
	Reported *conversation.UsageTotals `json:"reported,omitempty"`
	// Cost prices Reported with llm.prices (nil when none of its models has
	// a price).
	Cost *conversation.Cost `json:"cost,omitempty"`
}

// StreamStartEvent is the payload of llm:stream-start: one LLM call begins.
// MessageID is the id the assistant message of this call is persisted under.
type StreamStartEvent struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"`
	Mode           string `json:"mode"`
	AgentID        string `json:"agentId,omitempty"`
	Turn           int    `json:"turn"` // 0-based LLM call of the send
}

// StreamChunkEvent is the payload of llm:stream-chunk: answer text, several
// deltas coalesced.
type StreamChunkEvent struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"`
	Delta          string `json:"delta"`
}

// StreamEndEvent is the payload of llm:stream-end: the LLM call is over. Error is
// set when it failed; Retrying when the call is sent again (after a
// context-length error and a forced compression) under a new message id.
type StreamEndEvent struct {
	ConversationID string              `json:"conversationId"`
	MessageID      string              `json:"messageId"`
	FinishReason   string              `json:"finishReason,omitempty"`
	Usage          *conversation.Usage `json:"usage,omitempty"`
	ToolCalls      int                 `json:"toolCalls"`
	Error          *Error              `json:"error,omitempty"`
	Retrying       bool                `json:"retrying,omitempty"`
}

// ToolStartEvent is the payload of llm:stream-tool-start: the model announced a
// tool call (its arguments are still streaming).
type ToolStartEvent struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"` // the assistant message holding the call
	ToolCallID     string `json:"toolCallId"`
	ToolName       string `json:"toolName"`
	Index          int    `json:"index"`
}

// ToolEndEvent is the payload of llm:stream-tool-end: the tool has run
// (ResultMessageID is its persisted tool message), or the call was abandoned
// (Interrupted, when the stream or the send stopped before it ran).
type ToolEndEvent struct {
	ConversationID  string `json:"conversationId"`
	MessageID       string `json:"messageId"`
	ToolCallID      string `json:"toolCallId"`
	ToolName        string `json:"toolName"`
	OK              bool   `json:"ok"`
	DurationMs      int64  `json:"durationMs"`
	ResultMessageID string `json:"resultMessageId,omitempty"`
	Pending         bool   `json:"pending,omitempty"` // ui.ask_user waits for the user
	Interrupted     bool   `json:"interrupted,omitempty"`
	Error           *Error `json:"error,omitempty"`
}

// Kinds of ChangeEvent.
const (
	Created = "created"
	Updated = "updated"
	Deleted = "deleted"
)

// ChangeEvent is the payload of conversation:changed: a conversation
// was created, updated or deleted, by the app or on disk by someone else
// (External).
type ChangeEvent struct {
	ConversationID string `json:"conversationId"`
	Kind           string `json:"kind"` // created | updated | deleted
	// External is true when the change was made on disk by someone else.
	External bool `json:"external,omitempty"`
	// Streaming is set when a reply or run turn starts (true) and when it has
	// ended (false); Error says why it ended when the conversation does not
	// show the failure.
	Streaming *bool  `json:"streaming,omitempty"`
	Error     *Error `json:"error,omitempty"`
}

// EntriesEvent is the payload of conversation:entries: entries the store
// appended or updated, with their view, and the entries whose view changed
// with them, in the log's order (an id the window holds is replaced, a new
// one goes at the end), then the state of the conversation's end as a page
// read now would give it.
type EntriesEvent struct {
	ConversationID string                        `json:"conversationId"`
	Conversation   conversation.ConversationMeta `json:"conversation"`
	Entries        []conversation.EntryView      `json:"entries"`
	// Settled is true when no reply or turn runs in the conversation: the
	// log ends where the entries end, and the fields below say how.
	Settled     bool `json:"settled"`
	Unfinished  bool `json:"unfinished"`
	Awaiting    bool `json:"awaiting"`
	Stopped     bool `json:"stopped,omitempty"`
	CanContinue bool `json:"canContinue"`
	// Agents are the agents who wrote Entries, by id.
	Agents map[string]Speaker `json:"agents"`
	// WaitingFor is set while a tool call of the conversation waits for
	// another conversation's answer.
	WaitingFor *WaitingView `json:"waitingFor,omitempty"`
	// Reload says that the change reaches entries the event does not carry
	// (a version chosen or made, entries older than the newest ones
	// compacted): read the page again.
	Reload bool `json:"reload,omitempty"`
}

// Speaker is an agent who answered in a conversation, as its package
// describes it.
type Speaker struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Icon        string `json:"icon"`
	Description string `json:"description"`
}

// WaitingView is the conversation another one waits for.
type WaitingView struct {
	ConversationID string `json:"conversationId"`
	Title          string `json:"title"`
	Tool           string `json:"tool"`
	// Answering is true while it answers (false: queued, or stopped).
	Answering bool `json:"answering"`
}

// NodeProgress is one node of a run's graph as the run panel shows it.
type NodeProgress struct {
	ID     string `json:"id"`
	Title  string `json:"title,omitempty"`
	Type   string `json:"type"`
	Status string `json:"status"` // completed | current | pending
}

// ProgressEvent is the payload of runs:progressUpdated and the body of a run's status.
type ProgressEvent struct {
	RunID          string         `json:"runId"`
	ConversationID string         `json:"conversationId"`
	PackageID      string         `json:"packageId"`
	WorkflowID     string         `json:"workflowId"`
	ActiveAgentID  string         `json:"activeAgentId"`
	Phase          string         `json:"phase"`
	CurrentNodeID  string         `json:"currentNodeId"`
	EffectiveAgent string         `json:"effectiveAgentId,omitempty"`
	StepsCompleted []string       `json:"stepsCompleted"`
	Artifacts      []string       `json:"artifacts"`
	Complete       bool           `json:"complete"`
	Nodes          []NodeProgress `json:"nodes,omitempty"`
	LastError      *Error         `json:"lastError,omitempty"`
	UpdatedAt      string         `json:"updatedAt"`
}

// Reasons a task was aborted (TaskEvent.Reason).
const (
	TaskReplaced    = "replaced"
	TaskInterrupted = "interrupted"
	TaskShutdown    = "shutdown"
)

// TaskEvent is the payload of task:started, task:complete and task:aborted.
type TaskEvent struct {
	ConversationID string `json:"conversationId"`
	TaskID         string `json:"taskId"`
	Kind           string `json:"kind"` // chat | agent | run
	// Title is the conversation's title.
	Title string `json:"title"`
	// Chain and Depth place a task of work handed from conversation to
	// conversation: the chain's id, how many handovers deep (0: the user's).
	Chain string `json:"chain,omitempty"`
	Depth int    `json:"depth,omitempty"`
	// Tool is the conversation tool (conv.create, conv.send) whose answer
	// the task gives; Continues is set on the continuation of a conversation
	// that waited for one. ParentID is the conversation that waits.
	Tool      string `json:"tool,omitempty"`
	Continues bool   `json:"continues,omitempty"`
	ParentID  string `json:"parentId,omitempty"`
	// Reason says why an aborted task ended: replaced (it handed its turn
	// over), interrupted (stopped) or shutdown.
	Reason string `json:"reason,omitempty"`
	// Error is the failure a task ended with, when it did.
	Error *Error `json:"error,omitempty"`
}

// Payloads names the payload of every event, by event. It is the return type
// of a bound method so that the window's TypeScript types of the payloads are
// generated with the bindings (frontend/wailsjs/go/models.ts).
type Payloads struct {
	ContextUsage        UsageEvent              `json:"context:usage"`
	StreamStart         StreamStartEvent        `json:"llm:stream-start"`
	StreamChunk         StreamChunkEvent        `json:"llm:stream-chunk"`
	StreamEnd           StreamEndEvent          `json:"llm:stream-end"`
	StreamToolStart     ToolStartEvent          `json:"llm:stream-tool-start"`
	StreamToolEnd       ToolEndEvent            `json:"llm:stream-tool-end"`
	ConversationChanged ChangeEvent             `json:"conversation:changed"`
	ConversationEntries EntriesEvent            `json:"conversation:entries"`
	RunsProgressUpdated ProgressEvent           `json:"runs:progressUpdated"`
	TaskStarted         TaskEvent               `json:"task:started"`
	TaskComplete        TaskEvent               `json:"task:complete"`
	TaskAborted         TaskEvent               `json:"task:aborted"`
	MCPStatus           MCPStatusEvent          `json:"mcp:status"`
	SkillsChanged       SkillsChangedEvent      `json:"skills:changed"`
	ApprovalRequested   ApprovalEvent           `json:"approval:requested"`
	ApprovalResolved    ApprovalEvent           `json:"approval:resolved"`
	ToolOutput          ToolOutputEvent         `json:"tool:output"`
	MCPElicitation      MCPElicitationEvent     `json:"mcp:elicitation"`
	MCPElicitationDone  MCPElicitationDoneEvent `json:"mcp:elicitation-done"`
}

// SkillsChangedEvent says that the open project's skills changed: how many
// are usable now and how many folders are invalid.
type SkillsChangedEvent struct {
	Skills  int `json:"skills"`
	Invalid int `json:"invalid"`
}
