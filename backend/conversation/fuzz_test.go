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

// Branch events come from the log, which anyone may edit: whatever their data
// says, reading them neither panics nor hides a message in the context.
func FuzzBranchEvents(f *testing.F) {
	f.Add(`{"after":"u1","active":1,"variants":[{"ids":["a1"],"inContext":["a1"]},{"ids":[]}]}`, `{"after":"","active":0,"variants":[{"head":"zz","ids":["u1","x"]}]}`)
	f.Add(`{"after":"u1","active":5,"variants":[]}`, `null`)
	f.Add(`{"after":"a1","active":0,"variants":[{"ids":["a1","a1"]},{"ids":["u1"]}]}`, `{"variants":[{"ids":null}]}`)
	f.Fuzz(func(t *testing.T, d1, d2 string) {
		entries := []*Entry{
			msg("u1", RoleUser, "q"), msg("a1", RoleAssistant, "a"),
			{Type: TypeEvt, ID: "b1", Event: EventBranch, Data: []byte(d1)},
			msg("a2", RoleAssistant, "again"),
			{Type: TypeEvt, ID: "b2", Event: EventBranchSwitch, Data: []byte(d2)},
		}
		vs := Views(entries)
		Ending(vs, "")
		s := Branches(entries)
		for _, p := range s.Points {
			if c, err := PlanSwitch(entries, p.After, 0); err == nil && c.Event == nil {
				t.Fatal("a switch without its event")
			}
		}
		if _, _, err := PlanRegenerate(entries, "a2"); err != nil && !strings.Contains(err.Error(), " ") {
			t.Fatalf("an error without words: %v", err)
		}
	})
}

func FuzzParseToolResultPreview(f *testing.F) {
	f.Add("full output text\nwith lines", 5)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, full string, chars int) {
		if chars < 0 || chars > 1<<16 {
			return
		}
		head, size, alias, ok := ParseToolResultPreview(ToolResultPreview(full, chars, "@state/x.json"))
		if !ok || size != len(full) || alias != "@state/x.json" || len(head) > len(full)+3*chars {
			t.Fatalf("round trip of %q/%d: %q %d %q %v", full, chars, head, size, alias, ok)
		}
		ParseToolResultPreview(full)
	})
}
