package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// logLineWords says what a line of a run's execution log records, by the
// templates of errs.Messages (a tool call as the conversation tells it:
// conversation.CallSaid); said in English, its first letter is a capital.
func logLineWords(l ExecLogLine, info *conversation.RunInfo) errs.Words {
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
	say := errs.Say
	switch l.Type {
	case "":
		return say("run.log.unreadable", nil)
	case "tool_call":
		return conversation.CallSaid(l.Tool, l.Args, l.OK != nil && !*l.OK, info)
	case "run_created":
		return say("run.log.created", nil)
	case "turn_start":
		switch {
		case rec.Intent == IntentStart:
			return say("run.log.started", nil)
		case rec.Input:
			return say("run.log.turnWithInput", nil)
		}
		return say("run.log.turn", nil)
	case "turn_end":
		phase := phaseWords(rec.Phase)
		switch {
		case rec.Requests == 1:
			return say("run.log.turnEndedRequest", errs.Params{"phase": phase})
		case rec.Requests > 1:
			return say("run.log.turnEndedRequests", errs.Params{"phase": phase, "n": rec.Requests})
		}
		return say("run.log.turnEnded", errs.Params{"phase": phase})
	case "artifact_recorded":
		return say("run.log.artifact", errs.Params{"file": path.Base(rec.Path)})
	case "artifact_rollback":
		if rec.Removed {
			return say("run.log.artifactRemoved", errs.Params{"file": path.Base(rec.Path)})
		}
		return say("run.log.artifactFailed", errs.Params{"file": path.Base(rec.Path)})
	case "record_failed":
		return say("run.log.recordFailed", nil)
	}
	return say("run.log.other", errs.Params{"type": strings.ReplaceAll(l.Type, "_", " ")})
}

// phaseWords names a run phase for a person (an unknown one by its name).
func phaseWords(phase string) any {
	switch phase {
	case PhaseWaitingUser:
		return errs.Say("run.phase.waitingUser", nil)
	case PhaseCompleted:
		return errs.Say("run.phase.completed", nil)
	case PhaseFailed:
		return errs.Say("run.phase.failed", nil)
	case PhaseRunning:
		return errs.Say("run.phase.running", nil)
	case "":
		return errs.Say("run.phase.done", nil)
	}
	return phase
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Limits of Log.
const (
	defaultRunLogLines = 200
	maxRunLogLines     = 2000
	maxRunLogBytes     = 4 << 20 // read from the end of execution.jsonl at most
)

// ExecLogLine is one line of a run's execution.jsonl: a tool call (type
// "tool_call", with tool, arguments, ok and code) or a runtime record
// (run_created, turn_start, turn_end, artifact_recorded, ...).
type ExecLogLine struct {
	TS         string `json:"ts"`
	Type       string `json:"type"`
	Tool       string `json:"tool,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// Args are the call's arguments as compact JSON (long contents cut by
	// the tool host).
	Args       string `json:"args,omitempty"`
	OK         *bool  `json:"ok,omitempty"`
	Code       string `json:"code,omitempty"`
	DurationMs int64  `json:"durationMs,omitempty"`
	// Raw is the whole line as written.
	Raw string `json:"raw"`
	// Text says what the line records, in words; Words by its templates
	// (errs.Messages), for the window to say it in the user's language.
	Text  string      `json:"text"`
	Words *errs.Words `json:"words,omitempty"`
}

// RunLogView is the end of a run's execution log, oldest line first.
type RunLogView struct {
	RunID string        `json:"runId"`
	Lines []ExecLogLine `json:"lines"`
	// Truncated is true when older lines exist before Lines[0].
	Truncated bool `json:"truncated"`
}

// Log returns the last limit lines of a run's execution log
// (runs/<runId>/state/logs/execution.jsonl; limit <= 0: 200, at most 2000),
// each with what it records in words. Lines that are not JSON are returned
// with only Raw set.
func (s *Service) Log(runID string, limit int) (RunLogView, error) {
	if _, err := s.Get(runID); err != nil {
		return RunLogView{}, err
	}
	if runID != filepath.Base(runID) || runID == "." || runID == ".." {
		return RunLogView{}, errs.Errorf(errs.RunNotFound, "%q is not a run id", runID)
	}
	switch {
	case limit <= 0:
		limit = defaultRunLogLines
	case limit > maxRunLogLines:
		limit = maxRunLogLines
	}
	path := s.execLogPath(runID)
	raw, more, err := tailLines(path, limit, maxRunLogBytes)
	if errors.Is(err, os.ErrNotExist) {
		return RunLogView{RunID: runID, Lines: []ExecLogLine{}}, nil
	}
	if err != nil {
		return RunLogView{}, err
	}
	out := RunLogView{RunID: runID, Lines: make([]ExecLogLine, 0, len(raw)), Truncated: more}
	info, _ := s.ScreenInfo(runID) // without it, the words name no steps
	for _, l := range raw {
		line := parseExecLine(l)
		w := logLineWords(line, info)
		line.Words, line.Text = &w, capitalize(w.String())
		out.Lines = append(out.Lines, line)
	}
	return out, nil
}

func parseExecLine(line string) ExecLogLine {
	out := ExecLogLine{Raw: line}
	var rec struct {
		TS         string          `json:"ts"`
		Type       string          `json:"type"`
		Tool       string          `json:"tool"`
		ToolCallID string          `json:"toolCallId"`
		Args       json.RawMessage `json:"args"`
		OK         *bool           `json:"ok"`
		Code       string          `json:"code"`
		DurationMs int64           `json:"durationMs"`
	}
	if json.Unmarshal([]byte(line), &rec) != nil {
		return out
	}
	out.TS, out.Type, out.Tool, out.ToolCallID = rec.TS, rec.Type, rec.Tool, rec.ToolCallID
	out.OK, out.Code, out.DurationMs = rec.OK, rec.Code, rec.DurationMs
	if len(rec.Args) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, rec.Args) == nil {
			out.Args = b.String()
		} else {
			out.Args = string(rec.Args)
		}
	}
	return out
}

// tailLines returns the last n non-empty lines of the file at path, reading
// at most maxBytes from its end; more is true when older lines exist. A last
// line cut by a write in progress is returned as it is.
func tailLines(path string, n int, maxBytes int64) (lines []string, more bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	size := st.Size()
	const chunk = 64 << 10
	var buf []byte
	pos := size
	for pos > 0 && size-pos < maxBytes {
		step := int64(chunk)
		if step > pos {
			step = pos
		}
		if size-pos+step > maxBytes {
			step = maxBytes - (size - pos)
		}
		pos -= step
		part := make([]byte, step)
		if _, err := f.ReadAt(part, pos); err != nil && err != io.EOF {
			return nil, false, err
		}
		buf = append(part, buf...)
		if bytes.Count(buf, []byte{'\n'}) > n {
			break
		}
	}
	partialFirst := pos > 0
	all := strings.Split(string(buf), "\n")
	if partialFirst && len(all) > 0 {
		all = all[1:] // the first piece may be the end of an older line
	}
	for _, l := range all {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, "\r"))
		}
	}
	more = partialFirst
	if len(lines) > n {
		lines, more = lines[len(lines)-n:], true
	}
	return lines, more, nil
}
