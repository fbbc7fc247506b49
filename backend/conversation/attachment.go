package conversation

import (
	"strings"
)

// Kinds of attachments.
const (
	// AttachText is a text file: its text goes to the model inside the
	// message (Attachment.Text).
	AttachText = "text"
	// AttachImage is an image: it goes to the model as an image part where
	// the model takes images, as a note in words where it does not.
	AttachImage = "image"
)

// ImageTokens is what an image is counted as in a request: about what a
// 1024x1024 image costs a vision model. Servers count images their own way;
// this keeps the budget honest without decoding images.
const ImageTokens = 800

// Attachment is a file the user attached to a message (Entry.Attachments).
// The file's bytes are kept beside the conversation's large tool outputs
// (Path, an alias the tools can read), and die with the conversation.
type Attachment struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // AttachText or AttachImage
	MIME string `json:"mime"`
	Size int64  `json:"size"`
	// Path is the alias of the saved file (@state/logs/tool-results/…).
	Path string `json:"path"`
	// Text is what the model reads of a text file: all of it, or its start
	// and end when it is long (Truncated; the whole file is at Path).
	Text      string `json:"text,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// RequestText is the text of a message as a request carries it: its
// content, then each text attachment in a fenced block under its name, and a
// line for each image (which goes as an image part beside it).
func (e *Entry) RequestText() string {
	if len(e.Attachments) == 0 {
		return e.Text()
	}
	var b strings.Builder
	b.WriteString(e.Text())
	for _, a := range e.Attachments {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch a.Kind {
		case AttachText:
			fence := "```"
			for strings.Contains(a.Text, fence) {
				fence += "`"
			}
			b.WriteString("Attached file " + a.Name)
			if a.Truncated {
				b.WriteString(" (only its start and end are here; the whole file is " + a.Path + ", readable with fs.read)")
			}
			b.WriteString(":\n" + fence + "\n" + a.Text)
			if !strings.HasSuffix(a.Text, "\n") {
				b.WriteString("\n")
			}
			b.WriteString(fence)
		default:
			b.WriteString("Attached image " + a.Name + " (" + a.MIME + ").")
		}
	}
	return b.String()
}

// Images returns the image attachments of the message.
func (e *Entry) Images() []Attachment {
	var out []Attachment
	for _, a := range e.Attachments {
		if a.Kind == AttachImage {
			out = append(out, a)
		}
	}
	return out
}
