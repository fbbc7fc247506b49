package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// Widget types.
const (
	WidgetConfirmation = "confirmation"
	WidgetSelection    = "selection"
	WidgetForm         = "form"
)

// Form field types.
const (
	FieldText     = "text"
	FieldTextarea = "textarea"
	FieldNumber   = "number"
	FieldBoolean  = "boolean"
	FieldSelect   = "select"
)

// Limits of a widget.
const (
	maxPromptBytes  = 4000
	maxOptions      = 50
	maxFields       = 30
	maxLabelBytes   = 200
	maxAnswerString = 20000
)

// WidgetOption is a choice of a selection (or of a select field). In arguments it may be a
// plain string (value and label alike) or {"value","label"}.
type WidgetOption struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// UnmarshalJSON accepts "text" or {"value","label"}.
func (o *WidgetOption) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		o.Value, o.Label = s, s
		return nil
	}
	var obj struct {
		Value string `json:"value"`
		Label string `json:"label"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("an option must be a string or {\"value\",\"label\"}")
	}
	if obj.Value == "" {
		obj.Value = obj.Label
	}
	if obj.Label == "" {
		obj.Label = obj.Value
	}
	*o = WidgetOption(obj)
	return nil
}

// WidgetField is one input of a form.
type WidgetField struct {
	Name     string         `json:"name"`
	Label    string         `json:"label"`
	Type     string         `json:"type"`
	Required bool           `json:"required"`
	Options  []WidgetOption `json:"options,omitempty"`
}

// UIAskUserParams are the arguments of ui.ask_user.
type UIAskUserParams struct {
	Type    string         `json:"type"`
	Prompt  string         `json:"prompt"`
	Options []WidgetOption `json:"options,omitempty"`
	Fields  []WidgetField  `json:"fields,omitempty"`
}

// Widget is a question waiting for the user. Its JSON form is what the UI renders and what
// the conversation log keeps in the tool message's "widget".
type Widget struct {
	ID         string         `json:"widgetId"`
	Type       string         `json:"type"`
	Prompt     string         `json:"prompt"`
	Options    []WidgetOption `json:"options,omitempty"`
	Fields     []WidgetField  `json:"fields,omitempty"`
	ToolCallID string         `json:"toolCallId,omitempty"`
	CreatedAt  string         `json:"createdAt"`
}

// WidgetAnswer is the user's structured answer: Confirmed for a confirmation, Selected (an
// option value) for a selection, Values (field name -> value) for a form.
type WidgetAnswer struct {
	Confirmed *bool          `json:"confirmed,omitempty"`
	Selected  string         `json:"selected,omitempty"`
	Values    map[string]any `json:"values,omitempty"`
}

const uiAskUserDescription = "Ask the user a question with a widget: \"confirmation\" (yes/no), " +
	"\"selection\" (pick one of options) or \"form\" (fields). The call returns at once with " +
	"pending:true; stop and wait: the user's answer arrives as the next user message."

const uiAskUserSchema = `{
  "type": "object",
  "properties": {
    "type": {"type": "string", "enum": ["confirmation", "selection", "form"]},
    "prompt": {"type": "string", "description": "The question shown to the user."},
    "options": {"type": "array", "items": {"type": "string"}, "description": "Choices (selection only)."},
    "fields": {
      "type": "array",
      "description": "Inputs (form only).",
      "items": {
        "type": "object",
        "properties": {
          "name": {"type": "string"},
          "label": {"type": "string"},
          "type": {"type": "string", "enum": ["text", "textarea", "number", "boolean", "select"]},
          "required": {"type": "boolean"},
          "options": {"type": "array", "items": {"type": "string"}, "description": "Choices of a select field."}
        },
        "required": ["name", "label"],
        "additionalProperties": false
      }
    }
  },
  "required": ["type", "prompt"],
  "additionalProperties": false
}`

type uiAskUserResult struct {
	Pending  bool   `json:"pending"`
	WidgetID string `json:"widgetId"`
	Message  string `json:"message"`
}

func uiAskUserTool() toolSpec {
	return toolSpec{name: conversation.ToolUIAskUser, family: "ui", description: uiAskUserDescription, schema: uiAskUserSchema, run: runUIAskUser}
}

func runUIAskUser(ctx context.Context, h *Host, raw json.RawMessage) Result {
	var p UIAskUserParams
	if terr := decodeArgs(raw, &p); terr != nil {
		return failure(terr)
	}
	if terr := validateWidget(&p); terr != nil {
		return failure(terr)
	}
	w := Widget{
		ID:         h.cfg.NewID(),
		Type:       p.Type,
		Prompt:     p.Prompt,
		Options:    p.Options,
		Fields:     p.Fields,
		ToolCallID: toolCallID(ctx),
		CreatedAt:  fsx.Stamp(h.cfg.Now()),
	}
	if h.cfg.AskUser != nil {
		if err := h.cfg.AskUser.AskUser(ctx, w); err != nil {
			return failure(errf(CodeInternal, "the question could not be shown to the user"))
		}
	}
	h.pendingMu.Lock()
	h.pending = append(h.pending, w)
	h.pendingMu.Unlock()
	res := success(uiAskUserResult{Pending: true, WidgetID: w.ID,
		Message: "The question is shown to the user. Stop now and wait: the answer arrives as the next user message."})
	res.Pending = &w
	return res
}

func validateWidget(p *UIAskUserParams) *ToolError {
	bad := func(format string, args ...any) *ToolError { return errf(CodeBadArguments, format, args...) }
	p.Prompt = strings.TrimSpace(p.Prompt)
	if p.Prompt == "" {
		return bad(`"prompt" is required`)
	}
	if len(p.Prompt) > maxPromptBytes {
		return bad("prompt is longer than %d bytes", maxPromptBytes)
	}
	switch p.Type {
	case WidgetConfirmation:
		if len(p.Options) > 0 || len(p.Fields) > 0 {
			return bad(`a confirmation takes no "options" or "fields"`)
		}
	case WidgetSelection:
		if len(p.Fields) > 0 {
			return bad(`a selection takes "options", not "fields"`)
		}
		if terr := validateOptions(p.Options, "options"); terr != nil {
			return terr
		}
	case WidgetForm:
		if len(p.Options) > 0 {
			return bad(`a form takes "fields", not "options"`)
		}
		if len(p.Fields) == 0 {
			return bad(`a form needs at least one field in "fields"`)
		}
		if len(p.Fields) > maxFields {
			return bad("a form takes at most %d fields", maxFields)
		}
		seen := map[string]bool{}
		for i := range p.Fields {
			f := &p.Fields[i]
			f.Name = strings.TrimSpace(f.Name)
			if f.Name == "" {
				return bad("field %d has no name", i+1)
			}
			if seen[f.Name] {
				return bad("field name %q is used twice", f.Name)
			}
			seen[f.Name] = true
			if f.Label == "" {
				f.Label = f.Name
			}
			if len(f.Label) > maxLabelBytes {
				return bad("the label of field %q is longer than %d bytes", f.Name, maxLabelBytes)
			}
			if f.Type == "" {
				f.Type = FieldText
			}
			switch f.Type {
			case FieldText, FieldTextarea, FieldNumber, FieldBoolean:
				if len(f.Options) > 0 {
					return bad("field %q: only select fields take options", f.Name)
				}
			case FieldSelect:
				if terr := validateOptions(f.Options, "options of field "+f.Name); terr != nil {
					return terr
				}
			default:
				return bad("field %q has unknown type %q: use text, textarea, number, boolean or select", f.Name, f.Type)
			}
		}
	case "":
		return bad(`"type" is required: confirmation, selection or form`)
	default:
		return bad("unknown widget type %q: use confirmation, selection or form", p.Type)
	}
	return nil
}

func validateOptions(opts []WidgetOption, what string) *ToolError {
	if len(opts) == 0 {
		return errf(CodeBadArguments, "%s: at least one option is required", what)
	}
	if len(opts) > maxOptions {
		return errf(CodeBadArguments, "%s: at most %d options", what, maxOptions)
	}
	seen := map[string]bool{}
	for _, o := range opts {
		if strings.TrimSpace(o.Value) == "" {
			return errf(CodeBadArguments, "%s: options must not be empty", what)
		}
		if len(o.Value) > maxLabelBytes || len(o.Label) > maxLabelBytes {
			return errf(CodeBadArguments, "%s: options are at most %d bytes", what, maxLabelBytes)
		}
		if seen[o.Value] {
			return errf(CodeBadArguments, "%s: option %q is listed twice", what, o.Value)
		}
		seen[o.Value] = true
	}
	return nil
}

// PendingWidgets returns the widgets asked and not yet resolved, oldest first.
func (h *Host) PendingWidgets() []Widget {
	h.pendingMu.Lock()
	defer h.pendingMu.Unlock()
	return slices.Clone(h.pending)
}

// ResolveWidget removes a pending widget once the user answered it.
func (h *Host) ResolveWidget(id string) (Widget, bool) {
	h.pendingMu.Lock()
	defer h.pendingMu.Unlock()
	for i, w := range h.pending {
		if w.ID == id {
			h.pending = slices.Delete(h.pending, i, i+1)
			return w, true
		}
	}
	return Widget{}, false
}

// ValidateAnswer checks a structured answer against the widget (E_BAD_ARGUMENTS).
func (w Widget) ValidateAnswer(a WidgetAnswer) *ToolError {
	bad := func(format string, args ...any) *ToolError { return errf(CodeBadArguments, format, args...) }
	switch w.Type {
	case WidgetConfirmation:
		if a.Confirmed == nil {
			return bad("a confirmation answer needs \"confirmed\": true or false")
		}
	case WidgetSelection:
		if !slices.ContainsFunc(w.Options, func(o WidgetOption) bool { return o.Value == a.Selected }) {
			return bad("%q is not one of the options", a.Selected)
		}
	case WidgetForm:
		for name := range a.Values {
			if !slices.ContainsFunc(w.Fields, func(f WidgetField) bool { return f.Name == name }) {
				return bad("the form has no field %q", name)
			}
		}
		for _, f := range w.Fields {
			v, ok := a.Values[f.Name]
			if !ok || v == nil || v == "" {
				if f.Required {
					return bad("field %q is required", f.Label)
				}
				continue
			}
			if terr := checkFieldValue(f, v); terr != nil {
				return terr
			}
		}
	default:
		return bad("unknown widget type %q", w.Type)
	}
	return nil
}

func checkFieldValue(f WidgetField, v any) *ToolError {
	bad := func(format string, args ...any) *ToolError { return errf(CodeBadArguments, format, args...) }
	switch f.Type {
	case FieldNumber:
		switch v.(type) {
		case float64, int, int64, json.Number:
			return nil
		}
		return bad("field %q takes a number", f.Label)
	case FieldBoolean:
		if _, ok := v.(bool); !ok {
			return bad("field %q takes true or false", f.Label)
		}
	case FieldSelect:
		s, ok := v.(string)
		if !ok || !slices.ContainsFunc(f.Options, func(o WidgetOption) bool { return o.Value == s }) {
			return bad("field %q takes one of its options", f.Label)
		}
	default:
		s, ok := v.(string)
		if !ok {
			return bad("field %q takes text", f.Label)
		}
		if len(s) > maxAnswerString {
			return bad("field %q is longer than %d bytes", f.Label, maxAnswerString)
		}
	}
	return nil
}

// AnswerText renders a (validated) answer as plain text for the user message that carries it
// to the model.
func (w Widget) AnswerText(a WidgetAnswer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Answer to %q (widget %s):\n", w.Prompt, w.ID)
	switch w.Type {
	case WidgetConfirmation:
		if a.Confirmed != nil && *a.Confirmed {
			b.WriteString("yes")
		} else {
			b.WriteString("no")
		}
	case WidgetSelection:
		label := a.Selected
		for _, o := range w.Options {
			if o.Value == a.Selected {
				label = o.Label
			}
		}
		b.WriteString(label)
	case WidgetForm:
		names := make([]string, 0, len(w.Fields))
		for _, f := range w.Fields {
			names = append(names, f.Name)
		}
		extra := []string{}
		for n := range a.Values {
			if !slices.Contains(names, n) {
				extra = append(extra, n)
			}
		}
		sort.Strings(extra)
		for _, n := range append(names, extra...) {
			if v, ok := a.Values[n]; ok {
				fmt.Fprintf(&b, "- %s: %v\n", n, v)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
