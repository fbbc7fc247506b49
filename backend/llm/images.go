package llm

import (
	"encoding/base64"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// imageParts is the content of a message with images: its text, then each
// image as a data URL.
func imageParts(text string, images []Image) []openai.ChatMessagePart {
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: text}}
	for _, im := range images {
		mime := im.MIME
		if mime == "" {
			mime = http.DetectContentType(im.Data)
		}
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(im.Data)}})
	}
	return parts
}

// noImageNote stands for an image a model that takes none is not sent.
const noImageNote = "(An attached image is not sent: this model does not take images. Say so if it matters.)"

// withoutImages turns the image parts of msgs into notes in words (in place).
func withoutImages(msgs []openai.ChatCompletionMessage) {
	for i := range msgs {
		m := &msgs[i]
		if len(m.MultiContent) == 0 {
			continue
		}
		var text []string
		for _, p := range m.MultiContent {
			switch p.Type {
			case openai.ChatMessagePartTypeText:
				text = append(text, p.Text)
			default:
				text = append(text, noImageNote)
			}
		}
		m.Content, m.MultiContent = strings.Join(text, "\n"), nil
	}
}

// imageRefusal reports a failed request's error as the model's refusal of
// images (OpenAI: "Invalid content type. image_url is only supported by
// certain models."; vLLM and llama.cpp name images, vision or multimodal
// input as unsupported).
func imageRefusal(e *Error) bool {
	if e == nil {
		return false
	}
	switch e.StatusCode {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusInternalServerError, http.StatusNotImplemented:
	default:
		return false
	}
	text := strings.ToLower(e.Message + " " + e.body)
	if !strings.Contains(text, "image") && !strings.Contains(text, "vision") && !strings.Contains(text, "multimodal") {
		return false
	}
	for _, w := range []string{"not support", "only supported", "unsupported", "not enabled", "does not take", "not allowed", "invalid content type", "cannot", "can't"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}
