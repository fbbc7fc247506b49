package conversation

import (
	"encoding/json"
	"slices"

	"crewagent/backend/errs"
)

// Branches of a conversation.
//
// Editing a sent message and regenerating an answer never overwrite
// anything: they make a branch. A branch point is the entry after which the
// versions ("variants") of the conversation diverge: the user message whose
// answer was regenerated, or the entry before the message that was edited
// ("" when it was the first one). The active path of a conversation is the
// log in its order without the entries of the variants that are not chosen;
// those entries stay in the log with includeInContext false, so "the log in
// its order, filtered by includeInContext" is still what the context builder
// reads, and it needs to know nothing of branches. New entries are always
// appended to the active path, which keeps that true.
//
// Every change of a branch point appends, in one write, the update lines
// that take entries out of the context (or back into it) and one event whose
// data is the whole state of the point after the change (BranchData):
//
//   - "branch": a variant was added (Reason "regenerate" or "edit") and is
//     now the active one. The previous variant's entries are listed in it
//     and taken out of the context. An edit appends the new user message
//     (with "editOf" naming the message it replaces) right after the event.
//   - "branch_switch": another variant was chosen; the one left is recorded
//     and taken out, the chosen one's entries return to the context.
//
// The last event of a point says its state. A variant's IDs are recorded when
// it is left; the active variant is whatever follows the point on the active
// path. Summaries and compaction events are never part of a variant (they
// stand for the history before them, whatever the branch). A point whose
// active path after it holds compacted entries cannot change any more: the
// summary that replaced them would no longer match (BranchView.Frozen).

// Event names of branch points.
const (
	EventBranch       = "branch"
	EventBranchSwitch = "branch_switch"
)

// Reasons a variant was added (BranchData.Reason).
const (
	BranchRegenerate = "regenerate"
	BranchEdit       = "edit"
)

// BranchData is the data of "branch" and "branch_switch" events: the state of
// one branch point after the event.
type BranchData struct {
	// After is the entry the variants follow ("" for the start of the
	// conversation); it names the point.
	After string `json:"after"`
	// Reason is why the newest variant was added (branch events only).
	Reason string `json:"reason,omitempty"`
	// Active is the index of the chosen variant in Variants.
	Active   int             `json:"active"`
	Variants []BranchVariant `json:"variants"`
}

// BranchVariant is one version of what follows a branch point.
type BranchVariant struct {
	// Head is the first message of the variant, when known: a variant added
	// by a regeneration starts with the first message appended after its
	// event ("" until it is left once).
	Head string `json:"head,omitempty"`
	// IDs are the entries of the variant, in log order, as they were when it
	// was last left (empty for the active variant of a "branch" event).
	IDs []string `json:"ids"`
	// InContext are those of IDs that were in the context when the variant
	// was left: choosing the variant again puts exactly these back.
	InContext []string `json:"inContext,omitempty"`
}

// BranchView is the switcher of a branch point, shown with the first message
// of its active variant.
type BranchView struct {
	// After names the point (BranchData.After).
	After string `json:"after"`
	// Index is the active variant, counted from 1, of Count.
	Index int `json:"index"`
	Count int `json:"count"`
	// Reason is how the variants were made (regenerate or edit).
	Reason string `json:"reason,omitempty"`
	// Frozen is true when compacted entries follow the point: its variants
	// can no longer be switched (fork the conversation instead).
	Frozen bool `json:"frozen,omitempty"`
}

// BranchPoint is the state of one branch point as the log says it.
type BranchPoint struct {
	BranchData
	// At is the index, in the entries read, of the point's last event; Event
	// is that event.
	At    int
	Event *Entry
}

// BranchState is what the branch events of a stretch of a log say: the
// points and the entries of the variants not chosen. A stretch that reaches
// the end of the log holds every event that concerns its entries (events
// always follow the entries they name).
type BranchState struct {
	Points   map[string]*BranchPoint
	inactive map[string]bool
}

// ParseBranchData decodes the data of a branch event (false when e is not one
// or its data is not valid).
func ParseBranchData(e *Entry) (BranchData, bool) {
	var d BranchData
	if !e.IsEvent() || (e.Event != EventBranch && e.Event != EventBranchSwitch) {
		return d, false
	}
	if json.Unmarshal(e.Data, &d) != nil || d.Active < 0 || d.Active >= len(d.Variants) {
		return d, false
	}
	return d, true
}

// Branches reads the branch points of entries.
func Branches(entries []*Entry) BranchState {
	s := BranchState{Points: map[string]*BranchPoint{}, inactive: map[string]bool{}}
	for i, e := range entries {
		if d, ok := ParseBranchData(e); ok {
			s.Points[d.After] = &BranchPoint{BranchData: d, At: i, Event: e}
		}
	}
	for _, p := range s.Points {
		for i, v := range p.Variants {
			if i == p.Active {
				continue
			}
			for _, id := range v.IDs {
				s.inactive[id] = true
			}
		}
	}
	return s
}

// Inactive reports whether an entry belongs to a variant that is not chosen
// (it is hidden and out of the context).
func (s BranchState) Inactive(id string) bool { return s.inactive[id] }

// Shown reports whether a point is on the active path: its last event and
// the entry it follows are not part of a variant that is not chosen.
func (s BranchState) Shown(p *BranchPoint) bool {
	return !s.inactive[p.Event.ID] && (p.After == "" || !s.inactive[p.After])
}

// IsBranchEvent reports whether e is the event of a branch point.
func IsBranchEvent(e *Entry) bool {
	return e.IsEvent() && (e.Event == EventBranch || e.Event == EventBranchSwitch)
}

// StaysOnEveryBranch reports whether an entry that follows a branch point
// belongs to the whole conversation rather than to one variant: summaries,
// compaction events and the events of branch points.
func StaysOnEveryBranch(e *Entry) bool {
	return e.IsSummary() || (e.IsEvent() && e.Event == EventCompaction) || IsBranchEvent(e)
}

// ActiveAfter returns the entries of the active path that follow the entry
// after ("" for the start of the conversation) and belong to its variant, in
// log order: what a branch point's active variant holds. entries must hold
// the entry after and reach the end of the log; ok is false when after is
// not among them.
func (s BranchState) ActiveAfter(entries []*Entry, after string) (out []*Entry, ok bool) {
	start := 0
	if after != "" {
		i := slices.IndexFunc(entries, func(e *Entry) bool { return e.ID == after })
		if i < 0 {
			return nil, false
		}
		start = i + 1
	}
	for _, e := range entries[start:] {
		if !s.inactive[e.ID] && !StaysOnEveryBranch(e) {
			out = append(out, e)
		}
	}
	return out, true
}

// Variant records entries as a left variant: their ids, those in the
// context, and the first message among them.
func Variant(entries []*Entry) BranchVariant {
	v := BranchVariant{IDs: make([]string, 0, len(entries))}
	for _, e := range entries {
		v.IDs = append(v.IDs, e.ID)
		if e.IsMessage() {
			if v.Head == "" && shownMessage(e) {
				v.Head = e.ID
			}
			if e.InContext() {
				v.InContext = append(v.InContext, e.ID)
			}
		}
	}
	return v
}

// shownMessage reports whether a message is shown in the conversation (not a
// system, developer or meta message).
func shownMessage(e *Entry) bool {
	return e.IsMessage() && !e.IsMeta && e.Role != RoleSystem && e.Role != RoleDeveloper
}

// Frozen reports whether compacted entries follow a branch point (or the
// entry it follows is one): see BranchView.Frozen. active are the entries
// ActiveAfter returns for it.
func Frozen(anchor *Entry, active []*Entry) bool {
	if anchor != nil && anchor.Compacted {
		return true
	}
	return slices.ContainsFunc(active, func(e *Entry) bool { return e.Compacted })
}

// head is the first message of a point's active variant: the one recorded,
// or the first shown message on the active path after its last event.
func (s BranchState) head(p *BranchPoint, entries []*Entry) string {
	if h := p.Variants[p.Active].Head; h != "" {
		return h
	}
	for _, e := range entries[p.At+1:] {
		if !s.inactive[e.ID] && shownMessage(e) {
			return e.ID
		}
	}
	return ""
}

// BranchChange is what a change of a branch point writes, in one write
// (convlog's UpdateAndAppend): new versions of entries that leave or return
// to the context, then the point's event, then (for an edit) the new
// message.
type BranchChange struct {
	Updates []*Entry
	Event   *Entry
	Added   []*Entry
}

// Lines returns the entries the change appends after its updates: the event,
// then the added messages.
func (c BranchChange) Lines() []*Entry { return append([]*Entry{c.Event}, c.Added...) }

// branchEvent is the event of a point after a change.
func branchEvent(name string, d BranchData) *Entry {
	raw, _ := json.Marshal(d)
	return &Entry{Type: TypeEvt, Event: name, Data: raw}
}

// setContext returns a new version of e that is in the context or not.
func setContext(e *Entry, in bool) *Entry {
	out := *e
	out.UpdatedAt = ""
	if in {
		out.IncludeInContext = nil
	} else {
		out.IncludeInContext = Bool(false)
	}
	return &out
}

// leave records the active variant of a point (its entries after the point)
// and returns the update lines that take it out of the context.
func leave(active []*Entry) (BranchVariant, []*Entry) {
	v := Variant(active)
	var updates []*Entry
	for _, e := range active {
		if e.IsMessage() && e.InContext() {
			updates = append(updates, setContext(e, false))
		}
	}
	return v, updates
}

// pointAt returns the state of the point that follows after, or a new one.
func (s BranchState) pointAt(after string) BranchData {
	if p, ok := s.Points[after]; ok {
		d := p.BranchData
		d.Variants = slices.Clone(d.Variants)
		return d
	}
	return BranchData{After: after}
}

// index returns the position of the entry id in entries, or an error.
func indexOf(entries []*Entry, id string) (int, error) {
	i := slices.IndexFunc(entries, func(e *Entry) bool { return e.ID == id })
	if i < 0 {
		return -1, errs.Errorf(errs.NotFound, "message %s is not in this conversation; reload it", id)
	}
	return i, nil
}

// open prepares a change of the point that follows after: the entries of
// its active variant, refused when compacted entries follow it.
func (s BranchState) open(entries []*Entry, after string) ([]*Entry, error) {
	var anchor *Entry
	if after != "" {
		i, err := indexOf(entries, after)
		if err != nil {
			return nil, err
		}
		anchor = entries[i]
	}
	active, _ := s.ActiveAfter(entries, after)
	if Frozen(anchor, active) {
		return nil, errs.New(errs.BranchFrozen, "This part of the conversation was compressed since, so its versions can no longer change. Fork the conversation from here instead.")
	}
	return active, nil
}

// answerable reports whether a user message can be answered again or
// replaced: a message the user typed in chat or agent mode (a run's input
// cannot be taken back: its state moved on).
func answerable(e *Entry) error {
	switch {
	case !e.IsMessage() || e.Role != RoleUser || e.IsMeta:
		return errs.New(errs.InvalidArgument, "only a message you wrote can be edited or answered again")
	case e.RunID != "" || e.Mode == ModeRun:
		return errs.New(errs.InvalidArgument, "a message of a workflow run cannot be edited or answered again (the run has moved on): fork the conversation from it instead")
	}
	return nil
}

// PlanRegenerate prepares a new answer to the user message that entry id
// answers (id may be the user message itself, or any message of its
// answer): the answer and everything after it on the active path become a
// variant of the point that follows the user message and leave the context.
// The new answer is then appended (the engine's retry). It returns the
// change and the id of the user message to answer. entries are the whole log.
func PlanRegenerate(entries []*Entry, id string) (BranchChange, string, error) {
	s := Branches(entries)
	i, err := indexOf(entries, id)
	if err != nil {
		return BranchChange{}, "", err
	}
	if s.Inactive(id) {
		return BranchChange{}, "", errs.New(errs.InvalidArgument, "this answer is not on the version of the conversation shown: switch to it first")
	}
	u := -1
	for j := i; j >= 0; j-- {
		if e := entries[j]; e.IsMessage() && e.Role == RoleUser && !e.IsMeta && !s.Inactive(e.ID) {
			u = j
			break
		}
	}
	if u < 0 {
		return BranchChange{}, "", errs.New(errs.InvalidArgument, "there is no message of yours before this answer")
	}
	user := entries[u]
	if err := answerable(user); err != nil {
		return BranchChange{}, "", err
	}
	active, err := s.open(entries, user.ID)
	if err != nil {
		return BranchChange{}, "", err
	}
	if !slices.ContainsFunc(active, shownMessage) {
		return BranchChange{}, "", errs.New(errs.InvalidArgument, "this message has no answer yet: use Retry")
	}
	d := s.pointAt(user.ID)
	old, updates := leave(active)
	if len(d.Variants) == 0 {
		d.Variants = []BranchVariant{old}
	} else {
		d.Variants[d.Active] = old
	}
	d.Variants = append(d.Variants, BranchVariant{IDs: []string{}})
	d.Active, d.Reason = len(d.Variants)-1, BranchRegenerate
	return BranchChange{Updates: updates, Event: branchEvent(EventBranch, d)}, user.ID, nil
}

// PlanEdit prepares replacing the user message id by edited (a new message,
// with its id, appended after the event with EditOf set): the message and
// everything after it on the active path become a variant of the point that
// follows the message before it, and leave the context. The answer to the
// edited message is then appended (the engine's retry).
func PlanEdit(entries []*Entry, id string, edited *Entry) (BranchChange, error) {
	s := Branches(entries)
	i, err := indexOf(entries, id)
	if err != nil {
		return BranchChange{}, err
	}
	e := entries[i]
	if err := answerable(e); err != nil {
		return BranchChange{}, err
	}
	if s.Inactive(id) {
		return BranchChange{}, errs.New(errs.InvalidArgument, "this message is not on the version of the conversation shown: switch to it first")
	}
	if edited.ID == "" || edited.Role != RoleUser {
		return BranchChange{}, errs.New(errs.InvalidArgument, "an edit is a new user message with an id")
	}
	// The point follows the nearest message before it on the active path
	// (summaries and events stay before any variant).
	after := ""
	for j := i - 1; j >= 0; j-- {
		if p := entries[j]; p.IsMessage() && !s.Inactive(p.ID) && !StaysOnEveryBranch(p) {
			after = p.ID
			break
		}
	}
	active, err := s.open(entries, after)
	if err != nil {
		return BranchChange{}, err
	}
	d := s.pointAt(after)
	old, updates := leave(active)
	if len(d.Variants) == 0 {
		d.Variants = []BranchVariant{old}
	} else {
		d.Variants[d.Active] = old
	}
	edited.EditOf = id
	d.Variants = append(d.Variants, BranchVariant{Head: edited.ID, IDs: []string{}})
	d.Active, d.Reason = len(d.Variants)-1, BranchEdit
	return BranchChange{Updates: updates, Event: branchEvent(EventBranch, d), Added: []*Entry{edited}}, nil
}

// PlanSwitch prepares choosing variant index (from 0) of the point that
// follows after: the active variant is recorded and leaves the context, the
// chosen one's entries return to it.
func PlanSwitch(entries []*Entry, after string, index int) (BranchChange, error) {
	s := Branches(entries)
	p, ok := s.Points[after]
	if !ok {
		return BranchChange{}, errs.Errorf(errs.NotFound, "there are no versions to switch at %q; reload the conversation", after)
	}
	if index < 0 || index >= len(p.Variants) {
		return BranchChange{}, errs.Errorf(errs.InvalidArgument, "there is no version %d here (there are %d)", index+1, len(p.Variants))
	}
	if !s.Shown(p) {
		return BranchChange{}, errs.New(errs.InvalidArgument, "these versions are not on the version of the conversation shown: switch to it first")
	}
	if index == p.Active {
		return BranchChange{}, errs.Errorf(errs.InvalidArgument, "version %d is already shown", index+1)
	}
	active, err := s.open(entries, after)
	if err != nil {
		return BranchChange{}, err
	}
	d := s.pointAt(after)
	old, updates := leave(active)
	d.Variants[d.Active] = old
	at := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		at[e.ID] = e
	}
	for _, id := range d.Variants[index].InContext {
		if e, ok := at[id]; ok {
			updates = append(updates, setContext(e, true))
		}
	}
	d.Active, d.Reason = index, ""
	return BranchChange{Updates: updates, Event: branchEvent(EventBranchSwitch, d)}, nil
}
