package compression

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// A summary that must be consolidated is written again from the messages it
// stands for (Config.Earlier), not from its own text: a line only the old
// summary held is gone, a fact of an early compacted message is back, and
// the task is the first user message. Without the messages (no loader, an
// error) the summary's lines are merged with the new ones.
func TestConsolidationRebuildsFromTheCompactedMessages(t *testing.T) {
	var c convo
	c.user("Plan the migration of the billing service. The cutover must happen on a Sunday.")
	c.filler(3)
	c.user("fwiw the staging host is build-7.internal and it listens on port 6851.")
	c.filler(3)
	early := len(c.entries)
	for i := range c.entries {
		c.entries[i].Compacted = true
	}
	var old strings.Builder
	old.WriteString(contextbuilder.ConversationSummaryPrefix + "\n" + digestIntro + " (14 messages so far).\n\nFacts, files and numbers:")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&old, "\n- #m%04d user: the ONLYINSUMMARY note %d says the queue holds %d jobs", i%early+1, i, 1000+i)
	}
	c.add(conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str(old.String())})
	for i := 0; i < 12; i++ {
		c.user(fmt.Sprintf("Round %d: %s", i, strings.Repeat("more words about the export step ", 12)))
		c.assistant(fmt.Sprintf("Noted %d. %s", i, strings.Repeat("An answer with some words. ", 12)))
	}
	c.user("Next?")
	history := c.entries
	for _, tc := range []struct {
		name    string
		earlier func() ([]conversation.Entry, error)
		rebuilt bool
	}{
		{"rebuilt", func() ([]conversation.Entry, error) { return history, nil }, true},
		{"no loader", nil, false},
		{"loader fails", func() ([]conversation.Entry, error) { return nil, errors.New("the log cannot be read") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: history, Counter: counter, Model: testModel,
				Budget: contextbuilder.Budget{TokenBudget: 9000}})
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Limit: res.Debug.TokenLimit, Counter: counter, Model: testModel, SummaryShare: testShare, Earlier: tc.earlier}
			spans := Plan(res, history, cfg, true)
			comp, err := Compact(context.Background(), res, history, spans, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if comp.Data.Appended || strings.Contains(comp.Summary, blockTitle) {
				t.Fatalf("the summary was appended to, not consolidated:\n%s", comp.Summary)
			}
			if tokens := counter.Count(testModel, comp.Summary); tokens > cfg.SummaryBudget() {
				t.Errorf("the consolidated summary is %d tokens, over its budget of %d", tokens, cfg.SummaryBudget())
			}
			has := func(s string) bool { return strings.Contains(comp.Summary, s) }
			if tc.rebuilt {
				if has("ONLYINSUMMARY") || !has("build-7.internal") || !has("6851") || !has("The cutover must happen on a Sunday.") {
					t.Errorf("not written from the compacted messages:\n%s", comp.Summary)
				}
				return
			}
			if !has("ONLYINSUMMARY") {
				t.Errorf("the old summary's lines were not merged:\n%s", comp.Summary)
			}
		})
	}
}

// Lines of one template whose slots hold words as well as figures and
// paths ("In <path> the <part> gets recomputed …", "I read <path>.") sink
// together: a tight digest keeps the facts said once instead.
func TestTemplateLinesSink(t *testing.T) {
	parts := []string{"offline", "locale", "crash", "push", "upload", "badge", "session", "cohort", "funnel", "shard"}
	for _, tc := range []struct {
		name string
		line func(i int) string
	}{
		{"word slots", func(i int) string {
			return fmt.Sprintf("In apps/mobile/src/%s_%d.ts the %s gets recomputed on every render, about %d ms;", parts[i], i, parts[i], 100+i*37)
		}},
		{"short narration", func(i int) string { return fmt.Sprintf("I read services/%s/handler_%d.go.", parts[i], i) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c convo
			c.user("Look around the repository first.")
			for i := range parts {
				c.user(fmt.Sprintf("Next step %d?", i))
				c.assistant(tc.line(i))
				if i == 4 {
					c.user("fwiw the dev server sits on port 6851.")
					c.user("Leocadia Voss from payments is reviewing this one.")
				}
			}
			dg := digestOf(t, c.entries, nil, 200, "")
			older := 0 // template lines kept other than the four newest
			for _, l := range dg.lines {
				for i := range parts[:len(parts)-4] {
					if l.text == tc.line(i) {
						older++
					}
				}
			}
			if !strings.Contains(dg.text, "6851") || !strings.Contains(dg.text, "Leocadia Voss") || older > 0 {
				t.Errorf("%d older template lines kept; the facts said once should win:\n%s", older, dg.text)
			}
		})
	}
}

// A value and its correction: the stale line is written before the line
// that corrects it, whatever their sections.
func TestStaleValueBeforeItsCorrection(t *testing.T) {
	var c convo
	c.user("Plan the bank integration.")
	c.user("we're allowed 27168 requests a minute against the bank API.")
	c.filler(2)
	c.user("side note: the bank came back, the 27168 a minute was wrong, we must stay under 27579.")
	dg := digestOf(t, c.entries, nil, 2000, "")
	stale, fix := strings.Index(dg.text, "27168 requests"), strings.LastIndex(dg.text, "27579")
	if stale < 0 || fix < 0 || stale > fix {
		t.Errorf("the stale value (at %d) should come before its correction (at %d):\n%s", stale, fix, dg.text)
	}
}

// A summary the safety net left out of the request (the turn in progress
// is too large to fit beside it) still stands for what it covers: the next
// compaction replaces it (it is marked compacted) and consolidates it, and
// does not start a new summary from the messages compacted now.
func TestSummaryLeftOutIsConsolidated(t *testing.T) {
	var c convo
	c.user("Plan the migration of the billing service. The cutover must happen on a Sunday.")
	c.user("fwiw the staging server listens on port 6851.")
	c.filler(2)
	for i := range c.entries {
		c.entries[i].Compacted = true
	}
	sum := c.add(conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str(contextbuilder.ConversationSummaryPrefix + "\n" + digestIntro +
		" (6 messages so far).\n\nFacts, files and numbers:\n" + strings.Repeat("- #m0002 user: fwiw the staging server listens on port 6851.\n", 1) +
		strings.Repeat("- #m0003 user: a line that takes room in the summary and says nothing new at all\n", 60))})
	sumID := sum.ID
	c.filler(2)
	c.user("Here is the whole log: " + strings.Repeat("worker 12 retried the batch and waited ", 260))
	history := c.entries
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: history, Counter: counter, Model: testModel,
		Budget: contextbuilder.Budget{TokenBudget: 3000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Messages {
		if m.Kind == contextbuilder.KindSummary {
			t.Fatal("the summary fits the request: the test tests nothing")
		}
	}
	cfg := Config{Limit: res.Debug.TokenLimit, Counter: counter, Model: testModel, Earlier: func() ([]conversation.Entry, error) { return history, nil }}
	spans := Plan(res, history, cfg, true)
	comp, err := Compact(context.Background(), res, history, spans, cfg)
	if err != nil {
		t.Fatal(err)
	}
	replaced := false
	for _, id := range comp.MessageIDs {
		replaced = replaced || id == sumID
	}
	if !replaced || !strings.Contains(comp.Summary, "The cutover must happen on a Sunday.") || !strings.Contains(comp.Summary, "6851") {
		t.Errorf("the summary left out was not consolidated (replaced %v):\n%s", replaced, comp.Summary)
	}
}
