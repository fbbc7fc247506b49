package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/llm/fakellm"
	"crewagent/backend/project"
)

// A corrupt settings.json does not stop the commands that only read: they warn and use the
// defaults. Commands that talk to the LLM refuse, naming the file.
func TestCorruptSettingsDoNotBlockReading(t *testing.T) {
	home, root, convID, _ := fixture(t)
	writeSettings(t, home, `{"llm": {"model": "x",}`)
	for _, args := range [][]string{
		{"conversations", "list"},
		{"conversations", "show", convID},
		{"--json", "conversations", "list"},
		{"context", convID},
		{"run", "list"},
	} {
		r := run(t, "", append(args, "--home", home, "--project", root)...)
		if r.code != ExitOK || !strings.Contains(r.stderr, "warning: settings file") || !strings.Contains(r.stderr, "using the default settings") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	r := run(t, "", "chat", "--conversation", convID, "hi", "--home", home, "--project", root)
	if r.code != ExitError || !strings.Contains(r.stderr, "settings file") || !strings.Contains(r.stderr, "is not valid") {
		t.Fatalf("chat: %+v", r)
	}
}

// Successful commands print nothing on stderr, even when the store repairs or skips
// something; --verbose shows those diagnostics.
func TestSuccessfulCommandsAreQuietOnStderr(t *testing.T) {
	home, root, convID, _ := fixture(t)
	p, err := project.Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(p.DataDir, "conversations", convID, "messages.jsonl")
	f, err := os.OpenFile(logFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("this line is damaged\n{\"type\":\"msg\",\"id\":\"torn") // a corrupt line and a torn last line
	f.Close()
	os.Remove(filepath.Join(p.DataDir, "conversations", "index.json")) // rebuilt on open

	for _, args := range [][]string{
		{"conversations", "list"},
		{"conversations", "show", convID},
		{"conversations", "checkpoint", convID, "before"},
		{"conversations", "fork", convID},
	} {
		r := runProcess(t, append(args, "--home", home, "--project", root)...)
		if r.code != ExitOK || r.stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	r := runProcess(t, "conversations", "show", convID, "--verbose", "--home", home, "--project", root)
	if r.code != ExitOK || !strings.Contains(r.stderr, "skipping corrupt line") {
		t.Fatalf("--verbose: %+v", r)
	}
}

// The commands that talk to the model are as quiet: chat (whose only line on
// stderr is the documented id of a new conversation), context and the run
// commands, each in a process of its own against the fake server.
func TestLLMCommandsAreQuietOnStderr(t *testing.T) {
	c := newLLMEnv(t)
	at := []string{"--home", c.home, "--project", c.root}
	quiet := func(what string, r runResult) {
		t.Helper()
		if r.code != ExitOK || r.stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", what, r.code, r.stderr)
		}
	}

	c.srv.Enqueue(fakellm.Text("Hello."))
	r := runProcess(t, append([]string{"chat", "hello"}, at...)...)
	convID, ok := strings.CutPrefix(r.stderr, "conversation ")
	convID, nl := strings.CutSuffix(convID, "\n")
	if r.code != ExitOK || r.stdout != "Hello.\n" || !ok || !nl || strings.ContainsAny(convID, " \n") || len(convID) != 36 {
		t.Fatalf("chat in a new conversation: want only its id on stderr, got %+v", r)
	}
	c.srv.Enqueue(fakellm.Text("Again."))
	quiet("chat --conversation", runProcess(t, append([]string{"chat", "--conversation", convID, "again"}, at...)...))
	c.srv.Enqueue(fakellm.Text("In JSON."))
	quiet("chat --json", runProcess(t, append([]string{"chat", "--json", "new one"}, at...)...))
	quiet("context", runProcess(t, append([]string{"context", convID}, at...)...))
	quiet("context --json", runProcess(t, append([]string{"context", convID, "--json"}, at...)...))

	// run start installs the demo package and binds it: quietly too.
	c.srv.Enqueue(fakellm.Text("Captured."))
	r = runProcess(t, append([]string{"run", "start", "--workflow", "write-brief", "--json", "A grocery list."}, at...)...)
	quiet("run start", r)
	var out runOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.RunID == "" {
		t.Fatalf("run start output %q: %v", r.stdout, err)
	}
	c.srv.Enqueue(fakellm.Text("Noted."))
	quiet("run continue", runProcess(t, append([]string{"run", "continue", out.RunID, "go on"}, at...)...))
	quiet("run status", runProcess(t, append([]string{"run", "status", out.RunID}, at...)...))
	quiet("run list", runProcess(t, append([]string{"run", "list"}, at...)...))
	quiet("context --mode run", runProcess(t, append([]string{"context", out.ConversationID, "--mode", "run"}, at...)...))
	if n := len(c.srv.ChatRequests()); n != 5 {
		t.Fatalf("%d model requests, want 5 (context never calls the model)", n)
	}
}

const cliArgsEnv = "CREWAGENT_TEST_CLI_ARGS"

// TestCLIProcess is the child of runProcess: the command line as main runs it, with the
// process's own standard streams.
func TestCLIProcess(t *testing.T) {
	raw := os.Getenv(cliArgsEnv)
	if raw == "" {
		t.Skip("helper process of runProcess")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		panic(err)
	}
	os.Exit(Run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr))
}

// runProcess runs a command in a process of its own and returns what it wrote to the real
// stdout and stderr (which is where anything logged through the default logger goes).
func runProcess(t *testing.T, args ...string) runResult {
	t.Helper()
	b, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), cliArgsEnv+"="+string(b))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{code, out.String(), errb.String()}
}

// settings.json saved with a byte order mark is read.
func TestSettingsWithByteOrderMark(t *testing.T) {
	c := newChatEnv(t)
	t.Setenv("CREWAGENT_LLM_MODEL", "")
	writeSettings(t, c.home, "\uFEFF"+`{"llm": {"model": "model-from-file"}}`)
	c.srv.Enqueue(fakellm.Text("fine"))
	r := c.run(t, "", "chat", "hello")
	if r.code != ExitOK || r.stdout != "fine\n" {
		t.Fatalf("chat: %+v", r)
	}
	if reqs := c.srv.ChatRequests(); len(reqs) != 1 || reqs[0].Model != "model-from-file" {
		t.Fatalf("requests: %+v", reqs)
	}
}

// Out-of-range settings are not used silently: each command warns on stderr
// in words, naming the field, the value and what is used instead, and goes
// on; --json output stays exactly JSON on stdout.
func TestOutOfRangeSettingsWarn(t *testing.T) {
	home, root, convID, _ := fixture(t)
	writeSettings(t, home, `{"context":{"tokenBudget":-5},"engine":{"maxTurns":-1,"maxInterruptChainDepth":-3}}`)
	want := []string{
		"context.tokenBudget must be a positive integer, got -5: the default of 128000 tokens is used",
		"engine.maxTurns must be a positive integer, got -1: the default of 30 is used",
		"engine.maxInterruptChainDepth must be 0 or more, got -3: handing a turn to another conversation (conv.create, conv.send) is off",
	}
	for _, args := range [][]string{
		{"conversations", "list"},
		{"--json", "conversations", "list"},
		{"conversations", "show", convID},
		{"context", convID},
	} {
		r := run(t, "", append(args, "--home", home, "--project", root)...)
		if r.code != ExitOK {
			t.Fatalf("%v: %+v", args, r)
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, w, r.stderr)
			}
		}
		if args[0] == "--json" && !json.Valid([]byte(r.stdout)) {
			t.Errorf("--json output is not JSON: %q", r.stdout)
		}
	}
	writeSettings(t, home, `{"engine":{"maxTurns":12}}`)
	if r := run(t, "", "conversations", "list", "--home", home, "--project", root); strings.Contains(r.stderr, "warning") {
		t.Fatalf("warned about valid settings: %s", r.stderr)
	}
}
