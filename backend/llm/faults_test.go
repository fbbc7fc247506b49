package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"crewagent/backend/llm/fakellm"
)

// TestStreamFaults drives every way a real server breaks a stream off through the client:
// an answer without a finish is a failure that keeps the partial text; an answer cut short
// by the server (length, content_filter) is a result marked incomplete.
func TestStreamFaults(t *testing.T) {
	twoCalls := []fakellm.ToolCall{
		{ID: "call_a", Name: "fs.write", Arguments: `{"path":"@project/a.txt","content":"A"}`, ArgChunks: 1},
		{ID: "call_b", Name: "fs.write", Arguments: `{"path":"@project/b.txt","content":"B"}`, ArgChunks: 2},
	}
	tests := []struct {
		name       string
		resp       fakellm.Response
		code       string // "" for a result without error
		content    string
		finish     string
		incomplete bool
		calls      int
	}{
		// events: 0 role, 1-4 text chunks, 5 finish, 6 usage, then [DONE]
		{"connection closed without finish", fakellm.Response{Text: "AAAABBBBCCCCDDDD", Chunks: 4, Fault: fakellm.FaultClose, CutAfter: 3},
			CodeStreamIncomplete, "AAAABBBB", "", false, 0},
		{"response ended without finish", fakellm.Response{Text: "AAAABBBBCCCCDDDD", Chunks: 4, Fault: fakellm.FaultEnd, CutAfter: 4},
			CodeStreamIncomplete, "AAAABBBBCCCC", "", false, 0},
		{"chunked body cut mid-chunk", fakellm.Response{Text: "AAAABBBBCCCCDDDD", Chunks: 4, Fault: fakellm.FaultChunkCut, CutAfter: 2},
			CodeStreamIncomplete, "AAAA", "", false, 0},
		{"connection reset", fakellm.Response{Text: "AAAABBBBCCCCDDDD", Chunks: 4, Fault: fakellm.FaultAbort, CutAfter: 2},
			CodeStreamIncomplete, "AAAA", "", false, 0},
		// events: 0 role, 1 call a, 2 args a, 3 call b, 4-5 args b, 6 finish
		{"a complete call then a cut one", fakellm.Response{ToolCalls: twoCalls, Fault: fakellm.FaultClose, CutAfter: 5},
			CodeStreamIncomplete, "", "", false, 2},
		{"finish then the connection closes", fakellm.Response{Text: "all of it", Chunks: 2, Fault: fakellm.FaultChunkCut, CutAfter: 4},
			"", "all of it", "stop", false, 0},
		{"finish without DONE", fakellm.Response{Text: "all of it", Chunks: 2, Fault: fakellm.FaultClose, CutAfter: 5},
			"", "all of it", "stop", false, 0},
		{"length", fakellm.Response{Text: "The first half of", FinishReason: "length"},
			"", "The first half of", "length", true, 0},
		{"content filter", fakellm.Response{Text: "I was saying", FinishReason: "content_filter"},
			"", "I was saying", "content_filter", true, 0},
		{"length inside tool arguments", fakellm.Response{ToolCalls: twoCalls[:1], FinishReason: "length"},
			"", "", "length", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.Enqueue(tt.resp, fakellm.Text("must not be requested"))
			rec := newRecorder()
			res, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), rec)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("want a result, got %v", err)
				}
			} else {
				e := wantCode(t, err, tt.code)
				if !e.Retryable() || !strings.Contains(ErrorBlockOf(err).Format(), "- code: "+tt.code) {
					t.Fatalf("error %+v, block %q", e, ErrorBlockOf(err).Format())
				}
			}
			if res.Content != tt.content || res.FinishReason != tt.finish || res.Incomplete() != tt.incomplete || len(res.ToolCalls) != tt.calls {
				t.Fatalf("result %+v", res)
			}
			if res.Attempts != 1 || srv.Pending() != 1 {
				t.Fatalf("attempts %d, pending %d: a started answer was sent again", res.Attempts, srv.Pending())
			}
		})
	}
}

// A stream that ends without finish before anything reached the handler is sent again.
func TestIncompleteBeforeOutputIsRetried(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Text: "lost", Fault: fakellm.FaultClose, CutAfter: 1}, fakellm.Text("second try"))
	res, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), newRecorder())
	if err != nil || res.Content != "second try" || res.Attempts != 2 {
		t.Fatalf("content %q attempts %d err %v", res.Content, res.Attempts, err)
	}
}

func TestIncompleteFinish(t *testing.T) {
	for reason, want := range map[string]bool{"length": true, "content_filter": true, "stop": false, "tool_calls": false, "": false, "eos": false} {
		if IncompleteFinish(reason) != want {
			t.Errorf("IncompleteFinish(%q) = %v", reason, !want)
		}
	}
	var nilRes *Result
	if nilRes.Incomplete() {
		t.Fatal("nil result is incomplete")
	}
	if !errors.Is(&Error{Code: CodeStreamIncomplete}, &Error{Code: CodeStreamIncomplete}) || !RetryableCode(CodeStreamIncomplete) {
		t.Fatal("code")
	}
}
