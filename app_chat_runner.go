package main

import (
	"context"
	"sync"
)

// chatRunner runs at most one reply per conversation in the background, each
// under its own cancellable context derived from the App's lifetime.
type chatRunner struct {
	parent context.Context

	mu      sync.Mutex
	running map[string]*runningReply
	closed  bool
}

type runningReply struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func newChatRunner(parent context.Context) *chatRunner {
	return &chatRunner{parent: parent, running: map[string]*runningReply{}}
}

// start runs fn in a goroutine for conversation id and returns at once;
// false when a reply is already running there (or the runner is closed).
// after runs once fn has returned and the conversation is free again.
func (r *chatRunner) start(id string, fn func(ctx context.Context), after func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.running[id] != nil {
		return false
	}
	ctx, cancel := context.WithCancel(r.parent)
	rr := &runningReply{cancel: cancel, done: make(chan struct{})}
	r.running[id] = rr
	go func() {
		defer func() {
			cancel()
			r.mu.Lock()
			if r.running[id] == rr {
				delete(r.running, id)
			}
			r.mu.Unlock()
			close(rr.done)
			if after != nil {
				after()
			}
		}()
		fn(ctx)
	}()
	return true
}

// streaming reports whether a reply is running in conversation id.
func (r *chatRunner) streaming(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[id] != nil
}

// active lists the conversations with a running reply.
func (r *chatRunner) active() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.running))
	for id := range r.running {
		out = append(out, id)
	}
	return out
}

// stop cancels the reply of conversation id; false when none was running.
func (r *chatRunner) stop(id string) bool {
	r.mu.Lock()
	rr := r.running[id]
	r.mu.Unlock()
	if rr == nil {
		return false
	}
	rr.cancel()
	return true
}

// stopAndWait cancels the reply of conversation id and waits until it has
// ended (its last writes are done).
func (r *chatRunner) stopAndWait(id string) {
	r.mu.Lock()
	rr := r.running[id]
	r.mu.Unlock()
	if rr != nil {
		rr.cancel()
		<-rr.done
	}
}

// stopAll cancels every reply, refuses new ones and waits for them to end.
func (r *chatRunner) stopAll() {
	r.mu.Lock()
	r.closed = true
	all := make([]*runningReply, 0, len(r.running))
	for _, rr := range r.running {
		all = append(all, rr)
	}
	r.mu.Unlock()
	for _, rr := range all {
		rr.cancel()
		<-rr.done
	}
}
