package attach

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"crewagent/backend/conversation"
)

// png1x1 is a real 1x1 PNG.
var png1x1 = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

func TestDescribe(t *testing.T) {
	long := strings.Repeat("línea de registro número 42\n", 20000) // over MaxInlineText, multi-byte runes
	tests := []struct {
		name     string
		file     File
		kind     string
		mime     string
		truncate bool
		err      string
	}{
		{"text", File{"notes.md", []byte("# Notes\nship on friday\n")}, conversation.AttachText, "text/plain", false, ""},
		{"chinese text", File{"需求.txt", []byte("需求：周五发布\n")}, conversation.AttachText, "text/plain", false, ""},
		{"png", File{"shot.png", png1x1}, conversation.AttachImage, "image/png", false, ""},
		{"long text", File{"server.log", []byte(long)}, conversation.AttachText, "text/plain", true, ""},
		{"empty", File{"empty.txt", nil}, "", "", false, "is empty"},
		{"binary", File{"a.out", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\xff\xfe")}, "", "", false, "neither text nor an image"},
		{"pdf", File{"paper.pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")}, "", "", false, "application/pdf"},
		{"too big", File{"big.txt", bytes.Repeat([]byte("a"), MaxFileBytes+1)}, "", "", false, "over the 20.0 MB"},
		{"path in the name", File{"../../etc/passwd", []byte("root:x:0:0\n")}, conversation.AttachText, "text/plain", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Describe(tt.file)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Kind != tt.kind || a.MIME != tt.mime || a.Truncated != tt.truncate || a.Size != int64(len(tt.file.Data)) {
				t.Fatalf("%+v", a)
			}
			if strings.ContainsAny(a.Name, "/\\") {
				t.Fatalf("name %q keeps a path", a.Name)
			}
			if a.Kind == conversation.AttachText {
				if !utf8.ValidString(a.Text) {
					t.Fatal("the text is not valid UTF-8")
				}
				if !tt.truncate && a.Text != string(tt.file.Data) {
					t.Fatal("a short text is not carried whole")
				}
				if tt.truncate && (len(a.Text) > HeadBytes+TailBytes+100 || !strings.Contains(a.Text, "left out here") || !strings.HasSuffix(a.Text, "número 42\n")) {
					t.Fatalf("a long text is carried as %d bytes", len(a.Text))
				}
			}
		})
	}
}

func TestRequestText(t *testing.T) {
	e := conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("what is wrong here?"), Attachments: []conversation.Attachment{
		{Name: "main.go", Kind: conversation.AttachText, Text: "package main\n```\n"},
		{Name: "shot.png", Kind: conversation.AttachImage, MIME: "image/png"},
	}}
	got := e.RequestText()
	want := "what is wrong here?\n\nAttached file main.go:\n````\npackage main\n```\n````\n\nAttached image shot.png (image/png)."
	if got != want {
		t.Fatalf("%q", got)
	}
	if len(e.Images()) != 1 {
		t.Fatal("images")
	}
}

func FuzzDescribe(f *testing.F) {
	f.Add("a.txt", []byte("hello"))
	f.Add("b.png", png1x1)
	f.Add("c", []byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		a, err := Describe(File{Name: name, Data: data})
		if err != nil {
			return
		}
		if a.Name == "" || strings.ContainsAny(a.Name, "/") {
			t.Fatalf("name %q", a.Name)
		}
		if a.Kind == conversation.AttachText && !utf8.ValidString(a.Text) {
			t.Fatal("text not UTF-8")
		}
		if s := SafeName(a.Name); s == "" || strings.HasPrefix(s, ".") || strings.Contains(s, "..") || strings.ContainsAny(s, "/\\") {
			t.Fatalf("safe name %q", s)
		}
	})
}
