package convlog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/conversation"
)

func TestSaveAttachment(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := s.Create("pics", "chat")
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\nrest")
	tests := []struct {
		name, file string
		wantErr    bool
	}{
		{"plain", "call_1-get-tiny-image-1.png", false},
		{"prefix kept once", "att-x.png", false},
		{"a path", "../../escape.png", true},
		{"a folder", "a/b.png", true},
		{"leading dot after the prefix is fine", ".hidden", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			alias, err := s.SaveAttachment(m.ID, tc.file, png)
			if tc.wantErr {
				if !errors.Is(err, ErrInvalidID) {
					t.Fatalf("alias %q, err %v", alias, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			host, rel := filepath.Join(dir, "logs", "tool-results", m.ID), alias[len(conversation.ToolResultAliasPrefix+m.ID+"/"):]
			b, err := os.ReadFile(filepath.Join(host, rel))
			if err != nil || !bytes.Equal(b, png) || rel[:4] != AttachmentPrefix {
				t.Fatalf("%s -> %s: %q %v", tc.file, alias, b, err)
			}
		})
	}
	if _, err := s.SaveAttachment("not-a-uuid", "a.png", png); !errors.Is(err, ErrInvalidID) {
		t.Fatalf("bad conversation id: %v", err)
	}
	if err := s.Delete(m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "tool-results", m.ID)); !os.IsNotExist(err) {
		t.Fatalf("the attachments outlived their conversation: %v", err)
	}
}
