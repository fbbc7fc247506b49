package conversation

import (
	"encoding/json"
	"strings"

	"crewagent/backend/errs"
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
	// ViewAssistant: answer text, tool calls, or both (Incomplete says when
	// the server cut the answer short).
	ViewAssistant = "assistant"
	// ViewThinking: the model's reasoning.
	ViewThinking = "thinking"
	// ViewToolResult: the result of a tool call.
	ViewToolResult = "tool-result"
	// ViewQuestion: a ui.ask_user question of a run (Question says its state).
	ViewQuestion = "question"
	// ViewError: a failed reply (Text is the partial answer, Error the block,
	// Problem what it means).
	ViewError = "error"
	// ViewStopped: a reply that was stopped (Text is what had arrived, Error
	// the block).
	ViewStopped = "stopped"
	// ViewEvent: an event line (compaction, checkpoint, mode switch, ...).
	ViewEvent = "event"
	// ViewSkill: the is_meta message carrying a skill's instructions (Skill
	// says which, whether it still applies, and the instructions).
	ViewSkill = "skill"
	// ViewHidden: system and developer messages, other meta messages.
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
	// Error is the failure of a ViewError or ViewStopped entry; Problem says
	// what it means in words (ViewError only).
	Error   *ErrorBlock `json:"error,omitempty"`
	Problem *Problem    `json:"problem,omitempty"`
	// Incomplete is the finish reason of an answer the server cut short
	// ("length" or "content_filter"): its text is partial and its tool calls
	// were not run.
	Incomplete string `json:"incomplete,omitempty"`
	// Latest marks the newest failed, stopped or incomplete reply when no
	// message of the user follows it: Retry applies to it, and Continue when
	// Continue is set (there is something to continue from: text that had
	// arrived, or steps of the reply before it).
	Latest   bool `json:"latest,omitempty"`
	Continue bool `json:"continue,omitempty"`
	// Inactive marks an entry of a branch variant that is not chosen: it is
	// not shown, and not in the context.
	Inactive bool `json:"inactive,omitempty"`
	// Branch is the switcher of a branch point, on the first message of the
	// chosen variant.
	Branch *BranchView `json:"branch,omitempty"`
	// Large is set on a tool result whose output is too large for the log:
	// the log keeps its beginning, a file the whole of it.
	Large *LargeResult `json:"large,omitempty"`
	// Question is the state of a ViewQuestion entry.
	Question *QuestionView `json:"question,omitempty"`
	// AnswerTo is the widget a ViewAnswer entry answers.
	AnswerTo string `json:"answerTo,omitempty"`
	// Handover is set on the result of a conv.create or conv.send call: the
	// conversation the turn went to and how that went.
	Handover *HandoverView `json:"handover,omitempty"`
	// Skill is the skill of a ViewSkill entry, and of a skill_deactivated
	// event (a ViewEvent).
	Skill *SkillView `json:"skill,omitempty"`
	// Pinned marks a message the user pinned (compaction keeps it word for
	// word).
	Pinned bool `json:"pinned,omitempty"`
	// Compaction describes a compaction event: how many messages, the
	// summary and what was kept word for word.
	Compaction *CompactionView `json:"compaction,omitempty"`
	// Step is set on the first entry of a run's step shown as one row (its
	// tool calls in words: steps.go); InStep, on the step's other entries,
	// names that first entry.
	Step   *StepView `json:"step,omitempty"`
	InStep string    `json:"inStep,omitempty"`
	// Calls says what each tool call of an assistant message did, in words,
	// by tool call id (CallSaid).
	Calls map[string]string `json:"calls,omitempty"`
	// CallWords are Calls by their templates (errs.Messages), for the window
	// to say them in the user's language.
	CallWords map[string]errs.Words `json:"callWords,omitempty"`
}

// ViewOptions is what the views know beyond the entries.
type ViewOptions struct {
	// Runs describe the workflow runs of the entries, by run id: the steps
	// of a run are titled with its nodes.
	Runs map[string]*RunInfo
	// Summary turns the text of a summary message into what the screen
	// shows (nil: the text without its marker line).
	Summary func(text string) string
}

// LargeResult is a tool result kept as a preview: Size is the length of the
// whole output in bytes, Head its beginning.
type LargeResult struct {
	Size int    `json:"size"`
	Head string `json:"head"`
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
// answers, branches, pins and the latest failure are judged within entries,
// so entries should reach the end of the log.
func Views(entries []*Entry) []EntryView { return ViewsWith(entries, ViewOptions{}) }

// ViewsWith is Views with what the caller knows of the runs and summaries.
func ViewsWith(entries []*Entry, opts ViewOptions) []EntryView {
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
	branches := Branches(entries)
	skills := newSkillRows(entries)

	out := make([]EntryView, len(entries))
	for i, e := range entries {
		out[i] = EntryView{Entry: e, View: viewOf(e, answers, questions, pending)}
		out[i].View.Inactive = branches.Inactive(e.ID)
		if v := skills.bodies[e.ID]; v != nil && e.IsMessage() {
			out[i].View.Kind, out[i].View.Skill = ViewSkill, v
		} else if v := skills.ends[e.ID]; v != nil && e.IsEvent() {
			out[i].View.Skill = v
		}
	}
	if i := latestFailure(out); i >= 0 {
		out[i].View.Latest = true
		out[i].View.Continue = partialText(out[i]) || replyStarted(out[:i])
	}
	placeSwitchers(out, entries, branches)
	markPins(out)
	describeCompactions(out, opts.Summary)
	groupSteps(out, opts.Runs)
	describeCalls(out, opts.Runs)
	return out
}

// placeSwitchers puts the switcher of each branch point on the active path on
// the first message of its chosen variant.
func placeSwitchers(out []EntryView, entries []*Entry, s BranchState) {
	if len(s.Points) == 0 {
		return
	}
	at := make(map[string]int, len(entries))
	for i, e := range entries {
		at[e.ID] = i
	}
	for _, p := range s.Points {
		if !s.Shown(p) {
			continue
		}
		h, ok := at[s.head(p, entries)]
		if !ok {
			continue
		}
		// The entries of the chosen variant that were read: from the point
		// on, or from the start of the stretch when the point lies before it.
		var anchor *Entry
		from := entries
		if i, ok := at[p.After]; ok {
			anchor, from = entries[i], entries[i+1:]
		}
		active, _ := s.ActiveAfter(from, "")
		out[h].View.Branch = &BranchView{After: p.After, Index: p.Active + 1, Count: len(p.Variants),
			Reason: p.Reason, Frozen: Frozen(anchor, active)}
	}
}

func viewOf(e *Entry, answers map[string]json.RawMessage, questions, pending map[string]bool) View {
	switch {
	case e.IsEvent():
		return View{Kind: ViewEvent}
	case !e.IsMessage(), e.IsMeta, e.Role == RoleSystem, e.Role == RoleDeveloper:
		return View{Kind: ViewHidden}
	case e.PartType == PartError:
		partial, b := ParseErrorContent(e.Text())
		if IsStop(b) {
			return View{Kind: ViewStopped, Text: partial, Error: &b}
		}
		p := Describe(b)
		return View{Kind: ViewError, Text: partial, Error: &b, Problem: &p}
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
		if e.Incomplete() {
			return View{Kind: ViewAssistant, Incomplete: e.FinishReason}
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
		v := View{Kind: ViewToolResult}
		if head, size, _, ok := ParseToolResultPreview(e.Text()); ok {
			v.Large = &LargeResult{Size: size, Head: head}
		}
		if IsHandoverTool(e.ToolName) {
			if h, ok := ParseHandover(e.Text()); ok {
				v.Handover = &h
			}
		}
		return v
	}
	return View{Kind: ViewHidden}
}

// latestFailure is the index of the newest failed, stopped or incomplete
// reply on the active path when nothing the user or the model said follows
// it (-1 when there is none): an answer after it (a retry) or a message of
// the user settle it.
func latestFailure(views []EntryView) int {
	for i := len(views) - 1; i >= 0; i-- {
		v := views[i]
		if !v.IsMessage() || v.View.Inactive || v.View.Kind == ViewHidden || v.View.Kind == ViewSkill {
			continue
		}
		if v.View.Kind == ViewError || v.View.Kind == ViewStopped || v.View.Incomplete != "" {
			return i
		}
		return -1
	}
	return -1
}

// partialText reports whether a failed, stopped or incomplete reply holds
// text that had arrived.
func partialText(v EntryView) bool {
	if v.View.Incomplete != "" {
		return strings.TrimSpace(v.Text()) != ""
	}
	return v.View.Text != ""
}

// replyStarted reports whether the reply in progress at the end of views
// (what follows the newest message of the user on the active path) made a
// step that stays in the context: text or a tool call of the model, or a
// tool's result. A failure at the end of such a reply can be continued.
func replyStarted(views []EntryView) bool {
	for i := len(views) - 1; i >= 0; i-- {
		v := views[i]
		if !v.IsMessage() || v.View.Inactive || !v.InContext() {
			continue
		}
		switch {
		case v.Role == RoleUser && !v.IsMeta:
			return false
		case v.View.Kind == ViewAssistant && (strings.TrimSpace(v.Text()) != "" || len(v.ToolCalls) > 0),
			v.View.Kind == ViewToolResult:
			return true
		}
	}
	return false
}

// How a conversation read while no reply runs ends (Ending).
const (
	// EndSettled: an answer, a failure shown as such, a question or an
	// approval request waiting for its answer, or nothing.
	EndSettled = ""
	// EndUnfinished: it waits for a reply that will not come: after what the
	// user sent, a tool call or its result, reasoning, or an answered
	// question, the reply was cut off (the app was closed or killed, or the
	// log could not be written).
	EndUnfinished = "unfinished"
	// EndAwaiting: it ends with a message of the user that no reply was ever
	// started for: a fork cut there.
	EndAwaiting = "awaiting"
	// EndStopped: the user stopped the work while another conversation was
	// answering for it (conv.create, conv.send): its call has a result that
	// says so, and the reply can be continued.
	EndStopped = "stopped"
)

// Ending says how a log read while no reply was running ends on its active
// path (EndSettled, EndUnfinished, EndAwaiting), and whether something of
// the cut-off reply is there to continue from. cutAt is the entry a fork was
// cut at ("" for a conversation that is not a fork of part of another): a
// log that still ends there was cut on purpose, not interrupted. Events,
// hidden messages and empty replies do not count. views must reach the end
// of the log.
func Ending(views []EntryView, cutAt string) (state string, canContinue bool) {
	calls := map[string]bool{}
	results := map[string]EntryView{}
	for _, v := range views {
		if !v.IsMessage() || v.View.Inactive {
			continue
		}
		if v.Role == RoleAssistant {
			for _, c := range v.ToolCalls {
				calls[c.ID] = true
			}
		}
		if v.Role == RoleTool && v.ToolCallID != "" {
			results[v.ToolCallID] = v
		}
	}
	unfinished := func(v EntryView, partial bool) (string, bool) {
		if cutAt != "" && v.ID == cutAt {
			if v.View.Kind == ViewUser {
				return EndAwaiting, false
			}
			return EndSettled, false
		}
		return EndUnfinished, partial
	}
	for i := len(views) - 1; i >= 0; i-- {
		v := views[i]
		if v.View.Inactive {
			continue
		}
		switch v.View.Kind {
		case ViewEvent, ViewHidden, ViewSkill, ViewAnswer:
			continue
		case ViewUser, ViewRunInput:
			return unfinished(v, false)
		case ViewThinking:
			return unfinished(v, replyStarted(views[:i]))
		case ViewError, ViewStopped:
			return EndSettled, false
		case ViewToolResult, ViewQuestion:
			if v.ToolCallID != "" && calls[v.ToolCallID] {
				continue // shown with its call
			}
			if v.View.Kind == ViewToolResult || v.View.Question.State == QuestionAnswered {
				return unfinished(v, true)
			}
			return EndSettled, false
		case ViewAssistant:
			if v.View.Incomplete != "" {
				return EndSettled, false // a reply that ended, cut short: it says so itself
			}
			if len(v.ToolCalls) == 0 {
				if strings.TrimSpace(v.Text()) == "" {
					continue
				}
				return EndSettled, false
			}
			last := v.ToolCalls[len(v.ToolCalls)-1]
			if r, ok := results[last.ID]; ok && r.View.Kind == ViewQuestion && r.View.Question.State != QuestionAnswered {
				return EndSettled, false
			}
			for _, c := range v.ToolCalls {
				if r, ok := results[c.ID]; ok && r.View.Handover != nil && r.View.Handover.Status == HandoverStopped {
					return EndStopped, true
				}
				if r, ok := results[c.ID]; ok && r.Approval.Waiting() {
					// A request the app left waiting when it closed: it is
					// the way on (its answer goes on with the reply).
					return EndSettled, false
				}
			}
			return unfinished(v, true)
		}
	}
	return EndSettled, false
}
