package cli

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// Terminal safety. Text the command line prints comes partly from elsewhere: the model's
// answers, conversation titles, tool names, servers' error messages. A terminal acts on the
// control sequences in it: OSC 52 writes the clipboard, OSC 0 retitles the window, CSI
// clears the screen or moves the cursor, a carriage return or backspaces overwrite what was
// printed. termWriter passes text through with every control character except the line
// feed and the tab made visible instead: C0 controls as their Unicode control pictures
// (ESC as "␛", so "ESC ] 52" shows as "␛]52"), DEL as "␡", C1 controls (U+0080-U+009F,
// which some terminals obey as well) and bytes that are not UTF-8 as "�". A carriage return
// followed by a line feed is a line end and becomes "\n"; any other carriage return shows
// as "␍". The invisible controls of bidirectional text (the embeddings, overrides and
// isolates U+202A-U+202E and U+2066-U+2069, the marks U+200E, U+200F and U+061C), which
// reorder what a terminal shows so that a title or a command reads other than it is, show
// as their code point ("⟨U+202E⟩"). --json output is JSON, which escapes the C0 controls itself; jsonWriter also
// escapes the C1 controls there (\u009b), which keeps every value exact.

// termWriter neutralises control characters in text written to a terminal. Writes may split
// UTF-8 sequences and CR LF pairs anywhere; Flush writes what is held back.
type termWriter struct {
	w       io.Writer
	pending []byte // an incomplete UTF-8 sequence, or a CR, from the end of the last write
	out     []byte
}

func newTermWriter(w io.Writer) *termWriter { return &termWriter{w: w} }

func (t *termWriter) Write(p []byte) (int, error) {
	n := len(p)
	data := p
	if len(t.pending) > 0 {
		data = append(t.pending, p...)
		t.pending = nil
	}
	t.out = t.out[:0]
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n' || c == '\t':
			t.out = append(t.out, c)
			i++
		case c == '\r':
			if i+1 == len(data) {
				t.pending = append(t.pending[:0], '\r')
				i++
				continue
			}
			if data[i+1] == '\n' {
				t.out = append(t.out, '\n')
				i += 2
				continue
			}
			t.out = append(t.out, "␍"...)
			i++
		case c < 0x20:
			t.out = utf8.AppendRune(t.out, 0x2400+rune(c)) // ␀ … ␟ (ESC is ␛)
			i++
		case c == 0x7f:
			t.out = append(t.out, "␡"...)
			i++
		case c < utf8.RuneSelf:
			t.out = append(t.out, c)
			i++
		default:
			if !utf8.FullRune(data[i:]) && len(data)-i < utf8.UTFMax {
				t.pending = append(t.pending[:0], data[i:]...) // wait for the rest
				i = len(data)
				continue
			}
			r, w := utf8.DecodeRune(data[i:])
			switch {
			case r == utf8.RuneError && w <= 1:
				t.out = append(t.out, "�"...)
			case r >= 0x80 && r <= 0x9f:
				t.out = append(t.out, "�"...)
			case isBidiControl(r):
				t.out = append(t.out, fmt.Sprintf("⟨U+%04X⟩", r)...)
			default:
				t.out = append(t.out, data[i:i+w]...)
			}
			i += w
		}
	}
	if len(t.out) > 0 {
		if _, err := t.w.Write(t.out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// isBidiControl reports whether r is an invisible control of bidirectional text.
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// Flush writes what a write held back: a lone CR or an incomplete UTF-8 sequence.
func (t *termWriter) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	var out []byte
	if bytes.Equal(t.pending, []byte{'\r'}) {
		out = []byte("␍")
	} else {
		out = bytes.Repeat([]byte("�"), len(t.pending))
	}
	t.pending = nil
	_, err := t.w.Write(out)
	return err
}

// jsonWriter writes JSON with the C1 control characters (U+0080-U+009F) and the bidi
// controls escaped as \uXXXX (they can only stand inside strings): the same values,
// nothing a terminal obeys or reorders. The encoder escapes the C0 controls itself.
type jsonWriter struct {
	w       io.Writer
	pending []byte // an incomplete UTF-8 sequence the last write ended with
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	n := len(p)
	data := p
	if len(j.pending) > 0 {
		data = append(j.pending, p...)
		j.pending = nil
	}
	var out []byte
	start := 0
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) && len(data)-i < utf8.UTFMax {
			out = append(out, data[start:i]...)
			j.pending = append([]byte(nil), data[i:]...)
			start = len(data)
			break
		}
		r, w := utf8.DecodeRune(data[i:])
		if r >= 0x80 && r <= 0x9f || isBidiControl(r) {
			out = append(out, data[start:i]...)
			out = append(out, fmt.Sprintf(`\u%04x`, r)...)
			start = i + w
		}
		i += w
	}
	out = append(out, data[start:]...)
	if len(out) > 0 {
		if _, err := j.w.Write(out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush writes an incomplete sequence a write ended with.
func (j *jsonWriter) Flush() error {
	if len(j.pending) == 0 {
		return nil
	}
	p := j.pending
	j.pending = nil
	_, err := j.w.Write(p)
	return err
}
