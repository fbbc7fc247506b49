package convlog

import (
	"crewagent/backend/conversation"
	"crewagent/backend/events"
)

// Kinds of change a Publishing store announces (those of conversation:changed).
const (
	ChangeCreated = events.Created
	ChangeUpdated = events.Updated
	ChangeDeleted = events.Deleted
)

// Change is what a Publishing store announces after a write.
type Change struct {
	ConversationID string
	// Kind is created, updated or deleted.
	Kind string
	// Entries are the lines the write appended to the log, oldest first: new
	// entries and new versions of entries (the last line of an id wins, as
	// when the log is read). Empty for changes of the index record alone
	// (a rename, the conversation's state) and for deletions.
	Entries []*conversation.Entry
}

// Publishing is a Store that announces every change it makes: after each
// successful write it calls Publish with the conversation, the kind of
// change and the lines written, so the callers that write (bound methods,
// the engine, the runs) never have to. Reads go to the Store unchanged.
// Every method of Store that writes has its counterpart here
// (publish_test.go checks).
type Publishing struct {
	*Store
	Publish func(Change)
}

// NewPublishing wraps s; publish is called after each change.
func NewPublishing(s *Store, publish func(Change)) *Publishing {
	s.keepWrittenLines()
	return &Publishing{Store: s, Publish: publish}
}

// publish announces a change of conversation id with the lines written to
// it since the last announcement (writes of the same conversation that ran
// at the same time may come in one announcement and leave the other one
// without lines: every line is announced once, in the log's order).
func (p *Publishing) publish(id, kind string, err error) {
	if err != nil {
		return
	}
	lines := p.Store.takeWritten(id)
	if kind == ChangeDeleted {
		lines = nil
	}
	if p.Publish != nil {
		p.Publish(Change{ConversationID: id, Kind: kind, Entries: lines})
	}
}

// Create implements Store.Create and announces the new conversation.
func (p *Publishing) Create(title, activeType string) (conversation.ConversationMeta, error) {
	m, err := p.Store.Create(title, activeType)
	p.publish(m.ID, ChangeCreated, err)
	return m, err
}

// CreateWith implements Store.CreateWith and announces the new conversation.
func (p *Publishing) CreateWith(title, activeType string, entries ...*conversation.Entry) (conversation.ConversationMeta, error) {
	m, err := p.Store.CreateWith(title, activeType, entries...)
	p.publish(m.ID, ChangeCreated, err)
	return m, err
}

// CreateRecord implements Store.CreateRecord and announces the new conversation.
func (p *Publishing) CreateRecord(tmpl conversation.ConversationMeta, entries ...*conversation.Entry) (conversation.ConversationMeta, error) {
	m, err := p.Store.CreateRecord(tmpl, entries...)
	p.publish(m.ID, ChangeCreated, err)
	return m, err
}

// Fork implements Store.Fork and announces the new conversation.
func (p *Publishing) Fork(id string, opts ForkOptions) (conversation.ConversationMeta, error) {
	m, err := p.Store.Fork(id, opts)
	p.publish(m.ID, ChangeCreated, err)
	return m, err
}

// Append implements Store.Append.
func (p *Publishing) Append(id string, entries ...*conversation.Entry) error {
	err := p.Store.Append(id, entries...)
	p.publish(id, ChangeUpdated, err)
	return err
}

// Update implements Store.Update.
func (p *Publishing) Update(id string, e *conversation.Entry) error {
	err := p.Store.Update(id, e)
	p.publish(id, ChangeUpdated, err)
	return err
}

// UpdateAndAppend implements Store.UpdateAndAppend.
func (p *Publishing) UpdateAndAppend(id string, updates []*conversation.Entry, added ...*conversation.Entry) error {
	err := p.Store.UpdateAndAppend(id, updates, added...)
	p.publish(id, ChangeUpdated, err)
	return err
}

// MarkCompacted implements Store.MarkCompacted.
func (p *Publishing) MarkCompacted(id string, msgIDs []string, data any) (*conversation.Entry, error) {
	e, err := p.Store.MarkCompacted(id, msgIDs, data)
	p.publish(id, ChangeUpdated, err)
	return e, err
}

// Checkpoint implements Store.Checkpoint.
func (p *Publishing) Checkpoint(id, name string) (conversation.Checkpoint, error) {
	cp, err := p.Store.Checkpoint(id, name)
	p.publish(id, ChangeUpdated, err)
	return cp, err
}

// Rename implements Store.Rename.
func (p *Publishing) Rename(id, title string) error {
	err := p.Store.Rename(id, title)
	p.publish(id, ChangeUpdated, err)
	return err
}

// UpdateMeta implements Store.UpdateMeta.
func (p *Publishing) UpdateMeta(id string, fn func(*conversation.ConversationMeta)) error {
	err := p.Store.UpdateMeta(id, fn)
	p.publish(id, ChangeUpdated, err)
	return err
}

// Delete implements Store.Delete and announces the removal.
func (p *Publishing) Delete(id string) error {
	err := p.Store.Delete(id)
	p.publish(id, ChangeDeleted, err)
	return err
}

// Compact implements Store.Compact.
func (p *Publishing) Compact(id string, w CompactionWrite) error {
	err := p.Store.Compact(id, w)
	p.publish(id, ChangeUpdated, err)
	return err
}

// Pin implements Store.Pin.
func (p *Publishing) Pin(id, msgID string) (*conversation.Entry, error) {
	e, err := p.Store.Pin(id, msgID)
	p.publish(id, ChangeUpdated, err)
	return e, err
}

// Unpin implements Store.Unpin.
func (p *Publishing) Unpin(id, msgID string) (*conversation.Entry, error) {
	e, err := p.Store.Unpin(id, msgID)
	p.publish(id, ChangeUpdated, err)
	return e, err
}

// keepWritten keeps copies of the lines just committed to conversation id
// for takeWritten (only once a Publishing store asked for them).
func (s *Store) keepWritten(id string, lines []*conversation.Entry) {
	s.writtenMu.Lock()
	defer s.writtenMu.Unlock()
	if s.written == nil {
		return
	}
	for _, e := range lines {
		c := *e
		s.written[id] = append(s.written[id], &c)
	}
}

// takeWritten returns the lines committed to conversation id since the last
// call, oldest first, and forgets them.
func (s *Store) takeWritten(id string) []*conversation.Entry {
	s.writtenMu.Lock()
	defer s.writtenMu.Unlock()
	lines := s.written[id]
	delete(s.written, id)
	return lines
}

// keepWrittenLines starts keeping the committed lines.
func (s *Store) keepWrittenLines() {
	s.writtenMu.Lock()
	if s.written == nil {
		s.written = map[string][]*conversation.Entry{}
	}
	s.writtenMu.Unlock()
}
