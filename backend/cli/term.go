package cli

import (
	"bytes"
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
// as "␍". --json output is JSON, which escapes the C0 controls itself; jsonWriter also
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

// jsonWriter writes JSON with the C1 control characters (U+0080-U+009F, UTF-8 C2 80-C2 9F,
// which can only stand inside strings) escaped as \u00XX: the same values, nothing a
// terminal obeys. The encoder escapes the C0 controls itself.
type jsonWriter struct {
	w       io.Writer
	pending bool // the last write ended with a C2 byte
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	n := len(p)
	var out []byte
	data := p
	if j.pending {
		data = append([]byte{0xC2}, p...)
		j.pending = false
	}
	start := 0
	for i := 0; i < len(data); i++ {
		if data[i] != 0xC2 {
			continue
		}
		if i+1 == len(data) {
			out = append(out, data[start:i]...)
			j.pending = true
			start = len(data)
			break
		}
		if b := data[i+1]; b >= 0x80 && b <= 0x9f {
			out = append(out, data[start:i]...)
			out = append(out, `\u00`...)
			out = append(out, "0123456789abcdef"[b>>4], "0123456789abcdef"[b&0xf])
			i++
			start = i + 1
		}
	}
	out = append(out, data[start:]...)
	if len(out) > 0 {
		if _, err := j.w.Write(out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush writes a C2 byte a write ended with.
func (j *jsonWriter) Flush() error {
	if !j.pending {
		return nil
	}
	j.pending = false
	_, err := j.w.Write([]byte{0xC2})
	return err
}
