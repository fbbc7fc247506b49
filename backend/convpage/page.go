// Package convpage reads a conversation as the window's screen shows it: pages of
// entries with what each one is (conversation.EntryView), the agents who spoke, how the
// conversation ends, and which views a write of the store changed (the
// conversation:entries event).
package convpage

import (
	"cmp"
	"encoding/json"
	"slices"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/events"
	"crewagent/backend/packages"
)

// Config is what the pages are read from.
type Config struct {
	Store *convlog.Publishing
	// Busy says whether a reply or run turn runs in a conversation.
	Busy func(conversationID string) bool
	// Views decodes entries for the screen (with the steps of runs in words).
	Views func([]*conversation.Entry) []conversation.EntryView
	// Packages describe the agents; Active is the project's package ("" when none).
	Packages *packages.Manager
	Active   func() string
}

// Reader reads the pages of a project's conversations.
type Reader struct{ c Config }

// New returns the reader of c.
func New(c Config) *Reader { return &Reader{c: c} }

// Page is a stretch of a conversation's entries, oldest first, each with what
// it is for the conversation screen.
type Page struct {
	Conversation conversation.ConversationMeta `json:"conversation"`
	Entries      []conversation.EntryView      `json:"entries"`
	// HasMore is true when older entries exist before Entries[0].
	HasMore bool `json:"hasMore"`
	// Streaming is true while a reply or run turn runs in the conversation.
	Streaming bool `json:"streaming"`
	// Unfinished is true when the conversation ends waiting for a reply that
	// will not come (conversation.Ending); only set when no reply runs.
	Unfinished bool `json:"unfinished"`
	// Awaiting is true when it ends with a message of the user that no reply
	// was started for (a fork cut there): Retry answers it.
	Awaiting bool `json:"awaiting"`
	// Stopped is true when the user stopped the work while another
	// conversation was answering for this one (conv.create, conv.send).
	Stopped bool `json:"stopped,omitempty"`
	// CanContinue is true when the unfinished reply left something to
	// continue from (a tool step).
	CanContinue bool `json:"canContinue"`
	// Agents are the agents whose replies are among Entries, by id: who
	// answered, with the name and icon their package gives them.
	Agents map[string]packages.AgentView `json:"agents"`
	// WaitingFor is set while a tool call of the conversation waits for
	// another conversation's answer (conv.create, conv.send).
	WaitingFor *events.WaitingView `json:"waitingFor,omitempty"`
}

// waitingView says what a conversation waits for (nil when nothing).
func (r *Reader) waitingView(meta conversation.ConversationMeta) *events.WaitingView {
	if meta.Waiting == nil {
		return nil
	}
	v := &events.WaitingView{ConversationID: meta.Waiting.ConversationID, Tool: meta.Waiting.Tool, Answering: r.c.Busy(meta.Waiting.ConversationID)}
	if m, err := r.c.Store.Get(meta.Waiting.ConversationID); err == nil {
		v.Title = m.Title
	}
	return v
}

// Load returns the newest limit entries of a conversation
// (convlog.PageLimit).
func (r *Reader) Load(id string, limit int) (Page, error) {
	meta, err := r.c.Store.Get(id)
	if err != nil {
		return Page{}, err
	}
	// Asked before and after the entries are read: "not streaming" then
	// means no reply ran while they were read, so they end where the log ends
	// (a reply that starts or ends meanwhile is reported as running; its end
	// is announced by conversation:changed).
	streaming := r.c.Busy(id)
	page, err := r.c.Store.Page(id, limit)
	if err != nil {
		return Page{}, err
	}
	streaming = streaming || r.c.Busy(id)
	views := r.c.Views(page.Entries)
	end := r.pageEnd(meta, views, streaming)
	return Page{Conversation: meta, Entries: views, HasMore: page.HasMore, Streaming: streaming, Agents: r.Speakers(views),
		WaitingFor: end.WaitingFor, Unfinished: end.Unfinished, Awaiting: end.Awaiting, Stopped: end.Stopped, CanContinue: end.CanContinue}, nil
}

// Older returns up to limit entries that come before the entry beforeID (the
// oldest one the reader has).
func (r *Reader) Older(id, beforeID string, limit int) (Page, error) {
	meta, err := r.c.Store.Get(id)
	if err != nil {
		return Page{}, err
	}
	page, err := r.c.Store.PageBefore(id, beforeID, limit)
	if err != nil {
		return Page{}, err
	}
	// The views are judged with the entries that follow the page.
	views := r.c.Views(append(page.Entries, page.Newer...))[:len(page.Entries)]
	return Page{Conversation: meta, Entries: views, HasMore: page.HasMore, Streaming: r.c.Busy(id), Agents: r.Speakers(views)}, nil
}

// Speakers returns the agents whose replies are among views (agent and run
// mode), by id, as the installed packages describe them (the project's
// package first); an agent no package describes any more keeps its id as
// its name.
func (r *Reader) Speakers(views []conversation.EntryView) map[string]packages.AgentView {
	out := map[string]packages.AgentView{}
	for _, v := range views {
		if v.IsMessage() && v.Role == conversation.RoleAssistant && v.AgentID != "" &&
			(v.Mode == conversation.ModeAgent || v.Mode == conversation.ModeRun) {
			out[v.AgentID] = packages.AgentView{ID: v.AgentID, Name: v.AgentID}
		}
	}
	if len(out) == 0 {
		return out
	}
	list, err := r.c.Packages.List()
	if err != nil {
		return out
	}
	active := r.c.Active()
	slices.SortStableFunc(list, func(a, b packages.Installed) int {
		return cmp.Compare(boolInt(b.ID == active), boolInt(a.ID == active))
	})
	found := map[string]bool{}
	for _, p := range list {
		for _, a := range p.Agents {
			if _, ok := out[a.ID]; ok && !found[a.ID] {
				found[a.ID] = true
				name := a.Name
				if name == "" {
					name = a.ID
				}
				out[a.ID] = packages.AgentView{ID: a.ID, Name: name, Title: a.Title, Icon: a.Icon}
			}
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// entriesWindow is how many of a conversation's newest entries are read to
// judge the views of what the store wrote (the window re-reads its page when
// a write reaches further back).
const entriesWindow = 120

// pageEnd says how a conversation ends, as a page of views read while a
// reply ran (streaming) or not shows it.
func (r *Reader) pageEnd(meta conversation.ConversationMeta, views []conversation.EntryView, streaming bool) events.EntriesEvent {
	out := events.EntriesEvent{WaitingFor: r.waitingView(meta)}
	if !streaming && out.WaitingFor == nil {
		// A fork cut at a message ends there on purpose.
		ending, canContinue := conversation.Ending(views, meta.ForkedFromMsgID)
		out.Unfinished, out.Awaiting = ending == conversation.EndUnfinished, ending == conversation.EndAwaiting
		out.Stopped = ending == conversation.EndStopped
		out.CanContinue = canContinue
	}
	out.Settled = !streaming
	return out
}

// Entries is the conversation:entries event for the lines the store wrote
// to a conversation (none: its state alone changed): each written entry
// with its view, read back, and every other entry among the newest whose
// view the written ones change (a call's result, a failure that is no
// longer the latest), then how the conversation ends. ok is false when the
// conversation cannot be read.
func (r *Reader) Entries(id string, written []*conversation.Entry, streaming bool) (ev events.EntriesEvent, ok bool) {
	meta, err := r.c.Store.Get(id)
	if err != nil {
		return ev, false
	}
	page, err := r.c.Store.Page(id, entriesWindow)
	if err != nil {
		return ev, false
	}
	views := r.c.Views(page.Entries)
	ev = r.pageEnd(meta, views, streaming)
	ev.ConversationID, ev.Conversation = id, meta
	ev.Entries, ev.Reload = changedViews(page.Entries, views, written, r.c.Views)
	if len(written) == 0 {
		// The views of a run's entries also follow its state (a step's number
		// once the run records it complete), which changes outside the log:
		// when a task ends they go out again.
		ev.Entries = append(ev.Entries, runViews(page.Entries, views)...)
	}
	ev.Agents = map[string]events.Speaker{}
	for k, a := range r.Speakers(ev.Entries) {
		ev.Agents[k] = events.Speaker(a)
	}
	return ev, true
}

// changedViews returns, in log order, the views of the written entries and
// of the other entries whose view differs without them (judged again by
// viewsOf over the entries less the written ones). reload is true when a
// written entry is not among entries (older than the window) or chooses or
// makes a version: the reader's other entries may change.
func changedViews(entries []*conversation.Entry, views []conversation.EntryView, written []*conversation.Entry,
	viewsOf func([]*conversation.Entry) []conversation.EntryView) (out []conversation.EntryView, reload bool) {
	out = []conversation.EntryView{}
	if len(written) == 0 {
		return out, false
	}
	ids := map[string]bool{}
	for _, e := range written {
		ids[e.ID] = true
		if e.IsEvent() && (e.Event == conversation.EventBranch || e.Event == conversation.EventBranchSwitch) {
			reload = true
		}
	}
	others := make([]*conversation.Entry, 0, len(entries))
	found := 0
	for _, e := range entries {
		if ids[e.ID] {
			found++
		} else {
			others = append(others, e)
		}
	}
	if found < len(ids) {
		reload = true
	}
	// Both sets of views hold the same entries: only what they say of them
	// can differ.
	before := map[string][]byte{}
	for _, v := range viewsOf(others) {
		before[v.ID], _ = json.Marshal(v.View)
	}
	for _, v := range views {
		if !ids[v.ID] {
			now, _ := json.Marshal(v.View)
			if string(now) == string(before[v.ID]) {
				continue
			}
		}
		out = append(out, v)
	}
	return out, reload
}

// runViews are the views of the entries of a workflow run.
func runViews(entries []*conversation.Entry, views []conversation.EntryView) []conversation.EntryView {
	inRun := map[string]bool{}
	for _, e := range entries {
		if e.RunID != "" {
			inRun[e.ID] = true
		}
	}
	out := []conversation.EntryView{}
	for _, v := range views {
		if inRun[v.ID] {
			out = append(out, v)
		}
	}
	return out
}
