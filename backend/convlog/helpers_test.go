package convlog

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"crewagent/backend/conversation"
)

var discard = slog.New(slog.DiscardHandler)

// lenCounter counts one token per 4 bytes of content plus 4, and counts its calls.
type lenCounter struct {
	mu    sync.Mutex
	calls int
}

func (c *lenCounter) CountEntry(e *conversation.Entry) (int, string) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return len(e.Text())/4 + 4, "test_base"
}

func (c *lenCounter) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// logBuf collects slog output for assertions.
type logBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuf) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// openTest opens a writable store in a temp dir that is closed at the end of the test.
func openTest(t *testing.T, opts Options) (*Store, string, *logBuf) {
	t.Helper()
	dir := t.TempDir()
	lb := &logBuf{}
	if opts.Logger == nil {
		opts.Logger = lb.logger()
	}
	return openDir(t, dir, opts), dir, lb
}

// openDir opens a writable store on dir that is closed at the end of the test.
func openDir(t *testing.T, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustCreate(t *testing.T, s *Store) string {
	t.Helper()
	m, err := s.Create("", "")
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func msg(role, content string) *conversation.Entry {
	return &conversation.Entry{Role: role, Content: conversation.Str(content)}
}

func ids(es []*conversation.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func texts(es []*conversation.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Text()
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// ToolResultHostPath resolves a tool-result alias
// (@state/logs/tool-results/<conversationId>/<messageId>.json) to the file
// under the project data directory dataDir. Anything else is rejected with
// ErrInvalidID, so the result never leaves <dataDir>/logs/tool-results.
func ToolResultHostPath(dataDir, alias string) (string, error) {
	rest, ok := strings.CutPrefix(alias, conversation.ToolResultAliasPrefix)
	if !ok {
		return "", fmt.Errorf("%w: %q is not a tool-result alias (%s<conversationId>/<messageId>.json)", ErrInvalidID, alias, conversation.ToolResultAliasPrefix)
	}
	conv, file, ok := strings.Cut(rest, "/")
	if !ok {
		return "", fmt.Errorf("%w: %q is not a tool-result alias", ErrInvalidID, alias)
	}
	msg, ok := strings.CutSuffix(file, ".json")
	if !ok {
		return "", fmt.Errorf("%w: %q is not a tool-result alias", ErrInvalidID, alias)
	}
	if err := checkConvID(conv); err != nil {
		return "", err
	}
	if err := checkMsgID(msg); err != nil {
		return "", err
	}
	return toolResultPath(dataDir, conv, msg), nil
}
