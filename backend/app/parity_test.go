package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/cli"
	"crewagent/backend/convlog"
	"crewagent/backend/desktop"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
)

// parity is a runtime home with the demo package installed, a project bound
// to it, and a fake LLM that both adapters talk to (through the environment,
// which the window and the command line both read).
type parity struct {
	home, root string
	srv        *fakellm.Server
}

func newParity(t *testing.T) *parity {
	t.Helper()
	p := &parity{home: t.TempDir(), root: t.TempDir(), srv: fakellm.New()}
	t.Cleanup(p.srv.Close)
	t.Setenv("CREWAGENT_HOME", "")
	t.Setenv("CREWAGENT_LLM_BASE_URL", p.srv.URL())
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	t.Setenv("CREWAGENT_LLM_API_KEY", "")
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	if err := os.WriteFile(filepath.Join(p.root, "notes.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cli runs one command in the home and project.
func (p *parity) cli(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	args = append(args, "--home", p.home, "--project", p.root)
	if code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errb); code != cli.ExitOK {
		t.Fatalf("crewagent %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// window opens the project in a window's application and returns it with the
// events it emits.
func (p *parity) window(t *testing.T) (*desktop.App, *events.Recorder) {
	t.Helper()
	rec := &events.Recorder{}
	d := desktop.NewApp(p.home, nil, rec)
	if _, err := d.Projects.Open(p.root); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Projects.Close() })
	return d, rec
}

// send sends a message in the window and waits for the reply to end.
func send(t *testing.T, d *desktop.App, rec *events.Recorder, req app.SendRequest) {
	t.Helper()
	if err := d.Chat.Send(req); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		for _, e := range rec.Named(events.ConversationChanged) {
			if c := e.(events.ChangeEvent); c.ConversationID == req.ConversationID && c.Streaming != nil && !*c.Streaming {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the reply did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// request is what differs between two requests that should be the same: the
// system prompt, the tools and the tool result of the one call.
type request struct {
	system, tools, result string
}

func lastRequests(t *testing.T, srv *fakellm.Server, n int) []request {
	t.Helper()
	all := srv.ChatRequests()
	if len(all) < n {
		t.Fatalf("%d requests, want %d", len(all), n)
	}
	var out []request
	for _, r := range all[len(all)-n:] {
		var q request
		for _, m := range r.Messages {
			switch m.Role {
			case "system":
				q.system += m.Text() + "\n"
			case "tool":
				q.result += m.Text()
			}
		}
		names := r.ToolNames()
		slices.Sort(names)
		q.tools = strings.Join(names, ",")
		out = append(out, q)
	}
	return out
}

// The window and the command line build the same runtime: a message in chat
// mode and one in agent mode reach the LLM with the same system prompt, the
// same tools, and the active package readable as @pkg in both.
func TestWindowAndCommandLineBuildTheSameRuntime(t *testing.T) {
	p := newParity(t)
	inst, err := packages.NewManager(p.home).EnsureDemo()
	if err != nil {
		t.Fatal(err)
	}
	pr, err := project.Open(p.home, p.root)
	if err != nil {
		t.Fatal(err)
	}
	if err := project.SetActivePackage(pr, inst.ID); err != nil {
		t.Fatal(err)
	}
	listPkg := fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "fs.list", Arguments: `{"path":"@pkg"}`})

	for _, mode := range []struct{ name, mode, agent string }{{"chat", "chat", ""}, {"agent", "agent", "analyst"}} {
		t.Run(mode.name, func(t *testing.T) {
			d, rec := p.window(t)
			conv, err := d.Conversations.Create("")
			if err != nil {
				t.Fatal(err)
			}
			p.srv.Enqueue(listPkg, fakellm.Text("Listed."))
			send(t, d, rec, app.SendRequest{ConversationID: conv.ID, Text: "what is in the package?", Mode: mode.mode, AgentID: mode.agent})
			window := lastRequests(t, p.srv, 2)
			if err := d.Projects.Close(); err != nil {
				t.Fatal(err)
			}

			p.srv.Enqueue(listPkg, fakellm.Text("Listed."))
			args := []string{"chat", "--mode", mode.mode, "what is in the package?"}
			if mode.agent != "" {
				args = append(args, "--agent", mode.agent)
			}
			p.cli(t, args...)
			command := lastRequests(t, p.srv, 2)

			for i := range window {
				if window[i] != command[i] {
					t.Fatalf("request %d differs:\nwindow  %+v\ncommand %+v", i, window[i], command[i])
				}
			}
			if !strings.Contains(window[1].result, "workflows") || strings.Contains(window[1].result, "ENOENT") {
				t.Fatalf("@pkg is not the active package: %s", window[1].result)
			}
		})
	}
}

// An agent of an installed package other than the project's active one:
// the window and the command line give the same answer (Agent mode offers
// the active package's agents, README), and once that package is the
// active one both send the same request as that agent.
func TestWindowAndCommandLineTreatAgentsOfOtherPackagesAlike(t *testing.T) {
	p := newParity(t)
	m := packages.NewManager(p.home)
	demo, err := m.EnsureDemo()
	if err != nil {
		t.Fatal(err)
	}
	other, err := m.Import(zipDir(t, filepath.Join("..", "packages", "testdata", "single")))
	if err != nil {
		t.Fatal(err)
	}
	setActive := func(id string) {
		t.Helper()
		pr, err := project.Open(p.home, p.root)
		if err != nil {
			t.Fatal(err)
		}
		if err := project.SetActivePackage(pr, id); err != nil {
			t.Fatal(err)
		}
	}
	setActive(demo.ID)
	greet := app.SendRequest{Text: "say hello", Mode: "agent", AgentID: "greeter"}

	// Not the active package's agent: the same refusal, nothing sent.
	d, rec := p.window(t)
	conv, err := d.Conversations.Create("")
	if err != nil {
		t.Fatal(err)
	}
	greet.ConversationID = conv.ID
	send(t, d, rec, greet)
	var refused *events.Error
	for _, e := range rec.Named(events.ConversationChanged) {
		if c := e.(events.ChangeEvent); c.ConversationID == conv.ID && c.Error != nil {
			refused = c.Error
		}
	}
	if err := d.Projects.Close(); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"chat", "--mode", "agent", "--agent", "greeter", "say hello", "--home", p.home, "--project", p.root},
		strings.NewReader(""), &out, &errb)
	if refused == nil || refused.Code != errs.AgentNotFound || code != cli.ExitError || !strings.Contains(errb.String(), refused.Message) {
		t.Fatalf("window refused with %+v; command line exit %d, stderr %q", refused, code, errb.String())
	}
	if n := len(p.srv.ChatRequests()); n != 0 {
		t.Fatalf("%d requests sent for an agent that is not offered", n)
	}

	// The active package's agent: the same request from both.
	setActive(other.ID)
	d, rec = p.window(t)
	conv, err = d.Conversations.Create("")
	if err != nil {
		t.Fatal(err)
	}
	greet.ConversationID = conv.ID
	p.srv.Enqueue(fakellm.Text("Welcome!"))
	send(t, d, rec, greet)
	window := lastRequests(t, p.srv, 1)
	if err := d.Projects.Close(); err != nil {
		t.Fatal(err)
	}
	p.srv.Enqueue(fakellm.Text("Welcome!"))
	p.cli(t, "chat", "--mode", "agent", "--agent", "greeter", "say hello")
	command := lastRequests(t, p.srv, 1)
	if window[0] != command[0] {
		t.Fatalf("the requests differ:\nwindow  %+v\ncommand %+v", window[0], command[0])
	}
	if !strings.Contains(window[0].system, "Friendly greeter") || !strings.Contains(window[0].system, "Gil") {
		t.Fatalf("the greeter's persona is not in the request:\n%s", window[0].system)
	}
}

// zipDir packs a folder into a .zip (a package file) and returns its path.
func zipDir(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(dir)+".zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// The package of a run is chosen by the same rule in the window and on the
// command line: a project without a package gets the only installed one.
func TestWindowAndCommandLineChooseTheSamePackage(t *testing.T) {
	p := newParity(t)
	inst, err := packages.NewManager(p.home).EnsureDemo()
	if err != nil {
		t.Fatal(err)
	}
	chosen := func() string {
		t.Helper()
		pr, err := project.Open(p.home, p.root)
		if err != nil {
			t.Fatal(err)
		}
		return pr.ActivePackageID
	}
	unbind := func() {
		t.Helper()
		pr, err := project.Open(p.home, p.root)
		if err != nil {
			t.Fatal(err)
		}
		if err := project.SetActivePackage(pr, ""); err != nil {
			t.Fatal(err)
		}
	}

	p.srv.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.Text("Noted.") })
	window, _ := p.window(t) // opening binds the project to its default package
	byWindow := chosen()
	if err := window.Projects.Close(); err != nil {
		t.Fatal(err)
	}
	unbind()
	p.cli(t, "run", "start", "--workflow", "write-brief", "--json")
	byCommand := chosen()
	if byWindow != inst.ID || byCommand != byWindow {
		t.Fatalf("the window chose %q, the command line %q (installed: %q)", byWindow, byCommand, inst.ID)
	}
}

// The window and the command line give the tools the same sandbox: with the
// runtime home inside the project folder (a project opened at ~), a chat's
// tools and a run's tools cannot read the settings or write the project's
// identity file, and see only their own conversation's saved outputs.
func TestWindowAndCommandLineShareTheSandbox(t *testing.T) {
	p := newParity(t)
	p.home = filepath.Join(p.root, ".config", "crewagent")
	if err := os.MkdirAll(p.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.home, "settings.json"), []byte(`{"llm":{"apiKey":"sk-secret-0123456789"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	calls := fakellm.Tools(
		fakellm.ToolCall{ID: "call_1", Name: "fs.read", Arguments: `{"path":"@project/.config/crewagent/settings.json"}`},
		fakellm.ToolCall{ID: "call_2", Name: "fs.write", Arguments: `{"path":"@project/.crewagent.json","content":"{}"}`},
		fakellm.ToolCall{ID: "call_3", Name: "fs.list", Arguments: `{"path":"@state/logs/tool-results/00000000-0000-0000-0000-000000000000"}`},
	)
	check := func(who string, r request) {
		t.Helper()
		for _, want := range []string{"runtime_data", "protected", "ENOENT"} {
			if !strings.Contains(r.result, want) {
				t.Errorf("%s: the tool results do not say %s: %s", who, want, r.result)
			}
		}
		if strings.Contains(r.result, "sk-secret") {
			t.Errorf("%s: the settings were read: %s", who, r.result)
		}
	}

	d, rec := p.window(t)
	conv, err := d.Conversations.Create("")
	if err != nil {
		t.Fatal(err)
	}
	p.srv.Enqueue(calls, fakellm.Text("Done."))
	send(t, d, rec, app.SendRequest{ConversationID: conv.ID, Text: "look around"})
	window := lastRequests(t, p.srv, 1)[0]
	check("window", window)
	if err := d.Projects.Close(); err != nil {
		t.Fatal(err)
	}

	p.srv.Enqueue(calls, fakellm.Text("Done."))
	p.cli(t, "chat", "look around")
	command := lastRequests(t, p.srv, 1)[0]
	check("command line", command)
	// Each names its own conversation.
	uuids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	if uuids.ReplaceAllString(window.result, "ID") != uuids.ReplaceAllString(command.result, "ID") {
		t.Fatalf("the tool results differ:\nwindow  %s\ncommand %s", window.result, command.result)
	}

	// A run's turn uses the same sandbox.
	if _, err := packages.NewManager(p.home).EnsureDemo(); err != nil {
		t.Fatal(err)
	}
	p.srv.Enqueue(calls, fakellm.Text("Tell me about the idea."))
	p.cli(t, "run", "start", "--workflow", "write-brief", "an idea")
	check("run", lastRequests(t, p.srv, 1)[0])

	if b, _ := os.ReadFile(filepath.Join(p.root, ".crewagent.json")); string(b) == "{}" {
		t.Fatal(".crewagent.json was overwritten")
	}
}

// One send path: a message sent in the window and the same message sent on
// the command line (both through Workspace.Send and the project's scheduler)
// reach the LLM as the same requests and leave the same log, tool call and
// result included (ids and times aside).
func TestWindowAndCommandLineSendTheSameWay(t *testing.T) {
	p := newParity(t)
	listNotes := fakellm.Tools(fakellm.ToolCall{ID: "call_1", Name: "fs.read", Arguments: `{"path":"@project/notes.md"}`})

	d, rec := p.window(t)
	conv, err := d.Conversations.Create("")
	if err != nil {
		t.Fatal(err)
	}
	p.srv.Enqueue(listNotes, fakellm.Text("Your notes have a title."))
	send(t, d, rec, app.SendRequest{ConversationID: conv.ID, Text: "what is in my notes?"})
	window := p.srv.ChatRequests()
	if err := d.Projects.Close(); err != nil {
		t.Fatal(err)
	}

	p.srv.Enqueue(listNotes, fakellm.Text("Your notes have a title."))
	out := p.cli(t, "chat", "--json", "what is in my notes?")
	var res struct {
		ConversationID string `json:"conversationId"`
		Text           string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.ConversationID == "" || res.Text != "Your notes have a title." {
		t.Fatalf("chat --json: %v %s", err, out)
	}
	command := p.srv.ChatRequests()[len(window):]

	if len(window) != 2 || len(command) != 2 {
		t.Fatalf("%d requests from the window, %d from the command line, want 2 each", len(window), len(command))
	}
	for i := range window {
		w, c := sentText(window[i]), sentText(command[i])
		if w != c {
			t.Fatalf("request %d differs:\nwindow  %s\ncommand %s", i, w, c)
		}
	}
	pr, err := project.Open(p.home, p.root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := convlog.OpenReadOnly(pr.DataDir, convlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, c := logText(t, st, conv.ID), logText(t, st, res.ConversationID)
	if w != c || !strings.Contains(w, "tool fs.read") || !strings.Contains(w, "# notes") {
		t.Fatalf("the logs differ:\nwindow\n%s\ncommand\n%s", w, c)
	}
}

// sentText is a request's messages (roles, texts, tool calls by name and
// arguments) and tools, without ids.
func sentText(r fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Role + ": " + m.Text())
		for _, c := range m.ToolCalls {
			b.WriteString(" [" + c.Name + " " + c.Arguments + "]")
		}
		b.WriteString("\n")
	}
	names := r.ToolNames()
	slices.Sort(names)
	return b.String() + strings.Join(names, ",")
}

// logText is a conversation's log, one line an entry: its role, part, mode,
// text, tool calls and whether it failed, without ids or times.
func logText(t *testing.T, st *convlog.Store, id string) string {
	t.Helper()
	entries, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s %s %s %s %s error=%v:", e.Type, e.Role, e.PartType, e.Mode, e.AgentID, e.IsError)
		for _, c := range e.ToolCalls {
			b.WriteString(" tool " + c.Function.Name + " " + c.Function.Arguments)
		}
		b.WriteString(" " + e.Text() + "\n")
	}
	return b.String()
}
