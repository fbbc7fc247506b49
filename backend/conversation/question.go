package conversation

import (
	"bytes"
	"encoding/json"
)

// A ui.ask_user question of a run is the widget carried by a tool message of
// the run ("widget": {"widgetId", "type", ...}); its answer is the widget
// field of the user message that answers it ("widget": {"widgetId", "type",
// "answer"}).

// WidgetObject returns the JSON object of an entry's widget field, which
// writers store as an object or as the text of one (nil when it is neither).
func WidgetObject(raw json.RawMessage) json.RawMessage {
	raw = json.RawMessage(bytes.TrimSpace(raw))
	if len(raw) > 0 && raw[0] == '"' {
		var text string
		if json.Unmarshal(raw, &text) != nil {
			return nil
		}
		raw = json.RawMessage(bytes.TrimSpace([]byte(text)))
	}
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil
	}
	return raw
}

// WidgetID returns the widgetId of a question carried by a tool message, or "".
func WidgetID(e *Entry) string {
	if !e.IsMessage() || e.Role != RoleTool {
		return ""
	}
	obj := WidgetObject(e.Widget)
	if obj == nil {
		return ""
	}
	var w struct {
		ID   string `json:"widgetId"`
		Type string `json:"type"`
	}
	if json.Unmarshal(obj, &w) != nil || w.Type == "" {
		return ""
	}
	return w.ID
}

// AnsweredWidgetID returns the widgetId a user message answers, or "".
func AnsweredWidgetID(e *Entry) string {
	if !e.IsMessage() || e.Role != RoleUser {
		return ""
	}
	obj := WidgetObject(e.Widget)
	if obj == nil {
		return ""
	}
	var a struct {
		ID     string          `json:"widgetId"`
		Answer json.RawMessage `json:"answer"`
	}
	if json.Unmarshal(obj, &a) != nil || len(a.Answer) == 0 || a.Answer[0] != '{' {
		return ""
	}
	return a.ID
}

// PendingQuestion finds the run's question that waits for an answer: its
// latest question when no user or assistant message of the run follows it.
// The log alone decides, so a restart keeps it pending. It returns the tool
// message carrying it (nil when none waits); settled is false when entries
// hold no message of the run that decides it (it lies further back).
func PendingQuestion(entries []*Entry, runID string) (question *Entry, settled bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.IsMessage() || e.RunID != runID {
			continue
		}
		switch e.Role {
		case RoleTool:
			if WidgetID(e) != "" {
				return e, true
			}
		case RoleUser, RoleAssistant:
			return nil, true
		}
	}
	return nil, false
}

// pendingQuestions returns the widget ids of the questions that wait for an
// answer, one run at a time (PendingQuestion for every run of entries).
func pendingQuestions(entries []*Entry) map[string]bool {
	out := map[string]bool{}
	decided := map[string]bool{}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.IsMessage() || e.RunID == "" || decided[e.RunID] {
			continue
		}
		switch e.Role {
		case RoleTool:
			if id := WidgetID(e); id != "" {
				out[id] = true
				decided[e.RunID] = true
			}
		case RoleUser, RoleAssistant:
			decided[e.RunID] = true
		}
	}
	return out
}
