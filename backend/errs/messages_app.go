package errs

// Sending, runs' questions, packages chosen for a run, MCP server actions.
var _ = messages(map[string]string{
	"app.closing":            "the project is closing",
	"chat.empty":             "the message is empty",
	"chat.retryAttachments":  "a retry takes no attachments: send them with a new message",
	"chat.runAttachments":    "a run takes its input as text: attach files to chat or agent messages, or put them in the project folder",
	"chat.runRetry":          "a run takes its input again as a new message: send it",
	"chat.runCannotGoBack":   "a workflow run cannot go back to an earlier message: fork the conversation from it instead",
	"chat.busy":              "a reply is already being generated in this conversation; wait for it or stop it",
	"chat.unknownMode":       "unknown mode \"{{mode}}\": messages are sent in chat, agent or run mode",
	"chat.runNeedsRun":       "run mode needs the conversation of a run",
	"run.none":               "this conversation has no workflow run yet: choose a workflow and start one",
	"run.answered":           "this question was already answered or replaced by a newer one",
	"pkg.activeMissing":      "the project's package \"{{id}}\" is not installed: import it again or choose another one (see 'crewagent package list')",
	"pkg.noneDemoRemoved":    "no package is installed (the bundled demo was removed): import one with 'crewagent package import FILE' or put the demo back with 'crewagent package install-demo'",
	"pkg.noActive":           "this project has no active package: choose one in Settings → Packages",
	"pkg.none":               "no package is installed: import one or put the bundled demo back",
	"pkg.ambiguous":          "{{n}} installed packages could run workflow \"{{workflow}}\"; choose one with --package (see 'crewagent package list')",
	"pkg.noFile":             "no package file given: choose a .bmad or .zip file",
	"pkg.relativePath":       "give the full path of the package file ({{path}} is relative)",
	"mcp.settingsNoApproval": "the MCP server \"{{name}}\" comes from the settings: it needs no approval",
	"mcp.settingsServer":     "the MCP server \"{{name}}\" comes from the settings: disable or remove it there instead",
	"mcp.disabled":           "the MCP server \"{{name}}\" is disabled: enable it first",
	"mcp.notApproved":        "the MCP server \"{{name}}\" of the project's {{file}} is not approved: approve it first",
	"mcp.noServer":           "there is no MCP server \"{{name}}\" here (see 'crewagent mcp list' or Settings → MCP)",
})
