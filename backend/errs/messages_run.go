package errs

// A workflow run's progress in words: what a tool call of a step did
// (run.call.*, naming run.target.*), a step's title (run.step.*) and the
// lines of the run's execution log (run.log.*).
var _ = messages(map[string]string{
	"run.target.state":       "the run's state",
	"run.target.savedOutput": "a saved tool output",
	"run.target.stepFile":    "the step's instructions",
	"run.target.project":     "the project",
	"run.target.aFile":       "a file",
	"run.target.nextStep":    "the next step",

	"run.call.all":                  "{{list}}",
	"run.call.tried":                "tried: {{list}} (failed)",
	"run.call.read":                 "read {{what}}",
	"run.call.list":                 "listed {{what}}",
	"run.call.search":               "searched for “{{pattern}}”",
	"run.call.searchFiles":          "searched the files",
	"run.call.write":                "wrote {{what}}",
	"run.call.edit":                 "edited {{what}}",
	"run.call.ask":                  "asked you a question",
	"run.call.handOff":              "handed a task to a new conversation",
	"run.call.handOffNamed":         "handed a task to a new conversation “{{name}}”",
	"run.call.askOther":             "asked another conversation",
	"run.call.askOtherNamed":        "asked another conversation “{{name}}”",
	"run.call.listConversations":    "listed the conversations",
	"run.call.readOther":            "read another conversation's messages",
	"run.call.deleteConversation":   "deleted a conversation it had made",
	"run.call.activateSkill":        "activated the skill",
	"run.call.activateSkillNamed":   "activated the skill “{{name}}”",
	"run.call.deactivateSkill":      "deactivated the skill",
	"run.call.deactivateSkillNamed": "deactivated the skill “{{name}}”",
	"run.call.usedMCP":              "used {{tool}} of {{server}}",
	"run.call.used":                 "used the tool {{tool}}",
	"run.call.updatedState":         "updated the run's state",
	"run.call.decided":              "decided: {{label}}",
	"run.call.decidedGoTo":          "decided to go to {{node}}",
	"run.call.movedTo":              "moved to {{node}}",
	"run.call.finishedRun":          "finished the run",
	"run.call.finished":             "finished {{node}}",

	"run.step.untitled": "Run step",
	"run.step.title":    "{{title}}",
	"run.step.after":    "After the run",
	"run.step.numbered": "Step {{n}} · {{title}}",
})

var _ = messages(map[string]string{
	"run.log.unreadable":        "A line the app cannot read",
	"run.log.created":           "The run was created",
	"run.log.started":           "The run started",
	"run.log.turnWithInput":     "A turn started with your message",
	"run.log.turn":              "A turn started",
	"run.log.turnEnded":         "The turn ended: {{phase}}",
	"run.log.turnEndedRequest":  "The turn ended: {{phase}} (1 model request)",
	"run.log.turnEndedRequests": "The turn ended: {{phase}} ({{n}} model requests)",
	"run.log.artifact":          "Recorded the file {{file}} among the run's artifacts",
	"run.log.artifactRemoved":   "Removed {{file}}: the run could not record it",
	"run.log.artifactFailed":    "Could not record {{file}}",
	"run.log.recordFailed":      "A record of the run could not be written",
	"run.log.other":             "{{type}}",

	"run.phase.waitingUser": "waiting for you",
	"run.phase.completed":   "the run is complete",
	"run.phase.failed":      "it failed",
	"run.phase.running":     "still running",
	"run.phase.done":        "done",
})
