package tokens

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The tokenizer library is the reference: every encoding of bpe.go must give
// exactly its token ids.
var (
	referenceOnce sync.Once
	references    = map[string]*tiktoken.Tiktoken{}
)

func reference(t testing.TB, name string) *tiktoken.Tiktoken {
	t.Helper()
	referenceOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		for _, n := range []string{O200kBase, CL100kBase} {
			tk, err := tiktoken.GetEncoding(n)
			if err != nil {
				panic(err)
			}
			references[n] = tk
		}
	})
	return references[name]
}

func ours(t testing.TB, name string) *bpe {
	t.Helper()
	e, err := shared[name].get()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// sameTokens fails when bpe.go and the library tokenize text differently.
func sameTokens(t *testing.T, name, what, text string) {
	t.Helper()
	want := reference(t, name).EncodeOrdinary(text)
	got := ours(t, name).EncodeOrdinary(text)
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s, %s: %d tokens, the library %d; first difference at token %d (%v vs %v)", name, what, len(got), len(want), i,
			got[i:min(len(got), i+5)], want[i:min(len(want), i+5)])
	}
	if n := ours(t, name).CountOrdinary(text); n != len(want) {
		t.Fatalf("%s, %s: CountOrdinary %d, want %d", name, what, n, len(want))
	}
}

// adversarialTexts are texts the pre-tokenizer's branches and the merges are
// sensitive to: contractions in both cases, marks, digits in runs, line
// breaks of every kind, slashes after punctuation, invalid UTF-8, emoji.
func adversarialTexts() map[string]string {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("aZ'sStTdD lLvVeErRmM0123456789 \t\r\n/.,;:!?-_=+*#@€£¥ßéÉçÇñÑüÜ\u0301\u0308中文日本語한국어🙂👍🏽\u200b\u00a0")
	var random strings.Builder
	for random.Len() < 30_000 {
		random.WriteRune(alphabet[r.IntN(len(alphabet))])
	}
	var bytes strings.Builder
	for range 5_000 {
		bytes.WriteByte(byte(r.IntN(256)))
	}
	return map[string]string{
		"contractions":   "I'm sure it's theirs, they'll say; WE'VE seen HE'D and SHE'S. 's 'T 'Ll",
		"cases":          "HTTPServer parseJSONValue XMLHttpRequest iPhone McDonald's ÉCOLE École",
		"marks":          "cafe\u0301 nai\u0308ve a\u0301\u0301\u0301 \u0301alone",
		"digits":         "1 12 123 1234 12345 123456 3.14159 1,000,000 0x1F 2025-03-31",
		"breaks":         "a\r\nb\n\n\nc\r\r\n  \n\t\n  d  \n",
		"slashes":        "path/to/file.go // comment /* block */ https://x.y/z?q=1#f ./a/../b\\c",
		"spaces":         "    leading and    inner   and trailing    ",
		"emoji":          "🙂👍🏽👨‍👩‍👧 ok 🎉🎉🎉",
		"random":         random.String(),
		"invalid utf-8":  "\xff\xfe bad \xc3\x28 utf8 \xe2\x82 end",
		"random bytes":   strings.ToValidUTF8(bytes.String(), "") + bytes.String()[:200],
		"special tokens": "<|endoftext|>hi<|fim_prefix|><|endofprompt|>",
	}
}

func TestBPEMatchesTheLibrary(t *testing.T) {
	texts := normalTexts()
	for k, v := range adversarialTexts() {
		texts[k] = v
	}
	for _, name := range []string{O200kBase, CL100kBase} {
		for what, text := range texts {
			// the library's cost grows with the square of a long piece: whole texts
			// of normal content only, a line at a time otherwise
			sameTokens(t, name, what, text[:min(len(text), 20_000)])
		}
	}
}

// The vocabulary an encoding holds: a few MB, where the library's maps take
// about 20 MB for o200k_base.
func TestBPEIsCompact(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(O200kBase + ".tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	e, err := newBPE(ranks, pretokenizers[O200kBase])
	if err != nil {
		t.Fatal(err)
	}
	ranks = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("o200k_base holds %.1f MB", float64(held)/(1<<20))
	if held > 8<<20 {
		t.Errorf("o200k_base holds %.1f MB", float64(held)/(1<<20))
	}
	if n := e.CountOrdinary("hello world"); n != 2 {
		t.Errorf("hello world: %d tokens", n)
	}
	runtime.KeepAlive(e)
}

func TestNewBPERefusesBadInput(t *testing.T) {
	if _, err := newBPE(map[string]int{"a": 0}, `(`); err == nil {
		t.Error("a pattern that does not compile was taken")
	}
	if _, err := newBPE(map[string]int{}, `\s+`); err == nil {
		t.Error("an empty vocabulary was taken")
	}
	// ranks with gaps keep their values
	e, err := newBPE(map[string]int{"a": 5, "b": 9, "ab": 20}, `\S+`)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.EncodeOrdinary("ab ba"); !slices.Equal(got, []int{20, 9, 5}) {
		t.Errorf("ab ba: %v", got)
	}
}

// Whatever the text, the same token ids as the library.
func FuzzBPEMatchesTheLibrary(f *testing.F) {
	for _, s := range adversarialTexts() {
		f.Add(s[:min(len(s), 300)])
	}
	f.Add("hello world")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 2048 || (utf8.ValidString(text) && strings.TrimSpace(text) == "") && len(text) > 512 {
			return
		}
		for _, name := range []string{O200kBase, CL100kBase} {
			sameTokens(t, name, "fuzz input", text)
		}
	})
}

// BenchmarkBPECount compares counting with bpe.go and with the library on
// normal text (MB/s).
func BenchmarkBPECount(b *testing.B) {
	text := normalTexts()["mixed"]
	b.Run("compact", func(b *testing.B) {
		e := ours(b, O200kBase)
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			e.CountOrdinary(text)
		}
	})
	b.Run("library", func(b *testing.B) {
		tk := reference(b, O200kBase)
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			_ = len(tk.EncodeOrdinary(text))
		}
	})
}
