package tokens

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// normalTexts are texts as they reach a conversation: prose, code, JSON (compact and
// indented), markdown tables, Chinese with its punctuation, numbers, URLs, base64.
func normalTexts() map[string]string {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the build failed because store.go could not sync its log; we retried twice and it's fine now, isn't it? " +
		"Budget: 4,711 EUR (net), due 2025-03-31. Don't ship before QA signs off — they'll check every path.")
	var prose strings.Builder
	for prose.Len() < 60_000 {
		prose.WriteString(words[r.IntN(len(words))])
		switch r.IntN(12) {
		case 0:
			prose.WriteString(".\n\n")
		case 1:
			prose.WriteString(",\n")
		default:
			prose.WriteByte(' ')
		}
	}
	var code strings.Builder
	for code.Len() < 40_000 {
		fmt.Fprintf(&code, "func handler%d(w http.ResponseWriter, r *http.Request) {\n\tif err := r.ParseForm(); err != nil {\n\t\thttp.Error(w, err.Error(), 400) // bad form #%d\n\t\treturn\n\t}\n}\n\n", code.Len(), code.Len()%97)
	}
	type item struct {
		Path  string   `json:"path"`
		Line  int      `json:"line"`
		Text  string   `json:"text"`
		Tags  []string `json:"tags"`
		Score float64  `json:"score"`
	}
	var items []item
	for i := range 300 {
		items = append(items, item{Path: fmt.Sprintf("@project/src/module_%d/file%d.go", i%17, i), Line: i * 13,
			Text: "if x := compute(" + fmt.Sprint(i) + "); x > 0 { return x }", Tags: []string{"go", "hot"}, Score: float64(i) / 7})
	}
	compact, _ := json.Marshal(items)
	indented, _ := json.MarshalIndent(items, "", "  ")
	var table strings.Builder
	table.WriteString("| id | name | amount |\n|---|---|---:|\n")
	for i := range 400 {
		fmt.Fprintf(&table, "| %d | item-%d | %d.%02d |\n", i, i*31, i*977, i%100)
	}
	chinese := strings.Repeat("我们需要在周五之前完成发布，预算是四千七百欧元。请不要修改配置文件；测试必须通过！", 200)
	blob := make([]byte, 30_000)
	for i := range blob {
		blob[i] = byte(r.IntN(256))
	}
	var urls strings.Builder
	for i := range 500 {
		fmt.Fprintf(&urls, "see https://example.com/docs/v%d/page?id=%d&lang=en#section-%d and mailto:team%d@example.org\n", i%9, i, i%5, i)
	}
	return map[string]string{
		"prose": prose.String(), "code": code.String(), "json compact": string(compact), "json indented": string(indented),
		"table": table.String(), "chinese": chinese, "base64": base64.StdEncoding.EncodeToString(blob), "urls": urls.String(),
		"mixed": prose.String()[:5000] + string(indented[:5000]) + chinese[:3000] + code.String()[:5000],
	}
}

// Counting in parts gives exactly the tokenizer's count of the whole text for text as it
// reaches a conversation, in both encodings and whatever the chunk size.
func TestSplitCountsNormalTextExactly(t *testing.T) {
	for name, text := range normalTexts() {
		for _, enc := range []string{O200kBase, CL100kBase} {
			tk, err := shared[enc].get()
			if err != nil {
				t.Fatal(err)
			}
			want := len(tk.EncodeOrdinary(text))
			for _, chunk := range []int{1, 100, chunkBytes} {
				got := 0
				forced := split(text, chunk, maxRun, func(part string) { got += len(tk.EncodeOrdinary(part)) })
				if forced || got != want {
					t.Errorf("%s, %s, chunks of %d: %d tokens (forced cuts %v), want %d", name, enc, chunk, got, forced, want)
				}
			}
		}
	}
}

// Long runs without a place to cut are cut anyway: each part stays short, the count stays
// close (within about a token per cut, on the high side for these runs).
func TestSplitBoundsRuns(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		name string
		text string
	}{
		{"one letter", strings.Repeat("a", 100_000)},
		{"spaces", strings.Repeat(" ", 100_000)},
		{"punctuation", strings.Repeat("=", 100_000)},
		{"digits", strings.Repeat("7", 100_000)},
		{"cjk", strings.Repeat("中", 40_000)},
		{"one long word", strings.Repeat("abcdefghij", 10_000)},
	} {
		longest := 0
		split(tc.text, chunkBytes, maxRun, func(part string) { longest = max(longest, longestRun(part)) })
		if longest > maxRun+4 {
			t.Errorf("%s: a part with a %d-byte run", tc.name, longest)
		}
		tk, _ := shared[O200kBase].get()
		exact := len(tk.EncodeOrdinary(tc.text[:20_000]))
		got := c.Count("gpt-4o", tc.text[:20_000])
		cuts := 20_000/maxRun + 1
		if got < exact || got > exact+2*cuts {
			t.Errorf("%s: %d tokens, exact %d (%d cuts)", tc.name, got, exact, cuts)
		}
	}
	if n := c.Count("gpt-4o", strings.Repeat("7", 30_000)); n != 10_000 {
		t.Errorf("digits are counted in threes: %d", n)
	}
}

// A long run of numbers is cut after a multiple of three of them counted from where the
// run starts, also when it starts where nothing is cut (after a space, after bytes that
// are not UTF-8, after a letter and a number of two bytes): its count stays exact.
func TestSplitCutsNumbersInThrees(t *testing.T) {
	var texts []string
	for n := 600; n < 603; n++ {
		digits := strings.Repeat("7", n)
		texts = append(texts, digits, "a "+digits, "a\xdf"+digits, "x\xdf\xdf"+digits+"\xdf"+digits, "x٣"+digits, "{"+digits+"\r ")
	}
	for _, text := range texts {
		for _, enc := range []string{O200kBase, CL100kBase} {
			tk, err := shared[enc].get()
			if err != nil {
				t.Fatal(err)
			}
			got, parts := 0, 0
			forced := split(text, 8, maxRun, func(p string) { got += len(tk.EncodeOrdinary(p)); parts++ })
			if want := len(tk.EncodeOrdinary(text)); forced || got != want || parts < 3 {
				t.Errorf("%s, %q…: %d tokens in %d parts (forced cuts %v), want %d", enc, text[:4], got, parts, forced, want)
			}
		}
	}
}

// longestRun is the longest stretch of part without a place the tokenizer's pre-split is
// sure to cut: an upper bound of its longest piece.
func longestRun(part string) int {
	longest, start := 0, 0
	var prev rune
	pc := classOther
	i := 0
	for j, r := range part {
		c := classOf(r)
		if j > 0 && safeCut(prev, pc, r, c) {
			start = j
		}
		longest = max(longest, j-start+1)
		prev, pc, i = r, c, j
	}
	_ = i
	return longest
}

// Whatever the text, when no run had to be cut the parts add up to the exact count.
func FuzzSplitIsExact(f *testing.F) {
	for _, s := range []string{"hello world", "it's 4,711 EUR.\n\n", "a\tb  c\r\nd", "中文，测试。123abc", "x=1;y=22;z=333",
		"'s'S 'LL", "\u0301a\u200bb", "\xff\xfe bad utf8", "  \n  \t "} {
		f.Add(s, uint8(3))
	}
	tk, err := shared[O200kBase].get()
	if err != nil {
		f.Fatal(err)
	}
	cl, err := shared[CL100kBase].get()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, chunk uint8) {
		if len(text) > 4096 {
			return
		}
		for _, enc := range []struct {
			name string
			n    func(string) int
		}{{O200kBase, func(s string) int { return len(tk.EncodeOrdinary(s)) }}, {CL100kBase, func(s string) int { return len(cl.EncodeOrdinary(s)) }}} {
			got := 0
			var parts []string
			forced := split(text, int(chunk)+1, maxRun, func(p string) { got += enc.n(p); parts = append(parts, p) })
			if strings.Join(parts, "") != text {
				t.Fatalf("parts do not make up the text: %q", parts)
			}
			if !forced && got != enc.n(text) {
				t.Fatalf("%s: %q in parts %q: %d tokens, whole %d", enc.name, text, parts, got, enc.n(text))
			}
		}
	})
}

// BenchmarkCountAdversarial shows the time per byte of counting does not grow with the
// size of the input, for texts built to be slow and for normal text (ns/op divided by the
// bytes: compare the MB/s of the sizes of one kind).
func BenchmarkCountAdversarial(b *testing.B) {
	c := New()
	if err := c.Warm(); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	random := func(n int) string {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.IntN(256))
		}
		return string(p)
	}
	noSpaces := func(n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			sb.WriteString("lorem_ipsum-dolor.sit/amet:consectetur")
		}
		return sb.String()[:n]
	}
	kinds := []struct {
		name string
		make func(n int) string
	}{
		{"one-letter", func(n int) string { return strings.Repeat("a", n) }},
		{"spaces", func(n int) string { return strings.Repeat(" ", n) }},
		{"no-spaces", noSpaces},
		{"random-bytes", random},
		{"normal", sampleMessage},
	}
	for _, k := range kinds {
		for _, size := range []int{16 << 10, 64 << 10, 256 << 10, 1 << 20} {
			text := k.make(size)
			b.Run(fmt.Sprintf("%s/%dKB", k.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					c.Count("gpt-4o", text)
				}
			})
		}
	}
}
