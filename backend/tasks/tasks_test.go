package tasks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder keeps the events of a scheduler, in order.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) on(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := ev.Phase + " " + ev.Task.ConversationID
	if ev.Phase == Ended {
		s += " " + ev.Reason
	}
	r.events = append(r.events, s)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// blocker is a task function that waits until it is released or cancelled.
type blocker struct {
	started chan struct{}
	release chan struct{}
	reason  chan string
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}), release: make(chan struct{}), reason: make(chan string, 1)}
}

func (b *blocker) run(ctx context.Context) error {
	close(b.started)
	select {
	case <-b.release:
		b.reason <- ""
		return nil
	case <-ctx.Done():
		b.reason <- ReasonOf(ctx)
		return ctx.Err()
	}
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func waitEvents(t *testing.T, r *recorder, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(r.list()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("want %d events, have %v", n, r.list())
		}
		time.Sleep(time.Millisecond)
	}
	return r.list()
}

func TestOneTaskPerConversation(t *testing.T) {
	rec := &recorder{}
	s := New(context.Background(), Options{OnEvent: rec.on})
	defer s.Close()
	a := newBlocker()
	if _, err := s.Start(Task{ConversationID: "A", Kind: KindChat}, a.run); err != nil {
		t.Fatal(err)
	}
	wait(t, a.started, "A")
	if _, err := s.Start(Task{ConversationID: "A"}, newBlocker().run); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second task in A: %v", err)
	}
	if _, _, err := s.Enter(context.Background(), Task{ConversationID: "A"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("a call in A: %v", err)
	}
	b := newBlocker()
	if _, err := s.Start(Task{ConversationID: "B"}, b.run); err != nil {
		t.Fatalf("another conversation: %v", err)
	}
	wait(t, b.started, "B")
	if got := s.All(); len(got) != 2 || got[0].ConversationID != "A" || got[1].ConversationID != "B" {
		t.Fatalf("All = %+v", got)
	}
	if !s.Stop("A") || <-a.reason != Interrupted {
		t.Fatal("Stop did not interrupt A")
	}
	close(b.release)
	if <-b.reason != "" {
		t.Fatal("B was cancelled")
	}
	waitEvents(t, rec, 4)
	if s.Busy("A") || s.Busy("B") || s.Stop("A") {
		t.Fatal("tasks still registered after they ended")
	}
	got := strings.Join(rec.list(), ", ")
	for _, want := range []string{"started A", "started B", "ended A interrupted", "ended B completed"} {
		if !strings.Contains(got, want) {
			t.Fatalf("events %s lack %q", got, want)
		}
	}
}

func TestEnterJoinsTheRunningTask(t *testing.T) {
	s := New(context.Background(), Options{})
	defer s.Close()
	inner := make(chan error, 1)
	if _, err := s.Start(Task{ConversationID: "A"}, func(ctx context.Context) error {
		cctx, release, err := s.Enter(ctx, Task{ConversationID: "A"})
		if err != nil {
			inner <- err
			return err
		}
		defer release()
		if cctx != ctx {
			inner <- errors.New("Enter from within the task made a new context")
			return nil
		}
		// a call for another conversation is its own task
		_, rel2, err := s.Enter(ctx, Task{ConversationID: "B"})
		if err == nil {
			rel2()
		}
		inner <- err
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := <-inner; err != nil {
		t.Fatal(err)
	}
	// a synchronous call is stoppable and frees the conversation when released
	ctx, release, err := s.Enter(context.Background(), Task{ConversationID: "C"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Stop("C") || ctx.Err() == nil || ReasonOf(ctx) != Interrupted {
		t.Fatal("Stop did not cancel the call")
	}
	release()
	release() // once only
	if s.Busy("C") {
		t.Fatal("C still busy")
	}
}

func TestSerialAndQueue(t *testing.T) {
	rec := &recorder{}
	s := New(context.Background(), Options{Serial: true, OnEvent: rec.on})
	defer s.Close()
	a := newBlocker()
	if _, err := s.Start(Task{ConversationID: "A"}, a.run); err != nil {
		t.Fatal(err)
	}
	wait(t, a.started, "A")
	if _, err := s.Start(Task{ConversationID: "B"}, newBlocker().run); !errors.Is(err, ErrBusy) {
		t.Fatalf("serial: another conversation started beside A: %v", err)
	}
	// The conversation tools' case: the running task is replaced by the
	// target conversation's task, then a continuation in the first one.
	var order []string
	var mu sync.Mutex
	done := make(chan struct{})
	step := func(name string, last bool) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			if last {
				close(done)
			}
			return nil
		}
	}
	replaced, err := s.Replace("A",
		Plan{Task: Task{ConversationID: "B"}, Run: step("target", false)},
		Plan{Task: Task{ConversationID: "A"}, Run: step("continuation", true)})
	if err != nil || !replaced {
		t.Fatalf("Replace = %v, %v", replaced, err)
	}
	if <-a.reason != Replaced {
		t.Fatal("A was not ended as replaced")
	}
	wait(t, done, "the queued tasks")
	waitEvents(t, rec, 6)
	want := "started A, ended A replaced, started B, ended B completed, started A, ended A completed"
	if got := strings.Join(rec.list(), ", "); got != want || strings.Join(order, ",") != "target,continuation" {
		t.Fatalf("events %s (order %v), want %s", got, order, want)
	}
}

func TestStopAndWaitAndClose(t *testing.T) {
	s := New(context.Background(), Options{})
	a := newBlocker()
	ended := make(chan struct{})
	if _, err := s.Start(Task{ConversationID: "A"}, func(ctx context.Context) error {
		defer close(ended)
		err := a.run(ctx)
		time.Sleep(20 * time.Millisecond) // last writes after the cancellation
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wait(t, a.started, "A")
	s.StopAndWait("A")
	select {
	case <-ended:
	default:
		t.Fatal("StopAndWait returned before the task ended")
	}
	b := newBlocker()
	if _, err := s.Start(Task{ConversationID: "B"}, b.run); err != nil {
		t.Fatal(err)
	}
	wait(t, b.started, "B")
	s.Close()
	if <-b.reason != Shutdown {
		t.Fatal("Close did not shut B down")
	}
	if _, err := s.Start(Task{ConversationID: "C"}, b.run); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	if err := s.Enqueue(Plan{Task: Task{ConversationID: "C"}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Enqueue after Close: %v", err)
	}
}

// A handover within a handover runs before the work that waits for the
// first one: Replace puts its plans first. While plans wait, nothing new
// starts in their way, and Current tells a task who it is.
func TestNestedReplaceRunsFirst(t *testing.T) {
	s := New(context.Background(), Options{Serial: true})
	defer s.Close()
	var mu sync.Mutex
	var order []string
	done := make(chan struct{})
	note := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	gate := make(chan struct{})
	cont := Plan{Task: Task{ConversationID: "A", Depth: 0}, Run: func(ctx context.Context) error {
		note("A continues")
		close(done)
		return nil
	}}
	child := Plan{Task: Task{ConversationID: "B", Depth: 1}, Run: func(ctx context.Context) error {
		tk, ok := s.Current(ctx)
		if !ok || tk.ConversationID != "B" || tk.Depth != 1 {
			t.Errorf("Current in B = %+v, %v", tk, ok)
		}
		note("B hands over")
		<-gate
		// B hands over to C: C, then B's continuation, before A's.
		if _, err := s.Replace("B",
			Plan{Task: Task{ConversationID: "C", Depth: 2}, Run: func(context.Context) error { note("C answers"); return nil }},
			Plan{Task: Task{ConversationID: "B", Depth: 1}, Run: func(context.Context) error { note("B continues"); return nil }}); err != nil {
			t.Error(err)
		}
		return nil
	}}
	if _, err := s.Start(Task{ConversationID: "A"}, func(ctx context.Context) error {
		note("A hands over")
		_, err := s.Replace("A", child, cont)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// While B runs and A's continuation waits, a new task is refused, in A
	// and elsewhere alike.
	for {
		if s.Busy("B") {
			break
		}
		time.Sleep(time.Millisecond)
	}
	for _, c := range []string{"A", "D"} {
		if _, err := s.Start(Task{ConversationID: c}, func(context.Context) error { return nil }); !errors.Is(err, ErrBusy) {
			t.Fatalf("a new task in %s started while a handover was under way: %v", c, err)
		}
	}
	if q := s.Queued(); len(q) != 1 || q[0].ConversationID != "A" {
		t.Fatalf("queued = %+v", q)
	}
	close(gate)
	wait(t, done, "the chain")
	want := "A hands over,B hands over,C answers,B continues,A continues"
	if got := strings.Join(order, ","); got != want {
		t.Fatalf("order %s, want %s", got, want)
	}
}

// Dropped plans are told why: Drop (a Stop of the chain) and Close alike.
func TestDroppedPlansAreTold(t *testing.T) {
	s := New(context.Background(), Options{Serial: true})
	a := newBlocker()
	if _, err := s.Start(Task{ConversationID: "A"}, a.run); err != nil {
		t.Fatal(err)
	}
	wait(t, a.started, "A")
	var mu sync.Mutex
	told := map[string]string{}
	plan := func(conv string) Plan {
		return Plan{Task: Task{ConversationID: conv, Chain: "x"}, Run: func(context.Context) error {
			t.Errorf("%s ran", conv)
			return nil
		}, OnDrop: func(why string) {
			mu.Lock()
			told[conv] = why
			mu.Unlock()
		}}
	}
	if err := s.Enqueue(plan("B"), plan("C")); err != nil {
		t.Fatal(err)
	}
	if got := s.Drop(func(p Plan) bool { return p.Task.ConversationID == "B" }); len(got) != 1 {
		t.Fatalf("dropped %d plans", len(got))
	}
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if told["B"] != Interrupted || told["C"] != Shutdown {
		t.Fatalf("told %v", told)
	}
}
