// Package cli implements the headless command line (contracts.md): the same
// binary as the desktop app, dispatched by main before the window starts.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"crewagent/backend/convlog"
)

// Exit codes.
const (
	ExitOK        = 0
	ExitError     = 1
	ExitLLMFailed = 2
)

// IsCommand reports whether args name a headless command (so main knows not
// to start the window).
func IsCommand(args []string) bool { return len(args) > 0 }

// env is what every command gets: the command, parsed arguments and the
// standard streams.
type env struct {
	ctx    context.Context
	cmd    *command
	args   *parsed
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// exitError carries a specific exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

type command struct {
	words []string // e.g. ["conversations","list"]
	usage string
	run   func(e *env, rest []string) error
}

func commands() []command {
	return []command{
		{[]string{"conversations", "list"}, "conversations list", cmdConversationsList},
		{[]string{"conversations", "show"}, "conversations show ID", cmdConversationsShow},
		{[]string{"conversations", "delete"}, "conversations delete ID", cmdConversationsDelete},
		{[]string{"conversations", "fork"}, "conversations fork ID [--at MESSAGE_ID | --checkpoint NAME]", cmdConversationsFork},
		{[]string{"conversations", "checkpoint"}, "conversations checkpoint ID NAME", cmdConversationsCheckpoint},
		{[]string{"conversations", "compact"}, compactUsage, cmdConversationsCompact},
		{[]string{"conversations", "pin"}, pinUsage, cmdConversationsPin},
		{[]string{"conversations", "unpin"}, unpinUsage, cmdConversationsUnpin},
		{[]string{"chat"}, chatUsage, cmdChat},
		{[]string{"context"}, contextUsage, cmdContext},
		{[]string{"package", "import"}, packageImportUsage, cmdPackageImport},
		{[]string{"package", "list"}, packageListUsage, cmdPackageList},
		{[]string{"package", "remove"}, packageRemoveUsage, cmdPackageRemove},
		{[]string{"package", "install-demo"}, packageInstallDemoUsage, cmdPackageInstallDemo},
		{[]string{"run", "start"}, runStartUsage, cmdRunStart},
		{[]string{"run", "continue"}, runContinueUsage, cmdRunContinue},
		{[]string{"run", "status"}, runStatusUsage, cmdRunStatus},
		{[]string{"run", "list"}, runListUsage, cmdRunList},
	}
}

// Run executes one headless command and returns the process exit code.
// Errors are printed as one line on stderr.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "crewagent: %v\n", err)
		return ExitError
	}
	if len(p.words) == 0 || p.words[0] == "help" || (p.has("help") && len(p.words) == 0) {
		printUsage(stdout)
		return ExitOK
	}
	cmd, rest := match(p.words)
	if cmd == nil {
		if subs := subcommands(p.words[0]); len(subs) > 0 && len(p.words) == 1 {
			fmt.Fprintf(stderr, "crewagent: %q needs a subcommand: %s\n", p.words[0], strings.Join(subs, ", "))
		} else if len(subs) > 0 {
			fmt.Fprintf(stderr, "crewagent: unknown command %q; %s has: %s\n", strings.Join(p.words, " "), p.words[0], strings.Join(subs, ", "))
		} else {
			fmt.Fprintf(stderr, "crewagent: unknown command %q; run 'crewagent help' for the list\n", strings.Join(p.words, " "))
		}
		return ExitError
	}
	if p.has("help") {
		fmt.Fprintf(stdout, "usage: crewagent %s [--home DIR] [--project DIR] [--json]\n", cmd.usage)
		return ExitOK
	}
	e := &env{ctx: ctx, cmd: cmd, args: p, stdin: stdin, stdout: stdout, stderr: stderr}
	if err := cmd.run(e, rest); err != nil {
		fmt.Fprintf(stderr, "crewagent: %s\n", describe(err))
		var xe *exitError
		if errors.As(err, &xe) {
			return xe.code
		}
		return ExitError
	}
	return ExitOK
}

func match(words []string) (*command, []string) {
	var best *command
	for _, c := range commands() {
		if len(words) < len(c.words) {
			continue
		}
		ok := true
		for i, w := range c.words {
			if words[i] != w {
				ok = false
				break
			}
		}
		if ok && (best == nil || len(c.words) > len(best.words)) {
			c := c
			best = &c
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, words[len(best.words):]
}

// subcommands lists the second words of the commands of a group such as
// "conversations" or "run" (none when group is not one).
func subcommands(group string) []string {
	var subs []string
	for _, c := range commands() {
		if len(c.words) == 2 && c.words[0] == group {
			subs = append(subs, c.words[1])
		}
	}
	return subs
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: crewagent [COMMAND] [--home DIR] [--project DIR] [--json]")
	fmt.Fprintln(w, "Without a command the desktop app starts. Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %s\n", c.usage)
	}
}

// describe is the one line printed for a failed command. Errors of the
// conversation store lose their package prefix and say where to look next.
func describe(err error) string {
	msg := oneLine(err.Error())
	if convlog.ErrorCode(err) == "" {
		return msg
	}
	msg = strings.TrimPrefix(msg, "convlog: ")
	switch {
	case errors.Is(err, convlog.ErrNotFound) && (strings.Contains(msg, ": entr") || strings.Contains(msg, ": checkpoint ")):
		msg += ` (see "conversations show ID")`
	case errors.Is(err, convlog.ErrNotFound),
		errors.Is(err, convlog.ErrInvalidID) && strings.Contains(msg, "conversation id"):
		msg += ` (see "conversations list")`
	}
	return msg
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", "; ")
}

// wantArgs checks the number of positional arguments.
func wantArgs(rest []string, n int, usage string) error {
	if len(rest) != n {
		return fmt.Errorf("usage: crewagent %s", usage)
	}
	return nil
}

// checkArgs checks that the command got no flags but allowed and the global
// ones, and n positional arguments.
func (e *env) checkArgs(rest []string, n int, allowed ...string) error {
	if err := e.args.allowOnly(strings.Join(e.cmd.words, " "), allowed...); err != nil {
		return err
	}
	return wantArgs(rest, n, e.cmd.usage)
}

func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printJSONLine writes v as one compact JSON line.
func (e *env) printJSONLine(v any) error {
	return json.NewEncoder(e.stdout).Encode(v)
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
