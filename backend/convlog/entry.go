// Package convlog owns the conversation store: the append-only JSONL log per
// conversation, the index, forks, checkpoints and cleanup.
//
// The message model itself (Entry, ConversationMeta and their constants)
// lives in backend/conversation. The names below are aliases of it, kept so
// that callers compile while they move to that package; new code should use
// backend/conversation directly.
package convlog

import (
	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// The message model (aliases of backend/conversation).
type (
	Entry            = conversation.Entry
	ToolCall         = conversation.ToolCall
	FunctionCall     = conversation.FunctionCall
	ConversationMeta = conversation.ConversationMeta
	RunRef           = conversation.RunRef
	Checkpoint       = conversation.Checkpoint
)

// Entry types (aliases of backend/conversation).
const (
	TypeMsg = conversation.TypeMsg
	TypeEvt = conversation.TypeEvt
)

// Roles (aliases of backend/conversation).
const (
	RoleSystem    = conversation.RoleSystem
	RoleUser      = conversation.RoleUser
	RoleAssistant = conversation.RoleAssistant
	RoleTool      = conversation.RoleTool
	RoleDeveloper = conversation.RoleDeveloper
)

// Modes (aliases of backend/conversation).
const (
	ModeChat  = conversation.ModeChat
	ModeAgent = conversation.ModeAgent
	ModeRun   = conversation.ModeRun
)

// Part types (aliases of backend/conversation).
const (
	PartContent    = conversation.PartContent
	PartThinking   = conversation.PartThinking
	PartToolStart  = conversation.PartToolStart
	PartToolResult = conversation.PartToolResult
	PartError      = conversation.PartError
)

// Event names (aliases of backend/conversation).
const (
	EventCompaction = conversation.EventCompaction
	EventCheckpoint = conversation.EventCheckpoint
	EventModeSwitch = conversation.EventModeSwitch
	EventForkOrigin = conversation.EventForkOrigin
	EventRunStarted = conversation.EventRunStarted
)

// Summary-class prefixes (aliases of backend/conversation).
const (
	SummaryPrefix             = conversation.SummaryPrefix
	ConversationSummaryPrefix = conversation.ConversationSummaryPrefix
)

// IsSummaryText reports whether a system message content is summary-class
// (conversation.IsSummaryText).
func IsSummaryText(content string) bool { return conversation.IsSummaryText(content) }

// Str returns a pointer to s, for Content.
func Str(s string) *string { return conversation.Str(s) }

// Bool returns a pointer to b, for IncludeInContext.
func Bool(b bool) *bool { return conversation.Bool(b) }

// Now is the timestamp format used in createdAt fields (fsx.TimeFormat).
func Now() string { return fsx.Now() }

const timeFormat = fsx.TimeFormat
