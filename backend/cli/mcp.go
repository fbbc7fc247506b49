package cli

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"crewagent/backend/app"
	"crewagent/backend/mcp"
)

// mcp list starts the enabled, approved servers (each within the handshake
// timeout) to list their tools; every server stops when the command ends.
func cmdMCPList(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	v := ws.MCPView(e.ctx, true)
	return e.print(v, func() { e.printMCP(v) })
}

func (e *env) printMCP(v app.MCPView) {
	w := e.stdout
	if !v.Enabled {
		fmt.Fprintln(w, "MCP tools are off in the settings (tools.mcp.enabled): the model is offered none of these tools")
	} else if len(v.AllowedServers) > 0 {
		fmt.Fprintf(w, "the model is offered only the tools of: %s (tools.mcp.allowedServers)\n", strings.Join(v.AllowedServers, ", "))
	}
	for _, p := range v.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if len(v.Servers) == 0 {
		fmt.Fprintf(w, "no MCP servers: add them to mcpServers in %s or to the project's %s\n", v.SettingsPath, strings.Join(mcp.ProjectFiles, ", "))
		return
	}
	for _, s := range v.Servers {
		src := "settings"
		if s.Source == mcp.SourceProject {
			src = orDefault(s.File, mcp.ProjectFileName)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Name, src, s.Transport, s.Summary)
		switch s.State {
		case mcp.StatePendingApproval:
			fmt.Fprintf(w, "  would run: %s\n", s.Command)
			for _, kv := range envLines(s.Config.Env) {
				fmt.Fprintf(w, "  with env: %s\n", kv)
			}
			for _, x := range s.Warnings {
				fmt.Fprintf(w, "  warning: %s\n", x)
			}
			fmt.Fprintf(w, "  approve it with: %s\n", mcp.ApproveCommand(s.Name))
		case mcp.StateFailed:
			fmt.Fprintf(w, "  runs: %s\n", s.Command)
			for _, l := range tailLinesOf(s.StderrTail, 5) {
				fmt.Fprintf(w, "  stderr: %s\n", l)
			}
			if s.LogPath != "" {
				fmt.Fprintf(w, "  log: %s\n", s.LogPath)
			}
		}
		if s.Withheld != "" {
			fmt.Fprintf(w, "  not offered: %s\n", s.Withheld)
		}
		for _, t := range s.Tools {
			desc := oneLine(t.Description)
			if len(desc) > 100 {
				desc = desc[:97] + "..."
			}
			fmt.Fprintf(w, "  %s\t%s\n", t.WireName, desc)
		}
	}
}

// tailLinesOf returns the last n non-empty lines of s.
func tailLinesOf(s string, n int) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r "); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// mcpApproval is the --json output of mcp approve and mcp revoke.
type mcpApproval struct {
	Server   string   `json:"server"`
	Approved bool     `json:"approved"`
	Command  string   `json:"command"`
	State    string   `json:"state"`
	Warnings []string `json:"warnings,omitempty"`
}

// envLines are a server's environment as NAME=value lines, sorted.
func envLines(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func cmdMCPApprove(e *env, rest []string) error { return e.approveMCP(rest[0], true) }

func cmdMCPRevoke(e *env, rest []string) error { return e.approveMCP(rest[0], false) }

func (e *env) approveMCP(name string, approve bool) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	if approve {
		err = ws.ApproveMCPServer(name)
	} else {
		err = ws.RevokeMCPServer(name)
	}
	if err != nil {
		return err
	}
	var s app.MCPServerView
	for _, x := range ws.MCPView(e.ctx, false).Servers {
		if x.Name == name {
			s = x
		}
	}
	out := mcpApproval{Server: name, Approved: approve, Command: s.Command, State: string(s.State)}
	out.Warnings = s.Warnings
	return e.print(out, func() {
		if approve {
			fmt.Fprintf(e.stdout, "approved %s for this project: it may run %s\n", name, s.Command)
			for _, kv := range envLines(s.Config.Env) {
				fmt.Fprintf(e.stdout, "  with env: %s\n", kv)
			}
			for _, x := range s.Warnings {
				fmt.Fprintf(e.stdout, "  warning: %s\n", x)
			}
		} else {
			fmt.Fprintf(e.stdout, "revoked the approval of %s for this project\n", name)
		}
	})
}

// mcpLogout is the answer of mcp logout.
type mcpLogout struct {
	Server string `json:"server"`
	mcp.SignOutResult
}

// cmdMCPLogout forgets the token kept for a remote server that required signing in.
func cmdMCPLogout(e *env, rest []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	name := rest[0]
	r, err := ws.SignOutMCPServer(e.ctx, name)
	if err != nil {
		return err
	}
	return e.print(mcpLogout{Server: name, SignOutResult: r}, func() {
		switch {
		case r.SignedIn && r.Revoked:
			fmt.Fprintf(e.stdout, "signed out of %s: its token is revoked and forgotten; it asks you to sign in again when next used\n", name)
		case r.SignedIn:
			fmt.Fprintf(e.stdout, "signed out of %s: its token is forgotten (not revoked: %s); it asks you to sign in again when next used\n", name, r.NotRevoked)
		default:
			fmt.Fprintf(e.stdout, "no sign-in is kept for %s\n", name)
		}
	})
}

// shellQuote quotes s for a POSIX shell when it needs to be.
func shellQuote(s string) string { return mcp.ShellQuote(s) }

// reportMCP prints on stderr why configured MCP servers offered the model no
// tools in this send (a server that failed to start, one waiting for its
// approval, MCP tools switched off), so that a send never goes without them
// in silence.
func (e *env) reportMCP(ws *app.Workspace) {
	for _, n := range ws.MCPNotices() {
		fmt.Fprintf(e.stderr, "crewagent: warning: %s\n", n)
	}
}

// optionalServer is the one optional SERVER argument of a listing command.
func optionalServer(rest []string, usage string) (string, error) {
	switch len(rest) {
	case 0:
		return "", nil
	case 1:
		return rest[0], nil
	}
	return "", fmt.Errorf("usage: crewagent %s", usage)
}

// mcp resources lists the resources (and resource templates) of one server or
// of all of them, starting them as needed.
func cmdMCPResources(e *env, rest []string) error {
	name, err := optionalServer(rest, "mcp resources [SERVER]")
	if err != nil {
		return err
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	l, err := ws.MCPResources(e.ctx, name)
	if err != nil {
		return err
	}
	return e.print(l, func() {
		w := e.stdout
		for _, r := range l.Resources {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.Server, r.URI, orDefault(r.MIMEType, "-"), oneLine(orDefault(r.Description, orDefault(r.Title, r.Name))))
		}
		for _, t := range l.Templates {
			fmt.Fprintf(w, "%s\t%s\t(template)\t%s\n", t.Server, t.URITemplate, oneLine(orDefault(t.Description, orDefault(t.Title, t.Name))))
		}
		if len(l.Resources)+len(l.Templates) == 0 {
			fmt.Fprintln(w, "no resources")
		}
		for _, p := range l.Problems {
			fmt.Fprintf(e.stderr, "problem: %s\n", p)
		}
	})
}

// mcp read prints a resource: its text, or for binary contents a line saying
// what they are (--json gives them, base64-encoded).
func cmdMCPRead(e *env, rest []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	contents, err := ws.ReadMCPResource(e.ctx, rest[0], rest[1])
	if err != nil {
		return err
	}
	return e.print(contents, func() {
		for _, c := range contents {
			if c.Blob != nil {
				fmt.Fprintf(e.stdout, "%s: %d bytes of %s (not text; --json gives them base64-encoded)\n", c.URI, len(c.Blob), orDefault(c.MIMEType, "binary data"))
				continue
			}
			fmt.Fprint(e.stdout, c.Text)
			if !strings.HasSuffix(c.Text, "\n") {
				fmt.Fprintln(e.stdout)
			}
		}
	})
}

// mcp prompts lists the prompts of one server or of all of them, with their
// arguments.
func cmdMCPPrompts(e *env, rest []string) error {
	name, err := optionalServer(rest, "mcp prompts [SERVER]")
	if err != nil {
		return err
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	l, err := ws.MCPPrompts(e.ctx, name)
	if err != nil {
		return err
	}
	return e.print(l, func() {
		w := e.stdout
		for _, p := range l.Prompts {
			fmt.Fprintf(w, "%s\t%s\t%s\n", p.Server, p.Name, oneLine(orDefault(p.Description, p.Title)))
			for _, a := range p.Arguments {
				req := ""
				if a.Required {
					req = " (required)"
				}
				fmt.Fprintf(w, "  %s%s\t%s\n", a.Name, req, oneLine(orDefault(a.Description, a.Title)))
			}
		}
		if len(l.Prompts) == 0 {
			fmt.Fprintln(w, "no prompts")
		}
		for _, p := range l.Problems {
			fmt.Fprintf(e.stderr, "problem: %s\n", p)
		}
	})
}

// mcp prompt fills in a prompt with NAME=VALUE arguments and prints its
// messages.
func cmdMCPPrompt(e *env, rest []string) error {
	const usage = "usage: crewagent mcp prompt SERVER NAME [ARG=VALUE...]"
	if len(rest) < 2 {
		return errors.New(usage)
	}
	args := map[string]string{}
	for _, kv := range rest[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("%q is not ARG=VALUE (%s)", kv, usage)
		}
		args[k] = v
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	p, err := ws.GetMCPPrompt(e.ctx, rest[0], rest[1], args)
	if err != nil {
		return err
	}
	return e.print(p, func() {
		for _, m := range p.Messages {
			text := m.Text
			switch {
			case m.Attachment != nil:
				text = fmt.Sprintf("(%s, %d bytes of %s)", m.Attachment.Kind, len(m.Attachment.Data), orDefault(m.Attachment.MIMEType, "binary data"))
			case m.Link != nil:
				text = "(resource " + m.Link.URI + ")"
			}
			fmt.Fprintf(e.stdout, "%s: %s\n", m.Role, text)
		}
	})
}
