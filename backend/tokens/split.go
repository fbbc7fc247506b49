package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Counting long text in linear time.
//
// The tokenizer first cuts text into pieces with a regular expression (words, numbers of up
// to three digits, runs of punctuation, runs of spaces) and then merges each piece's bytes
// pair by pair, which costs the square of the piece's length: a 300 KB run of one letter,
// of spaces or of "=" is one piece and took over a minute.
//
// split cuts the text before the tokenizer does, at places where the tokenizer's own
// pre-split cuts too, so counting the parts and adding the counts gives exactly the count of
// the whole text; parts are then grouped into chunks of about chunkBytes. Only a run with no
// such place for more than maxRun bytes (a 256-byte word, a long line of "=") is cut
// anywhere: its count may then differ by about a token per cut, and its cost stays linear.
//
// The places, between a rune a and the rune b after it (classes as in the patterns of both
// cl100k_base and o200k_base: L letters, N numbers, S white space; M marks and format
// characters are never cut around):
//   - b is white space (not CR or LF after punctuation) and a is not: no piece runs from a
//     non-space into a space;
//   - a letter, then punctuation other than the apostrophe (contractions: "'s", "'ll");
//   - a letter and a number, either way round;
//   - a number, then punctuation; punctuation, then a number.
//
// A run of numbers too long to keep whole is cut where the tokenizer's groups of three
// numbers are cut too: after a multiple of three of them, counted from the start of the
// run (wherever the run itself starts: after a space, or after bytes that are not UTF-8),
// so its count stays exact.
const (
	chunkBytes = 8 << 10
	maxRun     = 255
)

type runeClass uint8

const (
	classOther runeClass = iota // marks, format and unassigned characters: never cut around
	classLetter
	classNumber
	classSpace
	classPunct
)

// asciiClass classes the ASCII runes.
var asciiClass = func() (t [utf8.RuneSelf]runeClass) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = unicodeClass(r)
	}
	return t
}()

func classOf(r rune) runeClass {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	return unicodeClass(r)
}

func unicodeClass(r rune) runeClass {
	switch {
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	case unicode.IsMark(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), r == utf8.RuneError:
		return classOther
	case unicode.IsPrint(r) || unicode.IsControl(r):
		return classPunct
	}
	return classOther
}

// safeCut reports whether the tokenizer's pre-split always cuts between a and b.
func safeCut(a rune, ca runeClass, b rune, cb runeClass) bool {
	switch {
	case ca == classOther || cb == classOther:
		return false
	case cb == classSpace:
		if ca == classSpace {
			return false
		}
		if b == '\r' || b == '\n' {
			return ca == classLetter || ca == classNumber // "." then "\n" is one piece
		}
		return true
	case ca == classSpace:
		return false
	case ca == classLetter:
		return cb == classNumber || (cb == classPunct && b != '\'')
	case ca == classNumber:
		return cb == classLetter || cb == classPunct
	case ca == classPunct:
		return cb == classNumber
	}
	return false
}

// split calls emit with consecutive parts of text that can be counted one by one (see the
// comment above), each at most about chunk bytes; forced reports whether a run had to be
// cut at a place the tokenizer does not cut.
func split(text string, chunk, run int, emit func(part string)) (forced bool) {
	start := 0   // start of the part being grouped
	lastCut := 0 // last place the part may end
	runStart := 0
	numbers := 0 // how many numbers the run of numbers that ends at prev holds
	var prev rune
	prevClass := classOther
	for i, w := 0, 0; i < len(text); i += w {
		var r rune
		if c := text[i]; c < utf8.RuneSelf {
			r, w = rune(c), 1
		} else {
			r, w = utf8.DecodeRuneInString(text[i:])
		}
		cls := classOf(r)
		if i > 0 {
			inNumbers := prevClass == classNumber && cls == classNumber
			switch {
			case safeCut(prev, prevClass, r, cls):
				lastCut, runStart = i, i
			case i-runStart >= run && !(inNumbers && numbers%3 != 0):
				// The tokenizer would see the run as one piece: it must be counted in
				// parts, so the part ends here. Inside a run of numbers the cut waits
				// (at most two numbers) for the end of a group of three, where the
				// count stays exact.
				forced = forced || !inNumbers
				emit(text[start:i])
				start, lastCut, runStart = i, i, i
			}
			if i-start >= chunk && lastCut > start {
				emit(text[start:lastCut])
				start = lastCut
			}
		}
		if cls != classNumber {
			numbers = 0
		} else {
			numbers++
		}
		prev, prevClass = r, cls
	}
	if start < len(text) {
		emit(text[start:])
	}
	return forced
}
