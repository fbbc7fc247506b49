package contextbuilder

import (
	"encoding/json"
	"strconv"
	"strings"

	"crewagent/backend/conversation"
)

// OmittedToolResultPrefix starts the stub that stands in for a tool result
// when Options.OmitToolResults is set:
//
//	TOOL_RESULT_OMITTED {"ok":false,"error":{"code":"ENOENT"}} (96 bytes; includeToolResultsInContext is off)
//	TOOL_RESULT_OMITTED {"ok":true} (120000 bytes; includeToolResultsInContext is off) — read it with fs.read on @state/logs/tool-results/<conv>/<msg>.json if needed
const OmittedToolResultPrefix = "TOOL_RESULT_OMITTED"

// omitted reports whether entry i is a tool result sent as a stub: results
// with content logged before the newest user message, when results are off.
func (b *builder) omitted(i int32) bool {
	if !b.opts.OmitToolResults || b.anchor < 0 || i >= b.anchor {
		return false
	}
	e := &b.opts.History[i]
	return e.Role == conversation.RoleTool && e.Text() != ""
}

// omittedTokens returns what the stub of item it costs, counted once per build.
func (b *builder) omittedTokens(it item) int {
	if n, ok := b.stubCost[it.entry]; ok {
		return n
	}
	e := &b.opts.History[it.entry]
	m := Message{Role: conversation.RoleTool, Content: conversation.Str(omittedResult(e)), ToolCallID: e.ToolCallID, Name: e.ToolName}
	if it.callID != "" {
		m.ToolCallID = it.callID
	}
	n := CountMessage(b.opts.Counter, b.opts.Model, &m)
	if b.stubCost == nil {
		b.stubCost = make(map[int32]int)
	}
	b.stubCost[it.entry] = n
	return n
}

// omittedResult returns the stub of tool result e: its status, its size in
// bytes (of the full output when the log keeps only a preview) and, when the
// full output was saved, the alias path to read it from.
func omittedResult(e *conversation.Entry) string {
	text := e.Text()
	size := len(text)
	alias := e.FullOutputPath
	if !strings.HasPrefix(alias, "@") {
		alias = ""
	}
	var status string
	if alias != "" {
		if n, ok := previewSize(text); ok {
			size = n
		}
		status = resultStatus(!e.IsError, "")
	} else {
		status = statusOf(text, e.IsError)
	}
	s := OmittedToolResultPrefix + " " + status + " (" + strconv.Itoa(size) + " bytes; includeToolResultsInContext is off)"
	if alias != "" {
		s += " — read it with fs.read on " + alias + " if needed"
	}
	return s
}

// statusOf summarises a tool result's JSON ({"ok":…,"error":{"code":…}}) in
// one line; a result that is not such an object is ok unless flagged an error.
func statusOf(text string, isError bool) string {
	var r struct {
		OK    *bool `json:"ok"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Unmarshal([]byte(text), &r) == nil && r.OK != nil {
		code := ""
		if r.Error != nil {
			code = r.Error.Code
		}
		return resultStatus(*r.OK, code)
	}
	return resultStatus(!isError, "")
}

func resultStatus(ok bool, code string) string {
	switch {
	case ok:
		return `{"ok":true}`
	case code == "":
		return `{"ok":false}`
	}
	c, _ := json.Marshal(code) // a string: cannot fail
	return `{"ok":false,"error":{"code":` + string(c) + `}}`
}

// previewSize reads N from the header "TOOL_RESULT_PREVIEW (N bytes; …" the
// store writes when it keeps only a preview of a large output.
func previewSize(text string) (int, bool) {
	rest, ok := strings.CutPrefix(text, conversation.PreviewPrefix+"(")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, " bytes")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
