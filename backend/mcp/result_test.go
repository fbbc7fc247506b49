package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestConvertResult(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nrest")
	tests := []struct {
		name    string
		res     *sdk.CallToolResult
		save    SaveFunc
		max     int
		content string
		check   func(t *testing.T, r Result)
	}{
		{name: "text parts are joined",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}},
			content: `{"ok":true,"text":"a\nb"}`},
		{name: "no content",
			res:     &sdk.CallToolResult{},
			content: `{"ok":true,"text":""}`},
		{name: "isError is an ok:false result with the server's text",
			res:     &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "  not found: x.txt \n"}}},
			content: `{"ok":false,"error":{"code":"E_MCP_TOOL_ERROR","message":"not found: x.txt","details":{"server":"srv","tool":"read"}}}`},
		{name: "isError without text",
			res:     &sdk.CallToolResult{IsError: true},
			content: `{"ok":false,"error":{"code":"E_MCP_TOOL_ERROR","message":"the tool reported an error without a message","details":{"server":"srv","tool":"read"}}}`},
		{name: "images, audio and resources are attachments, saved by the caller",
			res: &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here"},
				&sdk.ImageContent{MIMEType: "image/png", Data: png},
				&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///r/notes.md", MIMEType: "text/markdown", Text: "# hi"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://blob", Blob: []byte{1, 2, 3}}},
				&sdk.ResourceLink{URI: "file:///r/big.csv", Name: "big.csv", MIMEType: "text/csv"},
			}},
			save: func(a Attachment) (string, error) {
				if a.Kind == "audio" {
					return "", errors.New("disk full")
				}
				return "@files/" + a.Name, nil
			},
			content: `{"ok":true,"text":"here","attachments":[` +
				`{"kind":"image","mimeType":"image/png","bytes":12,"ref":"@files/read-1.png"},` +
				`{"kind":"audio","mimeType":"audio/wav","bytes":4,"error":"could not be saved: disk full"},` +
				`{"kind":"resource","mimeType":"text/markdown","uri":"file:///r/notes.md","bytes":4,"ref":"@files/read-3.md"},` +
				`{"kind":"resource","uri":"mem://blob","bytes":3,"ref":"@files/read-4.bin"}],` +
				`"attachmentsNote":"the tool returned 2 images or audio clips that you cannot see or hear here: saved (see attachments, ref) and described only by type and size",` +
				`"resourceLinks":[{"uri":"file:///r/big.csv","name":"big.csv","mimeType":"text/csv"}]}`,
			check: func(t *testing.T, r Result) {
				if len(r.Attachments) != 4 || string(r.Attachments[0].Data) != string(png) || string(r.Attachments[2].Data) != "# hi" {
					t.Fatalf("attachments %+v", r.Attachments)
				}
			}},
		{name: "structured content is kept",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "{}"}}, StructuredContent: map[string]any{"n": 1}},
			content: `{"ok":true,"text":"{}","structuredContent":{"n":1}}`},
		{name: "structured content sent again as text is sent once",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "{\"n\": 1, \"s\": [\"a\"]}\n"}}, StructuredContent: map[string]any{"s": []any{"a"}, "n": 1}},
			content: `{"ok":true,"text":"{\"n\": 1, \"s\": [\"a\"]}\n"}`},
		{name: "one image is described in words",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: png}}},
			save:    func(a Attachment) (string, error) { return "@files/" + a.Name, nil },
			content: `{"ok":true,"text":"","attachments":[{"kind":"image","mimeType":"image/png","bytes":12,"ref":"@files/read-1.png"}],"attachmentsNote":"the tool returned an image that you cannot see or hear here: saved (see attachments, ref) and described only by type and size"}`},
		{name: "long text is cut on a rune boundary",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("é", 10)}}, StructuredContent: map[string]any{"big": strings.Repeat("x", 50)}},
			max:     15,
			content: `{"ok":true,"text":"ééééééé","structuredContentNote":"left out: 60 bytes, more than the 15-byte limit","truncated":true,"textBytes":20}`,
			check: func(t *testing.T, r Result) {
				if !r.Truncated || r.Structured != nil {
					t.Fatalf("%+v", r)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := convertResult(tt.res, "srv", "read", tt.max, tt.save)
			if r.Content != tt.content {
				t.Fatalf("content\n got %s\nwant %s", r.Content, tt.content)
			}
			if !json.Valid([]byte(r.Content)) {
				t.Fatal("content is not JSON")
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestAttachmentNames(t *testing.T) {
	for _, tt := range []struct{ tool, mime, uri, want string }{
		{"get-tiny-image", "image/png", "", "get-tiny-image-1.png"},
		{"x.y", "image/jpeg", "", "x_y-1.jpg"},
		{"t", "", "file:///a/b.tar", "t-1.tar"},
		{"t", "", "", "t-1.bin"},
		{"t", "not a type", "", "t-1.bin"},
	} {
		if got := attachmentName(tt.tool, 1, tt.mime, tt.uri); got != tt.want {
			t.Errorf("attachmentName(%q, %q, %q) = %q, want %q", tt.tool, tt.mime, tt.uri, got, tt.want)
		}
	}
}
