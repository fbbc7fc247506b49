package compression

import (
	"testing"
	"unicode"
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
