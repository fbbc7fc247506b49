package compression

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/tokens"
)

const testModel = "gpt-4o"

var counter = tokens.New()

// convo writes log entries the way the store does (ids, stored counts).
type convo struct{ entries []conversation.Entry }

func (c *convo) add(e conversation.Entry) *conversation.Entry {
	e.Type = conversation.TypeMsg
	e.ID = fmt.Sprintf("m%04d", len(c.entries)+1)
	e.Tokens = counter.CountMessage(testModel, &e)
	c.entries = append(c.entries, e)
	return &c.entries[len(c.entries)-1]
}

func (c *convo) user(text string) *conversation.Entry {
	return c.add(conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(text)})
}

func (c *convo) assistant(text string) *conversation.Entry {
	return c.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(text)})
}

func (c *convo) tool(name, args, result string) {
	id := fmt.Sprintf("call_%d", len(c.entries)+1)
	c.add(conversation.Entry{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: id, Type: "function", Function: conversation.FunctionCall{Name: name, Arguments: args}}}})
	c.add(conversation.Entry{Role: conversation.RoleTool, ToolCallID: id, ToolName: name, Content: conversation.Str(result)})
}

// filler adds n rounds of ordinary talk.
func (c *convo) filler(n int) {
	for i := 0; i < n; i++ {
		c.user(fmt.Sprintf("Can you look at the %s step again?", []string{"export", "import", "sync"}[i%3]))
		c.assistant("I went through it once more. The loop reads every row, formats it and writes it out; nothing unusual stands out, " +
			"although the formatting could be simpler and the write could be buffered. Let me know if you want me to try that.")
	}
}

func digestOf(t *testing.T, entries []conversation.Entry, previous []string, budget int, focus string) digest {
	t.Helper()
	return buildDigest(digestInput{entries: entries, previous: previous, total: len(entries), budget: budget, focus: focus, counter: counter, model: testModel})
}

func TestDigestKeepsTheClassesOfFacts(t *testing.T) {
	var c convo
	task := c.user("Build the quarterly export for the finance team. It must finish before 06:00 UTC.")
	c.filler(5)
	facts := []string{
		"The total must never exceed 4711 EUR per month.",   // requirement, number
		"We decided to use PostgreSQL 16 instead of MySQL.", // decision
		"The config lives in deploy/helm/values-prod.yaml.", // path
		"Ingrid Solberg from finance is the reviewer.",      // name
		"The admin API listens on port 8443 in staging.",    // number with context
	}
	for _, f := range facts {
		c.user(f)
		c.filler(2)
	}
	c.tool("fs.read", `{"path":"@project/logs/export.log"}`, `{"ok":true,"content":"2026-03-02T01:00:00Z INFO export: processed 120 rows in 40ms\n2026-03-02T01:00:01Z INFO export: processed 118 rows in 41ms\n2026-03-02T01:00:02Z ERROR tls: certificate for api-7.internal expires on 2026-04-01\n2026-03-02T01:00:03Z INFO export: processed 120 rows in 39ms"}`)
	c.filler(3)
	d := digestOf(t, c.entries, nil, 2000, "")
	if d.task == nil || d.task.text != task.Text() || d.task.keyLines {
		t.Fatalf("task: %+v", d.task)
	}
	for _, want := range append(facts, "certificate for api-7.internal expires on 2026-04-01") {
		if !strings.Contains(d.text, want) {
			t.Errorf("digest lacks %q:\n%s", want, d.text)
		}
	}
	if strings.Contains(d.text, "processed 120 rows") && strings.Count(d.text, "processed") > 1 {
		t.Errorf("progress lines repeated:\n%s", d.text)
	}
	if strings.Contains(d.text, "Can you look at") {
		t.Errorf("questions kept:\n%s", d.text)
	}
	// every line cites its message
	for _, l := range d.lines {
		if !strings.HasPrefix(l.cite, "#m0") {
			t.Errorf("line without its message: %+v", l)
		}
	}
	if d.tokens > 2000 {
		t.Fatalf("digest of %d tokens over its budget", d.tokens)
	}
}

func TestDigestChinese(t *testing.T) {
	var c convo
	c.user("我们要重写计费服务。预算上限是 38000 元，不能超过。")
	c.filler(3)
	facts := []string{
		"所有接口必须兼容 v2.3.1 的客户端。",
		"我们决定用 ClickHouse 替代 MySQL 做报表存储。",
		"配置文件在 services/billing/config/prod.yaml，改之前先备份。",
		"这个模块的负责人是张伟，有问题找他。",
		"测试环境的网关监听在 18443 端口。",
	}
	for _, f := range facts {
		c.user("顺便说一下，" + f)
		c.assistant("好的，我记下了。接下来我们继续看代码结构，先从入口文件开始，然后再看数据访问层的实现细节。")
	}
	c.filler(2)
	d := digestOf(t, c.entries, nil, 1500, "")
	for _, want := range []string{"38000 元", "v2.3.1", "ClickHouse", "services/billing/config/prod.yaml", "张伟", "18443"} {
		if !strings.Contains(d.text, want) {
			t.Errorf("digest lacks %q:\n%s", want, d.text)
		}
	}
	// Chinese sentences split at 。！？；
	var got []string
	splitSentences(strings.Repeat("前面的内容很长。", 1)+"第二句在这里！第三句？第四句；结尾", func(s string) { got = append(got, s) })
	if len(got) != 5 {
		t.Fatalf("sentences: %q", got)
	}
}

// A second compaction merges the earlier digest: its lines stay (once), and
// the task keeps its place.
func TestDigestMerges(t *testing.T) {
	var c convo
	c.user("Write the migration plan. Budget: 9000 USD at most.")
	c.user("The deadline for the plan is 2026-05-01.")
	c.filler(2)
	first := digestOf(t, c.entries, nil, 1500, "")
	var later convo
	for i := 0; i < 10; i++ {
		later.add(conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("filler question number one?")})
	}
	later.entries = nil
	later.user("We decided to run the migration on Sundays only.")
	later.user("The deadline for the plan is 2026-05-01.") // a repeat
	second := digestOf(t, later.entries, []string{first.text}, 1500, "")
	for _, want := range []string{"9000 USD", "2026-05-01", "Sundays only", "Task (first user message #m0001"} {
		if !strings.Contains(second.text, want) {
			t.Errorf("merged digest lacks %q:\n%s", want, second.text)
		}
	}
	if n := strings.Count(second.text, "2026-05-01"); n != 1 {
		t.Errorf("a repeated line is kept %d times:\n%s", n, second.text)
	}
	p := parseDigest(second.text)
	if p.task == nil || !strings.Contains(p.task.text, "Budget: 9000 USD") {
		t.Fatalf("task read back: %+v", p.task)
	}
}

// Over its budget, the digest keeps the user's requirements before the
// model's remarks and stays within the budget.
func TestDigestBudgetPrefersTheUser(t *testing.T) {
	var c convo
	c.user("Start.")
	verbs := []string{"measured", "timed", "profiled", "checked", "traced", "sampled", "benchmarked", "watched", "logged", "counted"}
	stages := []string{"parsing", "loading", "sorting", "writing", "hashing", "merging"}
	for i := 0; i < 60; i++ {
		c.assistant(fmt.Sprintf("I %s the %s stage: it took %d ms for %d rows in services/import/batch_%d.go.", verbs[i%10], stages[i/10], 100+i, 1000+i, i))
	}
	req := c.user("Requirement: the importer must never drop a row with amount 777123.")
	d := digestOf(t, c.entries, nil, 300, "")
	if !strings.Contains(d.text, "777123") {
		t.Fatalf("the user's requirement was dropped:\n%s", d.text)
	}
	if d.tokens > 300 || d.dropped == 0 || !strings.Contains(d.text, truncatedTitle) {
		t.Fatalf("tokens %d, dropped %d", d.tokens, d.dropped)
	}
	_ = req
}

// A focus lifts the lines about it.
func TestDigestFocus(t *testing.T) {
	var c convo
	c.user("Start.")
	for i := 0; i < 30; i++ {
		c.user(fmt.Sprintf("The %s service must answer within %d ms.", []string{"billing", "search", "mail"}[i%3], 100+i))
	}
	c.user("The invoice rounding uses banker's rounding to 2 decimals, always.")
	without := digestOf(t, c.entries, nil, 260, "")
	with := digestOf(t, c.entries, nil, 260, "invoice rounding")
	if !strings.Contains(with.text, "banker's rounding") || !strings.Contains(with.text, focusTitle+" invoice rounding") {
		t.Fatalf("focus did not keep its line:\n%s", with.text)
	}
	_ = without
}

func TestLooksLikeCode(t *testing.T) {
	for line, want := range map[string]bool{
		"func Export(ctx context.Context, n int) error {": true,
		"\treturn fmt.Errorf(\"too many rows: %d\", n)":   true,
		"x := compute(a, b)":                              true,
		"if (rows.length > 10) { flush(); }":              true,
		"The export fails with an error when rows > 10.":  false,
		"We must not touch the ledger table.":             false,
		"预算上限是 38000 元。":                                  false,
	} {
		if got := looksLikeCode(line); got != want {
			t.Errorf("looksLikeCode(%q) = %v", line, got)
		}
	}
}

func TestScoreRoles(t *testing.T) {
	if Score("We should cache the config.", "assistant") >= minLineScore {
		t.Error("the model's advice counted as a requirement")
	}
	if Score("We should keep the 30 day retention.", "user") < minLineScore {
		t.Error("the user's requirement scored too low")
	}
	if Score("Thanks!", "user") >= minLineScore || Score("ok", "user") >= minLineScore {
		t.Error("chatter kept")
	}
}

// Plan picks the oldest units until the target; Compact writes a summary
// that replaces them and carries pins and records.
func TestPlanAndCompact(t *testing.T) {
	var c convo
	c.user("Plan the launch. The launch budget must stay under 12345 EUR.")
	for i := 0; i < 40; i++ {
		c.user(fmt.Sprintf("Round %d: what about the %s?", i, strings.Repeat("detail ", 30)))
		c.assistant(strings.Repeat("An answer with some words. ", 40))
	}
	rec := c.add(conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("ARTIFACT_SAVED @project/artifacts/plan.md"), IsMeta: true, PartType: conversation.PartRecord})
	last := c.user("Where are we?")
	o := contextbuilder.Options{Mode: conversation.ModeChat, History: c.entries, Counter: counter, Model: testModel,
		Budget: contextbuilder.Budget{TokenBudget: 8000}}
	res, err := contextbuilder.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Limit: res.Debug.TokenLimit, Counter: counter, Model: testModel}
	if Over(res, cfg) == "" {
		t.Fatalf("not over the trigger: %d of %d", res.Debug.FullTokens, res.Debug.TokenLimit)
	}
	spans := Plan(res, c.entries, cfg, false)
	if len(spans) == 0 || spans[0].SourceIDs[0] != "m0001" {
		t.Fatalf("spans: %+v", spans)
	}
	for _, s := range spans {
		if s.Part != contextbuilder.PartBefore || s.SourceIDs[0] == last.ID {
			t.Fatalf("plan takes %+v", s)
		}
	}
	all := Plan(res, c.entries, cfg, true)
	if len(all) <= len(spans) {
		t.Fatalf("all: %d, to the target: %d", len(all), len(spans))
	}
	comp, err := Compact(context.Background(), res, c.entries, spans, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(comp.Summary, contextbuilder.ConversationSummaryPrefix) || !strings.Contains(comp.Summary, "12345 EUR") {
		t.Fatalf("summary:\n%s", comp.Summary)
	}
	if comp.Data.From != "m0001" || comp.Data.Count != len(comp.Entries) || comp.Data.Strategy != NameKeyMessages {
		t.Fatalf("data: %+v", comp.Data)
	}
	compactedRec := false
	for _, id := range comp.MessageIDs {
		compactedRec = compactedRec || id == rec.ID
	}
	if compactedRec {
		for _, p := range comp.Data.Pinned {
			if p.ID == rec.ID && p.Kind == conversation.CarriedRecord {
				compactedRec = false
			}
		}
		if compactedRec {
			t.Fatal("a compacted record is not carried")
		}
	}
	if _, err := Compact(context.Background(), res, c.entries, nil, cfg); err != ErrNothingToCompact {
		t.Fatalf("no spans: %v", err)
	}
}

// The LLM summary keeps the task and the digest's header, and falls back to
// the digest when the model fails.
func TestLLMSummaryAndFallback(t *testing.T) {
	var c convo
	c.user("Ship the report. It must be in German.")
	for i := 0; i < 10; i++ {
		c.assistant(strings.Repeat("Filler words here. ", 20))
	}
	c.user("Now?")
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: c.entries, Counter: counter, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	spans := Plan(res, c.entries, Config{Limit: 1000, Counter: counter}, true)
	sum := &fakeSummarizer{text: "Requirements and decisions:\n- #m0001 user: the report must be in German"}
	cfg := Config{Limit: 8000, Strategy: NameLLMSummary, Summarizer: sum, Counter: counter, Model: testModel, Focus: "language"}
	comp, err := Compact(context.Background(), res, c.entries, spans, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if comp.Data.Strategy != NameLLMSummary || !strings.Contains(comp.Summary, "Summary:\n"+sum.text) || !strings.Contains(comp.Summary, "> Ship the report") {
		t.Fatalf("summary:\n%s", comp.Summary)
	}
	if len(sum.got) != 2 || !strings.Contains(sum.got[0].Text(), "language") || !strings.Contains(sum.got[1].Text(), "[#m0001 user]") {
		t.Fatalf("summary request: %+v", sum.got)
	}
	sum.err = fmt.Errorf("model down")
	comp, err = Compact(context.Background(), res, c.entries, spans, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if comp.Data.Strategy != NameKeyMessages || comp.Data.SummaryError != "model down" || !strings.Contains(comp.Summary, "must be in German") {
		t.Fatalf("fallback: %+v\n%s", comp.Data, comp.Summary)
	}
}

type fakeSummarizer struct {
	text string
	err  error
	got  []Message
}

func (f *fakeSummarizer) Summarize(_ context.Context, msgs []Message) (string, error) {
	f.got = msgs
	return f.text, f.err
}

func FuzzParseDigest(f *testing.F) {
	f.Add("CONVERSATION_SUMMARY\nDigest of the earlier messages compacted out of this request (12 messages so far).\n\nTask (first user message #m0001):\n> do it\n\nRequirements and decisions:\n- #m0002 user: must be fast")
	f.Add("SUMMARY\n- free text\n- #x y: z")
	f.Fuzz(func(t *testing.T, s string) {
		p := parseDigest(s)
		for _, l := range p.lines {
			if strings.TrimSpace(l.text) == "" {
				t.Fatalf("empty line parsed from %q", s)
			}
		}
		// A digest written from what was parsed keeps every line's text and
		// reads back to no more lines (sentences of one message that follow
		// each other share a line, so the count may fall).
		text := renderDigest(renderHeader(p.total, "", p.task), p.lines, false)
		for _, l := range p.lines {
			if !strings.Contains(text, l.text) {
				t.Fatalf("%q lost in the round trip of %q", l.text, s)
			}
		}
		q := parseDigest(text)
		if len(q.lines) > len(p.lines) {
			t.Fatalf("%d lines, %d after a round trip of %q", len(p.lines), len(q.lines), s)
		}

	})
}
