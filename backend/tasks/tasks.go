// Package tasks is the one registry of the work running in a project's
// conversations: chat and agent replies and the turns of workflow runs alike.
// It admits a task only where none runs, gives it a context that Stop
// cancels, tells why a task ended, and queues tasks that must run one after
// another. The engine, the workflow runs and the application layer share one
// Scheduler per open project, so "one reply at a time" and Stop live here
// only.
//
// The conversation tools run on it with Options.Serial (one task at a time
// in the whole project): a tool call that hands a turn over ends the running
// task with Replace (reason Replaced) and queues the other conversation's
// task, then a continuation, before anything queued earlier; a new task is
// refused while plans wait; Stop of the work drops its plans (Drop), whose
// OnDrop closes what waited for them.
package tasks

import (
	"context"
	"errors"
	"slices"
	"sync"

	"crewagent/backend/errs"
)

// Kinds of tasks.
const (
	KindChat  = "chat"
	KindAgent = "agent"
	KindRun   = "run"
)

// Reasons a task ended (Event.Reason, ReasonOf).
const (
	// Completed: the task returned by itself.
	Completed = "completed"
	// Interrupted: Stop cancelled it (the user's Stop, a deletion).
	Interrupted = "interrupted"
	// Replaced: Replace cancelled it for the tasks queued after it.
	Replaced = "replaced"
	// Shutdown: Close cancelled it.
	Shutdown = "shutdown"
)

// ErrBusy is returned when a task cannot start because another one runs
// where it would.
var ErrBusy = errs.Msg(errs.Busy, "chat.busy", nil)

// ErrClosed is returned once the scheduler is closed.
var ErrClosed = errs.Msg(errs.Closed, "app.closing", nil)

// Task describes one unit of work.
type Task struct {
	// ID names the task (assigned by the scheduler when empty).
	ID             string `json:"id"`
	ConversationID string `json:"conversationId"`
	Kind           string `json:"kind"`            // chat | agent | run
	RunID          string `json:"runId,omitempty"` // the run of a run turn
	// Chain groups the tasks of one piece of work that the conversation
	// tools handed from conversation to conversation (the id of its first
	// task); Depth is how many handovers deep the task runs (0: the user's).
	Chain string `json:"chain,omitempty"`
	Depth int    `json:"depth,omitempty"`
	// Tool names the conversation tool (conv.create, conv.send) whose answer
	// the task gives to the conversation For; Continues marks the
	// continuation of a conversation whose call was answered.
	Tool      string `json:"tool,omitempty"`
	For       string `json:"for,omitempty"`
	Continues bool   `json:"continues,omitempty"`
}

// Phases of Event.
const (
	Started = "started"
	Ended   = "ended"
)

// Event reports a task starting or ending.
type Event struct {
	Phase string
	Task  Task
	// Reason and Err say how an ended task ended (Err is what its function returned).
	Reason string
	Err    error
}

// Options configure a Scheduler.
type Options struct {
	// Serial admits one task at a time in the whole project instead of one
	// per conversation.
	Serial bool
	// OnEvent is called when a task starts (before it runs) and when it has
	// ended, outside the scheduler's lock, one call per transition.
	OnEvent func(Event)
}

// Scheduler admits, cancels and queues tasks. Its methods are safe for
// concurrent use.
type Scheduler struct {
	parent context.Context
	opts   Options

	mu      sync.Mutex
	running map[string]*entry // by conversation
	queue   []Plan
	closed  bool
	nextID  uint64
	wg      sync.WaitGroup
}

type entry struct {
	task   Task
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// Plan is a task waiting in the queue with the function that runs it.
// OnDrop, when set, is called (outside the scheduler's lock) when the plan
// is dropped without running, with the reason: Interrupted (StopAndWait of
// its conversation, Drop) or Shutdown (Close).
type Plan struct {
	Task   Task
	Run    func(ctx context.Context) error
	OnDrop func(reason string)
}

type ctxKey struct{ s *Scheduler }

// New returns a Scheduler whose tasks run under parent.
func New(parent context.Context, opts Options) *Scheduler {
	if parent == nil {
		parent = context.Background()
	}
	return &Scheduler{parent: parent, opts: opts, running: map[string]*entry{}}
}

// reason is the cause a task's context is cancelled with.
type reason struct{ why string }

func (r *reason) Error() string { return "task " + r.why }

// ReasonOf tells why the context of a task was cancelled: Interrupted,
// Replaced or Shutdown ("" while it runs, or for another cancellation).
func ReasonOf(ctx context.Context) string {
	var r *reason
	if errors.As(context.Cause(ctx), &r) {
		return r.why
	}
	return ""
}

// free reports whether t may start now (s.mu held).
func (s *Scheduler) free(t Task) bool {
	if s.opts.Serial {
		return len(s.running) == 0
	}
	return s.running[t.ConversationID] == nil
}

// freeForNew reports whether a task that is not queued may start now: where
// t would run, nothing runs and no queued plan waits (s.mu held).
func (s *Scheduler) freeForNew(t Task) bool {
	if !s.free(t) {
		return false
	}
	for _, p := range s.queue {
		if s.opts.Serial || p.Task.ConversationID == t.ConversationID {
			return false
		}
	}
	return true
}

// admit registers t as running (s.mu held).
func (s *Scheduler) admit(parent context.Context, t Task) (context.Context, *entry) {
	if t.ID == "" {
		s.nextID++
		t.ID = "task-" + itoa(s.nextID)
	}
	ctx, cancel := context.WithCancelCause(parent)
	e := &entry{task: t, cancel: cancel, done: make(chan struct{})}
	s.running[t.ConversationID] = e
	return context.WithValue(ctx, ctxKey{s}, e), e
}

// Current returns the task whose context ctx is (or derives from).
func (s *Scheduler) Current(ctx context.Context) (Task, bool) {
	if e, ok := ctx.Value(ctxKey{s}).(*entry); ok {
		return e.task, true
	}
	return Task{}, false
}

// finish unregisters e and starts what the queue allows.
func (s *Scheduler) finish(e *entry, ctx context.Context, err error) {
	why := ReasonOf(ctx)
	if why == "" {
		why = Completed
	}
	e.cancel(nil)
	s.mu.Lock()
	if s.running[e.task.ConversationID] == e {
		delete(s.running, e.task.ConversationID)
	}
	s.mu.Unlock()
	close(e.done)
	s.emit(Event{Phase: Ended, Task: e.task, Reason: why, Err: err})
	s.drain()
}

func (s *Scheduler) emit(ev Event) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(ev)
	}
}

// Start runs fn as task t in the background and returns at once: ErrBusy
// when a task runs where t would (nothing is queued then), ErrClosed after
// Close. OnEvent hears Started before fn runs and Ended once it returned.
func (s *Scheduler) Start(t Task, fn func(ctx context.Context) error) (Task, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return t, ErrClosed
	}
	if !s.freeForNew(t) {
		s.mu.Unlock()
		return t, ErrBusy
	}
	ctx, e := s.admit(s.parent, t)
	s.wg.Add(1)
	s.mu.Unlock()
	s.launch(ctx, e, fn)
	return e.task, nil
}

func (s *Scheduler) launch(ctx context.Context, e *entry, fn func(ctx context.Context) error) {
	s.emit(Event{Phase: Started, Task: e.task})
	go func() {
		defer s.wg.Done()
		err := fn(ctx)
		s.finish(e, ctx, err)
	}()
}

// Enqueue queues tasks that run one after another, each once nothing runs
// where it would (in order: a plan waits for the plans before it).
func (s *Scheduler) Enqueue(plans ...Plan) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.queue = append(s.queue, plans...)
	s.mu.Unlock()
	s.drain()
	return nil
}

// Replace ends the task running in a conversation (its context is cancelled
// with reason Replaced) and queues plans to run after it, before the plans
// queued earlier: the work a task hands over comes before the work that was
// waiting for that task. It reports whether a task was running there.
func (s *Scheduler) Replace(conversationID string, plans ...Plan) (bool, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false, ErrClosed
	}
	e := s.running[conversationID]
	s.queue = append(slices.Clone(plans), s.queue...)
	s.mu.Unlock()
	if e != nil {
		e.cancel(&reason{Replaced})
	}
	s.drain()
	return e != nil, nil
}

// drain starts the queued plans that may run now, in order; a plan that must
// wait holds back the ones after it.
func (s *Scheduler) drain() {
	for {
		s.mu.Lock()
		if s.closed || len(s.queue) == 0 || !s.free(s.queue[0].Task) {
			s.mu.Unlock()
			return
		}
		p := s.queue[0]
		s.queue = s.queue[1:]
		ctx, e := s.admit(s.parent, p.Task)
		s.wg.Add(1)
		s.mu.Unlock()
		s.launch(ctx, e, p.Run)
	}
}

// Enter runs a synchronous call as task t: it returns a context that Stop
// cancels and the function that ends the task (call it once). A call made
// from within a task of the same conversation (its context carries the
// task) joins that task instead. ErrBusy when another task runs where t
// would.
func (s *Scheduler) Enter(ctx context.Context, t Task) (context.Context, func(), error) {
	if e, ok := ctx.Value(ctxKey{s}).(*entry); ok && e.task.ConversationID == t.ConversationID {
		return ctx, func() {}, nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, ErrClosed
	}
	if !s.freeForNew(t) {
		s.mu.Unlock()
		return nil, nil, ErrBusy
	}
	tctx, e := s.admit(ctx, t)
	s.wg.Add(1)
	s.mu.Unlock()
	s.emit(Event{Phase: Started, Task: e.task})
	var once sync.Once
	return tctx, func() {
		once.Do(func() {
			defer s.wg.Done()
			s.finish(e, tctx, nil)
		})
	}, nil
}

// Stop cancels the task running in a conversation (reason Interrupted); it
// reports whether one was running.
func (s *Scheduler) Stop(conversationID string) bool {
	return s.StopIf(conversationID, func(Task) bool { return true })
}

// StopIf is Stop for a running task that match accepts.
func (s *Scheduler) StopIf(conversationID string, match func(Task) bool) bool {
	s.mu.Lock()
	e := s.running[conversationID]
	s.mu.Unlock()
	if e == nil || !match(e.task) {
		return false
	}
	e.cancel(&reason{Interrupted})
	return true
}

// StopAndWait cancels the task running in a conversation and waits until it
// has ended (its last writes are done). Queued plans for the conversation
// are dropped.
func (s *Scheduler) StopAndWait(conversationID string) {
	s.Drop(func(p Plan) bool { return p.Task.ConversationID == conversationID })
	s.mu.Lock()
	e := s.running[conversationID]
	s.mu.Unlock()
	if e != nil {
		e.cancel(&reason{Interrupted})
		<-e.done
	}
}

// Drop removes the queued plans that match accepts, calls their OnDrop with
// Interrupted and returns them, in queue order.
func (s *Scheduler) Drop(match func(Plan) bool) []Plan {
	s.mu.Lock()
	var dropped, kept []Plan
	for _, p := range s.queue {
		if match(p) {
			dropped = append(dropped, p)
		} else {
			kept = append(kept, p)
		}
	}
	s.queue = kept
	s.mu.Unlock()
	dropPlans(dropped, Interrupted)
	s.drain()
	return dropped
}

// Queued returns the tasks of the queued plans, in the order they will run.
func (s *Scheduler) Queued() []Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Task, len(s.queue))
	for i, p := range s.queue {
		out[i] = p.Task
	}
	return out
}

func dropPlans(plans []Plan, why string) {
	for _, p := range plans {
		if p.OnDrop != nil {
			p.OnDrop(why)
		}
	}
}

// Running returns the task running in a conversation.
func (s *Scheduler) Running(conversationID string) (Task, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.running[conversationID]
	if e == nil {
		return Task{}, false
	}
	return e.task, true
}

// Busy reports whether a task runs in the conversation.
func (s *Scheduler) Busy(conversationID string) bool {
	_, ok := s.Running(conversationID)
	return ok
}

// All returns the running tasks.
func (s *Scheduler) All() []Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Task, 0, len(s.running))
	for _, e := range s.running {
		out = append(out, e.task)
	}
	slices.SortFunc(out, func(a, b Task) int {
		switch {
		case a.ConversationID < b.ConversationID:
			return -1
		case a.ConversationID > b.ConversationID:
			return 1
		}
		return 0
	})
	return out
}

// Close cancels every task (reason Shutdown), drops the queue, refuses new
// tasks and waits until the running ones have ended.
func (s *Scheduler) Close() {
	s.mu.Lock()
	s.closed = true
	dropped := s.queue
	s.queue = nil
	all := make([]*entry, 0, len(s.running))
	for _, e := range s.running {
		all = append(all, e)
	}
	s.mu.Unlock()
	for _, e := range all {
		e.cancel(&reason{Shutdown})
	}
	s.wg.Wait()
	dropPlans(dropped, Shutdown)
}

func itoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
