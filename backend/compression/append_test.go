package compression

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// testShare is the summary's share in these tests: small, so that the
// blocks reach its budget within a few compactions.
const testShare = 0.15

// compactOnce builds the request over history, compacts what Plan picks,
// and applies it (compacted marks, the summary appended) as the engine does.
func compactOnce(t *testing.T, history []conversation.Entry, limit int) ([]conversation.Entry, *Compaction) {
	t.Helper()
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: history, Counter: counter, Model: testModel,
		Budget: contextbuilder.Budget{TokenBudget: limit}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Limit: res.Debug.TokenLimit, Counter: counter, Model: testModel, SummaryShare: testShare}
	spans := Plan(res, history, cfg, false)
	if len(spans) == 0 {
		t.Fatal("nothing to compact")
	}
	comp, err := Compact(context.Background(), res, history, spans, cfg)
	if err != nil {
		t.Fatal(err)
	}
	gone := map[string]bool{}
	for _, id := range comp.MessageIDs {
		gone[id] = true
	}
	out := make([]conversation.Entry, 0, len(history)+1)
	for _, e := range history {
		if gone[e.ID] {
			e.Compacted = true
		}
		out = append(out, e)
	}
	out = append(out, conversation.Entry{Type: conversation.TypeMsg, ID: fmt.Sprintf("s%04d", len(history)), Role: conversation.RoleSystem,
		Content: conversation.Str(comp.Summary)})
	return out, comp
}

// Each compaction after the first appends a block for the messages it
// compacts: the summary in the request before it is the start of the new
// one, byte for byte. When the blocks outgrow the summary's budget they are
// consolidated into one digest that leaves room for the next blocks, and
// appending goes on.
func TestSummaryGrowsByAppendedBlocks(t *testing.T) {
	var c convo
	c.user("Plan the migration. The cutover must happen on a Sunday.")
	round := 0
	more := func(n int) {
		for i := 0; i < n; i++ {
			round++
			c.user(fmt.Sprintf("Round %d: the queue worker %d on host db-%d.internal needs %d MB. %s", round, round, round, 100+round, strings.Repeat("detail ", 25)))
			c.assistant(fmt.Sprintf("Noted for round %d. %s", round, strings.Repeat("An answer with some words. ", 20)))
		}
		c.user("Next?")
	}
	more(30)
	history, first := compactOnce(t, c.entries, 8000)
	if first.Data.Appended || !strings.Contains(first.Summary, "The cutover must happen on a Sunday.") {
		t.Fatalf("first compaction: appended %v\n%s", first.Data.Appended, first.Summary)
	}
	prev := first.Summary
	appended, consolidated := 0, 0
	for k := 0; k < 12; k++ {
		c.entries = history
		more(12)
		var comp *Compaction
		history, comp = compactOnce(t, c.entries, 8000)
		switch {
		case comp.Data.Appended:
			appended++
			if !strings.HasPrefix(comp.Summary, prev+"\n\n"+blockTitle) {
				t.Fatalf("compaction %d appended, but the summary does not start with the one before:\n%s", k, comp.Summary)
			}
			if strings.Count(comp.Summary, "Task (first user message") != 1 {
				t.Fatalf("the task is quoted again in a block:\n%s", comp.Summary)
			}
		default:
			consolidated++
			if got, budget := counter.Count(testModel, comp.Summary), (Config{Limit: 8000, SummaryShare: testShare}).SummaryBudget(); got > consolidatedBudget(budget)+16 {
				t.Fatalf("a consolidated summary of %d tokens leaves no room for blocks (budget %d)", got, budget)
			}
			if !strings.Contains(comp.Summary, "The cutover must happen on a Sunday.") {
				t.Fatalf("consolidation lost the task:\n%s", comp.Summary)
			}
		}
		if n := counter.Count(testModel, comp.Summary); n > (Config{Limit: 8000, SummaryShare: testShare}).SummaryBudget() {
			t.Fatalf("summary of %d tokens over its budget", n)
		}
		prev = comp.Summary
	}
	if appended < 2*consolidated || consolidated == 0 {
		t.Fatalf("%d appended, %d consolidated: want mostly appends, and the budget reached at least once", appended, consolidated)
	}
	// a consolidated summary is read back whole: the blocks' lines compete
	p := parseDigest(prev)
	if p.task == nil || len(p.lines) == 0 {
		t.Fatalf("parsed: %+v", p)
	}
	for _, l := range p.lines {
		if strings.HasPrefix(l.text, blockTitle) {
			t.Fatalf("a block header read as a line: %q", l.text)
		}
	}
}

// The digest keeps what the agent did to files from the arguments of its
// own calls — the path and the values it wrote — and the lines of tool
// outputs that state values, which plain data lines do not crowd out.
func TestDigestKeepsTheArtifactTrailAndToolValues(t *testing.T) {
	var c convo
	c.user("Set up the service config.")
	c.filler(4)
	c.tool("fs.write", `{"path":"@project/deploy/service.yaml","content":"name: ledger\nreplicas: 3\nlisten_port: 6851\nowner: Leocadia Voss\n# plain comment\n"}`,
		`{"ok":true,"path":"@project/deploy/service.yaml","bytesWritten":80,"sha256":"abc","created":true}`)
	c.filler(4)
	c.tool("fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"currentNodeId":{"set":"review-2"}}}`,
		`{"ok":true,"path":"@state/workflow.md","sha256":"def","updatedKeys":["currentNodeId"]}`)
	c.filler(4)
	c.tool("fs.read", `{"path":"@project/ci/last-run.log"}`, `{"ok":true,"content":"ok  pkg/a 0.2s\nok  pkg/b 0.3s\n--- FAIL: TestLedgerRounding (0.01s)\nretry_budget_ms = 4400\nok  pkg/c 0.1s"}`)
	c.filler(4)
	c.assistant("The rounding test fails because the ledger rounds half-even while the export rounds half-up.")
	c.filler(4)
	d := digestOf(t, c.entries, nil, 1500, "")
	for _, want := range []string{"wrote @project/deploy/service.yaml", "listen_port: 6851", "owner: Leocadia Voss",
		"updated @state/workflow.md: currentNodeId set \"review-2\"", "TestLedgerRounding", "retry_budget_ms = 4400",
		"rounds half-even while the export rounds half-up", sectionTitles[secFiles]} {
		if !strings.Contains(d.text, want) {
			t.Errorf("digest lacks %q:\n%s", want, d.text)
		}
	}
	if strings.Contains(d.text, "ok  pkg/b") {
		t.Errorf("plain output lines kept:\n%s", d.text)
	}
}

func TestTrailText(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{"fs.write", `{"path":"@project/a.txt","content":"x\ny\n"}`, "wrote @project/a.txt (2 lines)"},
		{"fs_write", `{"path":"@project/b.env","content":"PORT=8080"}`, "wrote @project/b.env (1 lines): `PORT=8080`"},
		{"fs.read", `{"path":"@project/a.txt"}`, ""},
		{"fs.write", `not json`, ""},
		{"mcp__files__move_file", `{"source":"@project/a","destination":"@project/b"}`, "mcp__files__move_file @project/a → @project/b"},
		{"mcp__files__delete_file", `{"path":"/srv/x"}`, "mcp__files__delete_file /srv/x"},
		{"mcp__github__search", `{"path":"x"}`, ""},
		{"shell.run", `{"command":"go test ./...\n"}`, "ran `go test ./...`"},
	}
	for _, tt := range tests {
		if got := trailText(tt.name, tt.args); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.name, tt.args, got, tt.want)
		}
	}
}

func TestIsValueLine(t *testing.T) {
	for line, want := range map[string]bool{
		"listen_port: 6851":                     true,
		"retry_budget_ms = 4400":                true,
		"--- FAIL: TestX (0.01s)":               true,
		"error E_QUOTA_EXCEEDED from billing":   true,
		"see https://example.org/runbook":       true,
		"2026-03-02T01:00:01Z INFO processed":   false,
		"This is a sentence: nothing to see.":   false,
		"the export rounds half-up":             false,
		"E1042 returned by the payment gateway": true,
	} {
		if got := isValueLine(line); got != want {
			t.Errorf("isValueLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// The fields a listing repeats ("size": 139 in every entry) are data, not
// values: they leave the digest's room to the setting a tool's output
// states once.
func TestDigestLeavesOutTheFieldsListingsRepeat(t *testing.T) {
	tests := []struct {
		name, listing string
	}{
		{"json listing", `{"ok":true,"entries":[` + strings.Repeat(`{"name":"cursor.go","size":%d,"dir":false},`, 6) + `]}`},
		{"yaml listing", "entries:\n" + strings.Repeat("- name: cursor.go\n  size: %d\n", 6)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c convo
			c.user("Set up the settlement service.")
			for i := 0; i < 3; i++ {
				c.filler(1)
				sizes := make([]any, 6)
				for k := range sizes {
					sizes[k] = 101 + 97*k + 13*i
				}
				c.tool("fs.list", `{"path":"@project/internal"}`, fmt.Sprintf(tt.listing, sizes...))
			}
			c.filler(1)
			c.tool("fs.read", `{"path":"@project/deploy/payout.yaml"}`, `{"ok":true,"content":"payments:\n  mandate_window_s: 12136\n"}`)
			c.filler(1)
			d := digestOf(t, c.entries, nil, 1500, "")
			if !strings.Contains(d.text, "mandate_window_s: 12136") {
				t.Errorf("digest lacks the setting:\n%s", d.text)
			}
			if strings.Contains(d.text, "size") {
				t.Errorf("digest keeps the listings' fields:\n%s", d.text)
			}
		})
	}
}

// Which files the agent read or searched is what a tight digest gives up
// first: the model's own conclusion stays.
func TestDigestGivesUpReadsBeforeFindings(t *testing.T) {
	var c convo
	c.user("Look into the webhook duplicates.")
	for i, p := range []string{"internal/fees/cursor.go", "pkg/webhooks/settle.go", "services/ledger/refund.go", "cmd/reconciler/quota.go", "deploy/helm/payments/sweep.go", "internal/settlement/dispute.go"} {
		c.tool("fs.read", fmt.Sprintf(`{"path":"@project/%s"}`, p), fmt.Sprintf(`{"ok":true,"content":"package x // %d"}`, i))
	}
	c.assistant("I renamed the helper to FeeWebhookWindow everywhere so the name says what it does.")
	c.filler(1)
	d := digestOf(t, c.entries, nil, 160, "")
	if !strings.Contains(d.text, "FeeWebhookWindow") {
		t.Errorf("digest lacks the rename:\n%s", d.text)
	}
}
