package compression

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestForScreen(t *testing.T) {
	digest := "CONVERSATION_SUMMARY\n" +
		"Digest of the earlier messages compacted out of this request (18 messages so far). Each line quotes the message it comes from (#id).\n" +
		"Focus of the last compaction: the budget\n\n" +
		"Task (first user message #84999287):\n> Plan the trip\n>\n> Budget 4711 EUR\n\n" +
		"Requirements and decisions:\n- #0a1b2c3d user: must stay under 4711 EUR … never fly at night\n- #11112222 assistant: decided on the train\n\n" +
		"Errors and findings:\n- #33334444 tool fs.read: config.yaml says port 8080\n- #55556666 summary: an older line\n- plain line\n\n" +
		"(lines that did not fit were left out)"
	want := "**Focus:** the budget\n\n" +
		"**Your first message:**\n> Plan the trip\n>\n> Budget 4711 EUR\n\n" +
		"**Requirements and decisions**\n\n- **You:** must stay under 4711 EUR … never fly at night\n- **Assistant:** decided on the train\n\n" +
		"**Errors and findings**\n\n- **fs.read result:** config.yaml says port 8080\n- an older line\n- plain line\n\n" +
		"*Some lines did not fit and were left out.*"
	tests := []struct{ name, in, want string }{
		{"the digest", digest, want},
		{"a model's summary", "CONVERSATION_SUMMARY\nDigest of the earlier messages compacted out of this request (3 messages so far).\n\nTask (first user message #aa, key lines):\n> Go\n\nSummary:\n- #12345678 The user wants a train.\nOpen items:\n- none",
			"**Your first message** (its key lines):\n> Go\n\n- The user wants a train.\n\n**Open items**\n\n- none"},
		{"not a summary of ours", "Just some text\n- #not a cite", "Just some text\n- a cite"},
		{"empty", "", ""},
		{"only the marker", "CONVERSATION_SUMMARY", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForScreen(tt.in); got != tt.want {
				t.Fatalf("ForScreen:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// A real digest of compacted messages reads without ids and markers.
func TestForScreenOfADigest(t *testing.T) {
	var c convo
	c.user("Plan the release. We must never deploy on Fridays.")
	c.filler(2)
	c.tool("fs.read", `{"path":"@project/conf/app.yaml"}`, `{"ok":true,"content":"port: 8080"}`)
	c.assistant("The config lives in conf/app.yaml and the server listens on port 8080.")
	text := ForScreen(digestOf(t, c.entries, nil, 2000, "the port").text)
	for _, leak := range []string{"CONVERSATION_SUMMARY", "Digest of", "#m"} {
		if strings.Contains(text, leak) {
			t.Fatalf("the screen's summary shows %q:\n%s", leak, text)
		}
	}
	if !strings.Contains(text, "never deploy on Fridays") || !strings.Contains(text, "**Your first message:**") || !strings.Contains(text, "port 8080") {
		t.Fatalf("the screen's summary lost the facts:\n%s", text)
	}
}

func FuzzForScreen(f *testing.F) {
	f.Add("CONVERSATION_SUMMARY\nDigest of x (1 messages so far).\n\nTask (first user message #a):\n> t\n\nFacts, files and numbers:\n- #a user: b")
	f.Add("- #")
	f.Add("- # x: y")
	f.Add("* #ab tool : z")
	f.Fuzz(func(t *testing.T, s string) {
		out := ForScreen(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from valid input %q", s)
		}
		if strings.Contains(out, "\n\n\n") {
			t.Fatalf("more than one blank line: %q", out)
		}
	})
}
