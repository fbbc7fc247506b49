// Package attach reads the files a user attaches to a message: what kind they
// are (text or image), and the text a request carries of a text file.
package attach

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"crewagent/backend/conversation"
)

// Limits of attachments.
const (
	// MaxFileBytes bounds one attached file (the image limit of the big
	// providers).
	MaxFileBytes = 20 << 20
	// MaxFiles bounds the files of one message.
	MaxFiles = 10
	// MaxInlineText is the longest text file a request carries whole; a
	// longer one is carried as its start (HeadBytes) and end (TailBytes).
	MaxInlineText = 256 << 10
	HeadBytes     = 24 << 10
	TailBytes     = 8 << 10
)

// imageTypes are the image formats vision models take.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// File is a file to attach: its name (as the user knows it) and bytes.
type File struct {
	Name string
	Data []byte
}

// Describe checks f and returns its attachment (without Path: the caller
// saves the bytes and sets it) or an error that says in words why it cannot
// be attached.
func Describe(f File) (conversation.Attachment, error) {
	name := strings.TrimSpace(filepath.Base(strings.ReplaceAll(f.Name, "\\", "/")))
	if name == "" || name == "." || name == "/" {
		name = "attachment"
	}
	a := conversation.Attachment{Name: name, Size: int64(len(f.Data))}
	switch {
	case len(f.Data) == 0:
		return a, fmt.Errorf("%s is empty: there is nothing to attach", name)
	case len(f.Data) > MaxFileBytes:
		return a, fmt.Errorf("%s is %s, over the %s an attachment may have", name, size(int64(len(f.Data))), size(MaxFileBytes))
	}
	mime := http.DetectContentType(f.Data)
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = strings.TrimSpace(mime[:i])
	}
	switch {
	case imageTypes[mime]:
		a.Kind, a.MIME = conversation.AttachImage, mime
	case utf8.Valid(f.Data) && !strings.ContainsRune(string(f.Data[:min(len(f.Data), 8192)]), 0):
		a.Kind, a.MIME = conversation.AttachText, "text/plain"
		a.Text, a.Truncated = textOf(f.Data)
	default:
		return a, fmt.Errorf("%s (%s) is neither text nor an image (PNG, JPEG, GIF, WebP): the model cannot read it; put it in the project folder for the tools, or attach a text version", name, mime)
	}
	return a, nil
}

// textOf returns what a request carries of a text file: all of it, or its
// start and end with a line saying what was left out.
func textOf(data []byte) (string, bool) {
	if len(data) <= MaxInlineText {
		return string(data), false
	}
	head := cutRunes(data[:HeadBytes], false)
	tail := cutRunes(data[len(data)-TailBytes:], true)
	left := len(data) - len(head) - len(tail)
	return string(head) + fmt.Sprintf("\n[… %s left out here …]\n", size(int64(left))) + string(tail), true
}

// cutRunes trims a partial UTF-8 sequence at the end of b (or at its start
// when fromStart).
func cutRunes(b []byte, fromStart bool) []byte {
	if fromStart {
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
		return b
	}
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1]
	}
	return b
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// SafeName turns a file name into one the store accepts ([A-Za-z0-9_.-],
// no leading dot), keeping its extension readable.
func SafeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.ReplaceAll(b.String(), "..", "_")
	if len(s) > 80 {
		s = s[len(s)-80:]
	}
	// after the cut, which may leave a dot first
	s = strings.TrimLeft(s, ".")
	if s == "" {
		s = "file"
	}
	return s
}
