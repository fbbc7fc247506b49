package workflow

import (
	"encoding/json"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/tools"
)

// WidgetAnswerRecord is kept in the "widget" field of the user message that answers a
// ui.ask_user widget, so that the answer can be found in the log after a restart.
type WidgetAnswerRecord struct {
	WidgetID string             `json:"widgetId"`
	Type     string             `json:"type"`
	Answer   tools.WidgetAnswer `json:"answer"`
}

// pendingWidget returns the widget of the run's last ui.ask_user call when no user message
// of the run has followed it. The log alone decides, so a restart keeps it pending.
// settled is false when the entries hold no message of the run that decides it (the
// answer lies further back in the log).
// (the rule is conversation.PendingQuestion's).
func pendingWidget(entries []*conversation.Entry, runID string) (w *tools.Widget, settled bool) {
	q, settled := conversation.PendingQuestion(entries, runID)
	if q == nil {
		return nil, settled
	}
	w = &tools.Widget{}
	if json.Unmarshal(conversation.WidgetObject(q.Widget), w) != nil {
		return nil, settled
	}
	return w, true
}

// widgetWindow is how many of the newest entries are searched for a run's pending question
// before the whole log is read.
const widgetWindow = 200

// pendingWidgetIn returns the run's unanswered ui.ask_user widget in its conversation, or
// nil. The newest entries settle it unless other talk followed the run's last message; only
// then is the whole log read.
func (s *Service) pendingWidgetIn(convID, runID string) (*tools.Widget, error) {
	entries, err := s.cfg.Store.LoadTail(convID, widgetWindow)
	if err != nil {
		return nil, err
	}
	if w, settled := pendingWidget(entries, runID); settled || len(entries) < widgetWindow {
		return w, nil
	}
	if entries, err = s.cfg.Store.Load(convID); err != nil {
		return nil, err
	}
	w, _ := pendingWidget(entries, runID)
	return w, nil
}

// confirmationAvailable reports whether the run's latest confirmation answer was "yes" and
// no write to the state file has succeeded since: the user's go-ahead for one change of the
// state of a completed workflow.
func confirmationAvailable(entries []*conversation.Entry, runID string) bool {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.IsMessage() || e.RunID != runID {
			continue
		}
		switch e.Role {
		case conversation.RoleTool:
			if isStateWrite(e) {
				return false
			}
		case conversation.RoleUser:
			if len(e.Widget) == 0 {
				continue
			}
			var a WidgetAnswerRecord
			if json.Unmarshal(e.Widget, &a) == nil && a.Type == tools.WidgetConfirmation && a.Answer.Confirmed != nil {
				return *a.Answer.Confirmed
			}
		}
	}
	return false
}

// isStateWrite reports a successful fs.write or fs.apply_patch of the state file.
func isStateWrite(e *conversation.Entry) bool {
	if e.IsError || (e.ToolName != conversation.ToolFSWrite && e.ToolName != conversation.ToolFSApplyPatch) {
		return false
	}
	var r struct {
		OK   bool   `json:"ok"`
		Path string `json:"path"`
	}
	return json.Unmarshal([]byte(e.Text()), &r) == nil && r.OK && r.Path == StateAlias
}

// Words read as yes or no when a confirmation is answered with text.
var (
	yesWords = []string{"yes", "y", "ok", "okay", "confirm", "confirmed", "true", "sure", "go ahead", "是", "好", "确认"}
	noWords  = []string{"no", "n", "false", "cancel", "deny", "don't", "do not", "否", "不", "取消"}
)

// answerFromText reads a text reply as a structured answer to w: yes/no for a
// confirmation, an option value or label for a selection, a JSON object for a form. ok is
// false when the text is not such an answer (it is then sent as plain text).
func answerFromText(w *tools.Widget, text string) (tools.WidgetAnswer, bool) {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(text), ".!"))
	switch w.Type {
	case tools.WidgetConfirmation:
		for _, y := range yesWords {
			if t == y {
				v := true
				return tools.WidgetAnswer{Confirmed: &v}, true
			}
		}
		for _, n := range noWords {
			if t == n {
				v := false
				return tools.WidgetAnswer{Confirmed: &v}, true
			}
		}
	case tools.WidgetSelection:
		for _, o := range w.Options {
			if strings.EqualFold(o.Value, strings.TrimSpace(text)) || strings.EqualFold(o.Label, strings.TrimSpace(text)) {
				return tools.WidgetAnswer{Selected: o.Value}, true
			}
		}
	case tools.WidgetForm:
		var vals map[string]any
		if json.Unmarshal([]byte(text), &vals) == nil && vals != nil {
			a := tools.WidgetAnswer{Values: vals}
			if w.ValidateAnswer(a) == nil {
				return a, true
			}
		}
	}
	return tools.WidgetAnswer{}, false
}
