package errs

import (
	"fmt"
	"regexp"
	"strings"
)

// The window shows a failure in the user's language. Every code has a
// sentence of its own (CodeTexts: what went wrong and what to do, without
// particulars), and the messages that name particulars (a path, a server, a
// field) are templates (Messages): an *Error built with Msg carries the
// template's key and the values it names (Params) beside its English
// message, which the window renders from its own catalogue. Both are written
// for the window as frontend/src/i18n/locales/backend.en.gen.json (go
// generate ./backend/errs); the other languages translate that file.

// Params are the values a message names, by placeholder ({{path}} → "path").
// A value may itself be Words (said in the same language) or a list of
// Words (said one after the other, with the language's separator).
type Params map[string]any

// Words are a message by its template: the key of Messages and the values
// it names. They marshal as {"key","params"}; String says them in English.
type Words struct {
	Key    string `json:"key"`
	Params Params `json:"params,omitempty"`
}

// Say returns the Words of key with params.
func Say(key string, params Params) Words { return Words{Key: key, Params: params} }

// String renders the Words in English (Text).
func (w Words) String() string { return Text(w.Key, w.Params) }

// listSeparator is the key of the words that part the items of a list of Words.
const listSeparator = "list.separator"

var _ = messages(map[string]string{listSeparator: ", "})

// placeholder matches {{name}} in a template.
var placeholder = regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)

// Text renders the template of key with params; a key without a template is
// returned as it is, a placeholder without a value is left out.
func Text(key string, params Params) string {
	tpl, ok := Messages[key]
	if !ok {
		return key
	}
	return fill(tpl, params)
}

func fill(tpl string, params Params) string {
	return placeholder.ReplaceAllStringFunc(tpl, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		v, ok := params[name]
		if !ok {
			return ""
		}
		if list, ok := v.([]Words); ok {
			parts := make([]string, len(list))
			for i, w := range list {
				parts[i] = w.String()
			}
			return strings.Join(parts, Messages[listSeparator])
		}
		return fmt.Sprint(v)
	})
}

// Msg returns an *Error with the message of key (a template of Messages)
// filled with params; the window renders it from the key in its language.
func Msg(code, key string, params Params) *Error {
	return &Error{Code: code, Message: Text(key, params), Key: key, Params: params}
}

// MsgWrap is Msg with the cause the error stands for.
func MsgWrap(code string, cause error, key string, params Params) *Error {
	e := Msg(code, key, params)
	e.Cause = cause
	return e
}

// keyOK reports whether a message key can be a path of the window's
// catalogue: dot-separated words.
func keyOK(key string) bool {
	for _, part := range strings.Split(key, ".") {
		if part == "" || strings.IndexFunc(part, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
		}) >= 0 {
			return false
		}
	}
	return true
}
