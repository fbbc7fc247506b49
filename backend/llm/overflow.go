package llm

import (
	"errors"
	"regexp"
	"strconv"
)

// Overflow is what a provider's context-length error says about the
// request: the model's window and what the request asked for (0 when the
// message does not say).
type Overflow struct {
	Limit     int
	Requested int
}

// Excess is how many tokens the request was over (0 when unknown).
func (o Overflow) Excess() int {
	if o.Limit > 0 && o.Requested > o.Limit {
		return o.Requested - o.Limit
	}
	return 0
}

var overflowPatterns = []struct {
	re             *regexp.Regexp
	limitAt, reqAt int // submatch indexes
}{
	// OpenAI, vLLM, DeepSeek: "maximum context length is 8192 tokens. However, you requested 9000 tokens"
	// / "However, your messages resulted in 9001 tokens"
	{regexp.MustCompile(`(?i)maximum context length is (\d+) tokens?.*?(?:requested|resulted in|have) (\d+) tokens?`), 1, 2},
	// llama.cpp: "the request exceeds the available context size (8192 tokens)" with "request (9000 tokens)"
	{regexp.MustCompile(`(?i)request \((\d+) tokens?\) exceeds the available context size \((\d+) tokens?\)`), 2, 1},
	// Anthropic-style proxies: "prompt is too long: 9000 tokens > 8192 maximum"
	{regexp.MustCompile(`(?i)(\d+) tokens? > (\d+) maximum`), 2, 1},
	// Ollama and others: "input length (9000) exceeds maximum context length (8192)"
	{regexp.MustCompile(`(?i)\((\d+)\) exceeds (?:the )?(?:maximum )?context (?:length|window|size) (?:of )?\(?(\d+)`), 2, 1},
	// "exceeds the context window of 8192 tokens ... 9000 tokens"
	{regexp.MustCompile(`(?i)(\d+) tokens? exceeds? (?:the )?(?:model'?s? )?(?:maximum )?context (?:length|window|size) of (\d+)`), 2, 1},
}

var limitOnly = regexp.MustCompile(`(?i)(?:maximum context length|context (?:length|window|size))(?: is| of)? \(?(\d+)\)?`)

// ParseOverflow reads the window and the requested size from a provider's
// context-length message (OpenAI, vLLM, llama.cpp, Ollama and Anthropic-style
// wordings). ok is false when it names neither.
func ParseOverflow(msg string) (o Overflow, ok bool) {
	for _, p := range overflowPatterns {
		if m := p.re.FindStringSubmatch(msg); m != nil {
			o.Limit, _ = strconv.Atoi(m[p.limitAt])
			o.Requested, _ = strconv.Atoi(m[p.reqAt])
			return o, o.Limit > 0 || o.Requested > 0
		}
	}
	if m := limitOnly.FindStringSubmatch(msg); m != nil {
		o.Limit, _ = strconv.Atoi(m[1])
		return o, o.Limit > 0
	}
	return Overflow{}, false
}

// OverflowOf returns what the context-length error in err's chain says
// (ok false for another error or a message without figures).
func OverflowOf(err error) (Overflow, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeContextLength {
		return Overflow{}, false
	}
	return ParseOverflow(e.Message)
}
