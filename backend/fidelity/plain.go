package fidelity

import (
	"fmt"
	"math/rand"
	"strings"
)

// The plain generators: facts said in passing, without marker words, where
// people and agents actually leave them — user asides, the model's own
// findings, tool outputs, the arguments of the agent's writes and patches —
// spread over the whole conversation, some corrected later; the final user
// message names nothing. Two voices with their own templates and
// vocabularies share the driver below: "tune" (to develop against) and
// "heldout" (to report).

// Styles of the corpora, in report order: the two plain voices and the two
// legacy generators (whose facts carry marker words and whose final message
// names their topics).
const (
	StyleHeldOut = "heldout"
	StyleTune    = "tune"
	StyleA       = "a"
	StyleB       = "b"
)

// Styles lists them.
var Styles = []string{StyleHeldOut, StyleTune, StyleA, StyleB}

// CorpusOf returns n conversations of a style, English and Chinese, chat and
// agent, of about turns user turns each (chat conversations have twice as
// many, shorter turns). It returns nil for an unknown style.
func CorpusOf(style string, n, turns int) []Conversation {
	switch style {
	case StyleA:
		return Corpus(n, turns)
	case StyleB:
		return CorpusB(n, turns)
	}
	v := voices[style]
	if v == nil {
		return nil
	}
	if n <= 0 {
		n = 8
	}
	if turns <= 0 {
		turns = 90
	}
	var out []Conversation
	for i := 0; i < n; i++ {
		lang := []string{"en", "zh"}[i%2]
		kind := []string{"agent", "chat"}[(i/2)%2]
		t := turns
		if kind == "chat" {
			t = turns * 2
		}
		out = append(out, GeneratePlain(style, v.seed+int64(i)*7717, lang, kind, t))
	}
	return out
}

// GeneratePlain returns the conversation of a seed in a plain voice (StyleTune
// or StyleHeldOut): lang "en" or "zh", kind "chat" or "agent", turns user
// turns. A generation whose needles are not unique to their planting
// messages is drawn again from the next seed, so every needle of the result
// occurs only where it was planted (see Check).
func GeneratePlain(style string, seed int64, lang, kind string, turns int) Conversation {
	v := voices[style]
	if v == nil {
		panic("fidelity: unknown style " + style)
	}
	for attempt := int64(0); ; attempt++ {
		c := v.generate(seed+attempt*104729, lang, kind, turns)
		err := Check(&c)
		if err == nil {
			return c
		}
		if attempt == 40 {
			panic(fmt.Sprintf("fidelity: %s: no clean generation: %v", c.Name, err))
		}
	}
}

// voice is the vocabulary and the templates of one plain generator.
type voice struct {
	name string
	seed int64
	// fact templates by kind and language
	user    map[string]map[string][]tmpl // requirement, path, number, decision, name
	decide  map[string][]tmpl            // decisions stated by the model
	finding map[string][]tmpl
	updates map[string][]update
	// tool facts (language-neutral contents)
	toolOut  []func(g *pgen) (Call, []string, string)
	toolArgs []func(g *pgen) (Call, []string, string)
	// the rest of the conversation
	task       map[string][]string
	asks       map[string][]string // questions of ordinary work
	toolAsks   map[string][]string // asking for tool work
	tiny       map[string][]string
	pasteLeads map[string][]string
	leads      map[string][]string
	tails      map[string][]string
	answer     func(g *pgen) string // a paragraph of an ordinary answer
	fillerCall func(g *pgen) Call
	pastedLog  func(g *pgen) string
	finals     map[string][]string
	named      map[string]string // format with three topics
	people     map[string][]string
	fillers    map[string][]string // names of people that are not facts
	dirs       []string
	words      []string
	zhWords    []string
	techs      []string
}

// tmpl is a fact sentence: %[1]s is the value (the needle), %[2]s a filler
// word of the conversation.
type tmpl struct {
	text  string
	val   func(g *pgen) string
	topic string
}

// update is a knowledge update: early says %[1]s (the first value), late
// says %[1]s (the new value) and may mention %[2]s (the old one) before it.
type update struct {
	early, late string
	val         func(g *pgen) string
	topic       string
}

// pgen is the state of one plain generation.
type pgen struct {
	*gen
	v  *voice
	zh bool
}

func (g *pgen) lng() string {
	if g.zh {
		return "zh"
	}
	return "en"
}

// word is a filler word in the conversation's language.
func (g *pgen) word() string {
	if g.zh {
		return pick(g.r, g.v.zhWords)
	}
	return pick(g.r, g.v.words)
}

// small is a filler number: below 1000, so it never contains a planted
// number (those have four or more digits).
func (g *pgen) small() int { return 2 + g.r.Intn(990) }

// num is a planted number of 4 or 5 digits, unique in the conversation.
func (g *pgen) num(lo, hi int) string {
	return g.unique(func() string {
		for {
			n := lo + g.r.Intn(hi-lo)
			if n%10 != 0 {
				return fmt.Sprint(n)
			}
		}
	})
}

func (g *pgen) fname() string {
	return g.unique(func() string { return pick(g.r, g.v.people[g.lng()]) })
}
func (g *pgen) filler() string { return pick(g.r, g.v.fillers[g.lng()]) }

// ident is a unique identifier of three words in camel case (filler
// identifiers have two).
func (g *pgen) ident(prefix string) string {
	return g.unique(func() string {
		return prefix + title(pick(g.r, g.v.words)) + title(pick(g.r, g.v.words)) +
			pick(g.r, []string{"Window", "Cursor", "Guard", "Budget", "Drain", "Gate", "Latch", "Span"})
	})
}

// dpath is a filler path; fpath a planted one (unique, with a distinctive
// file name).
func (g *pgen) dpath(ext string) string {
	return pick(g.r, g.v.dirs) + "/" + pick(g.r, g.v.words) + "." + ext
}
func (g *pgen) fpath(exts ...string) string {
	return g.unique(func() string {
		return pick(g.r, g.v.dirs) + "/" + pick(g.r, g.v.words) + "_" + pick(g.r, g.v.words) + "_" + pick(g.r, []string{"v2", "next", "legacy", "shadow", "compat", "tmp"}) + "." + pick(g.r, exts)
	})
}

func (g *pgen) p(m map[string][]string) string { return pick(g.r, m[g.lng()]) }

// t is the English or the Chinese text.
func (g *pgen) t(en, zh string) string {
	if g.zh {
		return zh
	}
	return en
}

// generate builds one conversation (not yet checked).
func (v *voice) generate(seed int64, lang, kind string, turns int) Conversation {
	r := rand.New(rand.NewSource(seed))
	g := &pgen{gen: &gen{r: r, lang: lang, kind: kind, used: map[string]bool{}, turns: turns}, v: v, zh: lang == "zh"}
	c := Conversation{Name: fmt.Sprintf("%s-%s-%s-%d", v.name, lang, kind, seed), Style: v.name, Lang: lang, Kind: kind}

	var kinds []string
	add := func(k string, n int) {
		for i := 0; i < n; i++ {
			kinds = append(kinds, k)
		}
	}
	// most facts where they are in real sessions: in agent sessions in tool
	// outputs, in the agent's writes and in its findings, in design chats
	// in decisions and findings as much as in the user's asides
	if kind == "agent" {
		add(KindRequirement, 2)
		add(KindPath, 2)
		add(KindNumber, 2)
		add(KindDecision, 3)
		add(KindName, 2)
		add(KindTool, 4)
		add(KindToolArgs, 4)
		add(KindFinding, 4)
	} else {
		add(KindRequirement, 3)
		add(KindPath, 3)
		add(KindNumber, 3)
		add(KindDecision, 5)
		add(KindName, 3)
		add(KindFinding, 5)
	}
	r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	kinds = kinds[:len(kinds)-r.Intn(4)]
	nUpd := 2
	// slots spread evenly over turns 1..turns-2, one plant each
	slots := len(kinds) + 2*nUpd
	span := turns - 2
	at := make([]int, slots)
	for j := range at {
		w := span / slots
		at[j] = 1 + j*span/slots + r.Intn(max(1, w))
	}
	assign := make([]string, slots)
	partner := map[int]int{} // late slot -> early slot of an update
	for u := 0; u < nUpd; u++ {
		for {
			i := r.Intn(slots / 2)
			j := i + slots/4 + r.Intn(slots-i-slots/4)
			if assign[i] == "" && assign[j] == "" && i != j {
				assign[i], assign[j] = "update-early", "update-late"
				partner[j] = i
				break
			}
		}
	}
	k := 0
	for j := range assign {
		if assign[j] == "" {
			assign[j] = kinds[k]
			k++
		}
	}
	plant := map[int]int{}
	for j, t := range at {
		plant[t] = j
	}
	// updates: value and template chosen at the early slot
	type pending struct {
		u     update
		old   string
		early int
	}
	upd := map[int]*pending{}

	tech := g.unique(func() string { return pick(r, v.techs) }) // no decision picks it
	c.Turns = append(c.Turns, Turn{User: fmt.Sprintf(g.p(v.task), tech), Steps: g.answerSteps(1 + r.Intn(2))})
	for t := 1; t < turns-1; t++ {
		j, ok := plant[t]
		if !ok {
			c.Turns = append(c.Turns, g.fillerTurn())
			continue
		}
		switch assign[j] {
		case "update-early":
			u := pick(r, v.updates[g.lng()])
			old := u.val(g)
			upd[j] = &pending{u: u, old: old, early: t}
			c.Turns = append(c.Turns, Turn{User: g.wrap(fmt.Sprintf(u.early, old)), Steps: g.answerSteps(r.Intn(2))})
		case "update-late":
			p := upd[partner[j]]
			nv := p.u.val(g)
			g.add(Fact{Kind: KindUpdate, Needles: []string{nv}, Stale: []string{p.old}, StaleTurn: p.early, Turn: t, Topic: p.u.topic, Where: WhereUser,
				Text: fmt.Sprintf(p.u.late, nv, p.old)})
			c.Turns = append(c.Turns, Turn{User: g.wrap(fmt.Sprintf(p.u.late, nv, p.old)), Steps: g.answerSteps(r.Intn(2))})
		default:
			c.Turns = append(c.Turns, g.factTurn(assign[j], t))
		}
	}
	c.Facts = g.facts
	final := g.p(v.finals)
	c.Turns = append(c.Turns, Turn{User: final, Steps: []Step{{Text: g.answer()}}})
	// the named variant: three facts of the older half, by topic
	var early []Fact
	for _, f := range c.Facts {
		if f.Turn < turns/2 {
			early = append(early, f)
		}
	}
	if len(early) < 3 {
		early = append([]Fact(nil), c.Facts...)
	}
	r.Shuffle(len(early), func(i, j int) { early[i], early[j] = early[j], early[i] })
	c.Named = fmt.Sprintf(v.named[lang], early[0].Topic, early[1].Topic, early[2].Topic)
	Locate(&c)
	return c
}

// wrap puts a sentence said in passing between a lead and a tail.
func (g *pgen) wrap(s string) string {
	return strings.TrimSpace(g.p(g.v.leads) + s + g.p(g.v.tails))
}

func (g *pgen) answer() string {
	n := 1 + g.r.Intn(3)
	if g.kind == "chat" {
		n = 2 + g.r.Intn(4)
	}
	var ps []string
	for i := 0; i < n; i++ {
		ps = append(ps, g.v.answer(g))
	}
	return strings.Join(ps, "\n\n")
}

// answerSteps is an ordinary answer: in agent conversations rounds of tool
// calls first.
func (g *pgen) answerSteps(rounds int) []Step {
	var steps []Step
	if g.kind == "agent" {
		for ; rounds > 0; rounds-- {
			var calls []Call
			for k := 1 + g.r.Intn(2); k > 0; k-- {
				calls = append(calls, g.v.fillerCall(g))
			}
			steps = append(steps, Step{Calls: calls})
		}
	}
	return append(steps, Step{Text: g.answer()})
}

// fillerTurn is a turn of ordinary work: a question, a tiny reply, a pasted
// log, a tool loop.
func (g *pgen) fillerTurn() Turn {
	x := g.r.Intn(100)
	switch {
	case x < 22:
		return Turn{User: g.p(g.v.tiny), Steps: g.answerSteps(g.r.Intn(2))}
	case x < 28:
		return Turn{User: g.p(g.v.pasteLeads) + "\n\n" + g.v.pastedLog(g), Steps: g.answerSteps(g.r.Intn(2))}
	case g.kind == "agent" && x < 75:
		return Turn{User: fmt.Sprintf(g.p(g.v.toolAsks), g.word()), Steps: g.answerSteps(1 + g.r.Intn(3))}
	}
	return Turn{User: fmt.Sprintf(g.p(g.v.asks), g.word(), g.word()), Steps: g.answerSteps(g.r.Intn(2))}
}

// factTurn plants one fact of kind k at turn t.
func (g *pgen) factTurn(k string, t int) Turn {
	r, v := g.r, g.v
	switch k {
	case KindDecision:
		if r.Intn(2) == 0 { // half of the decisions are the model's proposal
			tp := pick(r, v.decide[g.lng()])
			val := tp.val(g)
			s := fmt.Sprintf(tp.text, val, g.word())
			g.add(Fact{Kind: k, Needles: []string{val}, Turn: t, Topic: tp.topic, Where: WhereAssistant, Text: s})
			return Turn{User: fmt.Sprintf(g.p(v.asks), g.word(), g.word()), Steps: g.withText(s)}
		}
		fallthrough
	case KindRequirement, KindPath, KindNumber, KindName:
		tp := pick(r, v.user[k][g.lng()])
		val := tp.val(g)
		s := fmt.Sprintf(tp.text, val, g.word())
		g.add(Fact{Kind: k, Needles: []string{val}, Turn: t, Topic: tp.topic, Where: WhereUser, Text: s})
		return Turn{User: g.wrap(s), Steps: g.answerSteps(r.Intn(2))}
	case KindFinding:
		tp := pick(r, v.finding[g.lng()])
		val := tp.val(g)
		s := fmt.Sprintf(tp.text, val, g.word())
		g.add(Fact{Kind: k, Needles: []string{val}, Turn: t, Topic: tp.topic, Where: WhereAssistant, Text: s})
		return Turn{User: fmt.Sprintf(g.p(v.toolAsks), g.word()), Steps: g.withText(s)}
	case KindTool:
		call, needles, topic := pick(r, v.toolOut)(g)
		g.add(Fact{Kind: k, Needles: needles, Turn: t, Topic: topic, Where: WhereTool, Text: strings.Join(needles, " ")})
		steps := g.answerSteps(r.Intn(2))
		last := steps[len(steps)-1]
		steps = append(steps[:len(steps)-1], Step{Calls: []Call{call}}, last)
		return Turn{User: fmt.Sprintf(g.p(v.toolAsks), g.word()), Steps: steps}
	case KindToolArgs:
		call, needles, topic := pick(r, v.toolArgs)(g)
		g.add(Fact{Kind: k, Needles: needles, Turn: t, Topic: topic, Where: WhereArgs, Text: strings.Join(needles, " ")})
		steps := g.answerSteps(r.Intn(2))
		last := steps[len(steps)-1]
		steps = append(steps[:len(steps)-1], Step{Calls: []Call{call}}, last)
		return Turn{User: fmt.Sprintf(g.p(v.toolAsks), g.word()), Steps: steps}
	}
	panic("fidelity: kind " + k)
}

// withText is an answer whose final text carries s among ordinary
// paragraphs.
func (g *pgen) withText(s string) []Step {
	steps := g.answerSteps(g.r.Intn(3))
	last := &steps[len(steps)-1]
	parts := strings.SplitN(last.Text, "\n\n", 2)
	if len(parts) == 2 && g.r.Intn(2) == 0 {
		last.Text = parts[0] + "\n\n" + s + "\n\n" + parts[1]
	} else {
		last.Text = s + "\n\n" + last.Text
	}
	return steps
}

// piece is one place of the history a needle may be in.
type piece struct {
	msg   int // index of the message in the history (logMessages order)
	turn  int
	where string
	text  string
}

// pieces lists the texts of the history (all turns but the last) with their
// message index and turn, in the order logMessages writes them.
func pieces(c *Conversation) ([]piece, int) {
	var out []piece
	i := 0
	for t := 0; t < len(c.Turns)-1; t++ {
		turn := &c.Turns[t]
		out = append(out, piece{i, t, WhereUser, turn.User})
		i++
		for _, st := range turn.Steps {
			if len(st.Calls) == 0 {
				out = append(out, piece{i, t, WhereAssistant, st.Text})
				i++
				continue
			}
			for _, cl := range st.Calls {
				out = append(out, piece{i, t, WhereArgs, cl.Args})
			}
			i++
			for _, cl := range st.Calls {
				out = append(out, piece{i, t, WhereTool, cl.Output})
				i++
			}
		}
	}
	return out, i
}

// Locate sets each fact's depth: the position, as a fraction of the
// history, of the first message that carries all its needles.
func Locate(c *Conversation) {
	ps, n := pieces(c)
	for k := range c.Facts {
		f := &c.Facts[k]
		f.Depth = 0
		for _, p := range ps {
			all := true
			for _, nd := range f.Needles {
				if !strings.Contains(p.text, nd) {
					all = false
					break
				}
			}
			if all && n > 0 {
				f.Depth = float64(p.msg) / float64(n)
				break
			}
		}
	}
}

// Check verifies that every needle of c occurs only in its planting
// message (a stale value of an update in its first statement and its
// correction), in the part of it the fact's kind says (a tool-args fact only
// in the arguments of a call, a tool-output fact only in a tool's output,
// ...), and in neither final message.
func Check(c *Conversation) error {
	ps, _ := pieces(c)
	var errs []string
	for _, f := range c.Facts {
		check := func(nd string, msgs int, turns ...int) {
			found, in := false, map[int]bool{}
			for _, p := range ps {
				if !strings.Contains(p.text, nd) {
					continue
				}
				ok := false
				for _, t := range turns {
					if p.turn == t {
						ok = true
					}
				}
				if !ok {
					errs = append(errs, fmt.Sprintf("fact %d (%s) %q also in turn %d", f.ID, f.Kind, nd, p.turn))
					continue
				}
				if f.Where != "" && p.turn == f.Turn && p.where != f.Where {
					errs = append(errs, fmt.Sprintf("fact %d (%s) %q in %s, planted in %s", f.ID, f.Kind, nd, p.where, f.Where))
				}
				found, in[p.msg] = true, true
			}
			if len(in) > msgs {
				errs = append(errs, fmt.Sprintf("fact %d (%s) %q in %d messages", f.ID, f.Kind, nd, len(in)))
			}
			if !found {
				errs = append(errs, fmt.Sprintf("fact %d (%s) %q is not in the conversation", f.ID, f.Kind, nd))
			}
			if strings.Contains(c.Final(), nd) || strings.Contains(c.Named, nd) {
				errs = append(errs, fmt.Sprintf("fact %d (%s) %q is in the final message", f.ID, f.Kind, nd))
			}
		}
		for _, nd := range f.Needles {
			check(nd, 1, f.Turn)
		}
		for _, nd := range f.Stale {
			check(nd, 2, f.StaleTurn, f.Turn)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %s", c.Name, strings.Join(errs, "; "))
	}
	return nil
}
