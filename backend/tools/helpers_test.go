package tools

import "context"

// AskUser calls f.
func (f AskUserFunc) AskUser(ctx context.Context, w Widget) error { return f(ctx, w) }

// AskUserFunc adapts a function to AskUserHandler.
type AskUserFunc func(ctx context.Context, w Widget) error

// ValidateStateWrite calls f.
func (f StateGuardFunc) ValidateStateWrite(oldContent, newContent []byte) error {
	return f(oldContent, newContent)
}

// StateGuardFunc adapts a function to StateGuard.
type StateGuardFunc func(oldContent, newContent []byte) error
