package conversation

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrorBlockHeader is the first line of the block that ends the content of a
// failed reply (an assistant message with partType "error").
const ErrorBlockHeader = "LLM_ERROR"

// ErrorBlock is the failure recorded at the end of a failed reply:
//
//	LLM_ERROR
//	- code: LLM_TIMEOUT
//	- message: no data for 60s
//	- retryable: true
//	- status: 429            (when there was an HTTP status)
//	- retry_after: 20s       (when the server sent Retry-After)
//	- provider: api.openai.com
type ErrorBlock struct {
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	Retryable  bool          `json:"retryable"`
	Status     int           `json:"status,omitempty"`
	RetryAfter time.Duration `json:"-"`
	Provider   string        `json:"provider,omitempty"`
	// Fields holds every "- key: value" line of a parsed block, keys lower-cased.
	Fields map[string]string `json:"fields,omitempty"`
}

// Format renders the block (Message must be one line).
func (b ErrorBlock) Format() string {
	var s strings.Builder
	s.WriteString(ErrorBlockHeader)
	fmt.Fprintf(&s, "\n- code: %s", b.Code)
	fmt.Fprintf(&s, "\n- message: %s", b.Message)
	fmt.Fprintf(&s, "\n- retryable: %t", b.Retryable)
	if b.Status != 0 {
		fmt.Fprintf(&s, "\n- status: %d", b.Status)
	}
	if b.RetryAfter > 0 {
		fmt.Fprintf(&s, "\n- retry_after: %s", b.RetryAfter)
	}
	if b.Provider != "" {
		fmt.Fprintf(&s, "\n- provider: %s", b.Provider)
	}
	return s.String()
}

// ErrorContent is the content of a failed reply: the partial answer streamed
// before the failure (if any), a blank line, then the block.
func ErrorContent(partial string, b ErrorBlock) string {
	content := strings.TrimRight(partial, " \t\r\n")
	if content != "" {
		content += "\n\n"
	}
	return content + b.Format()
}

var (
	errorHeaderLine = regexp.MustCompile(`(^|\n)` + ErrorBlockHeader + `[ \t]*(\n|$)`)
	errorFieldLine  = regexp.MustCompile(`^\s*-\s*([A-Za-z_]+):\s*(.*)$`)
)

// DefaultErrorMessage is the message of a failed reply whose block says none.
const DefaultErrorMessage = "The model call failed."

// ParseErrorContent splits the content of a failed reply into the partial
// answer and its block. Content without a block is taken as the message of
// an unknown failure (code LLM_ERROR).
func ParseErrorContent(content string) (partial string, b ErrorBlock) {
	loc := errorHeaderLine.FindStringIndex(content)
	block := content
	if loc != nil {
		partial = strings.TrimRight(content[:loc[0]], " \t\r\n")
		block = content[loc[1]:]
	}
	b.Fields = map[string]string{}
	for line := range strings.SplitSeq(block, "\n") {
		if m := errorFieldLine.FindStringSubmatch(line); m != nil {
			b.Fields[strings.ToLower(m[1])] = strings.TrimSpace(m[2])
		}
	}
	b.Code = b.Fields["code"]
	if b.Code == "" {
		b.Code = ErrorBlockHeader
	}
	b.Message = b.Fields["message"]
	if b.Message == "" && loc == nil {
		b.Message = strings.TrimSpace(content)
	}
	if b.Message == "" {
		b.Message = DefaultErrorMessage
	}
	b.Retryable = b.Fields["retryable"] == "true"
	b.Status, _ = strconv.Atoi(b.Fields["status"])
	b.RetryAfter, _ = time.ParseDuration(b.Fields["retry_after"])
	b.Provider = b.Fields["provider"]
	return partial, b
}
