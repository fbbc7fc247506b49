package compression

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// isCJK's shortcut below firstCJK changes no answer: every rune is checked
// against the script tables.
func TestIsCJKShortcutIsExact(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
		if isCJK(r) != want {
			t.Fatalf("isCJK(%U) = %v, want %v", r, !want, want)
		}
	}
}

// termsBefore is Terms as it was before it passed lower-case words without
// a copy, kept to prove the terms did not change.
func termsBefore(s string, fn func(string)) {
	var buf [64]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !isWordByte(c) || c == '\'' {
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && (isWordByte(s[j]) && s[j] != '\'') {
				j++
			}
			w := lower(s[i:j], buf[:0])
			if len(w) > 1 || isDigit(w[0]) {
				if words[string(w)]&kwStop == 0 {
					fn(string(w))
				}
			}
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isCJK(r) {
			i += size
			continue
		}
		j := i
		var runes []int
		for j < len(s) {
			r2, sz := utf8.DecodeRuneInString(s[j:])
			if !isCJK(r2) {
				break
			}
			runes = append(runes, j)
			j += sz
		}
		runes = append(runes, j)
		if len(runes) == 2 {
			fn(s[runes[0]:runes[1]])
		}
		for k := 0; k+2 < len(runes); k++ {
			fn(s[runes[k]:runes[k+2]])
		}
		i = j
	}
}

// Terms gives exactly the terms it gave before.
func FuzzTermsAsBefore(f *testing.F) {
	for _, s := range []string{"The Budget is 4711 EUR, don't exceed it.", "预算不能超过 4711 欧元", "README.md at @project/docs/Plan_v2.md",
		strings.Repeat("Supercalifragilistic", 5) + " WORD word I a 7", "ÄÖÜ straße Ελληνικά x2 O'Brien"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got, want []string
		Terms(s, func(w string) { got = append(got, w) })
		termsBefore(s, func(w string) { want = append(want, w) })
		if !slices.Equal(got, want) {
			t.Fatalf("Terms(%q) = %q, before %q", s, got, want)
		}
	})
}

// looksLikeCodeBefore and rawFeaturesBefore are the functions as they were
// before their shortcuts, kept to prove the answers did not change.
func looksLikeCodeBefore(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	for _, kw := range codeStarts {
		if strings.HasPrefix(t, kw) {
			return true
		}
	}
	last := t[len(t)-1]
	if last == '{' || last == '}' || last == ';' || (last == ')' && strings.Contains(t, "(")) && !strings.Contains(t, " ") {
		return true
	}
	if strings.Contains(t, " := ") || strings.Contains(t, " => ") || strings.Contains(t, ") {") || strings.Contains(t, "();") {
		return true
	}
	sym := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '(', ')', '{', '}', '[', ']', ';', '=', '<', '>', '&', '|':
			sym++
		}
	}
	return sym >= 6 && sym*12 > len(t)
}

func rawFeaturesBefore(raw string, f *features) {
	t := trimPunct(raw)
	if t == "" {
		return
	}
	if strings.HasPrefix(t, "@project/") || strings.HasPrefix(t, "@pkg/") || strings.HasPrefix(t, "@state/") ||
		strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || strings.HasPrefix(t, "~/") ||
		(strings.HasPrefix(t, "/") && strings.Count(t, "/") >= 2) {
		f.path = true
	} else if k := strings.LastIndexByte(t, '.'); k > 0 && k < len(t)-1 && fileExts[strings.ToLower(t[k+1:])] &&
		isWordByte(t[k-1]) && !isDigit(t[k+1]) {
		f.path = true
	} else if strings.Contains(t, "/") && strings.Count(t, "/") >= 1 && !strings.Contains(t, "://") && len(t) > 3 &&
		isWordByte(t[0]) && hasLetter(t) && !hasDigitOnlyParts(t) {
		f.path = true
	}
	if strings.Contains(t, "://") || (strings.Contains(t, "@") && strings.Contains(t, ".") && !strings.HasPrefix(t, "@")) {
		f.name = true
	}
	if len(t) > 2 && t[0] == '@' && (t[1] >= 'a' && t[1] <= 'z' || t[1] >= 'A' && t[1] <= 'Z') && !strings.Contains(t, "/") {
		f.name = true
	}
	if len(raw) >= 2 && (raw[0] == '"' || raw[0] == '`' || strings.HasPrefix(raw, "“") || strings.HasPrefix(raw, "「")) {
		f.name = true
	}
	if !hasDigit(t) {
		return
	}
	f.number = true
	c0 := t[0]
	switch {
	case strings.ContainsAny(t, "%$€£¥"):
		f.numberCtx = true
	case c0 == 'v' || c0 == 'V':
		if len(t) > 1 && isDigit(t[1]) {
			f.numberCtx = true
		}
	case strings.Count(t, ".") >= 2 || strings.Count(t, "-") >= 2 || strings.Contains(t, ":"):
		f.numberCtx = true // versions, dates, times, host:port
	default:
		// 12px, 500ms, 3GB, 10k, 2x
		k := 0
		for k < len(t) && (isDigit(t[k]) || t[k] == '.' || t[k] == ',') {
			k++
		}
		if k > 0 && k < len(t) {
			if words[strings.ToLower(t[k:])]&kwUnit != 0 {
				f.numberCtx = true
			}
		}
	}
}

// looksLikeCode and rawFeatures answer exactly as before their shortcuts.
func FuzzLineFeaturesAsBefore(f *testing.F) {
	for _, s := range []string{"The budget is 4711 EUR.", "func main() {", "if x := f(); x {", "Read @project/docs/plan.md, then v2.3.1!",
		"\"Quoted\" name@example.com https://x.y/z", "word, word; word: word! word? word.", "} else {", "SELECT * FROM t;", "#!/bin/sh", "a", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := looksLikeCode(line), looksLikeCodeBefore(line); got != want {
			t.Fatalf("looksLikeCode(%q) = %v, before %v", line, got, want)
		}
		for _, raw := range strings.Fields(line) {
			var got, want features
			rawFeatures(raw, &got)
			rawFeaturesBefore(raw, &want)
			if got != want {
				t.Fatalf("rawFeatures(%q) = %+v, before %+v", raw, got, want)
			}
		}
	})
}
