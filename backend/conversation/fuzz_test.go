package conversation

import (
	"strings"
	"testing"
)

func FuzzParseErrorContent(f *testing.F) {
	f.Add("Half an ans\n\nLLM_ERROR\n- code: LLM_NETWORK\n- message: closed\n- retryable: true")
	f.Add("LLM_ERROR")
	f.Add("LLM_ERROR \n- status: 99999999999999999999\n- retry_after: -5h")
	f.Add("plain")
	f.Fuzz(func(t *testing.T, content string) {
		partial, b := ParseErrorContent(content)
		if b.Code == "" || b.Message == "" {
			t.Fatalf("empty code or message for %q: %+v", content, b)
		}
		if len(partial) > len(content) || !strings.HasPrefix(content, partial) {
			t.Fatalf("partial %q is not a prefix of %q", partial, content)
		}
	})
}

func FuzzParseRunInput(f *testing.F) {
	f.Add("USER_INPUT\n- forNodeId: end\nhello")
	f.Add("USER_INPUT\n- forNodeId: ")
	f.Add("hello")
	f.Fuzz(func(t *testing.T, content string) {
		text, node, ok := ParseRunInput(content)
		if !ok {
			if text != content || node != "" {
				t.Fatalf("not an input, but %q %q", text, node)
			}
			return
		}
		if strings.Contains(node, "\n") {
			t.Fatalf("node %q holds a line break", node)
		}
		if got := RunInput(node, text); got != content && !(got == content+"\n" && !strings.Contains(strings.TrimPrefix(content, RunInputHeader), "\n")) {
			t.Fatalf("RunInput(%q, %q) = %q, want %q", node, text, got, content)
		}
	})
}
