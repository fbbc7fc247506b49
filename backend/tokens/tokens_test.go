package tokens

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"crewagent/backend/conversation"
)

// Token ids below are those of OpenAI's reference tokenizer (tiktoken), e.g.
// cl100k_base "tiktoken is great!" = [83 1609 5963 374 2294 0] from its README.
func TestKnownTokenIDs(t *testing.T) {
	New()
	cases := []struct {
		enc  string
		text string
		ids  []int
	}{
		{CL100kBase, "hello world", []int{15339, 1917}},
		{O200kBase, "hello world", []int{24912, 2375}},
		{CL100kBase, "tiktoken is great!", []int{83, 1609, 5963, 374, 2294, 0}},
		{O200kBase, "tiktoken is great!", []int{83, 8251, 2488, 382, 2212, 0}},
		{CL100kBase, "<|endoftext|>", []int{27, 91, 8862, 728, 428, 91, 29}},
	}
	for _, tc := range cases {
		tk, err := shared[tc.enc].get()
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.EncodeOrdinary(tc.text); !slices.Equal(got, tc.ids) {
			t.Errorf("%s %q: ids %v, want %v", tc.enc, tc.text, got, tc.ids)
		}
	}
}

// countCase is one expected result of Counter.Count.
type countCase struct {
	model string
	text  string
	want  int
}

func checkCounts(t *testing.T, cases []countCase) {
	t.Helper()
	c := New()
	for _, tc := range cases {
		if got := c.Count(tc.model, tc.text); got != tc.want {
			t.Errorf("Count(%q, %q) = %d, want %d", tc.model, tc.text, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	checkCounts(t, []countCase{
		{"gpt-4o", "", 0},
		{"gpt-4o", "hello world", 2},
		{"gpt-4", "hello world", 2},
		{"gpt-4o", "Hello, world!", 4},
		{"gpt-3.5-turbo", "Hello, world!", 4},
		{"gpt-4o", "tiktoken is great!", 6},
		{"gpt-4", "tiktoken is great!", 6},
		// CJK text is where the two vocabularies differ most.
		{"gpt-4o", "你好，世界", 3},
		{"gpt-4", "你好，世界", 6},
		{"gpt-4o", `{"path":"@project/README.md"}`, 9},
		{"llama3", "hello world", 2},
	})
}

// Special-token strings in user text are ordinary text: no panic, and each
// one costs several tokens instead of being collapsed into one special id.
func TestSpecialTokenStrings(t *testing.T) {
	checkCounts(t, []countCase{
		{"gpt-4", "<|endoftext|>", 7},
		{"gpt-4o", "<|endoftext|>", 7},
		{"gpt-4", "<|endoftext|>hi<|fim_prefix|>", 15},
		{"gpt-4o", "<|endoftext|>hi<|fim_prefix|>", 14},
		{"gpt-4o", "<|endofprompt|>", 7},
	})
}

func TestEncodingFor(t *testing.T) {
	c := New()
	cases := map[string]string{
		"gpt-4o":                 O200kBase,
		"gpt-4o-mini":            O200kBase,
		"gpt-4o-2024-08-06":      O200kBase,
		"chatgpt-4o-latest":      O200kBase,
		"gpt-4.1":                O200kBase,
		"gpt-4.1-nano":           O200kBase,
		"gpt-4.5-preview":        O200kBase,
		"gpt-5":                  O200kBase,
		"gpt-5-mini":             O200kBase,
		"o1":                     O200kBase,
		"o1-preview":             O200kBase,
		"o3-mini":                O200kBase,
		"o4-mini":                O200kBase,
		"gpt-4":                  CL100kBase,
		"gpt-4-0613":             CL100kBase,
		"gpt-4-turbo":            CL100kBase,
		"gpt-4-32k":              CL100kBase,
		"GPT-4":                  CL100kBase,
		" gpt-4 ":                CL100kBase,
		"openai/gpt-4":           CL100kBase,
		"openai/gpt-4o":          O200kBase,
		"gpt-3.5-turbo":          CL100kBase,
		"gpt-3.5-turbo-16k":      CL100kBase,
		"text-embedding-ada-002": CL100kBase,
		"text-embedding-3-small": CL100kBase,
		"":                       O200kBase,
		"llama3":                 O200kBase,
		"llama3.1:8b":            O200kBase,
		"qwen2.5-coder:7b":       O200kBase,
		"mistral-large-latest":   O200kBase,
		"deepseek-chat":          O200kBase,
	}
	for model, want := range cases {
		if got := c.EncodingFor(model); got != want {
			t.Errorf("EncodingFor(%q) = %q, want %q", model, got, want)
		}
	}
}

func TestCountMessage(t *testing.T) {
	c := New()
	const model = "gpt-4o"
	cases := []struct {
		name string
		e    *conversation.Entry
		want int
	}{
		{"nil", nil, 0},
		{"event", &conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventCheckpoint, Data: []byte(`{"name":"hello world"}`)}, 0},
		{"null content", &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleAssistant}, MessageOverhead},
		{"user", &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str("hello world")}, MessageOverhead + 2},
		{"tool calls", &conversation.Entry{
			Type: conversation.TypeMsg, Role: conversation.RoleAssistant, Content: conversation.Str("hello world"),
			ToolCalls: []conversation.ToolCall{
				{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/README.md"}`}},
				{ID: "call_2", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: ""}},
			},
		}, MessageOverhead + 2 + (2 + 9) + (2 + 0)},
		{"tool result", &conversation.Entry{
			Type: conversation.TypeMsg, Role: conversation.RoleTool, Content: conversation.Str("hello world"),
			ToolCallID: "call_abc123", ToolName: "fs.read",
		}, MessageOverhead + 2 + 4 + 2},
	}
	for _, tc := range cases {
		if got := c.CountMessage(model, tc.e); got != tc.want {
			t.Errorf("%s: CountMessage = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestForModel(t *testing.T) {
	c := New()
	e := &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str("你好，世界")}
	for _, tc := range []struct {
		model, enc string
		n          int
	}{
		{"gpt-4o", O200kBase, MessageOverhead + 3},
		{"gpt-4", CL100kBase, MessageOverhead + 6},
	} {
		mc := c.ForModel(tc.model)
		n, enc := mc.CountEntry(e)
		if n != tc.n || enc != tc.enc {
			t.Errorf("ForModel(%q).CountEntry = (%d, %q), want (%d, %q)", tc.model, n, enc, tc.n, tc.enc)
		}
		if m, ok := mc.(*ModelCounter); !ok || m.Model() != tc.model {
			t.Errorf("ForModel(%q) = %#v", tc.model, mc)
		}
	}
}

func TestEstimate(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "abc": 1, "abcd": 2, strings.Repeat("x", 300): 100} {
		if got := estimate(text); got != want {
			t.Errorf("estimate(%d bytes) = %d, want %d", len(text), got, want)
		}
	}
}

func TestWarm(t *testing.T) {
	if err := New().Warm(); err != nil {
		t.Fatal(err)
	}
}

// Run with -race: many goroutines share the encoders through separate Counters.
func TestConcurrentCount(t *testing.T) {
	texts := []string{"hello world", "tiktoken is great!", "<|endoftext|>", "你好，世界", sampleMessage(1024)}
	models := []string{"gpt-4o", "gpt-4"}
	want := map[string]int{}
	ref := New()
	for _, m := range models {
		for _, s := range texts {
			want[m+"\x00"+s] = ref.Count(m, s)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			c := New()
			for i := 0; i < 20; i++ {
				m := models[(g+i)%len(models)]
				s := texts[(g+i)%len(texts)]
				if got := c.Count(m, s); got != want[m+"\x00"+s] {
					errs <- fmt.Sprintf("goroutine %d: Count(%q, %d bytes) = %d, want %d", g, m, len(s), got, want[m+"\x00"+s])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// sampleMessage returns about n bytes of mixed prose, code and JSON.
func sampleMessage(n int) string {
	const chunk = "The build failed in `backend/convlog/store.go:118` with \"unexpected EOF\".\n" +
		"```go\nif err := f.Sync(); err != nil { return fmt.Errorf(\"sync: %w\", err) }\n```\n" +
		`{"path":"@project/docs/plan.md","startLine":1,"endLine":40} 你好，世界。` + "\n"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(chunk)
	}
	return b.String()[:n]
}

func BenchmarkCountMessage1KB(b *testing.B) {
	c := New()
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		e := &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str(sampleMessage(1024))}
		c.CountMessage(model, e) // build the encoder outside the timed loop
		b.Run(c.EncodingFor(model), func(b *testing.B) {
			b.SetBytes(1024)
			for b.Loop() {
				c.CountMessage(model, e)
			}
		})
	}
}

// MaxTokenBytes is at least the longest token of every vocabulary counted
// with, so size/MaxTokenBytes never exceeds a text's count.
func TestMaxTokenBytesBoundsTheVocabularies(t *testing.T) {
	files := map[string]string{O200kBase: "o200k_base.tiktoken", CL100kBase: "cl100k_base.tiktoken"}
	for enc, file := range files {
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(file)
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for tok := range ranks {
			longest = max(longest, len(tok))
		}
		if len(ranks) < 100000 || longest > MaxTokenBytes {
			t.Errorf("%s: %d tokens, the longest %d bytes: MaxTokenBytes (%d) must be at least that", enc, len(ranks), longest, MaxTokenBytes)
		}
	}
	c := New()
	for _, text := range []string{strings.Repeat(" ", 100000), strings.Repeat("=", 100000), strings.Repeat("a", 100000), strings.Repeat("<|endoftext|>", 5000)} {
		for _, model := range []string{"gpt-4o", "gpt-4"} {
			if n := c.Count(model, text); n < len(text)/MaxTokenBytes {
				t.Errorf("%s counts %d tokens for %d bytes of %q…: fewer than size/MaxTokenBytes", model, n, len(text), text[:5])
			}
		}
	}
}
