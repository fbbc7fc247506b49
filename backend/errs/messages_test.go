package errs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The window's English catalogue is generated from CodeTexts and Messages
// and committed.
func TestLocaleJSONIsUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "frontend", "src", "i18n", "locales", "backend.en.gen.json")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := LocaleJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is out of date: run go generate ./backend/errs", path)
	}
}

// Every code of the catalogue has words for the window, and nothing else does.
func TestEveryCodeHasText(t *testing.T) {
	for _, e := range Catalogue {
		if CodeTexts[e.Code] == "" {
			t.Errorf("%s (%s) has no entry in CodeTexts", e.Name, e.Code)
		}
	}
	known := map[string]bool{}
	for _, e := range Catalogue {
		known[e.Code] = true
	}
	for code := range CodeTexts {
		if !known[code] {
			t.Errorf("CodeTexts has %s, which is not in the catalogue", code)
		}
	}
	for key, tpl := range Messages {
		if !keyOK(key) || tpl == "" {
			t.Errorf("message %q = %q: a key of dot-separated words and a template", key, tpl)
		}
	}
}

func TestMsgFillsTheTemplate(t *testing.T) {
	Messages["test.greet"] = "hello {{name}}, {{ n }} left{{missing}}"
	defer delete(Messages, "test.greet")
	tests := []struct {
		name   string
		key    string
		params Params
		want   string
	}{
		{"all values", "test.greet", Params{"name": "Ada", "n": 3}, "hello Ada, 3 left"},
		{"a value missing", "test.greet", Params{"name": "Ada"}, "hello Ada,  left"},
		{"no template", "test.none", Params{"name": "Ada"}, "test.none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Msg(Busy, tt.key, tt.params)
			if e.Message != tt.want || e.Key != tt.key || !reflect.DeepEqual(e.Params, tt.params) || e.Code != Busy {
				t.Fatalf("Msg = %+v, want message %q", e, tt.want)
			}
		})
	}
}

// A wrapped error keeps its template only when the wrapping adds no words:
// the template would not say what the message says.
func TestFromKeepsTheTemplateOfAnUnchangedMessage(t *testing.T) {
	Messages["test.gone"] = "{{what}} is gone"
	defer delete(Messages, "test.gone")
	inner := MsgWrap(NotFound, errors.New("cause"), "test.gone", Params{"what": "x"})
	tests := []struct {
		name    string
		err     error
		wantKey string
	}{
		{"itself", inner, "test.gone"},
		{"wrapped without words", unchanged{inner}, "test.gone"},
		{"wrapped with words", fmt.Errorf("saving: %w", inner), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := From(tt.err); got.Key != tt.wantKey || got.Code != NotFound {
				t.Fatalf("From = %+v, want key %q", got, tt.wantKey)
			}
		})
	}
	if !errors.Is(inner, New(NotFound, "")) || errors.Unwrap(inner).Error() != "cause" {
		t.Fatal("MsgWrap keeps the code and the cause")
	}
}

type unchanged struct{ err error }

func (u unchanged) Error() string { return u.err.Error() }
func (u unchanged) Unwrap() error { return u.err }

// Words name other Words and lists of them; each is said in turn.
func TestWordsNestAndList(t *testing.T) {
	Messages["test.read"] = "read {{what}}"
	Messages["test.state"] = "the run's state"
	Messages["test.tried"] = "tried: {{list}} (failed)"
	defer func() { delete(Messages, "test.read"); delete(Messages, "test.state"); delete(Messages, "test.tried") }()
	read := func(what any) Words { return Say("test.read", Params{"what": what}) }
	tests := []struct {
		name string
		w    Words
		want string
	}{
		{"a string value", read("a.md"), "read a.md"},
		{"nested words", read(Say("test.state", nil)), "read the run's state"},
		{"a list", Say("test.tried", Params{"list": []Words{read("a.md"), read(Say("test.state", nil))}}), "tried: read a.md, read the run's state (failed)"},
		{"an empty list", Say("test.tried", Params{"list": []Words{}}), "tried:  (failed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.w.String(); got != tt.want {
				t.Fatalf("String = %q, want %q", got, tt.want)
			}
		})
	}
}

// Any template and value: filling never fails, a template without
// placeholders is its own text, and a value between two texts without
// braces is put in place whatever it holds.
func FuzzText(f *testing.F) {
	f.Add("read {{what}}", "a.md", "", "")
	f.Add("{{ what }}{{what}}{{missing}}", "{{what}}", "x", "y")
	f.Add("{{", "", "", "")
	f.Add("}}{{what", "x", "{", "}")
	f.Fuzz(func(t *testing.T, tpl, value, before, after string) {
		params := Params{"what": value, "list": []Words{{Key: "fuzz.none"}}}
		if got := fill(tpl, params); !strings.Contains(tpl, "{{") && got != tpl {
			t.Fatalf("fill(%q) = %q: a template without placeholders changed", tpl, got)
		}
		if strings.ContainsAny(before+after, "{}") {
			return
		}
		if got, want := fill(before+"{{what}}"+after, params), before+value+after; got != want {
			t.Fatalf("fill(%q) = %q, want %q", before+"{{what}}"+after, got, want)
		}
	})
}
