package fidelity

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/llm"
)

// BenchmarkFidelity runs the held-out corpus once per iteration and reports,
// per budget (1.5x, 3x, 10x the history over what fits) and variant, the
// share of planted facts kept (overall, per depth, knowledge updates), of
// requests protocol-valid and within the budget, of conversations whose
// newest message was sent verbatim, prefix reuse between consecutive
// requests and compactions in consecutive turns. Run it with -benchtime 1x.
func BenchmarkFidelity(b *testing.B) {
	convs := CorpusOf(StyleHeldOut, 8, 90)
	var rows []Row
	for b.Loop() {
		outs, err := Measure(context.Background(), convs, []float64{1.5, 3, 10}, DefaultVariants)
		if err != nil {
			b.Fatal(err)
		}
		rows = Summarize(outs)
	}
	for _, r := range rows {
		name := fmt.Sprintf("%s-%gx", r.Variant, r.Ratio)
		b.ReportMetric(r.Kept*100, name+"-facts%")
		for _, d := range Depths {
			b.ReportMetric(r.ByDepth[d]*100, name+"-"+d+"%")
		}
		if r.Variant == Newest {
			continue
		}
		b.ReportMetric(r.UpdatesNewest*100, name+"-updates-newest%")
		b.ReportMetric(r.UpdatesStale*100, name+"-updates-stale%")
		b.ReportMetric(r.Valid*100, name+"-valid%")
		b.ReportMetric(r.WithinBudget*100, name+"-budget%")
		b.ReportMetric(r.Verbatim*100, name+"-verbatim%")
		b.ReportMetric(r.Prefix.Mean()*100, name+"-prefix%")
		b.ReportMetric(r.PrefixComp.Mean()*100, name+"-prefix-compaction%")
		b.ReportMetric(float64(r.Thrash), name+"-thrash")
		b.ReportMetric(float64(r.Thrash-r.Forced), name+"-thrash-unforced")
	}
	Print(os.Stdout, rows)
}

// The legacy generator is deterministic and plants what it says.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(42, "en", "agent", 60), Generate(42, "en", "agent", 60)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations of one seed differ")
	}
	for _, c := range Corpus(4, 60) {
		if len(c.Facts) < 20 || len(c.Facts) > 27 {
			t.Errorf("%s: %d facts", c.Name, len(c.Facts))
		}
		ps, _ := pieces(&c)
		for _, f := range c.Facts {
			for _, n := range f.Needles {
				found := false
				for _, p := range ps {
					found = found || strings.Contains(p.text, n)
				}
				if !found {
					t.Errorf("%s: fact %d (%s) is not in the conversation", c.Name, f.ID, n)
				}
			}
		}
	}
}

// The plain generators are deterministic; every needle occurs only in its
// planting message(s), in the part of the message its kind says (Check);
// every kind and depth bucket is planted; the final messages name nothing
// and no needle is in the system prompt or the tool definitions.
func TestGeneratePlain(t *testing.T) {
	if !reflect.DeepEqual(GeneratePlain(StyleHeldOut, 3, "zh", "agent", 60), GeneratePlain(StyleHeldOut, 3, "zh", "agent", 60)) {
		t.Fatal("two generations of one seed differ")
	}
	host := defsHost()
	var fixed strings.Builder
	for _, d := range host.Tools() {
		fixed.WriteString(d.Name + d.Description + string(d.Parameters))
	}
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, ToolNames: host.ToolNames(),
		ToolPolicy: contextbuilder.ToolPolicy{Enabled: host.ToolNames()}, Counter: counter, Model: Model})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Messages {
		if m.Content != nil {
			fixed.WriteString(*m.Content)
		}
	}
	for _, style := range []string{StyleTune, StyleHeldOut} {
		kinds, depths := map[string]int{}, map[string]int{}
		for _, c := range CorpusOf(style, 8, 90) {
			if err := Check(&c); err != nil {
				t.Error(err)
			}
			if len(c.Facts) < 20 || len(c.Facts) > 27 {
				t.Errorf("%s: %d facts", c.Name, len(c.Facts))
			}
			if c.Named == "" || c.Named == c.Final() {
				t.Errorf("%s: no named variant of the final message", c.Name)
			}
			for _, f := range c.Facts {
				kinds[f.Kind]++
				depths[f.Bucket()]++
				for _, n := range append(append([]string(nil), f.Needles...), f.Stale...) {
					if strings.Contains(fixed.String(), n) {
						t.Errorf("%s: needle %q is in the system prompt or the tool definitions", c.Name, n)
					}
				}
			}
		}
		for _, k := range Kinds {
			if kinds[k] < 8 {
				t.Errorf("%s: %d facts of kind %s", style, kinds[k], k)
			}
		}
		for _, d := range Depths {
			if depths[d] < 40 {
				t.Errorf("%s: %d facts in the %s third", style, depths[d], d)
			}
		}
	}
	// the two voices share no final message and no fact sentence
	tune, held := CorpusOf(StyleTune, 4, 40), CorpusOf(StyleHeldOut, 4, 40)
	seen := map[string]bool{}
	for _, c := range tune {
		seen[c.Final()] = true
		for _, f := range c.Facts {
			seen[f.Topic] = true
		}
	}
	for _, c := range held {
		if seen[c.Final()] && c.Final() != "继续" && c.Final() != "continue" && !strings.HasPrefix(c.Final(), "let's pick") && !strings.HasPrefix(c.Final(), "接着上次") {
			t.Errorf("%s: final %q also in the tune corpus", c.Name, c.Final())
		}
		for _, f := range c.Facts {
			if seen[f.Topic] && f.Kind != KindTool {
				t.Errorf("%s: topic %q also in the tune corpus", c.Name, f.Topic)
			}
		}
	}
}

func str(s string) *string { return &s }

// A fact planted only in the arguments of a write is kept when the request
// carries the call and missing when it does not; the depth bucket and the
// kind are counted.
func TestCountFactsToolArgs(t *testing.T) {
	c := GeneratePlain(StyleTune, 11, "en", "agent", 40)
	var f Fact
	for _, x := range c.Facts {
		if x.Kind == KindToolArgs {
			f = x
			break
		}
	}
	if f.Kind == "" {
		t.Fatal("no tool-args fact")
	}
	var call Call
	for _, st := range c.Turns[f.Turn].Steps {
		for _, cl := range st.Calls {
			if strings.Contains(cl.Args, f.Needles[0]) {
				call = cl
			}
		}
	}
	if call.Name == "" || strings.Contains(call.Output, f.Needles[0]) {
		t.Fatalf("fact %+v: call %+v", f, call)
	}
	c.Facts = []Fact{f}
	base := []llm.Message{{Role: "system", Content: str("system prompt")}, {Role: "user", Content: str(c.Turns[f.Turn].User)}}
	with := append(append([]llm.Message(nil), base...),
		llm.Message{Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: call.Name, Arguments: call.Args}}}},
		llm.Message{Role: "tool", ToolCallID: "c1", Content: str(call.Output)})
	for _, tc := range []struct {
		name string
		msgs []llm.Message
		kept int
	}{{"without the call", base, 0}, {"with the call", with, 1}} {
		out := Outcome{ByKind: map[string][2]int{}, ByDepth: map[string][2]int{}}
		countFacts(&c, requestText(tc.msgs), &out)
		if out.Kept != tc.kept || out.ByKind[KindToolArgs] != [2]int{tc.kept, 1} || out.ByDepth[f.Bucket()] != [2]int{tc.kept, 1} {
			t.Errorf("%s: %+v", tc.name, out)
		}
	}
}

func TestPrefixReuse(t *testing.T) {
	long := strings.Repeat("x", 10000)
	for _, tc := range []struct {
		prev, cur string
		want      float64
	}{
		{"abcdef", "abcdef", 1},
		{"abcdef", "abcdefgh", 0.75},
		{"abcdef", "abXdef", 2.0 / 6},
		{"", "abcd", 0},
		{"abcd", "", 1},
		{"abcdefgh", "abcd", 1},
		{long + "a" + long, long + "b" + long, 10000.0 / 20001},
		{long + long, long + long + "tail", 20000.0 / 20004},
	} {
		if got := PrefixReuse([]byte(tc.prev), []byte(tc.cur)); got != tc.want {
			t.Errorf("PrefixReuse(%.10q, %.10q) = %v, want %v", tc.prev, tc.cur, got, tc.want)
		}
	}
	// requests serialised: an appended message keeps the prefix, a
	// rewritten summary at the top loses it
	sys := llm.Message{Role: "system", Content: str("you are helpful")}
	sum := func(s string) llm.Message { return llm.Message{Role: "system", Content: str("summary: " + s)} }
	u := func(s string) llm.Message { return llm.Message{Role: "user", Content: str(s)} }
	a := serialize(llm.Request{Messages: []llm.Message{sys, sum("one"), u(long)}})
	b := serialize(llm.Request{Messages: []llm.Message{sys, sum("one"), u(long), u("next")}})
	c := serialize(llm.Request{Messages: []llm.Message{sys, sum("two"), u(long), u("next")}})
	if r := PrefixReuse(a, b); r < 0.99 {
		t.Errorf("appending: %v", r)
	}
	if r := PrefixReuse(b, c); r > 0.05 {
		t.Errorf("rewriting the summary: %v", r)
	}
}

func TestConsecutive(t *testing.T) {
	for _, tc := range []struct {
		turns []int
		want  int
	}{{nil, 0}, {[]int{4}, 0}, {[]int{3, 5, 7}, 0}, {[]int{3, 4}, 1}, {[]int{1, 2, 3, 7, 8, 12}, 3}} {
		if got := consecutive(tc.turns); got != tc.want {
			t.Errorf("consecutive(%v) = %d, want %d", tc.turns, got, tc.want)
		}
	}
}

// A knowledge update: the newest value present and no stale value without
// its correction after or beside it.
func TestUpdateScoring(t *testing.T) {
	f := Fact{ID: 1, Kind: KindUpdate, Needles: []string{"4127"}, Stale: []string{"3875"}}
	pad := strings.Repeat("filler text. ", 40)
	for _, tc := range []struct {
		name        string
		text        string
		kept, stale bool
	}{
		{"only the correction", "the cap is 4127, not 3875", true, false},
		{"old then correction", "the cap is 3875" + pad + "scratch that, it's 4127", true, false},
		{"correction then the old value again", "it's 4127" + pad + "the cap is 3875", true, true},
		{"only the old value", pad + "the cap is 3875", false, true},
		{"neither", pad, false, false},
		{"only the new value", "4127", true, false},
	} {
		if got := Stale(tc.text, f); got != tc.stale {
			t.Errorf("%s: stale %v", tc.name, got)
		}
		c := Conversation{Facts: []Fact{f}}
		out := Outcome{ByKind: map[string][2]int{}, ByDepth: map[string][2]int{}}
		countFacts(&c, tc.text, &out)
		if (out.Kept == 1) != (tc.kept && !tc.stale) || (out.UpdatesNewest == 1) != tc.kept || (out.UpdatesStale == 1) != tc.stale || out.Updates != 1 {
			t.Errorf("%s: %+v", tc.name, out)
		}
	}
}

// One small held-out conversation through the engine: every request valid
// and within the budget, the newest message verbatim, the compactions and
// the prefix reuse counted; keep-newest keeps the newest third best.
func TestRunSmall(t *testing.T) {
	c := GeneratePlain(StyleHeldOut, 7, "zh", "agent", 36)
	got, err := Run(context.Background(), &c, 3, Default, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got.Requests == 0 || got.Valid != got.Requests || got.WithinBudget != got.Requests || !got.NewestVerbatim || len(got.Failures) > 0 {
		t.Fatalf("outcome: %+v", got)
	}
	if got.Facts != len(c.Facts) || got.Turns != len(c.Turns) || got.Prefix.Pairs != got.Requests-1 {
		t.Fatalf("facts %d of %d, turns %d of %d, pairs %d for %d requests", got.Facts, len(c.Facts), got.Turns, len(c.Turns), got.Prefix.Pairs, got.Requests)
	}
	if got.Compactions == 0 || got.PrefixComp.Pairs == 0 || got.PrefixComp.Pairs > got.Compactions || got.Thrash >= got.CompactedTurns || got.Forced > got.Thrash {
		t.Fatalf("compactions %d in %d turns, thrash %d (forced %d), pairs around them %d", got.Compactions, got.CompactedTurns, got.Thrash, got.Forced, got.PrefixComp.Pairs)
	}
	if got.Prefix.Min > got.Prefix.Mean() || got.Prefix.Mean() > 1 {
		t.Fatalf("prefix reuse %+v", got.Prefix)
	}
	newest, err := Run(context.Background(), &c, 3, Newest, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if n := newest.ByDepth[DepthNewest]; n[1] == 0 || newest.ByDepth[DepthOldest][0] != 0 {
		t.Fatalf("keep-newest by depth: %v", newest.ByDepth)
	}
	named, err := Run(context.Background(), &c, 3, Named, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !named.NewestVerbatim || named.Valid != named.Requests {
		t.Fatalf("named: %+v", named)
	}
}

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// The printed summary of hand-made outcomes (golden file).
func TestPrintGolden(t *testing.T) {
	outs := []Outcome{
		{Conversation: "c1", Lang: "en", Variant: Default, Ratio: 1.5, Facts: 4, Kept: 3, Requests: 10, Valid: 10, WithinBudget: 10, NewestVerbatim: true,
			ByKind:  map[string][2]int{KindToolArgs: {1, 2}, KindUpdate: {2, 2}},
			ByDepth: map[string][2]int{DepthOldest: {1, 2}, DepthNewest: {2, 2}},
			Updates: 2, UpdatesNewest: 2, Turns: 6, Compactions: 4, CompactedAt: []int{2, 3, 4, 5}, Thrash: 3, Forced: 1,
			Prefix: Reuse{Pairs: 9, Sum: 8.1, Min: 0.5}, PrefixComp: Reuse{Pairs: 2, Sum: 1.2, Min: 0.5}},
		{Conversation: "c2", Lang: "zh", Variant: Default, Ratio: 1.5, Facts: 2, Kept: 2, Requests: 4, Valid: 4, WithinBudget: 3, NewestVerbatim: true,
			ByKind:  map[string][2]int{KindTool: {2, 2}},
			ByDepth: map[string][2]int{DepthMiddle: {2, 2}},
			Turns:   4, Prefix: Reuse{Pairs: 3, Sum: 2.97, Min: 0.98}},
		{Conversation: "c1", Lang: "en", Variant: Newest, Ratio: 1.5, Facts: 4, Kept: 2, Requests: 1, Valid: 1, WithinBudget: 1,
			ByKind:  map[string][2]int{KindToolArgs: {0, 2}, KindUpdate: {2, 2}},
			ByDepth: map[string][2]int{DepthOldest: {0, 2}, DepthNewest: {2, 2}}, Updates: 2, UpdatesNewest: 2},
		{Conversation: "c2", Lang: "zh", Variant: Newest, Ratio: 1.5, Facts: 2, Kept: 2, Requests: 1, Valid: 1, WithinBudget: 1,
			ByKind: map[string][2]int{KindTool: {2, 2}}, ByDepth: map[string][2]int{DepthMiddle: {2, 2}}},
	}
	var b strings.Builder
	Print(&b, Summarize(outs))
	path := filepath.Join("testdata", "print.golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTookAll(t *testing.T) {
	st, err := convlog.Open(filepath.Join(t.TempDir(), "p"), convlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	meta, err := st.Create("", "")
	if err != nil {
		t.Fatal(err)
	}
	msg := func(id, role, text string) *conversation.Entry {
		return &conversation.Entry{Type: conversation.TypeMsg, ID: id, Role: role, Content: conversation.Str(text)}
	}
	if err := st.Append(meta.ID, msg("u1", conversation.RoleUser, "first"), msg("a1", conversation.RoleAssistant, "one"),
		msg("u2", conversation.RoleUser, "second"), msg("a2", conversation.RoleAssistant, "two"), msg("u3", conversation.RoleUser, "third")); err != nil {
		t.Fatal(err)
	}
	summary := func(id string) *conversation.Entry { return msg(id, conversation.RoleSystem, "summary") }
	cases := []struct {
		compact []string
		want    bool
	}{
		{nil, false},
		{[]string{"u1", "a1"}, false}, // u2 and a2 are left before the newest user message
		{[]string{"u2", "a2"}, true},  // everything before u3; the summary does not count
	}
	for i, c := range cases {
		if c.compact != nil {
			ev := &conversation.Entry{Type: conversation.TypeEvt, ID: fmt.Sprintf("e%d", i), Event: conversation.EventCompaction, Data: []byte(`{}`)}
			if err := st.Compact(meta.ID, convlog.CompactionWrite{MessageIDs: c.compact, Event: ev, Summary: summary(fmt.Sprintf("s%d", i))}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := tookAll(st, meta.ID)
		if err != nil || got != c.want {
			t.Fatalf("case %d: tookAll = %v, %v; want %v", i, got, err, c.want)
		}
	}
}
