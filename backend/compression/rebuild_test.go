package compression

import (
	"context"
	"encoding/json"
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

// A compaction that cannot land at its target because the turn in progress
// is large writes the digest smaller, so that one more turn like the
// recent ones fits below the trigger (and says so: Reduced); once that turn
// is compacted too, the digest is written again at its full size.
func TestReducedDigestLeavesRoomForTheNextTurn(t *testing.T) {
	var c convo
	c.user("Plan the migration of the billing service. The cutover must happen on a Sunday.")
	vocab := strings.Fields("amber basalt cedar delta ember fjord garnet harbor indigo juniper kelp lagoon meadow nectar onyx prairie quartz reef " +
		"saffron tundra umber violet willow xenon yarrow zephyr")
	word := func(k int) string { return vocab[(k*7+3)%len(vocab)] }
	for i := 0; i < 40; i++ {
		c.user(fmt.Sprintf("fwiw the %s %s %s queue must stay on port %d.", word(i), word(i*3+1), word(i*5+2), 6000+i))
		c.assistant(fmt.Sprintf("Noted for worker %d: %s", i, strings.Repeat("an answer with some words ", 8)))
	}
	c.user("Next?")
	const limit = 5000
	cfg := func(history []conversation.Entry) Config {
		return Config{Limit: limit, Counter: counter, Model: testModel, Earlier: func() ([]conversation.Entry, error) { return history, nil }}
	}
	step := func(history []conversation.Entry, all bool) ([]conversation.Entry, *Compaction, *contextbuilder.Result) {
		t.Helper()
		res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: history, Counter: counter, Model: testModel,
			Budget: contextbuilder.Budget{TokenBudget: limit}})
		if err != nil {
			t.Fatal(err)
		}
		spans := Plan(res, history, cfg(history), all)
		if len(spans) == 0 {
			t.Fatal("nothing to compact")
		}
		comp, err := Compact(context.Background(), res, history, spans, cfg(history))
		if err != nil {
			t.Fatal(err)
		}
		gone := map[string]bool{}
		for _, id := range comp.MessageIDs {
			gone[id] = true
		}
		out := make([]conversation.Entry, 0, len(history)+2)
		for _, e := range history {
			e.Compacted = e.Compacted || gone[e.ID]
			out = append(out, e)
		}
		raw, _ := json.Marshal(comp.Data)
		out = append(out, conversation.Entry{Type: conversation.TypeEvt, ID: fmt.Sprintf("e%04d", len(out)), Event: conversation.EventCompaction, Data: raw})
		out = append(out, conversation.Entry{Type: conversation.TypeMsg, ID: fmt.Sprintf("s%04d", len(out)), Role: conversation.RoleSystem, Content: conversation.Str(comp.Summary)})
		return out, comp, res
	}
	history, first, _ := step(c.entries, true)
	if first.Data.Reduced {
		t.Fatal("the first compaction had room and was reduced")
	}
	full := counter.Count(testModel, first.Summary)
	// Ordinary turns, then one that takes a third of the limit.
	c.entries = history
	for i := 0; i < 3; i++ {
		c.user(fmt.Sprintf("Round %d: %s", i, strings.Repeat("more words about the export step ", 45)))
		c.assistant(strings.Repeat("An answer with some words. ", 20))
	}
	c.user("Here is the log: " + strings.Repeat("worker 12 retried the batch and waited ", 330))
	history, second, _ := step(c.entries, false)
	small := counter.Count(testModel, second.Summary)
	if !second.Data.Reduced || small >= full {
		t.Fatalf("a compaction under a large turn: reduced %v, summary %d tokens (%d before)", second.Data.Reduced, small, full)
	}
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: history, Counter: counter, Model: testModel,
		Budget: contextbuilder.Budget{TokenBudget: limit}})
	if err != nil {
		t.Fatal(err)
	}
	turn := 0
	for _, e := range c.entries[len(c.entries)-7 : len(c.entries)-1] {
		turn += e.Tokens
	}
	if trigger := int(DefaultTrigger * limit); res.Debug.FullTokens+turn/3 > trigger {
		t.Errorf("after the reduced compaction the request is %d tokens: a turn of %d does not fit below the trigger of %d", res.Debug.FullTokens, turn/3, trigger)
	}
	// The large turn is answered and compacted: the digest is full again.
	c.entries = history
	c.assistant("Looked at the log.")
	for i := 0; i < 6; i++ {
		c.user(fmt.Sprintf("Round %d: %s", 10+i, strings.Repeat("more words about the import step ", 20)))
		c.assistant(strings.Repeat("An answer with some words. ", 20))
	}
	c.user("Next?")
	_, third, _ := step(c.entries, false)
	if third.Data.Reduced || third.Data.Appended || counter.Count(testModel, third.Summary) <= small {
		t.Errorf("after the large turn: reduced %v, appended %v, %d tokens (reduced one %d)", third.Data.Reduced, third.Data.Appended, counter.Count(testModel, third.Summary), small)
	}
}
