package errs

// CodeTexts says, for every code of the catalogue, what went wrong in words
// for the person at the window, and what to do; the window shows it when a
// message has no template of its own in the user's language.
var CodeTexts = map[string]string{
	NoProject:     "No project is open. Open or create a project first.",
	Dialog:        "The system dialog could not be shown.",
	Internal:      "Something went wrong inside the app.",
	ProjectLocked: "This project is open in another CrewAgent window or process. Close it there first.",
	Busy:          "A reply or a run step is already running here. Wait for it or stop it first.",
	InvalidMode:   "That mode is not known; use chat, agent or run.",
	PackageOpen:   "The package file or folder cannot be read.",
	ArtifactPath:  "That path is not a file inside the project.",

	Home:               "The app's data folder cannot be used.",
	ProjectNotFound:    "The project folder does not exist.",
	ProjectNotDir:      "The project path is not a folder.",
	ProjectMetaCorrupt: "The project's .crewagent.json cannot be read.",
	ProjectMetaInvalid: "The project's .crewagent.json holds a value that cannot be used.",
	ProjectIDChanged:   "The project's .crewagent.json now names another project.",
	ProjectNameInvalid: "That name cannot be used for a project folder.",
	ProjectExists:      "A folder of that name already exists.",
	ProjectMoved:       "This folder looks like a project moved from another place: keep its conversations or start afresh.",
	RecentCorrupt:      "The list of recent projects cannot be read.",
	ProjectIO:          "A project file could not be read or written.",

	ReadOnly:         "This conversation is open read-only here.",
	Closed:           "The conversations of this project were closed.",
	InvalidID:        "That conversation or message id is not valid.",
	NotFound:         "That conversation, message or checkpoint does not exist.",
	CheckpointExists: "A checkpoint of that name already exists.",
	InvalidArgument:  "That value cannot be used here.",
	BranchFrozen:     "This part of the conversation was compressed since; its versions can no longer change.",

	SettingsCorrupt:  "The settings file cannot be read.",
	SettingsInvalid:  "A setting is out of range.",
	SettingsEnv:      "An environment variable overrides a setting with a value that cannot be used.",
	SettingsIO:       "The settings could not be read or saved.",
	LLMNotConfigured: "No model is set up yet. Set the server address and the model in Settings.",

	InvalidRequest:   "There is nothing to send.",
	AgentNotFound:    "That agent does not exist.",
	UnsupportedMode:  "That cannot be done in this mode.",
	MaxTurnsExceeded: "Stopped after too many tool steps.",
	LoopDetected:     "Stopped a tool call that kept failing.",
	Aborted:          "Stopped.",
	ContextTooLarge:  "This step does not fit in the model's context, even compressed; nothing was sent.",
	InputTooLarge:    "This message is too long for the model's context; it was not sent.",

	RunNotFound:          "That run does not exist.",
	WorkflowNotFound:     "The package has no such workflow.",
	GraphMissing:         "The workflow has no usable graph of steps.",
	ConversationNotFound: "The run's conversation does not exist.",
	StateCorrupt:         "The run's state file cannot be read.",
	IndexCorrupt:         "The list of runs cannot be read.",
	NoWidget:             "That question no longer waits for an answer.",
	BadAnswer:            "That answer does not fit the question.",
	NoPackage:            "No package is installed to run a workflow from.",

	PackageInvalid:  "The package has problems and cannot be installed.",
	PackageNotFound: "No package of that id is installed.",
	PackageRegistry: "The list of installed packages cannot be read or saved.",
	PackageExists:   "This package is installed already; replace it to import it again.",

	LLMTimeout:          "The model took too long to answer.",
	LLMRateLimit:        "Too many requests for now; wait a little, then try again.",
	LLMAuth:             "The server refused the API key. Check it in Settings.",
	LLMNetwork:          "Can't reach the model server.",
	LLMBadResponse:      "The model server's answer could not be used.",
	LLMContextLength:    "The conversation is too long for the model.",
	LLMAborted:          "Stopped.",
	LLMServer:           "The model server had an internal error.",
	LLMStreamIncomplete: "The connection broke off in the middle of the answer.",

	ContextInvalidMode:         "That mode is not known; use chat, agent or run.",
	ContextNoCounter:           "The request could not be measured.",
	ContextPersonaRequired:     "This mode needs an agent.",
	ContextRunInjectorRequired: "A run step needs its run.",
	ContextTemplate:            "A system prompt template failed.",

	ToolNotFound:       "The file does not exist.",
	SandboxViolation:   "That path is outside the folders tools may use.",
	ReadLimit:          "The file is too large to read.",
	WriteLimit:         "The content is too large to write.",
	SchemaValidation:   "The run's state would no longer fit its schema.",
	InvalidTransition:  "The workflow does not allow that move.",
	PreconditionFailed: "The file changed since it was read.",
	ToolNotAvailable:   "That tool is not available here.",
	BadArguments:       "The tool call's arguments are malformed.",
	TooManyToolCalls:   "Too many tool calls in one answer: not run.",
	HandedOver:         "Not run: the turn was handed to another conversation.",
	ApprovalDenied:     "The tool call was refused: not run.",
	ApprovalPending:    "The tool call waits for your approval.",

	ConvNotFound:    "That conversation does not exist.",
	ConvRefused:     "That conversation cannot be asked or changed now.",
	ConvTooDeep:     "Too many conversations wait for one another.",
	ConvFailed:      "The other conversation could not answer.",
	ConvStopped:     "Stopped while the other conversation answered.",
	ConvInterrupted: "Interrupted while the other conversation answered.",
	ConvBadFile:     "The base instructions file cannot be read.",
	ConvTooLarge:    "The new conversation's first message is too long for the model.",
	ConvBudget:      "This message's work reached its budget of conversations or model calls.",

	CommandFailed:      "The command failed.",
	CommandTimeout:     "The command took too long and was stopped.",
	CommandStopped:     "The command was stopped.",
	SandboxUnavailable: "Commands cannot run here: the command sandbox is unavailable.",

	MCPToolError:      "The MCP tool reported an error.",
	MCPTimeout:        "The MCP server did not answer in time.",
	MCPCancelled:      "The MCP call was cancelled.",
	MCPServerFailed:   "The MCP server could not be started.",
	MCPNotApproved:    "This project's MCP server is not approved yet.",
	MCPDisabled:       "The MCP server is turned off.",
	MCPProtocol:       "The MCP server answered with an error.",
	MCPServerNotFound: "No MCP server of that name is set up.",
	MCPConfigInvalid:  "The MCP server's configuration has problems.",

	SkillNotFound:   "No skill of that name is available.",
	SkillUserOnly:   "Only you can turn on this skill.",
	SkillNotAllowed: "That skill is not allowed here.",
	SkillInvalid:    "The skill's SKILL.md cannot be used.",
}

// Messages are the templates of the messages that name particulars, by key
// (Msg, Text): {{name}} is a placeholder. The window has a translation of
// each (backend.msg.<key>).
var Messages = map[string]string{}

// messages adds templates to Messages (one call per domain, from its file).
func messages(m map[string]string) struct{} {
	for k, v := range m {
		if _, dup := Messages[k]; dup {
			panic("errs: message key " + k + " defined twice")
		}
		Messages[k] = v
	}
	return struct{}{}
}
