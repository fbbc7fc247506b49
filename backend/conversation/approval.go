package conversation

// Approvals in the log. A tool call that waits for the user's approval has
// its result entry persisted at once, as a placeholder whose Approval is in
// state "waiting" (the log stays complete: every call has its result). The
// user's answer replaces it (an update of the same entry): the call's real
// result when it was allowed, a refusal that says so when it was denied.
// A conversation's approval mode and the allow rules the user gave it are
// events (EventApprovalMode, EventApprovalGranted), mirrored in its index
// record.

// Events of approvals.
const (
	// EventApprovalMode records the conversation's approval mode: data {"mode"}.
	EventApprovalMode = "approval_mode"
	// EventApprovalGranted records an allow rule the user gave the
	// conversation: data {"rule"}.
	EventApprovalGranted = "approval_granted"
)

// States of an approval request.
const (
	ApprovalWaiting = "waiting"
	ApprovalAllowed = "allowed"
	ApprovalDenied  = "denied"
	// ApprovalStopped: the reply was stopped (or the app closed) while it waited.
	ApprovalStopped = "stopped"
)

// Approval is an approval request as the log keeps it on the result of the
// call it is about, and as the screen shows it.
type Approval struct {
	State string `json:"state"`
	// Kind is write, command or external (an MCP tool).
	Kind string `json:"kind"`
	// Mode is the approval mode the call was decided in; Why says why it asks.
	Mode string `json:"mode,omitempty"`
	Why  string `json:"why,omitempty"`
	// Summary says what the call will do, in words.
	Summary string `json:"summary"`
	// Paths are the files a write changes (alias paths).
	Paths []string `json:"paths,omitempty"`
	// Diff is the unified diff of a write against the file as it is (a new
	// file shown whole); Binary is set instead for a file that is not text.
	Diff    string `json:"diff,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
	NewFile bool   `json:"newFile,omitempty"`
	// Command and Cwd are a command's line and working folder.
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// Grant is the allow rule "for this conversation" or "always in this
	// project" records.
	Grant string `json:"grant,omitempty"`
	// Answer is the user's answer (allow, allow-conversation, allow-project,
	// deny) and Note the reason given with a denial.
	Answer     string `json:"answer,omitempty"`
	Note       string `json:"note,omitempty"`
	AnsweredAt string `json:"answeredAt,omitempty"`
}

// Waiting reports whether the request still waits for an answer.
func (a *Approval) Waiting() bool { return a != nil && a.State == ApprovalWaiting }
