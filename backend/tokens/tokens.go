// Package tokens owns token counting: which tokenizer encoding a model uses and
// how many tokens a text or a conversation message costs in a request.
package tokens

import (
	"fmt"
	"strings"
	"sync"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"crewagent/backend/conversation"
)

// Encoding names returned by EncodingFor.
const (
	O200kBase  = "o200k_base"
	CL100kBase = "cl100k_base"
)

// MessageOverhead is the number of tokens every chat message costs on top of
// its text (role and message framing), as in OpenAI's published counting recipe.
// The 3 tokens that prime the assistant reply are added once per request by callers.
const MessageOverhead = 4

// MaxTokenBytes is the most bytes one token of the encodings counted here
// covers (the longest entry of both vocabularies; a test checks it): a text
// of n bytes is at least n/MaxTokenBytes tokens, whatever it holds, which
// lets a caller refuse a text that can never fit without counting it.
const MaxTokenBytes = 128

// ReplyPriming is the number of tokens a request costs once, for the assistant
// reply header. Callers that total a request add it themselves.
const ReplyPriming = 3

// encoder is one tokenizer, built on first use (bpe.go). The vocabularies are
// immutable once built, so they are shared by every Counter in the process:
// building one costs 70-160 ms; it then holds about 5 MB (o200k_base).
type encoder struct {
	name string
	once sync.Once
	tk   *bpe
	err  error
}

var shared = map[string]*encoder{
	O200kBase:  {name: O200kBase},
	CL100kBase: {name: CL100kBase},
}

// get builds the encoder from the vocabulary embedded in the binary (the
// tokenizer library's offline copies: nothing is downloaded).
func (e *encoder) get() (*bpe, error) {
	e.once.Do(func() {
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(e.name + ".tiktoken")
		if err != nil {
			e.err = fmt.Errorf("the %s vocabulary: %w", e.name, err)
			return
		}
		e.tk, e.err = newBPE(ranks, pretokenizers[e.name])
	})
	return e.tk, e.err
}

// Counter counts tokens. The zero value is not usable; call New. A Counter is
// safe for concurrent use; encoders are built lazily on first use of each encoding.
type Counter struct {
	encoders map[string]*encoder
}

// New returns a Counter. It is cheap: encoders are built on first use (call Warm
// to build them ahead of time, off the UI path).
func New() *Counter {
	return &Counter{encoders: shared}
}

// Warm builds both encoders now and reports whether they are usable.
func (c *Counter) Warm() error {
	for _, name := range []string{O200kBase, CL100kBase} {
		if _, err := c.encoders[name].get(); err != nil {
			return err
		}
	}
	return nil
}

// EncodingFor returns the tokenizer encoding used for model.
//
//   - cl100k_base: gpt-4 and its dated/turbo/32k variants (not gpt-4o, gpt-4.1,
//     gpt-4.5), gpt-3.5*, text-embedding-ada-002 and text-embedding-3-*.
//   - o200k_base: gpt-4o*, gpt-4.1*, gpt-4.5*, gpt-5*, o1*, o3*, o4*, chatgpt-4o*,
//     and every other model. Unknown models (local ones such as llama3 or qwen
//     included) default to o200k_base: their real tokenizers are not available
//     offline and o200k_base is the closest general-purpose estimate.
//
// Matching ignores case, surrounding spaces and a provider prefix ("openai/gpt-4").
func (c *Counter) EncodingFor(model string) string { return encodingFor(model) }

func encodingFor(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	switch {
	case m == "gpt-4" || strings.HasPrefix(m, "gpt-4-"):
		return CL100kBase
	case strings.HasPrefix(m, "gpt-3.5"):
		return CL100kBase
	case m == "text-embedding-ada-002" || strings.HasPrefix(m, "text-embedding-3-"):
		return CL100kBase
	default:
		return O200kBase
	}
}

// Count returns the number of tokens of text for model. Text that looks like a
// special token ("<|endoftext|>") is counted as ordinary text, the way user
// content reaches the model.
//
// If the encoder cannot be built (the embedded vocabularies are part of the
// binary, so this does not happen in practice) Count falls back to an estimate
// of one token per 3 bytes, which errs on the high side; Warm reports the error.
func (c *Counter) Count(model, text string) int {
	return c.countEncoding(encodingFor(model), text)
}

func (c *Counter) countEncoding(encoding, text string) int {
	if text == "" {
		return 0
	}
	tk, err := c.encoders[encoding].get()
	if err != nil {
		return estimate(text)
	}
	if len(text) <= maxRun {
		return tk.CountOrdinary(text)
	}
	n := 0
	split(text, chunkBytes, maxRun, func(part string) { n += tk.CountOrdinary(part) })
	return n
}

// estimate is the fallback count: one token per 3 bytes, rounded up.
func estimate(text string) int { return (len(text) + 2) / 3 }

// CountMessage returns what a message entry costs in a request for model:
// MessageOverhead (4) + the tokens of its content + for each tool call, the
// tokens of the function name and of the arguments + the tokens of tool_call_id
// and tool_name when set. Event entries ("evt") never reach the model and count 0.
// ReplyPriming (3 per request) is not included.
func (c *Counter) CountMessage(model string, e *conversation.Entry) int {
	if e == nil || e.IsEvent() {
		return 0
	}
	enc := encodingFor(model)
	n := MessageOverhead + c.countEncoding(enc, e.RequestText()) + conversation.ImageTokens*len(e.Images())
	for _, tc := range e.ToolCalls {
		n += c.countEncoding(enc, tc.Function.Name)
		n += c.countEncoding(enc, tc.Function.Arguments)
	}
	n += c.countEncoding(enc, e.ToolCallID)
	n += c.countEncoding(enc, e.ToolName)
	return n
}

// ModelCounter counts entries for one model. It implements conversation.TokenCounter.
type ModelCounter struct {
	c     *Counter
	model string
}

// ForModel returns the conversation.TokenCounter that counts entries for model
// (a *ModelCounter).
func (c *Counter) ForModel(model string) conversation.TokenCounter {
	return &ModelCounter{c: c, model: model}
}

var _ conversation.TokenCounter = (*ModelCounter)(nil)

// CountEntry returns CountMessage(model, e) and the encoding used.
func (m *ModelCounter) CountEntry(e *conversation.Entry) (n int, encoding string) {
	return m.c.CountMessage(m.model, e), encodingFor(m.model)
}

// Model returns the model this counter counts for.
func (m *ModelCounter) Model() string { return m.model }
