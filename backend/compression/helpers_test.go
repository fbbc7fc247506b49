package compression

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/tokens"
)

const testModel = "gpt-4o"

var counter = tokens.New()

// convo writes log entries the way the store does (ids, stored token counts).
type convo struct {
	entries []convlog.Entry
}

func (c *convo) add(e convlog.Entry) string {
	e.Type = convlog.TypeMsg
	e.ID = fmt.Sprintf("m%04d", len(c.entries)+1)
	e.Tokens = counter.CountMessage(testModel, &e)
	c.entries = append(c.entries, e)
	return e.ID
}

func (c *convo) user(text string) string {
	return c.add(convlog.Entry{Role: convlog.RoleUser, Content: convlog.Str(text)})
}

func (c *convo) assistant(text string) string {
	return c.add(convlog.Entry{Role: convlog.RoleAssistant, Content: convlog.Str(text)})
}

func (c *convo) system(text string) string {
	return c.add(convlog.Entry{Role: convlog.RoleSystem, Content: convlog.Str(text)})
}

// tool adds an assistant call and its result; it returns both ids.
func (c *convo) tool(name, args, result string) (string, string) {
	id := fmt.Sprintf("call_%d", len(c.entries)+1)
	a := c.add(convlog.Entry{Role: convlog.RoleAssistant, ToolCalls: []convlog.ToolCall{{ID: id, Type: "function", Function: convlog.FunctionCall{Name: name, Arguments: args}}}})
	r := c.add(convlog.Entry{Role: convlog.RoleTool, ToolCallID: id, ToolName: name, Content: convlog.Str(result)})
	return a, r
}

// round adds a typical round: question, a file read, an answer.
func (c *convo) round(i int, resultSize int) {
	c.user(fmt.Sprintf("Question %d: what does section %d of the brief say?", i, i))
	c.tool("fs.read", fmt.Sprintf(`{"path":"@project/docs/brief-%d.md"}`, i),
		`{"ok":true,"content":"`+strings.Repeat(fmt.Sprintf("Section %d line about the plan. ", i), resultSize/32+1)+`"}`)
	c.assistant(fmt.Sprintf("Section %d describes the plan in detail; the key point is item %d.", i, i))
}

type fakeRun []string

func (f fakeRun) Blocks() []string { return f }

// request builds the request of c with an unlimited window, as the engine
// does before deciding to compress.
func request(t testing.TB, c *convo, mode string) []Message {
	t.Helper()
	o := contextbuilder.Options{Mode: mode, History: c.entries, Counter: counter, Model: testModel,
		ToolPolicy: contextbuilder.ToolPolicy{Enabled: []string{"fs.read", "fs.write", "fs.list"}},
		Budget:     contextbuilder.Budget{TokenBudget: 1 << 30, MaxMessages: -1, MaxChars: -1}}
	if mode != convlog.ModeChat {
		o.Agent = &contextbuilder.Persona{ID: "analyst", Name: "Mary", Role: "Analyst"}
		o.Run = fakeRun{"RUN_DIRECTIVE\n- intent: continue", "NODE_BRIEF\n- currentNodeId: n3"}
	}
	res, err := contextbuilder.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	return res.Messages
}

func pipeline(budget int, primary Strategy) *Pipeline {
	return NewPipeline(Config{Budget: budget, Primary: primary, Counter: counter, Model: testModel})
}

func compress(t testing.TB, p *Pipeline, msgs []Message, loop int) *Result {
	t.Helper()
	res, err := p.Compress(context.Background(), msgs, loop)
	if err != nil {
		t.Fatal(err)
	}
	if err := contextbuilder.Validate(res.Output.Messages); err != nil {
		t.Fatalf("invalid output: %v\n%s", err, dump(res.Output.Messages))
	}
	if got := contextbuilder.TokensOf(res.Output.Messages); got != res.Output.TokensAfter {
		t.Fatalf("TokensAfter %d, messages cost %d", res.Output.TokensAfter, got)
	}
	return res
}

func dump(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		text := m.Text()
		if len(text) > 50 {
			text = text[:50] + "…"
		}
		fmt.Fprintf(&b, "%3d %-9s %-6s %5d %q\n", i, m.Role, m.SourceID, m.Tokens, text)
	}
	return b.String()
}

func has(msgs []Message, id string) *Message {
	for i := range msgs {
		if msgs[i].SourceID == id {
			return &msgs[i]
		}
	}
	return nil
}

func explanationOf(out *Output, id string) *Explanation {
	for i := range out.Explanation {
		ex := &out.Explanation[i]
		if ex.SourceID == id {
			return ex
		}
	}
	return nil
}

// llmSummarizer is the Summarizer the engine builds: the LLM client sending
// SummaryRequest.
type llmSummarizer struct{ c *llm.Client }

func (s llmSummarizer) Summarize(ctx context.Context, msgs []Message) (string, error) {
	var req llm.Request
	for _, m := range SummaryRequest(msgs, 0) {
		req.Messages = append(req.Messages, llm.Message{Role: m.Role, Content: m.Content})
	}
	res, err := s.c.Complete(ctx, req)
	if err != nil {
		return "", err
	}
	return res.Content, nil
}

// fakeServer starts the strict fake OpenAI server and a client without retries.
func fakeServer(t *testing.T) (*fakellm.Server, *llm.Client) {
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	return srv, llm.New(llm.Config{BaseURL: srv.URL(), Model: "gpt-4o-mini", MaxRetries: -1})
}

// unitOf returns the explanation of the unit holding the message with source id.
func unitOf(out *Output, in []Message, id string) *Explanation {
	for i := range out.Explanation {
		ex := &out.Explanation[i]
		for j := ex.Index; j < ex.Index+ex.Count; j++ {
			if in[j].SourceID == id {
				return ex
			}
		}
	}
	return nil
}
