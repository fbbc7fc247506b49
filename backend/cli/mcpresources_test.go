//go:build linux

package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"crewagent/backend/llm/fakellm"
	"crewagent/backend/mcp/mcptest"
)

// mcp resources, read, prompts and prompt against the real "everything" server.
func TestMCPResourcesAndPromptsCommands(t *testing.T) {
	c := newMCPEnv(t)
	c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{"everything": c.everything("res-1", nil)})
	const doc = "demo://resource/static/document/architecture.md"
	cases := []struct {
		args     []string
		code     int
		stdout   []string
		stderr   string
		jsonKeys []string
	}{
		{args: []string{"mcp", "resources"}, stdout: []string{"everything\t" + doc + "\ttext/markdown\t", "(template)"}},
		{args: []string{"mcp", "resources", "everything", "--json"}, jsonKeys: []string{"resources", "templates"}, stdout: []string{`"uri": "` + doc + `"`}},
		{args: []string{"mcp", "read", "everything", doc}, stdout: []string{"Architecture"}},
		{args: []string{"mcp", "read", "everything", "demo://nothing/here"}, code: ExitError, stderr: "reading demo://nothing/here failed"},
		{args: []string{"mcp", "read", "nobody", doc}, code: ExitError, stderr: "nobody"},
		{args: []string{"mcp", "prompts", "everything"}, stdout: []string{"everything\targs-prompt\t", "  city (required)\tName of the city"}},
		{args: []string{"mcp", "prompt", "everything", "args-prompt", "city=Paris"}, stdout: []string{"user: What's weather in Paris?"}},
		{args: []string{"mcp", "prompt", "everything", "args-prompt", "Paris"}, code: ExitError, stderr: `"Paris" is not ARG=VALUE`},
		{args: []string{"mcp", "prompts", "a", "b"}, code: ExitError, stderr: "usage: crewagent mcp prompts [SERVER]"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := c.runStdin(t, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("%+v", r)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(r.stdout, want) {
					t.Fatalf("stdout lacks %q:\n%s", want, r.stdout)
				}
			}
			if tc.jsonKeys != nil {
				var m map[string]json.RawMessage
				if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
					t.Fatal(err)
				}
				for _, k := range tc.jsonKeys {
					if _, ok := m[k]; !ok {
						t.Fatalf("no %q in %s", k, r.stdout)
					}
				}
			}
		})
	}
}

// A tool returns resource links; the model reads one through mcp__read_resource.
func TestChatReadsAResourceLinkATookReturned(t *testing.T) {
	c := newMCPEnv(t)
	c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{"everything": c.everything("res-2", nil)})
	var w mcptest.Watch
	script(c.srv, &w, nil,
		fakellm.Tools(call("call_links", "mcp__everything__get-resource-links", `{"count":1}`)),
		fakellm.Tools(call("call_read", "mcp__read_resource", `{"server":"everything","uri":"demo://resource/dynamic/blob/1"}`)),
		fakellm.Text("Read it."))
	r := c.runStdin(t, "", "chat", "--json", "what do the resources say?")
	if r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	reqs := c.srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	def := findTool(reqs[0], "mcp__read_resource")
	if def == nil || !strings.Contains(string(def.Parameters), `"everything"`) {
		t.Fatalf("mcp__read_resource not offered: %v", reqs[0].ToolNames())
	}
	links := toolMessages(reqs[1])["call_links"]
	if !strings.Contains(links, `"resourceLinks"`) || !strings.Contains(links, "demo://resource/dynamic/blob/1") {
		t.Fatalf("links result %q", links)
	}
	read := toolMessages(reqs[2])["call_read"]
	// A text/plain blob reaches the model as text.
	if !strings.Contains(read, `"ok":true`) || !strings.Contains(read, "Resource 1") || strings.Contains(read, "attachments") {
		t.Fatalf("read result %q", read)
	}
}
