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

// Publishing is a Store that announces every change it makes: after each
// successful write it calls Publish with the conversation and the kind of
// change, so the callers that write (bound methods, the engine, the runs)
// never have to. Reads go to the Store unchanged. Every method of Store that
// writes has its counterpart here (publish_test.go checks).
type Publishing struct {
	*Store
	Publish func(conversationID, kind string)
}

// NewPublishing wraps s; publish is called after each change.
func NewPublishing(s *Store, publish func(conversationID, kind string)) *Publishing {
	return &Publishing{Store: s, Publish: publish}
}

func (p *Publishing) publish(id, kind string, err error) {
	if err == nil && p.Publish != nil {
		p.Publish(id, kind)
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
