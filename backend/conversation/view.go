package conversation

import (
	"encoding/json"
	"strings"
)

// Kinds of entries as the conversation screen shows them (View.Kind).
const (
	// ViewUser: a message the user typed (Text is its text).
	ViewUser = "user"
	// ViewRunInput: a message the user sent to a run (Text is the user's
	// words without the USER_INPUT header, ForNode the node it was for).
	ViewRunInput = "run-input"
	// ViewAnswer: a user message that answers a question shown with it (the
	// question shows the answer; AnswerTo names it; Text is the user's words
	// for a screen that does not have the question).
	ViewAnswer = "answer"
	// ViewAssistant: answer text, tool calls, or both.
	ViewAssistant = "assistant"
	// ViewThinking: the model's reasoning.
	ViewThinking = "thinking"
	// ViewToolResult: the result of a tool call.
	ViewToolResult = "tool-result"
	// ViewQuestion: a ui.ask_user question of a run (Question says its state).
	ViewQuestion = "question"
	// ViewError: a failed reply (Text is the partial answer, Error the block).
	ViewError = "error"
	// ViewEvent: an event line (compaction, checkpoint, mode switch, ...).
	ViewEvent = "event"
	// ViewHidden: system, developer and meta messages.
	ViewHidden = "hidden"
)

// States of a question (QuestionView.State).
const (
	QuestionPending    = "pending"    // the run waits for its answer
	QuestionAnswered   = "answered"   // Answer holds the answer
	QuestionUnanswered = "unanswered" // the conversation went on without an answer
)

// View says what an entry is for the conversation screen, with the protocol
// already decoded, so the screen never parses the log's encodings itself.
type View struct {
	Kind    string `json:"kind"`
	Text    string `json:"text,omitempty"`
	ForNode string `json:"forNode,omitempty"`
	// Error is the failure of a ViewError entry.
	Error *ErrorBlock `json:"error,omitempty"`
	// Latest marks the newest failed reply when no message of the user
	// follows it: Continue and Retry apply to it.
	Latest bool `json:"latest,omitempty"`
	// Question is the state of a ViewQuestion entry.
	Question *QuestionView `json:"question,omitempty"`
	// AnswerTo is the widget a ViewAnswer entry answers.
	AnswerTo string `json:"answerTo,omitempty"`
}

// QuestionView is a question (its widget, as a JSON object however the log
// stores it), its state and, once answered, its answer record
// ({"widgetId", "type", "answer"}).
type QuestionView struct {
	WidgetID string          `json:"widgetId"`
	State    string          `json:"state"`
	Widget   json.RawMessage `json:"widget"`
	Answer   json.RawMessage `json:"answer,omitempty"`
}

// EntryView is an entry with its view; it encodes as the entry's JSON object
// with one more field, "view".
type EntryView struct {
	*Entry
	View View `json:"view"`
}

// Views decodes what each entry of a stretch of a log is. Questions,
// answers and the latest failure are judged within entries, so entries
// should reach the end of the log.
func Views(entries []*Entry) []EntryView {
	answers := map[string]json.RawMessage{}
	questions := map[string]bool{}
	for _, e := range entries {
		if id := AnsweredWidgetID(e); id != "" {
			answers[id] = WidgetObject(e.Widget)
		}
		if id := WidgetID(e); id != "" {
			questions[id] = true
		}
	}
	pending := pendingQuestions(entries)
	latest := latestFailure(entries)

	out := make([]EntryView, len(entries))
	for i, e := range entries {
		out[i] = EntryView{Entry: e, View: viewOf(e, answers, questions, pending)}
		if e.ID == latest && out[i].View.Kind == ViewError {
			out[i].View.Latest = true
		}
	}
	return out
}

func viewOf(e *Entry, answers map[string]json.RawMessage, questions, pending map[string]bool) View {
	switch {
	case e.IsEvent():
		return View{Kind: ViewEvent}
	case !e.IsMessage(), e.IsMeta, e.Role == RoleSystem, e.Role == RoleDeveloper:
		return View{Kind: ViewHidden}
	case e.PartType == PartError:
		partial, b := ParseErrorContent(e.Text())
		return View{Kind: ViewError, Text: partial, Error: &b}
	}
	switch e.Role {
	case RoleUser:
		text, node, run := ParseRunInput(e.Text())
		switch {
		case AnsweredWidgetID(e) != "" && questions[AnsweredWidgetID(e)]:
			return View{Kind: ViewAnswer, AnswerTo: AnsweredWidgetID(e), Text: text, ForNode: node}
		case run:
			return View{Kind: ViewRunInput, Text: text, ForNode: node}
		}
		return View{Kind: ViewUser, Text: e.Text()}
	case RoleAssistant:
		if e.PartType == PartThinking {
			return View{Kind: ViewThinking}
		}
		return View{Kind: ViewAssistant}
	case RoleTool:
		if id := WidgetID(e); id != "" {
			q := &QuestionView{WidgetID: id, State: QuestionUnanswered, Widget: WidgetObject(e.Widget)}
			switch {
			case answers[id] != nil:
				q.State, q.Answer = QuestionAnswered, answers[id]
			case pending[id]:
				q.State = QuestionPending
			}
			return View{Kind: ViewQuestion, Question: q}
		}
		return View{Kind: ViewToolResult}
	}
	return View{Kind: ViewHidden}
}

// latestFailure is the id of the newest failed reply when no message of the
// user follows it ("" when there is none).
func latestFailure(entries []*Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.IsMessage() {
			continue
		}
		if e.Role == RoleUser && !e.IsMeta {
			return ""
		}
		if e.PartType == PartError {
			return e.ID
		}
	}
	return ""
}

// EndsUnfinished reports whether a log read while no reply was running ends
// waiting for a reply that will not come: after what the user sent, a tool
// call or its result, reasoning, or an answered question (the app was
// closed or killed mid-reply, or the log could not be written). Events,
// hidden messages and empty replies do not count. views must reach the end
// of the log.
func EndsUnfinished(views []EntryView) bool {
	calls := map[string]bool{}
	for _, v := range views {
		if v.IsMessage() && v.Role == RoleAssistant {
			for _, c := range v.ToolCalls {
				calls[c.ID] = true
			}
		}
	}
	results := map[string]EntryView{}
	for _, v := range views {
		if v.IsMessage() && v.Role == RoleTool && v.ToolCallID != "" {
			results[v.ToolCallID] = v
		}
	}
	for i := len(views) - 1; i >= 0; i-- {
		v := views[i]
		switch v.View.Kind {
		case ViewEvent, ViewHidden, ViewAnswer:
			continue
		case ViewUser, ViewRunInput, ViewThinking:
			return true
		case ViewError:
			return false
		case ViewToolResult, ViewQuestion:
			if v.ToolCallID != "" && calls[v.ToolCallID] {
				continue // shown with its call
			}
			return v.View.Kind == ViewToolResult || v.View.Question.State == QuestionAnswered
		case ViewAssistant:
			if len(v.ToolCalls) == 0 {
				if strings.TrimSpace(v.Text()) == "" {
					continue
				}
				return false
			}
			last := v.ToolCalls[len(v.ToolCalls)-1]
			if r, ok := results[last.ID]; ok && r.View.Kind == ViewQuestion {
				return r.View.Question.State == QuestionAnswered
			}
			return true
		}
	}
	return false
}
