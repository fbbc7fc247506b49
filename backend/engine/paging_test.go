package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// pagingPlan is what a tool result's preview says about reading the rest.
var pagingPlan = regexp.MustCompile(`Read it in parts: fs\.read (\S+) with startLine/endLine \((\d+) lines; about (\d+) lines per read\)`)

// A 300 KB tool output (an fs.read of a 300 KB file) is kept as a preview that says how to
// read the rest; a model that follows it pages through the readable copy with fs.read line
// ranges, each page small enough to stay in the conversation, and gets every line of the
// output, in order.
func TestPagingALargeToolOutput(t *testing.T) {
	f := newFixture(t, nil)
	var file strings.Builder
	for i := 1; file.Len() < 300<<10; i++ {
		fmt.Fprintf(&file, "line %05d: the quarterly numbers for region %d are in this row\n", i, i%17)
	}
	if err := os.WriteFile(filepath.Join(f.root, "big.txt"), []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "read_big", Name: "fs.read", Arguments: `{"path":"@project/big.txt"}`}))
	// The model: follow the preview's plan, one page after the other, then answer.
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		var plan []string
		next := 1
		for _, m := range r.Messages {
			if p := pagingPlan.FindStringSubmatch(m.Text()); m.Role == "tool" && p != nil {
				plan = p
			}
			for _, c := range m.ToolCalls {
				var a struct{ EndLine int }
				if json.Unmarshal([]byte(c.Arguments), &a) == nil && a.EndLine > 0 {
					next = a.EndLine + 1
				}
			}
		}
		if plan == nil {
			return fakellm.Text("no plan in the preview")
		}
		total, _ := strconv.Atoi(plan[2])
		per, _ := strconv.Atoi(plan[3])
		if next > total {
			return fakellm.Text("I have read all of it.")
		}
		args, _ := json.Marshal(map[string]any{"path": plan[1], "startLine": next, "endLine": min(total, next+per-1)})
		return fakellm.Tools(fakellm.ToolCall{ID: fmt.Sprintf("page_%d", next), Name: "fs.read", Arguments: string(args)})
	})
	res := f.send(SendRequest{Text: "read big.txt", Mode: "agent", AgentID: "analyst"})
	if res.Err != nil || res.Text != "I have read all of it." {
		t.Fatalf("%+v (%v)", res, res.Err)
	}

	var first *conversation.Entry
	var pages strings.Builder
	npages := 0
	for _, m := range f.messages(res.ConversationID) {
		if m.Role != conversation.RoleTool {
			continue
		}
		if m.ToolCallID == "read_big" {
			first = m
			continue
		}
		if m.FullOutputPath != "" || m.IsError {
			t.Fatalf("page %s was not kept in the conversation: %.200s", m.ToolCallID, m.Text())
		}
		var page struct {
			Content   string `json:"content"`
			Truncated bool   `json:"truncated"`
		}
		if err := json.Unmarshal([]byte(m.Text()), &page); err != nil || page.Truncated {
			t.Fatalf("page %s: %v %.200s", m.ToolCallID, err, m.Text())
		}
		pages.WriteString(page.Content)
		npages++
	}
	if first == nil || !strings.HasPrefix(first.Text(), conversation.PreviewPrefix) || !pagingPlan.MatchString(first.Text()) {
		t.Fatalf("the 300 KB result is not a preview with a plan: %.300s", first.Text())
	}
	readable, err := os.ReadFile(filepath.Join(f.dataDir, "logs", "tool-results", res.ConversationID, first.ID+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	if pages.String() != string(readable) {
		t.Fatalf("the pages (%d bytes) are not the readable output (%d bytes)", pages.Len(), len(readable))
	}
	if !strings.Contains(pages.String(), file.String()) {
		t.Fatal("the file's lines are not all there, in order")
	}
	if npages < 8 || res.Turns != npages+2 {
		t.Fatalf("%d pages in %d turns", npages, res.Turns)
	}
	t.Logf("%d KB output read in %d pages", len(readable)>>10, npages)
}
