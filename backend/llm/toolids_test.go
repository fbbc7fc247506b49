package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"crewagent/backend/llm/fakellm"
)

func TestDuplicateToolCallIDsMadeUnique(t *testing.T) {
	calls := []fakellm.ToolCall{
		{ID: "dup", Name: "fs.write", Arguments: `{"path":"a.txt","content":"A"}`, ArgChunks: 3},
		{ID: "dup", Name: "fs.write", Arguments: `{"path":"b.txt","content":"B"}`, ArgChunks: 2},
	}
	tests := []struct {
		name string
		resp fakellm.Response
	}{
		{"one id at two indexes", fakellm.Response{ToolCalls: calls}},
		{"one id at two indexes, interleaved", fakellm.Response{ToolCalls: calls, Interleave: true}},
		{"the first call's id repeated", fakellm.Response{ToolCalls: calls, CallIDs: fakellm.IDsSame}},
		{"no ids", fakellm.Response{ToolCalls: calls, CallIDs: fakellm.IDsEmpty}},
		{"no ids, interleaved", fakellm.Response{ToolCalls: calls, CallIDs: fakellm.IDsEmpty, Interleave: true}},
		{"one index, one id", fakellm.Response{ToolCalls: calls, OneIndex: true}},
		{"one index, no ids", fakellm.Response{ToolCalls: calls, OneIndex: true, CallIDs: fakellm.IDsEmpty}},
		{"non-streamed answer", fakellm.Response{ToolCalls: calls, JSON: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.Enqueue(tt.resp)
			rec := newRecorder()
			req := userReq("write both")
			req.Tools = []Tool{{Name: "fs.write"}}
			res, err := New(testConfig(srv)).Stream(context.Background(), req, rec)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ToolCalls) != 2 {
				t.Fatalf("tool calls = %+v", res.ToolCalls)
			}
			a, b := res.ToolCalls[0], res.ToolCalls[1]
			if a.ID == "" || b.ID == "" || a.ID == b.ID {
				t.Fatalf("ids %q and %q", a.ID, b.ID)
			}
			if a.Function.Arguments != calls[0].Arguments || b.Function.Arguments != calls[1].Arguments || a.Function.Name != "fs.write" || b.Function.Name != "fs.write" {
				t.Fatalf("calls %+v", res.ToolCalls)
			}
			if rec.count("start:0:"+a.ID+":fs.write") != 1 || rec.count("start:1:"+b.ID+":fs.write") != 1 {
				t.Fatalf("announced %v, result ids %s %s", rec.events, a.ID, b.ID)
			}
		})
	}
}

func TestDuplicateToolCallIDsComplete(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{ToolCalls: []fakellm.ToolCall{
		{ID: "dup", Name: "fs.read", Arguments: `{"path":"a"}`},
		{ID: "dup", Name: "fs.read", Arguments: `{"path":"b"}`},
		{Name: "fs.read", Arguments: `{"path":"c"}`},
	}, CallIDs: ""})
	req := userReq("read")
	req.Tools = []Tool{{Name: "fs.read"}}
	res, err := New(testConfig(srv)).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range res.ToolCalls {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("calls %+v", res.ToolCalls)
		}
		seen[c.ID] = true
	}
	if len(seen) != 3 || res.ToolCalls[0].ID != "dup" {
		t.Fatalf("calls %+v", res.ToolCalls)
	}
}

// FuzzAssembleToolCalls feeds the assembler tool call fragments with any indexes, ids,
// names and argument pieces, in any order: every fragment's arguments end up in exactly
// one call, every call has an id of its own, and the calls announced are the calls
// returned.
func FuzzAssembleToolCalls(f *testing.F) {
	f.Add([]byte{0, 1, 1, 3, '{', '}', ' ', 1, 1, 1, 2, '{', '}'})
	f.Add([]byte{0, 1, 1, 2, '{', '}', 0, 1, 1, 2, '{', '}'})
	f.Add([]byte{255, 0, 2, 1, '{', 255, 0, 0, 1, '}', 255, 2, 1, 0})
	f.Add([]byte{0, 0, 1, 0, 0, 0, 0, 4, '{', '"', 'a', '"', 0, 0, 1, 2, '{', '}'})
	ids := []string{"", "dup", "a", "b"}
	names := []string{"", "fs_read", "fs_list"}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec := newRecorder()
		a := newAssembler(NewNameMap("fs.read", "fs.list"), rec)
		total := 0
		for len(data) >= 4 {
			idx, id, name, n := data[0], ids[int(data[1])%len(ids)], names[int(data[2])%len(names)], int(data[3])%8
			data = data[4:]
			if n > len(data) {
				n = len(data)
			}
			args := string(data[:n])
			data = data[n:]
			total += len(args)
			tc := openai.ToolCall{ID: id, Type: "function", Function: openai.FunctionCall{Name: name, Arguments: args}}
			if idx != 255 {
				i := int(idx % 4)
				tc.Index = &i
			}
			a.add(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{tc}}}}})
		}
		var res Result
		a.fill(&res)
		got := 0
		seen := map[string]bool{}
		for _, c := range res.ToolCalls {
			got += len(c.Function.Arguments)
			if c.ID == "" || seen[c.ID] {
				t.Fatalf("id %q empty or repeated: %+v", c.ID, res.ToolCalls)
			}
			seen[c.ID] = true
		}
		if got != total {
			t.Fatalf("arguments: %d bytes in the calls, %d sent", got, total)
		}
		for _, e := range rec.events {
			if !strings.HasPrefix(e, "start:") {
				continue
			}
			parts := strings.SplitN(e, ":", 4)
			if !seen[parts[2]] {
				t.Fatalf("announced %s is not a returned call: %+v", e, res.ToolCalls)
			}
		}
		announced := strings.Join(rec.events, "\n")
		for _, c := range res.ToolCalls {
			if c.Function.Name != "" && !strings.Contains(announced, ":"+c.ID+":") {
				t.Fatalf("call %+v never announced: %v", c, rec.events)
			}
		}
	})
}

// A server that repeats a call's id and name with every fragment, a trailing blank one
// included, still makes one call.
func TestRepeatedAnnouncementIsOneCall(t *testing.T) {
	srv := newFake(t)
	open := func(args string) string {
		b, _ := json.Marshal(args)
		return ev(chunk(`{"tool_calls":[{"index":0,"id":"call_7","type":"function","function":{"name":"fs_read","arguments":`+string(b)+`}}]}`, ""))
	}
	srv.Enqueue(fakellm.Response{Raw: []string{open(`{"path":`), open(`"a"}`), open(" "), ev(toolStop), ev("[DONE]")}})
	rec := newRecorder()
	req := userReq("read")
	req.Tools = []Tool{{Name: "fs.read"}}
	res, err := New(testConfig(srv)).Stream(context.Background(), req, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].ID != "call_7" || strings.TrimSpace(res.ToolCalls[0].Function.Arguments) != `{"path":"a"}` || rec.count("start:") != 1 {
		t.Fatalf("calls %+v, events %v", res.ToolCalls, rec.events)
	}
}
