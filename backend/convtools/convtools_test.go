package convtools

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCreate(t *testing.T) {
	tests := []struct {
		name, args string
		text       string
		items      int
		ignored    int
		err        string
	}{
		{"instruction", `{"user_instruction":"Find hotels"}`, "Find hotels", 0, 0, ""},
		{"text items", `{"items":[{"type":"text","text":"one"},{"type":"input_text","text":"two"}]}`, "one\n\ntwo", 2, 0, ""},
		{"both", `{"user_instruction":"first","items":[{"type":"text","text":"second"}]}`, "first\n\nsecond", 1, 0, ""},
		{"image ignored", `{"user_instruction":"look","items":[{"type":"image","image_url":"data:x"}]}`, "look", 1, 1, ""},
		{"no message", `{"title":"x"}`, "", 0, 0, "first message"},
		{"only an image", `{"items":[{"type":"image"}]}`, "", 1, 1, "first message"},
		{"base both ways", `{"user_instruction":"a","base_instruction_text":"x","base_instruction_file":"@project/p.md"}`, "", 0, 0, "not both"},
		{"empty file", `{"user_instruction":"a","base_instruction_file":"  "}`, "", 0, 0, "empty"},
		{"unknown field", `{"user_instruction":"a","colour":"red"}`, "", 0, 0, "unknown field"},
		{"wrong type", `{"user_instruction":7}`, "", 0, 0, `"user_instruction" must be a string`},
		{"not an object", `[1]`, "", 0, 0, "invalid arguments"},
		{"trailing data", `{"user_instruction":"a"} {}`, "", 0, 0, "extra data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, m, err := ParseCreate([]byte(tt.args))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Message, tt.err) || err.Code != "E_BAD_ARGUMENTS" {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || m.Text != tt.text || m.Items != tt.items || len(m.Ignored) != tt.ignored {
				t.Fatalf("got %+v, %v", m, err)
			}
		})
	}
}

func TestParseSendHistoryDestroy(t *testing.T) {
	if _, _, err := ParseSend([]byte(`{"text":"hi"}`)); err == nil || !strings.Contains(err.Message, "conversation_id") {
		t.Fatalf("send without a conversation: %v", err)
	}
	if _, _, err := ParseSend([]byte(`{"conversation_id":"c","text":"  "}`)); err == nil || !strings.Contains(err.Message, "empty") {
		t.Fatalf("empty send: %v", err)
	}
	if a, m, err := ParseSend([]byte(`{"conversation_id":"c","text":"hi"}`)); err != nil || a.ConversationID != "c" || m.Text != "hi" {
		t.Fatalf("send: %+v %+v %v", a, m, err)
	}
	for args, want := range map[string]int{`{"conversation_id":"c"}`: DefaultHistoryLimit, `{"conversation_id":"c","limit":200}`: 200, `{"conversation_id":"c","limit":1}`: 1} {
		if _, n, err := ParseHistory([]byte(args)); err != nil || n != want {
			t.Fatalf("history %s: %d, %v", args, n, err)
		}
	}
	for _, args := range []string{`{"conversation_id":"c","limit":0}`, `{"conversation_id":"c","limit":201}`, `{"limit":3}`} {
		if _, _, err := ParseHistory([]byte(args)); err == nil {
			t.Fatalf("history %s accepted", args)
		}
	}
	if _, err := ParseDestroy([]byte(`{}`)); err == nil {
		t.Fatal("destroy without a conversation accepted")
	}
}

func TestInternalToolsIgnored(t *testing.T) {
	var it InternalTools
	if err := json.Unmarshal([]byte(`{"include_plan_tool":true,"include_apply_patch_tool":false,"web_search_request":false}`), &it); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(it.Ignored(), "|")
	if !strings.Contains(got, "include_plan_tool") || !strings.Contains(got, "web_search_request") || strings.Contains(got, "apply_patch") {
		t.Fatalf("ignored %q", got)
	}
}

func TestHandoverRoundTrip(t *testing.T) {
	h := Handover{OK: true, Status: StatusCompleted, ConversationID: "c", LastAssistantMessage: "done", FirstUserMessage: "go"}
	r := h.Result()
	if !r.OK || !strings.HasPrefix(r.Content, `{"ok":true,`) {
		t.Fatalf("result %+v", r)
	}
	back, ok := Decode(r.Content)
	if !ok || back.LastAssistantMessage != "done" || back.FirstUserMessage != "go" {
		t.Fatalf("decode %+v %v", back, ok)
	}
	if _, ok := Decode(`{"ok":false,"error":{"code":"E_BAD_ARGUMENTS"}}`); ok {
		t.Fatal("a refusal decoded as a handover")
	}
	ref := Refusal(CodeRefused, "no")
	if ref.OK || !strings.Contains(ref.Content, `"reason":"no"`) || !strings.Contains(ref.Content, `"code":"E_CONV_REFUSED"`) {
		t.Fatalf("refusal %s", ref.Content)
	}
}

// The arguments come from the model: anything it sends is either a clear
// error or a message that is not empty.
func FuzzParseCreate(f *testing.F) {
	for _, s := range []string{`{"user_instruction":"a"}`, `{"items":[{"type":"text","text":"x"}]}`, `{}`, `[]`, `{"tools":["fs.read"],"mcp_allowlist":[]}`, "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, m, err := ParseCreate(raw)
		if err != nil {
			if err.Code != "E_BAD_ARGUMENTS" || err.Message == "" {
				t.Fatalf("error %+v", err)
			}
			return
		}
		if strings.TrimSpace(m.Text) == "" {
			t.Fatal("accepted without a message")
		}
		if utf8.Valid(raw) && !utf8.ValidString(m.Text) {
			t.Fatal("the message is not valid UTF-8")
		}
	})
}
