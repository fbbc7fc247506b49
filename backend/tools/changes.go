package tools

import (
	"context"
	"path/filepath"

	"crewagent/backend/conversation"
)

// Turn is the conversation turn a tool call belongs to: the conversation and
// the user message the turn answers.
type Turn struct {
	ConversationID string
	MessageID      string
}

type turnKey struct{}

// WithTurn attaches the turn of the calls made with ctx.
func WithTurn(ctx context.Context, t Turn) context.Context {
	return context.WithValue(ctx, turnKey{}, t)
}

// TurnOf returns the turn attached with WithTurn.
func TurnOf(ctx context.Context) (Turn, bool) {
	t, ok := ctx.Value(turnKey{}).(Turn)
	return t, ok
}

// ChangeRecorder keeps what the project's files were before a tool call
// changes them (see backend/checkpoint).
type ChangeRecorder interface {
	// BeginChange is called before a call changes files under @project:
	// paths are the project-relative (slash-separated) files it writes, or
	// nil when it may change any file (a command). done is called once the
	// call is over (also when it failed). An error of either fails the
	// call: nothing is changed without a record of it.
	BeginChange(ctx context.Context, tool string, paths []string) (done func() error, err error)
}

// beginChange starts the record of a write to r (a no-op outside @project or
// without a recorder).
func (h *Host) beginChange(ctx context.Context, tool string, r Resolved) (func() *ToolError, *ToolError) {
	noop := func() *ToolError { return nil }
	if h.cfg.Changes == nil || r.Base != AliasProject {
		return noop, nil
	}
	rel, err := filepath.Rel(r.Root, r.Host)
	if err != nil || rel == "." {
		return noop, nil
	}
	done, err := h.cfg.Changes.BeginChange(ctx, tool, []string{filepath.ToSlash(rel)})
	if err != nil {
		return nil, errf(CodeInternal, "cannot keep the earlier content of %s: %s", r.Display(), err.Error())
	}
	return func() *ToolError {
		if err := done(); err != nil {
			return errf(CodeInternal, "the change to %s was made but not recorded: %s", r.Display(), err.Error())
		}
		return nil
	}, nil
}

// beginCommand starts the record of what a command changes in the project.
func (h *Host) beginCommand(ctx context.Context) (func() error, *ToolError) {
	if h.cfg.Changes == nil || h.sandbox.Roots().Project == "" {
		return func() error { return nil }, nil
	}
	done, err := h.cfg.Changes.BeginChange(ctx, conversation.ToolShellRun, nil)
	if err != nil {
		return nil, errf(CodeInternal, "cannot keep the project's files before the command: %s", err.Error())
	}
	return done, nil
}
