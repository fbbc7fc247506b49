package approval

import (
	"context"
	"fmt"
	"sync"
)

// The answers a user gives an approval request.
const (
	AnswerAllow        = "allow"
	AnswerConversation = "allow-conversation"
	AnswerProject      = "allow-project"
	AnswerDeny         = "deny"
)

// Answer is the user's answer to one request.
type Answer struct {
	Decision string `json:"decision"`
	// Reason is the user's optional reason for a denial: the model receives it.
	Reason string `json:"reason,omitempty"`
}

// Allows reports whether the answer lets the call run.
func (a Answer) Allows() bool { return a.Decision != AnswerDeny }

// CheckAnswer validates an answer.
func CheckAnswer(a Answer) error {
	switch a.Decision {
	case AnswerAllow, AnswerConversation, AnswerProject, AnswerDeny:
		return nil
	}
	return fmt.Errorf("unknown answer %q: it is allow, allow-conversation, allow-project or deny", a.Decision)
}

// Broker hands the user's answers to the calls that wait for them. A call
// registers before its request is shown (Wait), so an answer given as soon
// as it is shown is not lost. Safe for concurrent use.
type Broker struct {
	mu      sync.Mutex
	waiting map[string]chan Answer
}

func key(convID, callID string) string { return convID + "\x00" + callID }

// Wait registers the call, runs ready (which persists and shows the
// request; an error from it is returned at once) and blocks until Answer is
// called for the call or ctx ends.
func (b *Broker) Wait(ctx context.Context, convID, callID string, ready func() error) (Answer, error) {
	ch := make(chan Answer, 1)
	k := key(convID, callID)
	b.mu.Lock()
	if b.waiting == nil {
		b.waiting = map[string]chan Answer{}
	}
	b.waiting[k] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		if b.waiting[k] == ch {
			delete(b.waiting, k)
		}
		b.mu.Unlock()
	}()
	if err := ready(); err != nil {
		return Answer{}, err
	}
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// Answer delivers the answer to the call waiting for it; false when no call
// of this process waits (the request was answered already, or it was left
// by a process that ended).
func (b *Broker) Answer(convID, callID string, a Answer) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch, ok := b.waiting[key(convID, callID)]
	if !ok {
		return false
	}
	delete(b.waiting, key(convID, callID))
	ch <- a
	return true
}

// Waiting reports whether a call of this process waits for an answer.
func (b *Broker) Waiting(convID, callID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.waiting[key(convID, callID)]
	return ok
}
