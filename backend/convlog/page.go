package convlog

import (
	"fmt"
	"slices"

	"crewagent/backend/conversation"
)

// Page sizes of Page and PageBefore.
const (
	DefaultPageSize = 300
	MaxPageSize     = 5000
)

// Page is a stretch of a conversation's effective entries, oldest first.
type Page struct {
	Entries []*conversation.Entry
	// HasMore is true when older entries exist before Entries[0].
	HasMore bool
	// Newer are the entries after the page up to the end of the log as they
	// were read with it (empty for Page), for callers that judge entries by
	// what follows them.
	Newer []*conversation.Entry
}

// PageLimit bounds a requested page size: <= 0 is DefaultPageSize, at most
// MaxPageSize.
func PageLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultPageSize
	case limit > MaxPageSize:
		return MaxPageSize
	}
	return limit
}

// Page returns the newest limit effective entries of a conversation
// (PageLimit). Only the end of the log is read.
func (s *Store) Page(id string, limit int) (Page, error) {
	limit = PageLimit(limit)
	// One more than asked tells whether older entries exist.
	tail, err := s.LoadTail(id, limit+1)
	if err != nil {
		return Page{}, err
	}
	more := len(tail) > limit
	if more {
		tail = tail[1:]
	}
	return Page{Entries: nonNil(tail), HasMore: more, Newer: []*conversation.Entry{}}, nil
}

// PageBefore returns up to limit effective entries that come before the entry
// beforeID (the oldest one a reader has), reading a growing tail until it
// holds beforeID and limit entries before it (entries appended meanwhile
// push beforeID back). An unknown beforeID is ErrNotFound's code.
func (s *Store) PageBefore(id, beforeID string, limit int) (Page, error) {
	limit = PageLimit(limit)
	for n := 2*limit + 1; ; n *= 2 {
		tail, err := s.LoadTail(id, n)
		if err != nil {
			return Page{}, err
		}
		whole := len(tail) < n
		at := slices.IndexFunc(tail, func(e *conversation.Entry) bool { return e.ID == beforeID })
		switch {
		case at < 0 && whole:
			return Page{}, &Error{Code: ErrNotFound.Code, Message: fmt.Sprintf("entry %s is not in conversation %s; reload it", beforeID, id)}
		case at < 0 || (at < limit && !whole):
			continue
		}
		start := max(0, at-limit)
		return Page{Entries: nonNil(tail[start:at]), HasMore: start > 0 || !whole, Newer: tail[at:]}, nil
	}
}

func nonNil(es []*conversation.Entry) []*conversation.Entry {
	if es == nil {
		return []*conversation.Entry{}
	}
	return es
}
