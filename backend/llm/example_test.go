package llm_test

import (
	"context"
	"fmt"
	"strings"

	"crewagent/backend/conversation"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
)

// printer is a Handler that prints what streams in.
type printer struct{}

func (printer) OnDelta(text string) { fmt.Printf("delta %q\n", text) }

func (printer) OnToolCallStart(i int, id, name string) { fmt.Printf("tool %d %s %s\n", i, id, name) }

func ExampleClient_Stream() {
	srv := fakellm.New()
	defer srv.Close()
	srv.Enqueue(
		fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "fs.list", Arguments: `{"path":"@project"}`, ArgChunks: 2}),
		fakellm.Response{Text: "Two files, then the line drops", Chunks: 3, Cut: true, CutAfter: 3},
	)
	client := llm.New(llm.Config{BaseURL: srv.URL(), Model: "fake-model"})
	req := llm.Request{
		Messages: []llm.Message{{Role: conversation.RoleUser, Content: conversation.Str("list my files")}},
		Tools:    []llm.Tool{{Name: "fs.list", Description: "List a folder"}},
	}
	var handler printer

	res, err := client.Stream(context.Background(), req, handler)
	fmt.Println(err, res.ToolCalls[0].Function.Name, res.ToolCalls[0].Function.Arguments, res.FinishReason)

	// the second answer breaks off after two chunks: the partial text and the error block
	// are what the caller persists
	res, err = client.Stream(context.Background(), req, handler)
	block := strings.Split(llm.ErrorBlockOf(err).Format(), "\n")
	fmt.Printf("%q\n%s\n", res.Content, strings.Join(block[:4], "\n"))
	// Output:
	// tool 0 call_1 fs.list
	// <nil> fs.list {"path":"@project"} tool_calls
	// delta "Two files,"
	// delta " then the "
	// "Two files, then the "
	// LLM_ERROR
	// - code: LLM_STREAM_INCOMPLETE
	// - message: the connection closed before the answer was finished (the stream was cut mid-answer)
	// - retryable: true
}
