package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"crewagent/backend/compression"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/llm"
	"crewagent/backend/recall"
	"crewagent/backend/settings"
)

// contexter builds the requests of one send, run turn, preview or manual
// compaction over prepared p: build, compact when over the trigger, build
// again, make room with previews when still over the limit, recall (see the
// package doc, "Context"). With persist false (a preview) nothing is written:
// a compaction happens in memory only.
type contexter struct {
	s       *ChatService
	p       *prepared
	convID  string
	persist bool
	// limit is the request token limit in effect: the budget's, or lower
	// once the provider said its window is smaller.
	limit int
	sum   compression.Summarizer
	focus string
	// tags of the entries written
	mode, runID, workflowID string
	// onCompacting is called before a compaction starts (the meter's
	// "compressing" status).
	onCompacting func()
	// compactions done so far (in this send, or in memory for a preview).
	compactions []CompactionRecord
	// recall search of the last build
	recalled []contextbuilder.RecallItem
	// pendingDocs are the recall documents of compactions done in memory
	// only (a preview)
	pendingDocs []recall.Doc
	notes       []string
	// refillFrom is the first compacted message the last request sent word
	// for word (contextbuilder.Refill.From).
	refillFrom string
}

func (s *ChatService) contexter(p *prepared, convID string, persist bool) *contexter {
	c := &contexter{s: s, p: p, convID: convID, persist: persist, limit: p.budget.TokenLimit(), mode: p.mode, refillFrom: s.refillFrom(convID)}
	if l := s.learnedLimit(p.model); l > 0 && l < c.limit {
		c.limit = l
		c.notes = append(c.notes, fmt.Sprintf("the request limit is %d tokens, below the budget's, since the provider reported a smaller context window for %s", l, p.model))
	}
	return c
}

// options returns the builder's options at the current limit.
func (c *contexter) options(withRecall bool) contextbuilder.Options {
	o := c.s.options(c.p)
	if c.limit < o.Budget.TokenLimit() {
		o.Budget.TokenBudget, o.Budget.ReserveForResponse = c.limit, 0
	}
	o.Refill = c.config("").Refill(c.refillFrom)
	o.Refill.Except = ReasonManual
	if withRecall && len(c.recalled) > 0 {
		o.Recall = c.recalled
		o.RecallBudget = c.recallBudget()
	}
	return o
}

func (c *contexter) recallBudget() int {
	share := c.p.st.Context.RecallShare
	if share <= 0 {
		return 0
	}
	return min(8000, int(share*float64(c.limit)))
}

func (c *contexter) build(withRecall bool) (*contextbuilder.Result, error) {
	res, err := contextbuilder.Build(c.options(withRecall))
	if err == nil {
		c.refillFrom = res.Debug.RefillFrom
	}
	return res, err
}

func (c *contexter) config(focus string) compression.Config {
	cfg := c.s.compressionConfig(c.p, c.limit, c.sum, focus)
	if c.convID != "" {
		cfg.Earlier = c.earlier
	}
	return cfg
}

// earlier reads the conversation's messages back from the log for a
// consolidated digest (compression.Config.Earlier); the compaction keeps
// those marked compacted.
func (c *contexter) earlier() ([]conversation.Entry, error) {
	all, err := c.s.opts.Store.Load(c.convID)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, e := range all {
		if e.IsMessage() && e.Compacted {
			n++
		}
	}
	if n > compression.MaxRebuild {
		return nil, nil
	}
	out := make([]conversation.Entry, 0, n)
	for _, e := range all {
		if e.IsMessage() && e.Compacted {
			out = append(out, *e)
		}
	}
	return out, nil
}

// next builds the request to send now (see contexter). reason is recorded
// with a compaction.
func (c *contexter) next(ctx context.Context, reason string) (*contextbuilder.Result, error) {
	res, err := c.build(false)
	if err != nil {
		return nil, err
	}
	if res.Compaction != nil && res.Compaction.Pinned == nil {
		if !c.persist {
			c.notes = append(c.notes, "this conversation was compacted by an earlier version without a summary: the next send writes one")
		} else if res, err = c.backfill(res); err != nil {
			return nil, err
		}
	}
	if compression.Over(res, c.config("")) != "" {
		if res, err = c.compact(ctx, res, reason, "", false); err != nil {
			return nil, err
		}
	}
	if res.Debug.FullTokens > c.limit {
		if c.saveOutputs(res) {
			if res, err = c.build(false); err != nil {
				return nil, err
			}
		}
	}
	if res.Debug.OverBudget {
		return res, nil
	}
	if err := c.searchRecall(ctx, res); err != nil {
		c.notes = append(c.notes, "recall failed: "+err.Error())
	}
	if len(c.recalled) > 0 {
		if res, err = c.build(true); err != nil {
			return nil, err
		}
	}
	if c.persist {
		c.s.setRefillFrom(c.convID, c.refillFrom)
	}
	return res, nil
}

// maxRefillStates bounds the conversations whose refill start is
// remembered; the map starts over when full (a conversation forgotten
// chooses its refill again once).
const maxRefillStates = 4096

// refillFrom returns the first compacted message the last request of a
// conversation sent word for word ("" when none or unknown).
func (s *ChatService) refillFrom(convID string) string {
	s.refillMu.Lock()
	defer s.refillMu.Unlock()
	return s.refills[convID]
}

func (s *ChatService) setRefillFrom(convID, id string) {
	if convID == "" {
		return
	}
	s.refillMu.Lock()
	defer s.refillMu.Unlock()
	if s.refills == nil || len(s.refills) >= maxRefillStates {
		s.refills = map[string]string{}
	}
	s.refills[convID] = id
}

// compact compacts the request res (the oldest units until the target, or
// all of them), applies it to the history and persists it, and returns the
// request built again. Nothing to compact returns res as it is.
func (c *contexter) compact(ctx context.Context, res *contextbuilder.Result, reason, focus string, all bool) (*contextbuilder.Result, error) {
	cfg := c.config(focus)
	spans := compression.Plan(res, c.p.history, cfg, all)
	if len(spans) == 0 {
		return res, nil
	}
	if c.onCompacting != nil {
		c.onCompacting()
	}
	comp, err := compression.Compact(ctx, res, c.p.history, spans, cfg)
	if err != nil {
		return nil, err
	}
	s := c.s
	now := s.now()
	summary := conversation.Entry{Type: conversation.TypeMsg, ID: s.opts.NewID(), CreatedAt: now, Role: conversation.RoleSystem,
		Content: conversation.Str(comp.Summary), Mode: c.mode, RunID: c.runID, WorkflowID: c.workflowID}
	summary.Tokens = s.counter.CountMessage(c.p.model, &summary)
	if en, ok := s.opts.Counter.(contextbuilder.EncodingNamer); ok {
		summary.TokenEncoding = en.EncodingFor(c.p.model)
	}
	event := conversation.Entry{Type: conversation.TypeEvt, ID: s.opts.NewID(), CreatedAt: now, Event: conversation.EventCompaction, RefMsgID: summary.ID}

	// Apply it in memory, build again, and complete the event's data.
	compacted := make(map[string]bool, len(comp.MessageIDs))
	for _, id := range comp.MessageIDs {
		compacted[id] = true
	}
	saved := c.p.history
	h := make([]conversation.Entry, len(saved), len(saved)+2)
	copy(h, saved)
	for i := range h {
		if h[i].IsMessage() && compacted[h[i].ID] {
			h[i].Compacted = true
		}
	}
	data := comp.Data
	data.Summary = summary.ID
	data.Reason = reason
	data.Skills = s.skillsSnapshot(c.p)
	data.Mode, data.RunID, data.WorkflowID = c.mode, c.runID, c.workflowID
	data.TokensBefore = res.Debug.FullTokens
	raw, _ := json.Marshal(data) // plain values: cannot fail
	event.Data = raw
	c.p.history = append(h, event, summary)
	after, err := c.build(false)
	if err != nil {
		c.p.history = saved
		return nil, err
	}
	data.TokensAfter = after.Debug.FullTokens
	data.KeptFrom = keptFromOf(c.p.history, after)
	docs := make([]recall.Doc, 0, len(comp.Entries))
	for i := range comp.Entries {
		if d := recall.DocOf(&comp.Entries[i]); d.Text != "" {
			docs = append(docs, d)
		}
	}
	if x, err := c.recallIndex(); err == nil {
		data.RecallDocs = x.Len() + len(docs)
	}
	raw, _ = json.Marshal(data)
	c.p.history[len(c.p.history)-2].Data = raw

	if c.persist {
		ev, sum := event, summary
		ev.Data = raw
		w := convlog.CompactionWrite{MessageIDs: comp.MessageIDs, Event: &ev, Summary: &sum}
		if c.p.readAt > 0 {
			w.Versions, w.ReadAt = versionsOf(saved, compacted), c.p.readAt
		}
		// The recall index takes the messages while the log is written: a
		// document whose message stays in the history (the write failed) is
		// never recalled, since recall skips what the request holds.
		recalled := make(chan error, 1)
		go func() { recalled <- s.recall.Add(s.opts.Store, c.convID, docs) }()
		if err := s.opts.Store.Compact(c.convID, w); err != nil {
			<-recalled
			c.p.history = saved
			return nil, err
		}
		if err := <-recalled; err != nil {
			c.notes = append(c.notes, "the recall index was not updated: "+err.Error())
		}
	} else {
		c.pendingDocs = append(c.pendingDocs, docs...)
	}
	c.compactions = append(c.compactions, CompactionRecord{EventID: event.ID, SummaryID: summary.ID, Summary: comp.Summary,
		CompactedIDs: comp.MessageIDs, Count: len(comp.Entries), Lines: comp.Lines, Data: data, Persisted: c.persist})
	return after, nil
}

// versionsOf returns the messages of history whose ids are in ids, as the
// store's Compact takes them (the versions read, unchanged).
func versionsOf(history []conversation.Entry, ids map[string]bool) []*conversation.Entry {
	out := make([]*conversation.Entry, 0, len(ids))
	for i := range history {
		if history[i].IsMessage() && ids[history[i].ID] {
			out = append(out, &history[i])
		}
	}
	return out
}

// backfill gives a conversation compacted by an earlier version of the
// runtime (compaction events without "pinned", no summary of what they
// compacted) the summary it lacks: the whole log is read once, the digest of
// the compacted messages written with a compaction event of reason
// "backfill" (which later reads find instead), and they go to the recall
// index.
func (c *contexter) backfill(res *contextbuilder.Result) (*contextbuilder.Result, error) {
	s := c.s
	all, err := s.opts.Store.Load(c.convID)
	if err != nil {
		return nil, err
	}
	var lost []conversation.Entry
	for _, e := range all {
		if e.IsMessage() && e.Compacted && !e.IsSummary() {
			lost = append(lost, *e)
		}
	}
	comp := compression.Backfill(res, lost, c.config(""))
	now := s.now()
	summary := conversation.Entry{Type: conversation.TypeMsg, ID: s.opts.NewID(), CreatedAt: now, Role: conversation.RoleSystem,
		Content: conversation.Str(comp.Summary), Mode: c.mode, RunID: c.runID, WorkflowID: c.workflowID}
	summary.Tokens = s.counter.CountMessage(c.p.model, &summary)
	summary.TokenEncoding = s.counter.EncodingFor(c.p.model)
	data := comp.Data
	data.Summary, data.Reason, data.Mode = summary.ID, ReasonBackfill, c.mode
	data.Skills = s.skillsSnapshot(c.p)
	data.KeptFrom = res.Compaction.KeptFrom
	if data.KeptFrom == "" {
		data.KeptFrom = keptFromOf(c.p.history, res)
	}
	data.TokensBefore = res.Debug.FullTokens
	var docs []recall.Doc
	for i := range lost {
		if d := recall.DocOf(&lost[i]); d.Text != "" {
			docs = append(docs, d)
		}
	}
	data.RecallDocs = len(docs)
	raw, _ := json.Marshal(data)
	event := conversation.Entry{Type: conversation.TypeEvt, ID: s.opts.NewID(), CreatedAt: now, Event: conversation.EventCompaction, RefMsgID: summary.ID, Data: raw}
	ev, sum := event, summary
	if err := s.opts.Store.Compact(c.convID, convlog.CompactionWrite{MessageIDs: comp.MessageIDs, Event: &ev, Summary: &sum}); err != nil {
		return nil, err
	}
	if err := s.recall.Add(s.opts.Store, c.convID, docs); err != nil {
		c.notes = append(c.notes, "the recall index was not updated: "+err.Error())
	}
	old := map[string]bool{}
	for _, id := range comp.MessageIDs {
		old[id] = true
	}
	for i := range c.p.history {
		if old[c.p.history[i].ID] {
			c.p.history[i].Compacted = true
		}
	}
	c.p.history = append(c.p.history, event, summary)
	c.notes = append(c.notes, strconv.Itoa(len(lost))+" messages compacted by an earlier version without a summary were summarised")
	return c.build(false)
}

// keptFromOf returns the oldest history entry the request still needs: the
// oldest log message it holds ("" when it holds none).
func keptFromOf(history []conversation.Entry, res *contextbuilder.Result) string {
	pos := make(map[string]int, len(history))
	for i := range history {
		if history[i].IsMessage() {
			pos[history[i].ID] = i
		}
	}
	best, id := math.MaxInt, ""
	for _, sp := range res.Spans {
		for _, sid := range sp.SourceIDs {
			if p, ok := pos[sid]; ok && p < best {
				best, id = p, sid
			}
		}
	}
	return id
}

// saveOutputs writes the full output of every tool result of the request
// that the safety net may shorten to a preview and that has no output file
// yet, so the preview can point the model at it. It reports whether
// anything changed.
func (c *contexter) saveOutputs(res *contextbuilder.Result) bool {
	want := map[string]bool{}
	for _, sp := range res.Spans {
		for _, id := range sp.SourceIDs {
			want[id] = true
		}
	}
	changed := false
	for i := range c.p.history {
		e := &c.p.history[i]
		if !e.IsMessage() || e.Role != conversation.RoleTool || e.FullOutputPath != "" || !want[e.ID] || e.Compacted {
			continue
		}
		if _, ok := contextbuilder.PreviewToolResult(e); !ok {
			continue
		}
		alias := convlog.ToolResultAlias(c.convID, e.ID)
		if c.persist {
			var err error
			if alias, err = c.s.opts.Store.SaveToolOutput(c.convID, e.ID, e.ToolCallID, e.ToolName, e.Text()); err != nil {
				c.notes = append(c.notes, "could not save the full output of "+e.ID+": "+err.Error())
				continue
			}
			upd := *e
			upd.FullOutputPath = alias
			upd.UpdatedAt = ""
			if err := c.s.opts.Store.Update(c.convID, &upd); err != nil {
				c.notes = append(c.notes, "could not record the output file of "+e.ID+": "+err.Error())
				continue
			}
		}
		e.FullOutputPath = alias
		changed = true
	}
	return changed
}

// recallIndex returns the conversation's recall index.
func (c *contexter) recallIndex() (*recall.Index, error) {
	return c.s.recall.Get(c.s.opts.Store, c.convID)
}

// searchRecall searches the compacted messages for the newest user message
// of res.
func (c *contexter) searchRecall(ctx context.Context, res *contextbuilder.Result) error {
	c.recalled = nil
	budget := c.recallBudget()
	if budget <= 0 || res.Anchor < 0 {
		return nil
	}
	x, err := c.recallIndex()
	if err != nil {
		return err
	}
	if len(c.pendingDocs) > 0 {
		x = x.With(c.pendingDocs)
	}
	if x.Len() == 0 {
		return nil
	}
	inRequest := map[string]bool{}
	for _, sp := range res.Spans {
		for _, id := range sp.SourceIDs {
			inRequest[id] = true
		}
	}
	for _, p := range res.Pins {
		inRequest[p.ID] = true
	}
	o := recall.Options{Limit: 12, Skip: func(id string) bool { return inRequest[id] }}
	if v := c.s.vectorSearch(ctx, c.p, c.convID, c.persist); v != nil {
		o.Vectors = v
	}
	hits, err := x.Search(res.Messages[res.Anchor].Text(), o)
	if err != nil && o.Vectors != nil {
		c.notes = append(c.notes, "vector recall failed ("+err.Error()+"); recalled by words only")
		o.Vectors = nil
		hits, err = x.Search(res.Messages[res.Anchor].Text(), o)
	}
	if err != nil {
		return err
	}
	for _, h := range hits {
		c.recalled = append(c.recalled, contextbuilder.RecallItem{ID: h.ID, Role: h.Role, Tool: h.Tool, Text: h.Excerpt, Score: h.Score, Why: h.Why(),
			Terms: h.Terms, Meaning: h.VecRank > 0})
	}
	return nil
}

// vectorSearch returns the vector half of a hybrid recall, or nil when no
// embeddings model is configured.
func (s *ChatService) vectorSearch(ctx context.Context, p *prepared, convID string, persist bool) *recall.VectorSearch {
	l := p.st.LLM
	if strings.TrimSpace(l.EmbeddingsModel) == "" {
		return nil
	}
	e := s.embedder(l)
	if e == nil {
		return nil
	}
	return &recall.VectorSearch{Ctx: ctx, Embedder: e, Files: s.opts.Store, ConvID: convID, ReadOnly: !persist}
}

// Embedders is implemented by an LLM that computes embeddings (*llm.Client).
type Embedders interface {
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

type clientEmbedder struct {
	c     Embedders
	model string
}

func (e clientEmbedder) Model() string { return e.model }
func (e clientEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.c.Embed(ctx, e.model, texts)
}

// embedder returns the embeddings client of the settings (the LLM endpoint,
// or llm.embeddingsBaseUrl), nil when the LLM cannot embed.
func (s *ChatService) embedder(l settings.LLM) recall.Embedder {
	cfg := l
	if cfg.EmbeddingsBaseURL == "" || cfg.EmbeddingsBaseURL == cfg.BaseURL {
		em, ok := s.client(cfg).(Embedders)
		if !ok {
			return nil
		}
		return clientEmbedder{c: em, model: l.EmbeddingsModel}
	}
	cfg.BaseURL = cfg.EmbeddingsBaseURL
	s.mu.Lock()
	if key := clientKey(cfg); s.embedClient == nil || s.embedKey != key {
		s.embedClient, s.embedKey = s.opts.LLM(cfg), key
	}
	client := s.embedClient
	s.mu.Unlock()
	em, ok := client.(Embedders)
	if !ok {
		return nil
	}
	return clientEmbedder{c: em, model: l.EmbeddingsModel}
}

// CompactionRecord is one compaction done (or, in a preview, that would be).
type CompactionRecord struct {
	EventID   string                      `json:"eventId"`
	SummaryID string                      `json:"summaryId"`
	Summary   string                      `json:"summary"`
	Count     int                         `json:"count"`
	Lines     int                         `json:"lines,omitempty"`
	Data      conversation.CompactionData `json:"data"`
	// CompactedIDs are the messages marked compacted (old summaries included).
	CompactedIDs []string `json:"compactedIds"`
	Persisted    bool     `json:"persisted"`
}

// learnedLimit is the request limit a provider's context-length error taught
// for model (0: none).
func (s *ChatService) learnedLimit(model string) int {
	s.windowMu.Lock()
	defer s.windowMu.Unlock()
	return s.windows[model]
}

// learnLimit remembers a lower request limit for model, for the sends that
// follow in this process.
func (s *ChatService) learnLimit(model string, limit int) {
	s.windowMu.Lock()
	defer s.windowMu.Unlock()
	if s.windows == nil {
		s.windows = map[string]int{}
	}
	if cur, ok := s.windows[model]; !ok || limit < cur {
		s.windows[model] = limit
	}
}

// lowerLimit returns the limit to retry with after a context-length error
// for a request of sent tokens at limit: lowered by the overflow the
// provider reported (and a 2 % margin), or by a quarter when it did not say.
func lowerLimit(limit, sent int, err error) (int, string) {
	ov, ok := llm.OverflowOf(err)
	switch {
	case ok && ov.Excess() > 0:
		// The provider counts with its own tokenizer: scale its window to ours.
		l := sent*ov.Limit/ov.Requested - max(16, sent/50)
		return max(min(l, limit), 1), fmt.Sprintf("the provider reported %d tokens over its window of %d", ov.Excess(), ov.Limit)
	case ok && ov.Limit > 0 && ov.Limit < limit:
		return max(ov.Limit-ov.Limit/4, 1), fmt.Sprintf("the provider reported a window of %d tokens", ov.Limit)
	}
	return max(min(limit, sent)*3/4, 1), "the provider gave no figures; lowered by a quarter"
}

// recountCache counts entries whose stored count cannot be used (another
// encoding, implausible) once per entry and encoding.
type recountCache struct {
	Counter
	mu    sync.Mutex
	m     map[recountKey]int
	texts map[string]int // counts of long texts composed at request time
}

// textCacheMin is the size from which Count caches a text's count: the
// system prompt, tool definitions, summaries and pinned blocks are counted
// again for every request otherwise.
const (
	textCacheMin  = 256
	maxTextCounts = 512
)

// Count implements contextbuilder.Counter, caching the counts of long texts.
func (r *recountCache) Count(model, text string) int {
	if len(text) < textCacheMin {
		return r.Counter.Count(model, text)
	}
	key := r.EncodingFor(model) + "\x00" + text
	r.mu.Lock()
	n, ok := r.texts[key]
	r.mu.Unlock()
	if ok {
		return n
	}
	n = r.Counter.Count(model, text)
	r.mu.Lock()
	if r.texts == nil || len(r.texts) >= maxTextCounts {
		r.texts = map[string]int{}
	}
	r.texts[key] = n
	r.mu.Unlock()
	return n
}

type recountKey struct {
	id, enc string
	size    int
}

// maxRecounts bounds the cache; it starts over when full.
const maxRecounts = 1 << 16

// CountMessage implements contextbuilder.EntryCounter with the cache.
func (r *recountCache) CountMessage(model string, e *conversation.Entry) int {
	if e.ID == "" {
		return r.Counter.CountMessage(model, e)
	}
	key := recountKey{id: e.ID, enc: r.EncodingFor(model), size: len(e.Text())}
	r.mu.Lock()
	n, ok := r.m[key]
	r.mu.Unlock()
	if ok {
		return n
	}
	n = r.Counter.CountMessage(model, e)
	r.mu.Lock()
	if r.m == nil || len(r.m) >= maxRecounts {
		r.m = map[recountKey]int{}
	}
	r.m[key] = n
	r.mu.Unlock()
	return n
}

// EncodingFor implements contextbuilder.EncodingNamer when the counter does.
func (r *recountCache) EncodingFor(model string) string {
	if en, ok := r.Counter.(contextbuilder.EncodingNamer); ok {
		return en.EncodingFor(model)
	}
	return ""
}
