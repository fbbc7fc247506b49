package app

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"crewagent/backend/conversation"
	"crewagent/backend/workflow"
)

// logLineWords says what a line of a run's execution log records, in words
// (a tool call as the conversation tells it: conversation.CallWords).
func logLineWords(l ExecLogLine, info *conversation.RunInfo) string {
	var rec struct {
		Intent   string `json:"intent"`
		Input    bool   `json:"input"`
		Phase    string `json:"phase"`
		Requests int    `json:"requests"`
		Code     string `json:"code"`
		Path     string `json:"path"`
		Removed  bool   `json:"removed"`
	}
	_ = json.Unmarshal([]byte(l.Raw), &rec) // a line that is not JSON has no type and says so below
	switch l.Type {
	case "":
		return "A line the app cannot read"
	case "tool_call":
		return capitalize(conversation.CallWords(l.Tool, l.Args, l.OK != nil && !*l.OK, info))
	case "run_created":
		return "The run was created"
	case "turn_start":
		switch {
		case rec.Intent == workflow.IntentStart:
			return "The run started"
		case rec.Input:
			return "A turn started with your message"
		}
		return "A turn started"
	case "turn_end":
		s := "The turn ended: " + phaseWords(rec.Phase)
		if rec.Requests > 0 {
			s += " (" + strconv.Itoa(rec.Requests) + " model request" + plural(rec.Requests) + ")"
		}
		return s
	case "artifact_recorded":
		return "Recorded the file " + path.Base(rec.Path) + " among the run's artifacts"
	case "artifact_rollback":
		if rec.Removed {
			return "Removed " + path.Base(rec.Path) + ": the run could not record it"
		}
		return "Could not record " + path.Base(rec.Path)
	case "record_failed":
		return "A record of the run could not be written"
	}
	return capitalize(strings.ReplaceAll(l.Type, "_", " "))
}

// phaseWords names a run phase for a person.
func phaseWords(phase string) string {
	switch phase {
	case workflow.PhaseWaitingUser:
		return "waiting for you"
	case workflow.PhaseCompleted:
		return "the run is complete"
	case workflow.PhaseFailed:
		return "it failed"
	case workflow.PhaseRunning:
		return "still running"
	case "":
		return "done"
	}
	return phase
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
