package skills

import (
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/tokens"
)

const model = "gpt-4o"

var counter = tokens.New()

func TestRegistryGolden(t *testing.T) {
	cat, _ := treeCatalog(t)
	reg := cat.Registry(RegistryOptions{Counter: counter, Model: model, Active: []string{"pptx", "release-deploy"}})
	golden(t, "registry.golden.txt", []byte(reg.Text+"\n"))
	if reg.Tokens != counter.Count(model, reg.Text) || reg.Tokens > DefaultRegistryTokens {
		t.Errorf("tokens %d (counted %d)", reg.Tokens, counter.Count(model, reg.Text))
	}
	if strings.Contains(reg.Text, "release-deploy") || len(reg.Hidden) != 1 || reg.Hidden[0] != "release-deploy" {
		t.Errorf("a disable-model-invocation skill must not be listed: hidden %q", reg.Hidden)
	}
	for _, s := range cat.Skills() {
		if strings.Contains(reg.Text, "Instructions of") || strings.Contains(reg.Text, "# PPTX") {
			t.Fatalf("the registry holds a body")
		}
		if s.ModelInvocable() && !strings.Contains(reg.Text, "\n- "+s.Name) {
			t.Errorf("%s not listed", s.Name)
		}
	}
	if len(reg.Omitted) != 0 || reg.Shortened {
		t.Errorf("everything fits: %+v", reg)
	}
	// when everything fits, the text does not depend on the user's message
	for _, q := range []string{"make slides", "review my SQL", ""} {
		if got := cat.Registry(RegistryOptions{Counter: counter, Model: model, Query: q, Active: []string{"pptx"}}); got.Text != reg.Text {
			t.Errorf("query %q changed the registry", q)
		}
	}
}

func TestRegistryEmpty(t *testing.T) {
	var none *Catalog
	if reg := none.Registry(RegistryOptions{Counter: counter}); reg.Text != "" || len(none.List()) != 0 || none.Skills() != nil {
		t.Errorf("a nil catalog is empty")
	}
	if _, err := none.Activate(nil, Request{Name: "x"}); err == nil || err.(*Error).Code != CodeUnknownSkill {
		t.Errorf("nil catalog: %v", err)
	}
	cat := Discover(nil)
	if reg := cat.Registry(RegistryOptions{Counter: counter, Model: model}); reg.Text != "" || reg.Tokens != 0 {
		t.Errorf("got %+v", reg)
	}
	dir := t.TempDir()
	writeSkill(t, dir, "only-user", "---\nname: only-user\ndescription: d\ndisable-model-invocation: true\n---\nb")
	cat = Discover([]Location{{Source: SourceUser, Dir: dir}})
	if reg := cat.Registry(RegistryOptions{Counter: counter, Model: model}); reg.Text != "" || len(reg.Hidden) != 1 {
		t.Errorf("only user-only skills: %+v", reg)
	}
}

// manySkills writes n skills with long descriptions, plus two whose
// relevance to an invoice query is unmistakable, named to sort last.
func manySkills(t testing.TB, n int) *Catalog {
	dir := t.TempDir()
	topics := []string{"slides", "spreadsheets", "emails", "contracts", "diagrams", "tests", "releases", "queries"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("helper-%03d", i)
		topic := topics[i%len(topics)]
		desc := fmt.Sprintf("Helps with %s number %d: drafting, reviewing and formatting %s for the team, following the house style and the checklist in the references folder. Use when the user works on %s.", topic, i, topic, topic)
		writeSkill(t, dir, name, skillText(name, desc))
	}
	writeSkill(t, dir, "zz-invoice-extractor", skillText("zz-invoice-extractor", "Extract line items and totals from supplier invoices into a spreadsheet. Use for invoices and billing documents."))
	writeSkill(t, dir, "zz-发票识别", skillText("zz-fapiao", "识别增值税发票并导出表格。"))
	return Discover([]Location{{Source: SourceUser, Dir: dir}})
}

func TestRegistryCapAndRanking(t *testing.T) {
	cat := manySkills(t, 120)
	const limit = 900
	reg := cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: limit, Query: "Please pull the totals out of these supplier invoices"})
	if reg.Tokens > limit || counter.Count(model, reg.Text) > limit {
		t.Fatalf("over the cap: %d", reg.Tokens)
	}
	if !reg.Shortened || len(reg.Omitted) == 0 || len(reg.Listed)+len(reg.Omitted) != len(cat.Skills()) {
		t.Fatalf("listed %d, omitted %d, shortened %v", len(reg.Listed), len(reg.Omitted), reg.Shortened)
	}
	if reg.Listed[0] != "zz-invoice-extractor" {
		t.Errorf("the most relevant skill must come first, got %q", reg.Listed[:3])
	}
	if !strings.Contains(reg.Text, fmt.Sprintf("(%d more skills are not listed here; skill.activate works for them too when the user names one.)", len(reg.Omitted))) {
		t.Errorf("footer missing:\n%s", reg.Text)
	}
	// a query in Chinese finds the Chinese skill
	reg = cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: limit, Query: "帮我识别这张发票"})
	if reg.Listed[0] != "zz-fapiao" {
		t.Errorf("CJK ranking: %q", reg.Listed[:3])
	}
	// no query: source precedence, then name
	reg = cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: limit})
	if reg.Listed[0] != "helper-000" {
		t.Errorf("no query: %q", reg.Listed[:3])
	}
}

func TestRegistryShortensBeforeDropping(t *testing.T) {
	cat := manySkills(t, 12)
	full := cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: 100000})
	if full.Shortened {
		t.Fatalf("a large cap needs no shortening")
	}
	reg := cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: full.Tokens - 20})
	if !reg.Shortened || len(reg.Omitted) != 0 {
		t.Errorf("descriptions are shortened before any skill is left out: %+v", reg.Omitted)
	}
	if !strings.HasPrefix(reg.Text, registryHeader) || !strings.Contains(reg.Text, "\n- helper-000: ") {
		t.Errorf("text:\n%s", reg.Text)
	}
}

func TestRegistryCapAlwaysHolds(t *testing.T) {
	cat := manySkills(t, 60)
	for limit := 50; limit <= 4000; limit += 97 {
		reg := cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: limit, Query: "draft contracts", Active: []string{"helper-003"}})
		if n := counter.Count(model, reg.Text); n > limit {
			t.Fatalf("cap %d: %d tokens", limit, n)
		}
		if reg.Text == "" && len(reg.Omitted) != len(cat.Skills()) {
			t.Fatalf("cap %d: empty text must omit everything", limit)
		}
	}
	if reg := cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: 10}); reg.Text != "" {
		t.Errorf("a cap below the header gives no section")
	}
}

func TestRegistryTokens(t *testing.T) {
	for budget, want := range map[int]int{0: 500, 8000: 500, 128000: 2560, 1000000: 4000} {
		if got := RegistryTokens(budget); got != want {
			t.Errorf("RegistryTokens(%d) = %d, want %d", budget, got, want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := strings.Join(terms("Creating the Presentations, PDF-files & 发票识别!"), " ")
	if got != "creat present pdf fil 发票 票识 识别" {
		t.Errorf("got %q", got)
	}
}

func BenchmarkRegistry1000(b *testing.B) {
	cat := manySkills(b, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cat.Registry(RegistryOptions{Counter: counter, Model: model, MaxTokens: 2500, Query: fmt.Sprintf("invoice %d totals", i)})
	}
}
