package errs

// The catalogue: one code per condition. Domain packages keep their exported
// Code* names as aliases of these, and every code a package defines must be
// listed here (catalogue_test.go checks both, and that codes.gen.ts is up to
// date).

// The application layer (opening projects, bound calls, dialogs).
const (
	NoProject     = "E_NO_PROJECT"
	Dialog        = "E_DIALOG"
	Internal      = "E_INTERNAL"
	ProjectLocked = "E_PROJECT_LOCKED"
	Busy          = "E_BUSY"
	InvalidMode   = "E_INVALID_MODE"
	PackageOpen   = "PKG_OPEN"
	ArtifactPath  = "E_ARTIFACT_PATH"
)

// Projects, the runtime home and the recent projects list.
const (
	Home               = "E_HOME"
	ProjectNotFound    = "E_PROJECT_NOT_FOUND"
	ProjectNotDir      = "E_PROJECT_NOT_DIR"
	ProjectMetaCorrupt = "E_PROJECT_META_CORRUPT"
	ProjectMetaInvalid = "E_PROJECT_META_INVALID"
	ProjectIDChanged   = "E_PROJECT_ID_CHANGED"
	ProjectNameInvalid = "E_PROJECT_NAME_INVALID"
	ProjectExists      = "E_PROJECT_EXISTS"
	ProjectMoved       = "E_PROJECT_MOVED"
	RecentCorrupt      = "E_RECENT_CORRUPT"
	ProjectIO          = "E_PROJECT_IO"
)

// The conversation store.
const (
	ReadOnly         = "E_READ_ONLY"
	Closed           = "E_CLOSED"
	InvalidID        = "E_INVALID_ID"
	NotFound         = "E_NOT_FOUND"
	CheckpointExists = "E_CHECKPOINT_EXISTS"
	InvalidArgument  = "E_INVALID_ARGUMENT"
	BranchFrozen     = "E_BRANCH_FROZEN"
)

// Settings.
const (
	SettingsCorrupt  = "E_SETTINGS_CORRUPT"
	SettingsInvalid  = "E_SETTINGS_INVALID"
	SettingsEnv      = "E_SETTINGS_ENV"
	SettingsIO       = "E_SETTINGS_IO"
	LLMNotConfigured = "E_LLM_NOT_CONFIGURED"
)

// The engine's tool loop (also the persisted failures of run turns).
const (
	InvalidRequest   = "ENGINE_INVALID_REQUEST"
	AgentNotFound    = "ENGINE_AGENT_NOT_FOUND"
	UnsupportedMode  = "ENGINE_UNSUPPORTED_MODE"
	MaxTurnsExceeded = "ENGINE_MAX_TURNS_EXCEEDED"
	LoopDetected     = "ENGINE_LOOP_DETECTED"
	Aborted          = "ENGINE_ABORTED"
	ContextTooLarge  = "CONTEXT_STILL_TOO_LARGE"
	InputTooLarge    = "ENGINE_INPUT_TOO_LARGE"
)

// Workflow runs.
const (
	RunNotFound          = "RUN_NOT_FOUND"
	WorkflowNotFound     = "RUN_WORKFLOW_NOT_FOUND"
	GraphMissing         = "RUN_GRAPH_MISSING"
	ConversationNotFound = "RUN_CONVERSATION_NOT_FOUND"
	StateCorrupt         = "RUN_STATE_CORRUPT"
	IndexCorrupt         = "RUN_INDEX_CORRUPT"
	NoWidget             = "RUN_NO_PENDING_WIDGET"
	BadAnswer            = "RUN_BAD_ANSWER"
	NoPackage            = "RUN_NO_PACKAGE"
)

// Packages.
const (
	PackageInvalid  = "PKG_INVALID"
	PackageNotFound = "PKG_NOT_FOUND"
	PackageRegistry = "PKG_REGISTRY"
	PackageExists   = "PKG_EXISTS"
)

// The LLM client (also persisted in LLM_ERROR blocks).
const (
	LLMTimeout       = "LLM_TIMEOUT"
	LLMRateLimit     = "LLM_RATE_LIMIT"
	LLMAuth          = "LLM_AUTH"
	LLMNetwork       = "LLM_NETWORK"
	LLMBadResponse   = "LLM_BAD_RESPONSE"
	LLMContextLength = "LLM_CONTEXT_LENGTH"
	LLMAborted       = "LLM_ABORTED"
	LLMServer        = "LLM_SERVER"
	// LLMStreamIncomplete: the answer began to stream but ended before the
	// server finished it (neither a finish_reason nor [DONE]).
	LLMStreamIncomplete = "LLM_STREAM_INCOMPLETE"
)

// The context builder.
const (
	ContextInvalidMode         = "CONTEXT_INVALID_MODE"
	ContextNoCounter           = "CONTEXT_NO_COUNTER"
	ContextPersonaRequired     = "CONTEXT_PERSONA_REQUIRED"
	ContextRunInjectorRequired = "CONTEXT_RUN_INJECTOR_REQUIRED"
	ContextTemplate            = "CONTEXT_TEMPLATE"
)

// Tool results (the model and the run's execution log see these).
const (
	ToolNotFound       = "ENOENT"
	SandboxViolation   = "E_SANDBOX_VIOLATION"
	ReadLimit          = "E_READ_LIMIT"
	WriteLimit         = "E_WRITE_LIMIT"
	SchemaValidation   = "E_SCHEMA_VALIDATION"
	InvalidTransition  = "E_INVALID_TRANSITION"
	PreconditionFailed = "E_PRECONDITION_FAILED"
	ToolNotAvailable   = "TOOL_NOT_AVAILABLE"
	BadArguments       = "E_BAD_ARGUMENTS"
	TooManyToolCalls   = "E_TOO_MANY_TOOL_CALLS"
	// HandedOver answers the calls of a model message that follow one that
	// handed the turn to another conversation: not run.
	HandedOver = "E_HANDED_OVER"
	// ApprovalDenied: a call the approval mode, a rule or the user refused;
	// ApprovalPending: a call that waits for the user's approval (the
	// placeholder result of the log while it waits).
	ApprovalDenied  = "E_APPROVAL_DENIED"
	ApprovalPending = "E_APPROVAL_PENDING"
)

// The conversation tools (conv.create, conv.send, conv.list, conv.history,
// conv.destroy).
const (
	ConvNotFound    = "E_CONV_NOT_FOUND"
	ConvRefused     = "E_CONV_REFUSED"
	ConvTooDeep     = "E_CONV_TOO_DEEP"
	ConvFailed      = "E_CONV_FAILED"
	ConvStopped     = "E_CONV_STOPPED"
	ConvInterrupted = "E_CONV_INTERRUPTED"
	ConvBadFile     = "E_CONV_BAD_FILE"
	ConvTooLarge    = "E_CONV_TOO_LARGE"
	ConvBudget      = "E_CONV_BUDGET"
)

// The command tool (shell.run).
const (
	CommandFailed      = "E_COMMAND_FAILED"
	CommandTimeout     = "E_COMMAND_TIMEOUT"
	CommandStopped     = "E_COMMAND_STOPPED"
	SandboxUnavailable = "E_SANDBOX_UNAVAILABLE"
)

// Entry describes one code of the catalogue.
type Entry struct {
	// Name is the code's name here and in TypeScript (Codes.<Name>).
	Name string
	Code string
	// Condition says when it is used.
	Condition string
	// Replaces lists codes that stood for the same condition before; the
	// window still accepts them.
	Replaces []string
}

// MCP servers and their tool calls.
const (
	MCPToolError    = "E_MCP_TOOL_ERROR"
	MCPTimeout      = "E_MCP_TIMEOUT"
	MCPCancelled    = "E_MCP_CANCELLED"
	MCPServerFailed = "E_MCP_SERVER_FAILED"
	MCPNotApproved  = "E_MCP_NOT_APPROVED"
	MCPDisabled     = "E_MCP_DISABLED"
	MCPProtocol     = "E_MCP_PROTOCOL"
	// Managing the servers (settings, approvals, restarts).
	MCPServerNotFound = "E_MCP_SERVER_NOT_FOUND"
	MCPConfigInvalid  = "E_MCP_CONFIG_INVALID"
)

// Skills.
const (
	SkillNotFound   = "E_SKILL_NOT_FOUND"
	SkillUserOnly   = "E_SKILL_USER_ONLY"
	SkillNotAllowed = "E_SKILL_NOT_ALLOWED"
	SkillInvalid    = "E_SKILL_INVALID"
)

// Catalogue lists every code in the order of the groups above.
var Catalogue = []Entry{
	{"NoProject", NoProject, "the call needs an open project", nil},
	{"Dialog", Dialog, "a native dialog failed", nil},
	{"Internal", Internal, "anything without a more specific code", nil},
	{"ProjectLocked", ProjectLocked, "the project is open for writing in another crewagent process", nil},
	{"Busy", Busy, "a reply or run turn is already running where another was asked for", []string{"ENGINE_CONVERSATION_BUSY", "RUN_BUSY"}},
	{"InvalidMode", InvalidMode, "a message names a mode other than chat, agent or run", nil},
	{"PackageOpen", PackageOpen, "the package file or folder to import cannot be read", nil},
	{"ArtifactPath", ArtifactPath, "an artifact path that is not a file inside the project", nil},

	{"Home", Home, "the runtime home cannot be resolved or created", nil},
	{"ProjectNotFound", ProjectNotFound, "the project folder does not exist", nil},
	{"ProjectNotDir", ProjectNotDir, "the project path is not a folder", nil},
	{"ProjectMetaCorrupt", ProjectMetaCorrupt, ".crewagent.json is not a JSON object", nil},
	{"ProjectMetaInvalid", ProjectMetaInvalid, ".crewagent.json has a value that cannot be used", nil},
	{"ProjectIDChanged", ProjectIDChanged, ".crewagent.json now holds another projectId", nil},
	{"ProjectNameInvalid", ProjectNameInvalid, "a new project's name cannot be a folder name", nil},
	{"ProjectExists", ProjectExists, "the folder for a new project already exists", nil},
	{"ProjectMoved", ProjectMoved, "the folder looks like a project moved from another path: keep its conversations or start a new project", nil},
	{"RecentCorrupt", RecentCorrupt, "recent-projects.json is not valid", nil},
	{"ProjectIO", ProjectIO, "a project file could not be read or written", nil},

	{"ReadOnly", ReadOnly, "a change asked of a conversation store opened read-only", nil},
	{"Closed", Closed, "the conversation store was closed", nil},
	{"InvalidID", InvalidID, "a conversation or message id that is not valid", nil},
	{"NotFound", NotFound, "the conversation, message, checkpoint or file does not exist", nil},
	{"CheckpointExists", CheckpointExists, "a checkpoint of that name already exists", nil},
	{"InvalidArgument", InvalidArgument, "a malformed entry, title, checkpoint name or option", nil},
	{"BranchFrozen", BranchFrozen, "the versions of a part of a conversation cannot change: it was compressed since", nil},

	{"SettingsCorrupt", SettingsCorrupt, "settings.json is not valid JSON of the right shape", nil},
	{"SettingsInvalid", SettingsInvalid, "a setting is out of range", nil},
	{"SettingsEnv", SettingsEnv, "an environment override has a bad value", nil},
	{"SettingsIO", SettingsIO, "settings.json could not be read or written", nil},
	{"LLMNotConfigured", LLMNotConfigured, "no LLM base URL or model to talk to", []string{"LLM_NOT_CONFIGURED"}},

	{"InvalidRequest", InvalidRequest, "an empty message, a missing agent, nothing to retry", nil},
	{"AgentNotFound", AgentNotFound, "no agent of that id where agents are looked up", []string{"RUN_AGENT_NOT_FOUND"}},
	{"UnsupportedMode", UnsupportedMode, "the operation does not support the mode", nil},
	{"MaxTurnsExceeded", MaxTurnsExceeded, "the tool loop reached engine.maxTurns model calls", nil},
	{"LoopDetected", LoopDetected, "the model made the same failing tool call three times", nil},
	{"Aborted", Aborted, "a run turn was stopped", nil},
	{"ContextTooLarge", ContextTooLarge, "the next request does not fit the token limit even after compaction and previews; nothing was sent", nil},
	{"InputTooLarge", InputTooLarge, "a message that can never fit the request limit was refused before it was stored", nil},

	{"RunNotFound", RunNotFound, "no such run, or the conversation has none", nil},
	{"WorkflowNotFound", WorkflowNotFound, "the package has no workflow of that id", nil},
	{"GraphMissing", GraphMissing, "the workflow has no usable graph", nil},
	{"ConversationNotFound", ConversationNotFound, "the conversation named for a run does not exist", nil},
	{"StateCorrupt", StateCorrupt, "a run's state file cannot be read as a workflow state", nil},
	{"IndexCorrupt", IndexCorrupt, "runsIndex.json is not valid", nil},
	{"NoWidget", NoWidget, "an answer to a question that no longer waits", nil},
	{"BadAnswer", BadAnswer, "an answer that does not fit its question", nil},
	{"NoPackage", NoPackage, "no package could be chosen for a run", nil},

	{"PackageInvalid", PackageInvalid, "the package failed validation", nil},
	{"PackageNotFound", PackageNotFound, "no installed package has that id", nil},
	{"PackageRegistry", PackageRegistry, "packages.json cannot be read or written", nil},
	{"PackageExists", PackageExists, "a package of the same id (name and version) is installed already; importing it again needs an explicit replace", nil},

	{"LLMTimeout", LLMTimeout, "a connect, first-token, idle or overall timeout", nil},
	{"LLMRateLimit", LLMRateLimit, "rate limited after retries, or an exhausted quota", nil},
	{"LLMAuth", LLMAuth, "the server refused the key (401/403)", nil},
	{"LLMNetwork", LLMNetwork, "the connection failed or the stream was cut", nil},
	{"LLMBadResponse", LLMBadResponse, "a malformed answer or an unexpected 4xx", nil},
	{"LLMContextLength", LLMContextLength, "the request does not fit the model's context", nil},
	{"LLMAborted", LLMAborted, "a reply was stopped", nil},
	{"LLMServer", LLMServer, "a 5xx after retries", nil},
	{"LLMStreamIncomplete", LLMStreamIncomplete, "the stream ended before the answer was finished (no finish_reason, no [DONE]): the connection closed or was cut mid-answer", nil},

	{"ContextInvalidMode", ContextInvalidMode, "a request built for a mode other than chat, agent or run", nil},
	{"ContextNoCounter", ContextNoCounter, "a request built without a token counter", nil},
	{"ContextPersonaRequired", ContextPersonaRequired, "agent and run requests need a persona", nil},
	{"ContextRunInjectorRequired", ContextRunInjectorRequired, "a run request needs its run blocks", nil},
	{"ContextTemplate", ContextTemplate, "a system prompt template failed", nil},

	{"ToolNotFound", ToolNotFound, "a tool was given a path that does not exist", nil},
	{"SandboxViolation", SandboxViolation, "a tool path leaves the folders tools may use", nil},
	{"ReadLimit", ReadLimit, "a read larger than the tool policy allows", nil},
	{"WriteLimit", WriteLimit, "a write larger than the tool policy allows", nil},
	{"SchemaValidation", SchemaValidation, "a state write that breaks the workflow state schema", nil},
	{"InvalidTransition", InvalidTransition, "a state change the workflow graph does not allow", nil},
	{"PreconditionFailed", PreconditionFailed, "a file changed since it was read (its hash differs)", nil},
	{"ToolNotAvailable", ToolNotAvailable, "a tool that is off or unknown here", nil},
	{"BadArguments", BadArguments, "a tool call with malformed arguments", nil},
	{"TooManyToolCalls", TooManyToolCalls, "a tool call beyond engine.maxToolCallsPerMessage of one model message: answered, not run", nil},
	{"HandedOver", HandedOver, "a tool call after one that handed the turn to another conversation: answered, not run", nil},
	{"ApprovalDenied", ApprovalDenied, "a tool call refused by the approval mode, an approval rule or the user: not run", nil},
	{"ApprovalPending", ApprovalPending, "a tool call that waits for the user's approval: not run yet", nil},

	{"ConvNotFound", ConvNotFound, "a conversation tool named a conversation that does not exist", nil},
	{"ConvRefused", ConvRefused, "a conversation tool call the rules refuse (destroying the user's conversation or the work in progress, asking a conversation that waits, …)", nil},
	{"ConvTooDeep", ConvTooDeep, "a handover past engine.maxInterruptChainDepth conversations waiting for one another", nil},
	{"ConvFailed", ConvFailed, "the conversation a turn was handed to could not answer", nil},
	{"ConvStopped", ConvStopped, "the user stopped the work while the conversation a turn was handed to answered", nil},
	{"ConvInterrupted", ConvInterrupted, "the app closed or stopped while the conversation a turn was handed to answered", nil},
	{"ConvBadFile", ConvBadFile, "conv.create's base_instruction_file cannot be read", nil},
	{"ConvTooLarge", ConvTooLarge, "conv.create's first message with its base instructions could never fit the request limit; nothing was stored", nil},
	{"ConvBudget", ConvBudget, "the work one user message started reached settings engine.maxConversationsPerMessage or engine.maxModelCallsPerMessage", nil},

	{"CommandFailed", CommandFailed, "a command run by shell.run exited with a status other than 0 or was killed by a signal", nil},
	{"CommandTimeout", CommandTimeout, "a command run by shell.run did not end within its time limit and was killed with its processes", nil},
	{"CommandStopped", CommandStopped, "a command run by shell.run was stopped (the turn was stopped or the app closed) and killed with its processes", nil},
	{"SandboxUnavailable", SandboxUnavailable, "shell.run ran nothing: the command sandbox (bubblewrap) cannot start here and the project does not allow commands without it", nil},

	{"MCPToolError", MCPToolError, "an MCP tool ran and reported an error (isError)", nil},
	{"MCPTimeout", MCPTimeout, "an MCP server did not answer a call in time; the call was cancelled", nil},
	{"MCPCancelled", MCPCancelled, "an MCP call was cancelled by its caller", nil},
	{"MCPServerFailed", MCPServerFailed, "an MCP server could not be started or stopped during a call", nil},
	{"MCPNotApproved", MCPNotApproved, "a project's MCP server is not approved for this project", nil},
	{"MCPDisabled", MCPDisabled, "the MCP server is disabled in its configuration", nil},
	{"MCPProtocol", MCPProtocol, "an MCP server answered with a protocol error", nil},
	{"MCPServerNotFound", MCPServerNotFound, "no MCP server of that name is configured (in the settings, or the project's .mcp.json where it applies)", nil},
	{"MCPConfigInvalid", MCPConfigInvalid, "an MCP server configuration (typed or pasted) has problems; each is listed", nil},

	{"SkillNotFound", SkillNotFound, "no skill of that name is available", nil},
	{"SkillUserOnly", SkillUserOnly, "the skill can only be activated by the user", nil},
	{"SkillNotAllowed", SkillNotAllowed, "the skill is not allowed here", nil},
	{"SkillInvalid", SkillInvalid, "the skill's SKILL.md cannot be used", nil},
}
