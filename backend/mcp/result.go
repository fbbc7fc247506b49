package mcp

import (
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"crewagent/backend/errs"
)

// Error codes of failed calls, carried in {"ok":false,"error":{"code":...}}. The last two
// are the runtime's own codes for the same situations with built-in tools.
const (
	CodeToolError        = errs.MCPToolError     // the tool ran and reported an error (isError)
	CodeTimeout          = errs.MCPTimeout       // no answer within the call timeout; the call was cancelled
	CodeCancelled        = errs.MCPCancelled     // the caller cancelled the call
	CodeServerFailed     = errs.MCPServerFailed  // the server could not be started, or stopped during the call
	CodeNotApproved      = errs.MCPNotApproved   // a project server that is not approved for this project
	CodeDisabled         = errs.MCPDisabled      // the server is disabled in its configuration
	CodeProtocol         = errs.MCPProtocol      // the server answered with a protocol error
	CodeToolNotAvailable = errs.ToolNotAvailable // no such server or tool
	CodeBadArguments     = errs.BadArguments     // the arguments are not a JSON object, or the server refused them
)

// Default size limits of a call's result.
const (
	DefaultMaxResultBytes = 1 << 20 // text returned to the caller
	maxErrorMessageBytes  = 16 << 10
)

// Attachment is a non-text part of a result: an image, audio, or an embedded resource.
// Its bytes are never inlined into the text; the caller saves them (CallOptions.Save) and
// the result refers to the saved copy.
type Attachment struct {
	Kind     string `json:"kind"` // "image", "audio" or "resource"
	MIMEType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"` // resources only
	// Name is a file name suggestion: <tool>-<n>.<ext>.
	Name string `json:"name"`
	Data []byte `json:"-"`
}

// ResourceLink is a reference to a resource the server can serve; it is kept in the result
// as it is (no bytes).
type ResourceLink struct {
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Result is the outcome of one call, in the runtime's tool-result form.
type Result struct {
	// OK is false when the call failed: Code and Message say why.
	OK      bool
	Code    string
	Message string
	// Content is the tool message for the model: {"ok":true,"text":...} or
	// {"ok":false,"error":{"code","message","details"}}.
	Content string
	// Text is the text parts of the result, joined by newlines (cut to the size limit).
	Text string
	// Structured is the result's structuredContent, when it has one.
	Structured json.RawMessage
	// Attachments are the images, audio and embedded resources, with their bytes.
	Attachments []Attachment
	// Links are the resource links of the result.
	Links []ResourceLink
	// Truncated is set when Text was cut or Structured left out to respect the size limit.
	Truncated bool
}

// SaveFunc stores one attachment and returns how the model can refer to it (for example a
// path of the large-output files). An error leaves the attachment unsaved and is noted in
// the result.
type SaveFunc func(a Attachment) (ref string, err error)

// failed builds an ok:false result; server and tool go to the details when not empty.
func failed(code, message, server, tool string) Result {
	e := struct {
		Code    string            `json:"code"`
		Message string            `json:"message"`
		Details map[string]string `json:"details,omitempty"`
	}{Code: code, Message: message}
	if server != "" || tool != "" {
		e.Details = map[string]string{}
		if server != "" {
			e.Details["server"] = server
		}
		if tool != "" {
			e.Details["tool"] = tool
		}
	}
	b, _ := json.Marshal(struct {
		OK    bool `json:"ok"`
		Error any  `json:"error"`
	}{false, e})
	return Result{OK: false, Code: code, Message: message, Content: string(b)}
}

// attachmentView is an attachment as the model sees it.
type attachmentView struct {
	Kind     string `json:"kind"`
	MIMEType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
	Bytes    int    `json:"bytes"`
	Ref      string `json:"ref,omitempty"`
	Error    string `json:"error,omitempty"`
}

// convertResult turns a CallToolResult into a Result: text parts become the text, isError
// becomes an ok:false result with the server's text as the message, images, audio and
// embedded resources become attachments (saved through save when it is set), structured
// content is kept as JSON. maxBytes bounds the text and the structured content.
func convertResult(res *sdk.CallToolResult, server, tool string, maxBytes int, save SaveFunc) Result {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxResultBytes
	}
	var texts []string
	var out Result
	n := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
		case *sdk.ImageContent:
			n++
			out.Attachments = append(out.Attachments, Attachment{Kind: "image", MIMEType: c.MIMEType, Data: c.Data, Name: attachmentName(tool, n, c.MIMEType, "")})
		case *sdk.AudioContent:
			n++
			out.Attachments = append(out.Attachments, Attachment{Kind: "audio", MIMEType: c.MIMEType, Data: c.Data, Name: attachmentName(tool, n, c.MIMEType, "")})
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			n++
			data := c.Resource.Blob
			mt := c.Resource.MIMEType
			if data == nil {
				data = []byte(c.Resource.Text)
				if mt == "" {
					mt = "text/plain"
				}
			}
			out.Attachments = append(out.Attachments, Attachment{Kind: "resource", MIMEType: mt, URI: c.Resource.URI, Data: data, Name: attachmentName(tool, n, mt, c.Resource.URI)})
		case *sdk.ResourceLink:
			out.Links = append(out.Links, ResourceLink{URI: c.URI, Name: c.Name, Description: c.Description, MIMEType: c.MIMEType})
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		msg := strings.TrimSpace(text)
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		msg, _ = cutText(msg, maxErrorMessageBytes)
		r := failed(CodeToolError, msg, server, tool)
		r.Attachments, r.Links = out.Attachments, out.Links
		return r
	}
	out.OK = true
	var textBytes int
	out.Text, out.Truncated = cutText(text, maxBytes)
	if out.Truncated {
		textBytes = len(text)
	}
	var structuredNote string
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			if sameJSON(b, text) {
				// Servers often send the structured content again as text: the model gets
				// it once, as the text.
				out.Structured = b
			} else if len(b) <= maxBytes {
				out.Structured = b
			} else {
				out.Truncated = true
				structuredNote = fmt.Sprintf("left out: %d bytes, more than the %d-byte limit", len(b), maxBytes)
			}
		}
	}
	structuredPart := out.Structured
	if sameJSON(structuredPart, text) {
		structuredPart = nil
	}
	views := make([]attachmentView, len(out.Attachments))
	var media []string
	for i, a := range out.Attachments {
		if a.Kind == "image" || a.Kind == "audio" {
			media = append(media, a.Kind)
		}
		views[i] = attachmentView{Kind: a.Kind, MIMEType: a.MIMEType, URI: a.URI, Bytes: len(a.Data)}
		if save == nil {
			views[i].Error = "not saved"
			continue
		}
		ref, err := save(a)
		if err != nil {
			views[i].Error = "could not be saved: " + err.Error()
			continue
		}
		views[i].Ref = ref
	}
	payload := struct {
		OK                bool             `json:"ok"`
		Text              string           `json:"text"`
		StructuredContent json.RawMessage  `json:"structuredContent,omitempty"`
		StructuredNote    string           `json:"structuredContentNote,omitempty"`
		Attachments       []attachmentView `json:"attachments,omitempty"`
		AttachmentsNote   string           `json:"attachmentsNote,omitempty"`
		ResourceLinks     []ResourceLink   `json:"resourceLinks,omitempty"`
		Truncated         bool             `json:"truncated,omitempty"`
		TextBytes         int              `json:"textBytes,omitempty"`
	}{true, out.Text, structuredPart, structuredNote, views, mediaNote(media), out.Links, out.Truncated, textBytes}
	b, err := json.Marshal(payload)
	if err != nil {
		return failed(CodeProtocol, "the result could not be encoded", server, tool)
	}
	out.Content = string(b)
	return out
}

// cutText cuts s to at most max bytes on a rune boundary.
func cutText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

var extByType = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"image/svg+xml": ".svg", "audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3",
	"audio/ogg": ".ogg", "text/plain": ".txt", "application/json": ".json", "text/markdown": ".md",
	"text/html": ".html", "application/pdf": ".pdf", "application/gzip": ".gz",
}

// attachmentName suggests a file name: <tool>-<n><ext>.
func attachmentName(tool string, n int, mimeType, uri string) string {
	ext := ""
	if mt, _, err := mime.ParseMediaType(mimeType); err == nil {
		ext = extByType[mt]
		if ext == "" {
			if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
				ext = exts[0]
			}
		}
	}
	if ext == "" && uri != "" {
		if i := strings.LastIndexByte(uri, '.'); i > strings.LastIndexByte(uri, '/') && len(uri)-i <= 6 {
			ext = wireSafe(uri[i:])
			ext = "." + strings.TrimPrefix(ext, "_")
		}
	}
	if ext == "" {
		ext = ".bin"
	}
	return fmt.Sprintf("%s-%d%s", wireSafe(tool), n, ext)
}

// mediaNote tells the model, in words, that it does not see the images or audio a tool
// returned: they are saved, and described only by their type and size.
func mediaNote(kinds []string) string {
	if len(kinds) == 0 {
		return ""
	}
	what := "an image"
	switch {
	case len(kinds) == 1 && kinds[0] == "audio":
		what = "an audio clip"
	case len(kinds) > 1:
		what = fmt.Sprintf("%d images or audio clips", len(kinds))
	}
	return "the tool returned " + what + " that you cannot see or hear here: saved (see attachments, ref) and described only by type and size"
}

// sameJSON reports whether text is JSON equal to b.
func sameJSON(b []byte, text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return false
	}
	var x, y any
	if json.Unmarshal(b, &x) != nil || json.Unmarshal([]byte(t), &y) != nil {
		return false
	}
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return string(bx) == string(by)
}
