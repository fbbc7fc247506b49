package llm

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/llm/fakellm"
)

func TestFirstTokenTimeout(t *testing.T) {
	tests := []struct {
		name string
		resp fakellm.Response
	}{
		{"headers sent, no chunk", fakellm.Response{Text: "late", Stall: fakellm.StallForever}},
		{"no headers", fakellm.Response{Text: "late", Delay: 10 * time.Second}},
		{"only comments", fakellm.Response{Raw: []string{": ping\n\n", ": ping\n\n", ": ping\n\n"}, ChunkDelay: 100 * time.Millisecond,
			Stall: fakellm.StallForever, StallAfter: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.Enqueue(tt.resp, fakellm.Text("a retry would get this"))
			cfg := testConfig(srv)
			cfg.FirstTokenTimeout = 150 * time.Millisecond
			start := time.Now()
			res, err := New(cfg).Stream(context.Background(), userReq("hi"), nil)
			e := wantCode(t, err, CodeTimeout)
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("timed out after %v", d)
			}
			if !strings.Contains(e.Message, "first-token") || !e.Retryable() {
				t.Fatalf("error %+v", e)
			}
			if res.Attempts != 1 || len(srv.ChatRequests()) != 1 {
				t.Fatalf("a timeout was retried: %d attempts", res.Attempts)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error does not wrap DeadlineExceeded: %v", err)
			}
		})
	}
}

func TestIdleTimeoutKeepsPartial(t *testing.T) {
	srv := newFake(t)
	// events: role, "AAAA", "BBBB", then a stall before "CCCC"
	srv.Enqueue(fakellm.Response{Text: "AAAABBBBCCCC", Chunks: 3, StallAfter: 3, Stall: fakellm.StallForever})
	cfg := testConfig(srv)
	cfg.IdleTimeout = 150 * time.Millisecond
	rec := newRecorder()
	res, err := New(cfg).Stream(context.Background(), userReq("hi"), rec)
	e := wantCode(t, err, CodeTimeout)
	if !strings.Contains(e.Message, "idle") {
		t.Fatalf("message %q", e.Message)
	}
	if res.Content != "AAAABBBB" || rec.text.String() != "AAAABBBB" || res.Attempts != 1 {
		t.Fatalf("partial %q handler %q attempts %d", res.Content, rec.text.String(), res.Attempts)
	}
	block := ErrorBlockOf(err).Format()
	want := "LLM_ERROR\n- code: LLM_TIMEOUT\n- message: the stream stalled: no data for 150ms (idle timeout)\n- retryable: true\n- provider: "
	if !strings.HasPrefix(block, want) {
		t.Fatalf("block:\n%s\nwant prefix:\n%s", block, want)
	}
}

func TestIdleTimeoutSatisfiedBySteadyChunks(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.TextChunks("steady stream of tokens", 6, 40*time.Millisecond))
	cfg := testConfig(srv)
	cfg.FirstTokenTimeout = 200 * time.Millisecond
	cfg.IdleTimeout = 200 * time.Millisecond
	res, err := New(cfg).Stream(context.Background(), userReq("hi"), nil)
	if err != nil || res.Content != "steady stream of tokens" {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestSlowHandlerDoesNotCountAsIdle(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.TextChunks("abc", 3, 0))
	cfg := testConfig(srv)
	cfg.IdleTimeout = 100 * time.Millisecond
	rec := newRecorder()
	rec.onDelta = func(string) { time.Sleep(250 * time.Millisecond) }
	res, err := New(cfg).Stream(context.Background(), userReq("hi"), rec)
	if err != nil || res.Content != "abc" {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestOverallTimeout(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.TextChunks(strings.Repeat("x", 40), 40, 50*time.Millisecond))
	cfg := testConfig(srv)
	cfg.Timeout = 300 * time.Millisecond
	start := time.Now()
	res, err := New(cfg).Stream(context.Background(), userReq("hi"), nil)
	e := wantCode(t, err, CodeTimeout)
	if !strings.Contains(e.Message, "no complete answer within 300ms") {
		t.Fatalf("message %q", e.Message)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
	if res.Content == "" || len(res.Content) == 40 {
		t.Fatalf("partial content %q", res.Content)
	}
}

func TestCompleteTimeout(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Text: "slow", Stall: 5 * time.Second})
	cfg := testConfig(srv)
	cfg.Timeout = 200 * time.Millisecond
	_, err := New(cfg).Complete(context.Background(), userReq("summarise"))
	wantCode(t, err, CodeTimeout)
}

func TestCallerDeadline(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Text: "late", Stall: fakellm.StallForever})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err := New(testConfig(srv)).Stream(ctx, userReq("hi"), nil)
	e := wantCode(t, err, CodeTimeout)
	if !strings.Contains(e.Message, "deadline") {
		t.Fatalf("message %q", e.Message)
	}
}

func TestCancellationIsQuick(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Text: "AAAABBBB", Chunks: 2, StallAfter: 2, Stall: fakellm.StallForever})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := newRecorder()
	var cancelledAt time.Time
	rec.onDelta = func(string) {
		cancelledAt = time.Now()
		cancel()
	}
	res, err := New(testConfig(srv)).Stream(ctx, userReq("hi"), rec)
	took := time.Since(cancelledAt)
	e := wantCode(t, err, CodeAborted)
	if !errors.Is(err, context.Canceled) || !e.Retryable() {
		t.Fatalf("error %+v", e)
	}
	if res.Content != "AAAA" {
		t.Fatalf("partial %q", res.Content)
	}
	t.Logf("returned %v after cancel", took)
	if took > 500*time.Millisecond {
		t.Fatalf("returned %v after cancel, want about 100ms", took)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	srv := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(testConfig(srv)).Stream(ctx, userReq("hi"), nil)
	wantCode(t, err, CodeAborted)
}

// TestConnectTimeout dials a listener whose accept queue is full: the kernel drops the
// SYN, so the dial hangs like one to an unreachable host.
func TestConnectTimeout(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip("raw sockets unavailable:", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
	// fill the accept queue; a dial that does not complete quickly means it is full
	full := false
	for i := 0; i < 16 && !full; i++ {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			full = true
			break
		}
		defer conn.Close()
	}
	if !full {
		t.Skip("this kernel accepts connections beyond the listen backlog")
	}
	c := New(Config{BaseURL: "http://" + addr + "/v1", Model: "m", ConnectTimeout: 150 * time.Millisecond, MaxRetries: -1})
	start := time.Now()
	_, err = c.Stream(context.Background(), userReq("hi"), nil)
	e := wantCode(t, err, CodeTimeout)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("connect timeout took %v", d)
	}
	if !strings.Contains(e.Message, "timed out") {
		t.Fatalf("message %q", e.Message)
	}
}
