package compression

import (
	"context"
	"encoding/json"
	"fmt"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
)

// Config configures a Pipeline. Zero fields take the defaults.
type Config struct {
	// Budget is what a request may use in tokens (contextbuilder
	// Budget.TokenLimit(): the model's window minus the reply reserve).
	Budget int
	// ToolTokens is what the tool definitions sent with each request cost.
	ToolTokens int
	// TriggerThreshold: compress when usage is above this share (0.8).
	TriggerThreshold float64
	// Target: the share of the budget compression aims for (0.5).
	Target float64
	// Primary is the strategy tried first (default key messages); Fallback
	// runs when Primary returns an error (default key messages).
	Primary, Fallback Strategy
	Counter           contextbuilder.Counter
	Model             string
}

// Pipeline decides when to compress and runs the strategies.
type Pipeline struct {
	cfg     Config
	monitor Monitor
}

// NewPipeline returns a pipeline for cfg.
func NewPipeline(cfg Config) *Pipeline {
	if cfg.TriggerThreshold <= 0 || cfg.TriggerThreshold > 1 {
		cfg.TriggerThreshold = 0.8
	}
	if cfg.Target <= 0 || cfg.Target > 1 {
		cfg.Target = 0.5
	}
	if cfg.Fallback == nil {
		cfg.Fallback = NewKeyMessages(KeyMessageConfig{})
	}
	if cfg.Primary == nil {
		cfg.Primary = cfg.Fallback
	}
	return &Pipeline{cfg: cfg, monitor: Monitor{Budget: cfg.Budget, ToolTokens: cfg.ToolTokens}}
}

// Usage returns the usage of msgs.
func (p *Pipeline) Usage(msgs []Message) Usage { return p.monitor.Usage(msgs) }

// ShouldCompress reports whether msgs use more than the trigger threshold.
func (p *Pipeline) ShouldCompress(msgs []Message) bool {
	return p.Usage(msgs).UsagePercent > p.cfg.TriggerThreshold*100
}

// TargetTokens is the most the messages of a compressed request may cost
// (Target share of the budget, minus the tool definitions).
func (p *Pipeline) TargetTokens() int {
	t := int(p.cfg.Target*float64(p.cfg.Budget)) - p.cfg.ToolTokens
	return max(t, 0)
}

// Result is the outcome of a compression.
type Result struct {
	Output *Output
	Before Usage
	After  Usage
	// FellBack is true when the primary strategy failed and the fallback ran;
	// PrimaryError says why.
	FellBack     bool
	PrimaryError string
	// Record is what the caller persists.
	Record Record
}

// CompressIfNeeded compresses msgs when ShouldCompress; it returns nil
// otherwise.
func (p *Pipeline) CompressIfNeeded(ctx context.Context, msgs []Message, loopStart int) (*Result, error) {
	if !p.ShouldCompress(msgs) {
		return nil, nil
	}
	return p.Compress(ctx, msgs, loopStart)
}

// Compress runs the primary strategy on msgs (the current tool loop starts at
// loopStart, see Input.LoopStart), falling back when it fails.
func (p *Pipeline) Compress(ctx context.Context, msgs []Message, loopStart int) (*Result, error) {
	in := Input{Messages: msgs, Target: p.TargetTokens(), LoopStart: loopStart, Counter: p.cfg.Counter, Model: p.cfg.Model}
	res := &Result{Before: p.Usage(msgs)}
	out, err := p.cfg.Primary.Compress(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.FellBack, res.PrimaryError = true, err.Error()
		var ferr error
		if out, ferr = p.cfg.Fallback.Compress(ctx, in); ferr != nil {
			return nil, fmt.Errorf("compression: %s failed (%v), then %s failed: %w", p.cfg.Primary.Name(), err, p.cfg.Fallback.Name(), ferr)
		}
		out.Notes = append(out.Notes, p.cfg.Primary.Name()+" failed ("+err.Error()+"); used "+p.cfg.Fallback.Name())
	}
	res.Output = out
	res.After = p.Usage(out.Messages)
	res.Record = newRecord(msgs, out, res)
	return res, nil
}

// Record is what a compression asks the caller to persist: a "compaction"
// event, compacted:true on every CompactedIDs entry (the store's
// MarkCompacted), and, for the LLM summary, the summary message. Truncated
// messages are not marked: the log keeps them whole and the next compression
// shortens them again.
type Record struct {
	Strategy     string   `json:"strategy"`
	From         string   `json:"from,omitempty"` // first compacted source id (request order)
	To           string   `json:"to,omitempty"`   // last compacted source id
	CompactedIDs []string `json:"compactedIds"`
	TruncatedIDs []string `json:"truncatedIds"`
	TokensBefore int      `json:"tokensBefore"`
	TokensAfter  int      `json:"tokensAfter"`
	Target       int      `json:"target"`
	// Summary is the content of the summary message to append ("" when none).
	Summary  string   `json:"summary,omitempty"`
	Steps    []string `json:"steps,omitempty"`
	FellBack bool     `json:"fellBack,omitempty"`
}

func newRecord(in []Message, out *Output, res *Result) Record {
	r := Record{Strategy: out.Strategy, TokensBefore: res.Before.UsedTokens, TokensAfter: res.After.UsedTokens,
		Target: out.Target, Steps: out.Steps, FellBack: res.FellBack, TruncatedIDs: out.Truncated}
	seen := make(map[string]bool, len(out.Dropped))
	for _, id := range out.Dropped {
		if id != "" && !seen[id] {
			seen[id] = true
			r.CompactedIDs = append(r.CompactedIDs, id)
		}
	}
	if r.CompactedIDs == nil {
		r.CompactedIDs = []string{}
	}
	if r.TruncatedIDs == nil {
		r.TruncatedIDs = []string{}
	}
	for i := range in {
		if id := in[i].SourceID; seen[id] {
			if r.From == "" {
				r.From = id
			}
			r.To = id
		}
	}
	if out.SummaryText != "" {
		r.Summary = contextbuilder.ConversationSummaryPrefix + "\n" + out.SummaryText
	}
	return r
}

// HasChanges reports whether anything must be persisted.
func (r *Record) HasChanges() bool { return len(r.CompactedIDs) > 0 || r.Summary != "" }

// Entries returns the log entries to append: the summary message (nil when
// there is none) and the compaction event that references it. newID makes
// entry ids; createdAt is their timestamp.
func (r *Record) Entries(newID func() string, createdAt string) (summary *convlog.Entry, event convlog.Entry) {
	data := map[string]any{
		"strategy":     r.Strategy,
		"from":         r.From,
		"to":           r.To,
		"count":        len(r.CompactedIDs),
		"truncated":    len(r.TruncatedIDs),
		"tokensBefore": r.TokensBefore,
		"tokensAfter":  r.TokensAfter,
		"target":       r.Target,
	}
	if len(r.Steps) > 0 {
		data["steps"] = r.Steps
	}
	if r.FellBack {
		data["fellBack"] = true
	}
	if r.Summary != "" {
		summary = &convlog.Entry{Type: convlog.TypeMsg, ID: newID(), CreatedAt: createdAt, Role: convlog.RoleSystem, Content: convlog.Str(r.Summary)}
		data["summary"] = summary.ID
	}
	raw, _ := json.Marshal(data) // plain values: cannot fail
	event = convlog.Entry{Type: convlog.TypeEvt, ID: newID(), CreatedAt: createdAt, Event: convlog.EventCompaction, Data: raw}
	if summary != nil {
		event.RefMsgID = summary.ID
	}
	return summary, event
}
