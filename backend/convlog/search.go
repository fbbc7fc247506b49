package convlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"crewagent/backend/conversation"
)

// Limits of Search.
const (
	maxSearchResults   = 100 // conversations
	maxSearchMatches   = 999 // counted per conversation
	maxSearchQueryLen  = 200 // runes
	searchSnippetLeft  = 50  // runes of context before a match
	searchSnippetRight = 110 // runes of context after the start of a match
	maxSearchLineBytes = 8 << 20
)

// SearchHit is one conversation that matches a search.
type SearchHit struct {
	ConversationID string `json:"conversationId"`
	Title          string `json:"title"`
	LastActiveAt   string `json:"lastActiveAt"`
	TitleMatch     bool   `json:"titleMatch"`
	// Matches counts the messages whose text contains the query (at most
	// maxSearchMatches); MessageID, Role and Snippet describe the newest one.
	Matches   int    `json:"matches"`
	MessageID string `json:"messageId,omitempty"`
	Role      string `json:"role,omitempty"`
	Snippet   string `json:"snippet,omitempty"`
}

// Search finds the conversations whose title or user/assistant message text
// (a run's user input without its USER_INPUT header) contains query
// (case-insensitive), most recently active first. Logs are scanned line by
// line; only lines whose raw bytes contain the query are decoded, so large
// logs cost one sequential read.
func (s *Store) Search(query string) ([]SearchHit, error) {
	q := strings.TrimSpace(query)
	if utf8.RuneCountInString(q) > maxSearchQueryLen {
		q = string([]rune(q)[:maxSearchQueryLen])
	}
	hits := []SearchHit{}
	if q == "" {
		return hits, nil
	}
	list, err := s.List()
	if err != nil {
		return nil, err
	}
	m := newMatcher(q)
	for _, c := range list {
		if len(hits) == maxSearchResults {
			break
		}
		h := SearchHit{ConversationID: c.ID, Title: c.Title, LastActiveAt: c.LastActiveAt, TitleMatch: m.match(c.Title) >= 0}
		if err := s.searchLog(c.ID, m, &h); err != nil {
			s.log.Warn("searching a conversation log", "conversation", c.ID, "error", err)
		}
		if h.TitleMatch || h.Matches > 0 {
			hits = append(hits, h)
		}
	}
	return hits, nil
}

// searchLog counts the matching messages of one conversation into h.
func (s *Store) searchLog(id string, m *matcher, h *SearchHit) error {
	f, err := os.Open(logPath(s.dir, id))
	if errors.Is(err, fs.ErrNotExist) {
		// a legacy messages.json (or nothing yet): Load reads it
		entries, err := s.Load(id)
		if err != nil {
			return err
		}
		for _, e := range entries {
			m.consider(e, h)
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	for h.Matches < maxSearchMatches {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// a long line: read the rest of it
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(buf) < maxSearchLineBytes {
				line, err = r.ReadSlice('\n')
				buf = append(buf, line...)
			}
			for errors.Is(err, bufio.ErrBufferFull) { // too long to be worth it: skip
				_, err = r.ReadSlice('\n')
			}
			line = buf
		}
		if len(line) > 0 && m.rawMayMatch(line) {
			var e conversation.Entry
			if json.Unmarshal(line, &e) == nil {
				m.consider(&e, h)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
	return nil
}

// matcher finds a query in texts, ignoring case.
type matcher struct {
	folded []rune // the query, case-folded
	raw    []byte // lower-cased query bytes for the raw-line prefilter; nil: no prefilter
}

func newMatcher(q string) *matcher {
	m := &matcher{folded: foldRunes(q)}
	// JSON writers may escape quotes, backslashes and control characters:
	// those queries are checked on decoded text only.
	if !strings.ContainsFunc(q, func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 || r > unicode.MaxASCII }) {
		m.raw = bytes.ToLower([]byte(q))
	}
	return m
}

func foldRunes(s string) []rune {
	rs := []rune(s)
	for i, r := range rs {
		rs[i] = unicode.ToLower(r)
	}
	return rs
}

// rawMayMatch reports whether a raw log line can contain a matching message.
func (m *matcher) rawMayMatch(line []byte) bool {
	if m.raw == nil {
		return true
	}
	return bytes.Contains(bytes.ToLower(line), m.raw)
}

// match returns the rune index of the first match in s, or -1.
func (m *matcher) match(s string) int {
	if len(m.folded) == 0 {
		return -1
	}
	text := foldRunes(s)
outer:
	for i := 0; i+len(m.folded) <= len(text); i++ {
		for j, r := range m.folded {
			if text[i+j] != r {
				continue outer
			}
		}
		return i
	}
	return -1
}

// consider counts e into h when it is a user or assistant message that matches.
func (m *matcher) consider(e *conversation.Entry, h *SearchHit) {
	if !e.IsMessage() || e.IsMeta || (e.Role != conversation.RoleUser && e.Role != conversation.RoleAssistant) || e.UpdatedAt != "" {
		return
	}
	text := e.Text()
	if e.Role == conversation.RoleUser && e.RunID != "" {
		text = conversation.RunInputText(text) // the user's words, not the run's USER_INPUT header
	}
	at := m.match(text)
	if at < 0 {
		return
	}
	h.Matches++
	h.MessageID, h.Role, h.Snippet = e.ID, e.Role, snippet(text, at, len(m.folded))
}

// snippet cuts the text around a match (rune index at, length n) to one line.
func snippet(text string, at, n int) string {
	rs := []rune(text)
	start := max(0, at-searchSnippetLeft)
	end := min(len(rs), at+max(n, searchSnippetRight))
	s := strings.Join(strings.Fields(string(rs[start:end])), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(rs) {
		s += "…"
	}
	return s
}
