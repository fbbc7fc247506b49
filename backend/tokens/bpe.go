package tokens

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dlclark/regexp2"
)

// The tokenizer's own work, held compactly.
//
// A vocabulary of o200k_base has 200,000 tokens. As a Go map from the token's
// bytes to its rank it takes about 9 MB, and the tokenizer library adds a map
// back from ranks and a sorted list of every token (10 MB more) that counting
// never uses. Here the tokens' bytes are one block, and an open-addressing
// table of int32 finds a token from its bytes: about 5 MB for o200k_base,
// for the life of the window. The library still reads the vocabularies (from
// the copies embedded in the binary) and is the reference the tests compare
// this with, text by text.

// pretokenizers are the regular expressions each encoding cuts text into
// pieces with before merging each piece's bytes (OpenAI's published patterns
// of the two encodings; the tests compare every count with the library's).
var pretokenizers = map[string]string{
	O200kBase: strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
	CL100kBase: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// bpe is one encoding: its pre-tokenizer and its vocabulary.
type bpe struct {
	pieces *regexp2.Regexp
	data   []byte   // the bytes of every token, in the order of their ranks
	start  []uint32 // token i is data[start[i]:start[i+1]]
	rank   []int32  // the rank of token i (nil when token i has rank i)
	slots  []int32  // 1 + the token hashed to this slot, 0 when empty; a power of two long
}

// newBPE builds an encoding from its ranks (token bytes → rank) and its
// pre-tokenizer's pattern.
func newBPE(ranks map[string]int, pattern string) (*bpe, error) {
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("the pre-tokenizer does not compile: %w", err)
	}
	if len(ranks) == 0 || len(ranks) >= math.MaxInt32/4 {
		return nil, fmt.Errorf("a vocabulary of %d tokens", len(ranks))
	}
	type tok struct {
		b    string
		rank int
	}
	toks := make([]tok, 0, len(ranks))
	size := 0
	for b, r := range ranks {
		toks = append(toks, tok{b, r})
		size += len(b)
	}
	if size >= math.MaxUint32 {
		return nil, fmt.Errorf("a vocabulary of %d bytes", size)
	}
	slices.SortFunc(toks, func(a, b tok) int { return a.rank - b.rank })
	e := &bpe{pieces: re, data: make([]byte, 0, size), start: make([]uint32, len(toks)+1)}
	dense := true
	for i, t := range toks {
		e.start[i] = uint32(len(e.data))
		e.data = append(e.data, t.b...)
		if t.rank != i {
			dense = false
		}
	}
	e.start[len(toks)] = uint32(len(e.data))
	if !dense {
		e.rank = make([]int32, len(toks))
		for i, t := range toks {
			e.rank[i] = int32(t.rank)
		}
	}
	n := 1
	for n < 2*len(toks) {
		n <<= 1
	}
	e.slots = make([]int32, n)
	mask := uint64(n - 1)
	for i := range toks {
		s := hashBytes(e.token(i)) & mask
		for e.slots[s] != 0 {
			s = (s + 1) & mask
		}
		e.slots[s] = int32(i + 1)
	}
	return e, nil
}

func (e *bpe) token(i int) []byte { return e.data[e.start[i]:e.start[i+1]] }

// hashBytes is FNV-1a.
func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// lookup returns the rank of the token whose bytes are b.
func (e *bpe) lookup(b []byte) (int, bool) {
	mask := uint64(len(e.slots) - 1)
	for s := hashBytes(b) & mask; ; s = (s + 1) & mask {
		i := int(e.slots[s]) - 1
		if i < 0 {
			return 0, false
		}
		if string(e.token(i)) == string(b) {
			if e.rank != nil {
				return int(e.rank[i]), true
			}
			return i, true
		}
	}
}

// noRank marks a pair of parts that is no token.
const noRank = math.MaxInt

// merge applies the byte-pair merges to piece (not itself a token) and calls
// emit with the rank of each token it ends as, in order. Parts start as single
// bytes; the adjacent pair whose joined bytes have the lowest rank is joined
// (the leftmost of equal ones), until no pair is a token.
func (e *bpe) merge(piece []byte, emit func(rank int)) {
	if len(piece) == 0 {
		return
	}
	// at[i] is where part i starts; at[len-1] == len(piece) ends the last.
	at := make([]int, len(piece)+1)
	for i := range at {
		at[i] = i
	}
	// pair[i] is the rank of parts i and i+1 joined.
	pair := make([]int, len(piece)-1)
	rankOf := func(i int) int { // parts i and i+1, or noRank
		if i < 0 || i+2 >= len(at) {
			return noRank
		}
		if r, ok := e.lookup(piece[at[i]:at[i+2]]); ok {
			return r
		}
		return noRank
	}
	for i := range pair {
		pair[i] = rankOf(i)
	}
	for len(pair) > 0 {
		best, min := -1, noRank
		for i, r := range pair {
			if r < min {
				best, min = i, r
			}
		}
		if best < 0 {
			break
		}
		// part best+1 joins part best
		at = slices.Delete(at, best+1, best+2)
		pair = slices.Delete(pair, best, best+1)
		if best < len(pair) {
			pair[best] = rankOf(best)
		}
		if best > 0 {
			pair[best-1] = rankOf(best - 1)
		}
	}
	for i := 0; i+1 < len(at); i++ {
		r, _ := e.lookup(piece[at[i]:at[i+1]])
		emit(r)
	}
}

// each calls emit with the rank of every token of text, in order: text is cut
// into pieces by the pre-tokenizer, and a piece that is not a token itself is
// merged from its bytes. Text is read as Unicode characters (bytes that are
// not UTF-8 count as U+FFFD), as the reference library reads it.
func (e *bpe) each(text string, emit func(rank int)) {
	m, err := e.pieces.FindStringMatch(text)
	for ; m != nil && err == nil; m, err = e.pieces.FindNextMatch(m) {
		piece := []byte(m.String())
		if r, ok := e.lookup(piece); ok {
			emit(r)
			continue
		}
		e.merge(piece, emit)
	}
}

// EncodeOrdinary returns the token ranks of text; special-token strings are
// ordinary text.
func (e *bpe) EncodeOrdinary(text string) []int {
	var out []int
	e.each(text, func(r int) { out = append(out, r) })
	return out
}

// CountOrdinary returns len(EncodeOrdinary(text)) without building it.
func (e *bpe) CountOrdinary(text string) int {
	n := 0
	e.each(text, func(int) { n++ })
	return n
}
