package compression

import (
	"math"
	"strings"
)

// Breakdown explains a score: each feature's contribution.
type Breakdown struct {
	Keywords  float64 `json:"keywords,omitempty"`
	Matched   string  `json:"matched,omitempty"` // keywords found, comma-separated
	FilePath  float64 `json:"filePath,omitempty"`
	CodeBlock float64 `json:"codeBlock,omitempty"`
	Numbers   float64 `json:"numbers,omitempty"`
	Recency   float64 `json:"recency"`
	LargeTool float64 `json:"largeToolPenalty,omitempty"`
}

// Total returns the score.
func (b Breakdown) Total() float64 {
	return b.Keywords + b.FilePath + b.CodeBlock + b.Numbers + b.Recency + b.LargeTool
}

// Score weights.
const (
	weightKeyword   = 2.0
	weightFilePath  = 2.0
	weightCodeBlock = 1.5
	weightNumbers   = 1.0
	weightRecency   = 3.0
	// recencyHalfLife is the age (in units from the newest) at which the
	// recency bonus halves.
	recencyHalfLife = 20.0
	// largeToolFrom is the tool-result size (tokens) from which results are
	// penalised: -1 per started 1000 tokens beyond it, at most -5.
	largeToolFrom = 500
)

// scorer detects the features of a text.
type scorer struct {
	keywords []string   // lower-case, at most 64
	variants [][]string // per keyword: the spellings searched (must, Must, MUST)
	scan     int        // bytes of each message inspected
}

func newScorer(keywords []string, scan int) scorer {
	sc := scorer{scan: scan}
	for _, k := range keywords {
		k = strings.ToLower(k)
		if k == "" || len(sc.keywords) == 64 {
			continue
		}
		v := []string{k}
		if k[0] < 0x80 {
			title := strings.ToUpper(k[:1]) + k[1:]
			v = append(v, title, strings.ToUpper(k))
		}
		sc.keywords = append(sc.keywords, k)
		sc.variants = append(sc.variants, v)
	}
	return sc
}

// features returns which features appear in the first s.scan bytes of text;
// matched keywords are added to the bit set.
func (s *scorer) features(text string, matched *uint64) (path, code, nums bool) {
	if len(text) > s.scan {
		text = text[:s.scan]
	}
	for i, vs := range s.variants {
		if *matched&(1<<i) != 0 {
			continue
		}
		for _, v := range vs {
			if containsWord(text, v) {
				*matched |= 1 << i
				break
			}
		}
	}
	code = strings.Contains(text, "```")
	path = hasPath(text)
	for i := 0; i < len(text); i++ {
		if text[i]-'0' < 10 {
			nums = true
			break
		}
	}
	return
}

// containsWord finds keyword k in s (k is one spelling: "need", "Need",
// "NEED"). ASCII keywords must stand as a word or an inflection of it ("need"
// matches "needs" and "needn't", not "kneed" or "needle"); other keywords
// match anywhere.
func containsWord(s, k string) bool {
	if k == "" {
		return false
	}
	if k[0] >= 0x80 {
		return strings.Contains(s, k)
	}
	for from := 0; ; {
		i := strings.Index(s[from:], k)
		if i < 0 {
			return false
		}
		i += from
		if (i == 0 || !isWordByte(s[i-1])) && wordEnds(s[i+len(k):]) {
			return true
		}
		from = i + 1
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// hasPath reports whether text names a file: an alias path (@project/,
// @pkg/, @state/), a relative path (./, ../) or a word with a slash and a file
// extension (docs/plan.md).
func hasPath(text string) bool {
	if strings.Contains(text, "@project/") || strings.Contains(text, "@pkg/") || strings.Contains(text, "@state/") ||
		strings.Contains(text, "./") {
		return true
	}
	for from := 0; ; {
		i := strings.IndexByte(text[from:], '/')
		if i < 0 {
			return false
		}
		i += from
		// Walk to the end of the word and look for ".ext".
		j := i + 1
		for j < len(text) && isPathByte(text[j]) {
			j++
		}
		word := text[i+1 : j]
		if k := strings.LastIndexByte(word, '.'); k > 0 && len(word)-k-1 >= 1 && len(word)-k-1 <= 5 && i > 0 && isPathByte(text[i-1]) {
			return true
		}
		from = i + 1
	}
}

func isPathByte(c byte) bool {
	return isWordByte(c) || c == '-' || c == '.' || c == '/'
}

// recency is the decaying bonus of a unit `age` units before the newest.
func recency(age int) float64 {
	return weightRecency * math.Pow(0.5, float64(age)/recencyHalfLife)
}

// largeToolPenalty penalises big tool results.
func largeToolPenalty(toolTokens int) float64 {
	if toolTokens <= largeToolFrom {
		return 0
	}
	p := float64((toolTokens-largeToolFrom)/1000 + 1)
	return -math.Min(5, p)
}

// wordEnds reports whether rest (the text after a keyword) ends the word or
// continues it with an inflection: -s, -ed, -ing, or n't ("mustn't").
func wordEnds(rest string) bool {
	n := 0
	for n < len(rest) && isWordByte(rest[n]) {
		n++
	}
	switch strings.ToLower(rest[:n]) {
	case "", "s", "ed", "ing":
		return true
	case "n":
		return strings.HasPrefix(rest[n:], "'") || strings.HasPrefix(rest[n:], "’")
	}
	return false
}
