// Package cli implements the headless command line (contracts.md): the same
// binary as the desktop app, dispatched by main before the window starts.
//
// Every command is one row of the table in commands.go: its words, usage,
// flags, positional arguments, the access it needs to the project
// (none, read or write), whether it talks to the LLM and the function that
// runs it. One runner checks the flags and arguments, opens and closes the
// project through backend/app (the composition root the window uses too),
// and prints --json; text output passes through a writer that shows
// terminal control characters as visible symbols (term.go).
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"crewagent/backend/app"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
)

// Exit codes.
const (
	ExitOK        = 0
	ExitError     = 1
	ExitLLMFailed = 2
)

// Access is what a command needs of the project.
type Access int

// Accesses.
const (
	// None: the command works on the runtime home only (packages).
	None Access = iota
	// Read: the project's store is opened without the writer lock.
	Read
	// Write: the project's store is opened with the writer lock.
	Write
)

// anyArgs marks a command that checks its positional arguments itself.
const anyArgs = -1

// command is one row of the table.
type command struct {
	words []string // e.g. ["conversations","list"]
	usage string
	// flags are the command's own flags (the global ones always apply).
	flags []string
	// args is the exact number of positional arguments (anyArgs: the command checks).
	args int
	// access says how the runner opens the project (lazily, on the first
	// env.workspace call, so that argument errors touch nothing).
	access Access
	// usesLLM: the command talks to the LLM, so it cannot run on the default
	// settings when settings.json is not valid (the others warn and go on).
	usesLLM bool
	run     func(e *env, rest []string) error
}

// env is what a command gets: the command, the parsed arguments, the
// standard streams and the project the runner opens for it.
type env struct {
	ctx    context.Context
	cmd    *command
	args   *parsed
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// printer streams answers to stdout (nil with --json).
	printer *streamPrinter
	// log receives the diagnostics of the packages a command uses (repairs, skipped
	// lines): stderr with --verbose, nowhere otherwise, so a command that succeeds
	// prints nothing on stderr.
	log *slog.Logger

	rt *app.Runtime
	ws *app.Workspace
}

// exitError carries a specific exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Run executes one headless command and returns the process exit code.
// Errors are printed as one line on stderr.
//
// Text output neutralises terminal control sequences (see termWriter); --json output is
// exact JSON.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	errw := newTermWriter(stderr)
	defer errw.Flush()
	stderr = errw
	p, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "crewagent: %v\n", err)
		return ExitError
	}
	if p.has("json") {
		jw := &jsonWriter{w: stdout}
		defer jw.Flush()
		stdout = jw
	} else {
		tw := newTermWriter(stdout)
		defer tw.Flush()
		stdout = tw
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
		fmt.Fprintf(stdout, "usage: crewagent %s [--home DIR] [--project DIR] [--json] [--verbose]\n", cmd.usage)
		return ExitOK
	}
	if !stdinIsTerminal(stdin) {
		// Nobody can answer an approval request: a call that would wait
		// for one is refused, in every command (chat, runs).
		ctx = engine.WithApprovals(ctx, "", noTerminal)
	}
	e := &env{ctx: ctx, cmd: cmd, args: p, stdin: stdin, stdout: stdout, stderr: stderr, log: slog.New(slog.DiscardHandler)}
	if p.has("verbose") {
		e.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if !p.has("json") {
		e.printer = &streamPrinter{w: stdout}
	}
	err = e.run(rest)
	e.close()
	if err != nil {
		fmt.Fprintf(stderr, "crewagent: %s\n", describe(err))
		var xe *exitError
		if errors.As(err, &xe) {
			return xe.code
		}
		return ExitError
	}
	return ExitOK
}

// run checks the flags and the positional arguments, then runs the command.
func (e *env) run(rest []string) error {
	if err := e.args.allowOnly(strings.Join(e.cmd.words, " "), e.cmd.flags...); err != nil {
		return err
	}
	if e.cmd.args != anyArgs {
		if err := wantArgs(rest, e.cmd.args, e.cmd.usage); err != nil {
			return err
		}
	}
	return e.cmd.run(e, rest)
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
	fmt.Fprintln(w, "usage: crewagent [COMMAND] [--home DIR] [--project DIR] [--json] [--verbose]")
	fmt.Fprintln(w, "Without a command the desktop app starts. A folder that looks like a project moved from")
	fmt.Fprintln(w, "another path asks whether it keeps that project's conversations: --moved (yes) or")
	fmt.Fprintln(w, "--new-project (no) answer beforehand. Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %s\n", c.usage)
	}
}

// describe is the one line printed for a failed command. Coded errors (those
// of the conversation store among them) lose the store's prefix, and a
// conversation, entry or checkpoint not found says where to look next.
func describe(err error) string {
	msg := oneLine(err.Error())
	if errs.CodeOf(err) == "" {
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

// asJSON reports whether --json was given.
func (e *env) asJSON() bool { return e.args.has("json") }

// print writes v as indented JSON with --json, else calls human.
func (e *env) print(v any, human func()) error {
	if e.asJSON() {
		return e.printJSON(v)
	}
	human()
	return nil
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
