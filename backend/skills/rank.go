package skills

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// stopwords are common English words that say nothing about relevance.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "but": true,
	"by": true, "can": true, "do": true, "for": true, "from": true, "has": true, "have": true,
	"how": true, "i": true, "if": true, "in": true, "into": true, "is": true, "it": true, "its": true,
	"me": true, "my": true, "no": true, "not": true, "of": true, "on": true, "or": true, "our": true,
	"please": true, "so": true, "that": true, "the": true, "their": true, "them": true, "then": true,
	"there": true, "these": true, "this": true, "to": true, "up": true, "us": true, "use": true,
	"used": true, "using": true, "want": true, "was": true, "we": true, "what": true, "when": true,
	"which": true, "will": true, "with": true, "you": true, "your": true, "skill": true,
}

// terms splits text into lowercase search terms: words of letters and
// digits (stemmed, stopwords dropped) and, for Chinese, Japanese and Korean
// text, overlapping pairs of characters.
func terms(text string) []string {
	var out []string
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) > 0 {
			w := string(word)
			if !stopwords[w] && (len(word) > 1 || unicode.IsDigit(word[0])) {
				out = append(out, stem(w))
			}
			word = word[:0]
		}
	}
	flushCJK := func() {
		switch {
		case len(cjk) == 1:
			out = append(out, string(cjk))
		case len(cjk) > 1:
			for i := 0; i+1 < len(cjk); i++ {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case isCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// stem strips a few English suffixes so that "presentations",
// "presenting" and "presentation" meet.
func stem(w string) string {
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ies", "es", "ed", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			if suf == "ies" {
				return w[:len(w)-3] + "y"
			}
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// rankSkills orders skills by lexical relevance to query (most relevant
// first), then by source precedence, then by name. Relevance sums, over the
// distinct query terms a skill contains, the term's inverse document
// frequency among the skills, tripled for terms of the skill's name; a
// query containing the skill's whole name adds a large bonus.
//
// docs holds each skill's terms (see skillTerms), by name; skills missing
// from it are indexed here.
func rankSkills(skills []Skill, query string, docs map[string]map[string]int) []Skill {
	out := append([]Skill(nil), skills...)
	q := distinct(terms(query))
	scores := make(map[string]float64, len(out))
	if len(q) > 0 {
		df := map[string]int{}
		byIndex := make([]map[string]int, len(out))
		for i, s := range out {
			d, ok := docs[s.Name]
			if !ok {
				d = skillTerms(s)
			}
			byIndex[i] = d
			for _, t := range q {
				if d[t] != 0 {
					df[t]++
				}
			}
		}
		docs := byIndex
		lowerQuery := " " + strings.Join(strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r))
		}), " ") + " "
		n := float64(len(out))
		for i, s := range out {
			var sc float64
			for _, t := range q {
				if w := docs[i][t]; w != 0 {
					idf := math.Log(1 + n/float64(df[t]))
					if w&2 != 0 {
						sc += 3 * idf
					} else {
						sc += idf
					}
				}
			}
			if strings.Contains(lowerQuery, " "+strings.ReplaceAll(s.Name, "-", " ")+" ") {
				sc += 10
			}
			scores[s.Name] = sc
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if scores[a.Name] != scores[b.Name] {
			return scores[a.Name] > scores[b.Name]
		}
		if a.Precedence != b.Precedence {
			return a.Precedence < b.Precedence
		}
		return a.Name < b.Name
	})
	return out
}

func distinct(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// skillTerms indexes a skill for ranking: term -> 1 (in the description),
// 2 (in the name) or both.
func skillTerms(s Skill) map[string]int {
	d := map[string]int{}
	for _, t := range terms(s.Description + " " + s.WhenToUse) {
		d[t] |= 1
	}
	for _, t := range terms(strings.ReplaceAll(s.Name, "-", " ")) {
		d[t] |= 2
	}
	return d
}
