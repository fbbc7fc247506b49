package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"crewagent/backend/conversation"
	"crewagent/backend/sandbox"
)

// DefaultShellTimeout bounds one command when ShellConfig.Timeout is 0.
const DefaultShellTimeout = 10 * time.Minute

// How much of a command's output the result carries: its first ShellHeadBytes and its last
// ShellTailBytes (the whole output goes to a file under @state/logs/tool-results/). Together
// they stay under the size from which the conversation log moves a result to a file.
const (
	ShellHeadBytes = 8 << 10
	ShellTailBytes = 24 << 10
)

// ShellPolicy controls shell.run. It is offered only where Enabled and a project is open.
type ShellPolicy struct {
	Enabled bool `json:"enabled"`
}

// ShellConfig is how shell.run runs its commands.
type ShellConfig struct {
	// Timeout is the longest a command may run, and the default when a call gives no
	// timeout_seconds (0: DefaultShellTimeout).
	Timeout time.Duration
	// Network says whether a command whose call asks for the network ("network": true) may
	// have it. nil, or false: commands never have the network; the result says so.
	Network func(command string) bool
	// RunWithoutSandbox runs commands without the sandbox where bubblewrap cannot start
	// (the user's choice for the project): they can then read and write whatever the user
	// can, reach the network, and see the runtime's files. Where bubblewrap works it is
	// used whatever this says.
	RunWithoutSandbox bool
	// Hide lists more host files and folders commands must not see, beside the runtime's
	// own data (Roots.Deny) and the usual secrets of the user's home (DefaultHiddenInHome).
	Hide []string
	// Home is the user's home folder whose secrets are hidden (default: os.UserHomeDir).
	Home string
	// MaxProcs bounds the processes of one command (0: sandbox.DefaultMaxProcs).
	MaxProcs int
	// Bwrap is the bubblewrap program (default "bwrap" on PATH).
	Bwrap string
}

// DefaultHiddenInHome are the paths, relative to the user's home, that commands never see:
// keys, credentials, tokens and the configuration of other programs.
var DefaultHiddenInHome = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config", ".kube", ".docker", ".gcloud",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".password-store", ".vault-token",
	".local/share/keyrings", ".mozilla", ".thunderbird", ".pki", ".terraform.d", ".cargo/credentials.toml",
	".cargo/credentials", ".m2/settings.xml", ".gradle/gradle.properties", ".bash_history", ".zsh_history",
	".python_history", ".psql_history", ".mysql_history", ".lesshst", ".viminfo",
}

// DefaultHiddenSystem are system paths commands never see: the sockets of the user's
// session (D-Bus, the keyring, agents, Wayland) and of daemons that would act for them
// (Docker, Podman, containerd, snapd). A read-only filesystem does not stop a connection
// to a socket: hiding it does.
var DefaultHiddenSystem = []string{
	"/run/user", "/run/dbus", "/run/docker.sock", "/run/docker", "/run/containerd", "/run/podman",
	"/run/snapd.socket", "/run/snapd-snap.socket", "/run/libvirt", "/run/lxd", "/var/lib/lxd/unix.socket",
}

// sessionSockets are the variables that name sockets of the user's session, hidden too
// wherever they are.
var sessionSockets = []string{"XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GPG_AGENT_INFO", "DOCKER_HOST"}

// ToolOutput is a piece of a running tool's output (stdout and stderr interleaved, as the
// command wrote it), for the window to show while the call runs.
type ToolOutput struct {
	Tool       string
	ToolCallID string
	// Data is valid only during the call to OnToolOutput: copy what is kept.
	Data []byte
	// Done is set on the call's last ToolOutput (with no Data): the command has ended
	// and its result is about to be returned.
	Done bool
}

// ShellRunParams are the arguments of shell.run.
type ShellRunParams struct {
	Command        string `json:"command"`
	Cwd            string `json:"cwd,omitempty"`
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty"`
	Network        bool   `json:"network,omitempty"`
}

const shellRunDescription = "Run a command line with bash in the project folder, inside a sandbox: " +
	"the project folder is writable, the rest of the system is read-only, /tmp is private and " +
	"emptied after the command, the user's keys and the runtime's files are not visible, there is " +
	"no network unless the call asks for it and the user allows it. Output (stdout and stderr " +
	"together) comes back with the exit code; a long output keeps its beginning and end, and the " +
	"whole of it is saved to a file you can read with fs.read. @project, @pkg and @skill/<name> " +
	"in the command stand for those folders (e.g. python3 @skill/pdf/scripts/fill.py in.pdf). " +
	"Commands are killed with every process they start when they end, time out or are stopped."

const shellRunSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The command line, run by bash -c, e.g. \"go test ./...\"."},
    "cwd": {"type": "string", "description": "Working folder inside the project, e.g. \"@project/web\" (default: the project folder)."},
    "timeout_seconds": {"type": "integer", "minimum": 1, "description": "Kill the command after this many seconds (bounded by the runtime's limit)."},
    "network": {"type": "boolean", "description": "Ask for network access for this command (granted only where the user allows it)."}
  },
  "required": ["command"],
  "additionalProperties": false
}`

func shellRunTool() toolSpec {
	return toolSpec{name: conversation.ToolShellRun, family: "shell", description: shellRunDescription, schema: shellRunSchema, run: runShell}
}

// shellResult is the payload of a shell.run result.
type shellResult struct {
	ExitCode            int      `json:"exitCode"`
	Signal              string   `json:"signal,omitempty"`
	Output              string   `json:"output"`
	Truncated           bool     `json:"truncated"`
	Bytes               int64    `json:"bytes"`
	OutputFile          string   `json:"outputFile,omitempty"`
	DurationMs          int64    `json:"durationMs"`
	Cwd                 string   `json:"cwd"`
	Network             string   `json:"network"`
	Sandboxed           bool     `json:"sandboxed"`
	TimedOut            bool     `json:"timedOut,omitempty"`
	Stopped             bool     `json:"stopped,omitempty"`
	ProcessLimitReached bool     `json:"processLimitReached,omitempty"`
	Notes               []string `json:"notes,omitempty"`
}

func runShell(ctx context.Context, h *Host, raw json.RawMessage) Result {
	var p ShellRunParams
	if terr := decodeArgs(raw, &p); terr != nil {
		return failure(terr)
	}
	if strings.TrimSpace(p.Command) == "" {
		return failure(errf(CodeBadArguments, `"command" is required`))
	}
	if strings.IndexByte(p.Command, 0) >= 0 {
		return failure(errf(CodeBadArguments, `"command" contains a NUL byte`))
	}
	cfg := h.cfg.Shell
	limit := cfg.Timeout
	if limit <= 0 {
		limit = DefaultShellTimeout
	}
	timeout := limit
	if p.TimeoutSeconds != nil {
		if *p.TimeoutSeconds < 1 {
			return failure(errf(CodeBadArguments, `"timeout_seconds" must be at least 1`))
		}
		if t := time.Duration(*p.TimeoutSeconds) * time.Second; t < limit {
			timeout = t
		}
	}

	cwd := strings.TrimSuffix(strings.TrimSpace(p.Cwd), "/")
	switch {
	case cwd == "" || cwd == ".":
		cwd = AliasProject
	case !strings.HasPrefix(cwd, "@"):
		cwd = AliasProject + "/" + strings.TrimPrefix(cwd, "./")
	}
	dir, terr := h.sandbox.Resolve(cwd, AccessRead)
	if terr != nil {
		return failure(terr)
	}
	if dir.Base != AliasProject {
		return failure(violation("not_project", "commands run in the project: %s is not inside @project", dir.Display()))
	}
	if fi, err := os.Stat(dir.Host); err != nil || !fi.IsDir() {
		return failure(errf(CodeNotFound, "%s is not a folder", dir.Display()).withDetail("path", dir.Display()))
	}
	project, err := filepath.EvalSymlinks(h.sandbox.Roots().Project)
	if err != nil {
		return failure(errf(CodeInternal, "cannot open @project: %s", osErrText(err)))
	}
	command, readOnly, terr := h.expandAliases(p.Command)
	if terr != nil {
		return failure(terr)
	}

	var notes []string
	network := p.Network && cfg.Network != nil && cfg.Network(p.Command)
	if p.Network && !network {
		notes = append(notes, "network access was asked for but is not allowed for this command: it ran without network")
	}
	unsandboxed := false
	if err := sandbox.Check(cfg.Bwrap); err != nil {
		if !cfg.RunWithoutSandbox {
			return failure(errf(CodeSandboxUnavailable, "nothing was run: commands run inside a sandbox (bubblewrap), which cannot start on this computer (%s). "+
				"Install bubblewrap (the bubblewrap package) where user namespaces are allowed, or the user can choose, for this project, "+
				"to run commands without a sandbox: they then read and write whatever the user can, reach the network, and see the runtime's files", sandboxWhy(err)))
		}
		unsandboxed, network = true, true
		notes = append(notes, "ran WITHOUT a sandbox (the project's choice; bubblewrap cannot start here): the command could read and write anything the user can, and had network access")
	}

	out, oerr := h.newShellOutput(ctx)
	if oerr != nil {
		return failure(errf(CodeInternal, "cannot save the command's output: %s", osErrText(oerr)))
	}
	spec := sandbox.Spec{
		Command:     command,
		Project:     project,
		Dir:         dir.Host,
		Hide:        h.shellHidden(),
		ReadOnly:    readOnly,
		Network:     network,
		MaxProcs:    cfg.MaxProcs,
		Env:         shellEnv(unsandboxed),
		Output:      out,
		Unsandboxed: unsandboxed,
		Bwrap:       cfg.Bwrap,
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	oc, runErr := sandbox.Run(runCtx, spec)
	saved := out.finish()
	out.done()

	res := shellResult{
		ExitCode:   oc.ExitCode,
		Signal:     oc.Signal,
		DurationMs: oc.Duration.Milliseconds(),
		Cwd:        dir.Display(),
		Network:    "off",
		Sandboxed:  oc.Sandboxed,
		Notes:      notes,
	}
	if network {
		res.Network = "on"
	}
	res.Output, res.Truncated, res.Bytes = out.text()
	if res.Truncated {
		if saved != "" {
			res.OutputFile = saved
			notes = append(notes, "the output is longer than the result keeps: the whole of it is in "+saved+" (fs.read it by lines, or fs.search it)")
		} else {
			notes = append(notes, "the output is longer than the result keeps, and it could not be saved whole")
		}
	}
	res.ProcessLimitReached = oc.ProcessLimitReached || forkRefused(res.Output)
	if res.ProcessLimitReached {
		notes = append(notes, "the command tried to start more processes than allowed at once; further ones were refused")
	}
	res.Notes = notes

	var te *ToolError
	switch {
	case runErr != nil && errors.Is(runErr, sandbox.ErrUnavailable):
		return failure(errf(CodeSandboxUnavailable, "nothing was run: %s", sandboxWhy(runErr)))
	case runErr != nil && ctx.Err() != nil:
		res.Stopped = true
		te = errf(CodeCommandStopped, "the command was stopped and killed with every process it started")
	case runErr != nil && errors.Is(runErr, context.DeadlineExceeded):
		res.TimedOut = true
		te = errf(CodeCommandTimeout, "the command did not end within %s and was killed with every process it started", timeout)
	case runErr != nil:
		return failure(errf(CodeInternal, "the command could not run: %s", runErr))
	case oc.Signal != "":
		te = errf(CodeCommandFailed, "the command was killed by signal %s", oc.Signal)
	case oc.ExitCode != 0:
		te = errf(CodeCommandFailed, "the command exited with status %d", oc.ExitCode)
	}
	if te != nil {
		return failureWith(te, res)
	}
	return success(res)
}

// failureWith builds an ok:false result that carries payload's fields beside the error.
func failureWith(e *ToolError, payload any) Result {
	b, err := json.Marshal(payload)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return failure(e)
	}
	eb, err := json.Marshal(e)
	if err != nil {
		return failure(e)
	}
	content := `{"ok":false,"error":` + string(eb)
	if string(b) != "{}" {
		content += "," + string(b[1:])
	} else {
		content += "}"
	}
	return Result{OK: false, Error: e, Content: content}
}

func sandboxWhy(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, sandbox.ErrUnavailable.Error()) {
		return msg[i+2:]
	}
	return msg
}

// forkRefused reports whether the shell said it could not start a process for the limit.
func forkRefused(output string) bool {
	return strings.Contains(output, "fork: retry: Resource temporarily unavailable") ||
		strings.Contains(output, "fork: Resource temporarily unavailable") ||
		strings.Contains(output, "Cannot fork")
}

// shellHidden is what commands must not see: the runtime's own data, the user's secrets
// and the configured extras.
func (h *Host) shellHidden() []string {
	hide := append([]string{}, h.sandbox.Roots().Deny...)
	home := h.cfg.Shell.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" && filepath.IsAbs(home) {
		for _, rel := range DefaultHiddenInHome {
			hide = append(hide, filepath.Join(home, filepath.FromSlash(rel)))
		}
	}
	hide = append(hide, DefaultHiddenSystem...)
	for _, k := range sessionSockets {
		if p := socketPath(os.Getenv(k)); p != "" {
			hide = append(hide, p)
		}
	}
	return append(hide, h.cfg.Shell.Hide...)
}

// socketPath is the absolute path in a socket variable ("unix:path=/run/…,guid=…",
// "unix:///…", "/…:1:1"), or "".
func socketPath(v string) string {
	v = strings.TrimPrefix(v, "unix://")
	if rest, ok := strings.CutPrefix(v, "unix:"); ok {
		for _, kv := range strings.Split(rest, ",") {
			if p, ok := strings.CutPrefix(kv, "path="); ok {
				v = p
			}
		}
	}
	if i := strings.IndexByte(v, ':'); i >= 0 {
		v = v[:i]
	}
	if !filepath.IsAbs(v) || filepath.Clean(v) == "/" {
		return ""
	}
	return filepath.Clean(v)
}

// shellEnvKeep are the variables of the app's environment a command inherits; every other
// one (API keys, tokens) is left out.
var shellEnvKeep = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ",
	"GOPATH", "GOROOT", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN", "JAVA_HOME", "VIRTUAL_ENV", "CONDA_PREFIX",
	"NVM_DIR", "CARGO_HOME", "RUSTUP_HOME", "PYENV_ROOT",
}

func shellEnv(unsandboxed bool) []string {
	env := []string{"TERM=dumb", "NO_COLOR=1", "TMPDIR=/tmp", "CREWAGENT_SHELL=1"}
	for _, k := range shellEnvKeep {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	if _, ok := os.LookupEnv("PATH"); !ok {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	if !unsandboxed {
		// The home is read-only inside the sandbox: caches go to the private /tmp.
		env = append(env, "XDG_CACHE_HOME=/tmp/.cache")
	}
	return env
}

// aliasInCommand finds @project, @pkg and @skill/<name> where a path may start in a command
// line: at its start or after a space, a quote, "=", "(", ":" or ",".
var aliasInCommand = regexp.MustCompile(`(^|[\s"'=(:,])(@project|@pkg|@skill/[A-Za-z0-9_.-]+)(/|$|[\s"';)&|<>,])`)

// expandAliases replaces the path aliases of a command line by their host folders, and
// returns the folders (of @pkg and @skill) to bind read-only in the sandbox.
func (h *Host) expandAliases(command string) (string, []string, *ToolError) {
	var (
		readOnly []string
		terr     *ToolError
	)
	// Matches may touch (a separator ends one and starts the next): expand until none is left.
	for range 64 {
		loc := aliasInCommand.FindStringSubmatchIndex(command)
		if loc == nil {
			break
		}
		alias := command[loc[4]:loc[5]]
		r, err := h.sandbox.Resolve(alias, AccessRead)
		if err != nil {
			terr = err
			break
		}
		if r.Base != AliasProject {
			readOnly = append(readOnly, r.Root)
		}
		command = command[:loc[4]] + r.Root + command[loc[5]:]
	}
	if terr != nil {
		return "", nil, terr
	}
	return command, readOnly, nil
}

// shellOutput keeps the head and the tail of a command's output in memory, streams all of it
// to a file among the conversation's tool outputs, and passes each piece to the host's
// OnToolOutput.
type shellOutput struct {
	head    []byte
	tail    []byte // ring buffer of the last ShellTailBytes
	tailPos int
	total   int64

	file      *os.File
	fileErr   error
	alias     string
	onChunk   func([]byte)
	onDone    func()
	headLimit int
	tailLimit int
}

// newShellOutput prepares the output of one call: the file is
// <ToolResults>/<conversation>/cmd-<id>.txt when the conversation's outputs folder exists.
func (h *Host) newShellOutput(ctx context.Context) (*shellOutput, error) {
	o := &shellOutput{headLimit: ShellHeadBytes, tailLimit: ShellTailBytes}
	if fn := h.cfg.OnToolOutput; fn != nil {
		id := toolCallID(ctx)
		o.onChunk = func(b []byte) { fn(ToolOutput{Tool: conversation.ToolShellRun, ToolCallID: id, Data: b}) }
		o.onDone = func() { fn(ToolOutput{Tool: conversation.ToolShellRun, ToolCallID: id, Done: true}) }
	}
	roots := h.sandbox.Roots()
	if roots.ToolResults == "" || roots.Conversation == "" || !validFileID(roots.Conversation) {
		return o, nil
	}
	id := toolCallID(ctx)
	if !validFileID(id) {
		id = h.cfg.NewID()
	}
	if !validFileID(id) {
		id = strconv.FormatInt(h.cfg.Now().UnixNano(), 10)
	}
	dir := filepath.Join(roots.ToolResults, roots.Conversation)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := shellOutputPrefix + id + ".txt"
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	o.file = f
	o.alias = ToolResultsAlias + "/" + roots.Conversation + "/" + name
	return o, nil
}

// shellOutputPrefix starts the names of saved command outputs (the conversation store's
// CommandOutputPrefix: a fork copies them).
const shellOutputPrefix = "cmd-"

var fileIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$`)

func validFileID(s string) bool { return fileIDPattern.MatchString(s) && !strings.Contains(s, "..") }

// Write keeps what the result needs and passes the rest on; it never fails, so a command
// is never blocked by its output.
func (o *shellOutput) Write(b []byte) (int, error) {
	n := len(b)
	o.total += int64(n)
	if o.file != nil && o.fileErr == nil {
		if _, err := o.file.Write(b); err != nil {
			o.fileErr = err
		}
	}
	if o.onChunk != nil {
		o.onChunk(b)
	}
	if room := o.headLimit - len(o.head); room > 0 {
		k := min(room, len(b))
		o.head = append(o.head, b[:k]...)
		b = b[k:]
	}
	if len(b) == 0 {
		return n, nil
	}
	if o.tail == nil {
		o.tail = make([]byte, 0, o.tailLimit)
	}
	if len(b) >= o.tailLimit {
		o.tail = append(o.tail[:0], b[len(b)-o.tailLimit:]...)
		o.tailPos = 0
		return n, nil
	}
	for len(b) > 0 {
		if len(o.tail) < o.tailLimit {
			k := min(o.tailLimit-len(o.tail), len(b))
			o.tail = append(o.tail, b[:k]...)
			b = b[k:]
			continue
		}
		k := copy(o.tail[o.tailPos:], b)
		o.tailPos = (o.tailPos + k) % o.tailLimit
		b = b[k:]
	}
	return n, nil
}

// finish closes the file and returns its alias when the whole output is in it ("" when
// there is no file or writing it failed). A file is kept only when the result cannot carry
// the whole output.
func (o *shellOutput) finish() string {
	if o.file == nil {
		return ""
	}
	name := o.file.Name()
	cerr := o.file.Close()
	keep := o.total > int64(len(o.head)+len(o.tail))
	if o.fileErr != nil || cerr != nil || !keep {
		_ = os.Remove(name)
		return ""
	}
	return o.alias
}

// done tells OnToolOutput that the output is over.
func (o *shellOutput) done() {
	if o.onDone != nil {
		o.onDone()
	}
}

// text is the output the result carries: all of it, or its head and tail around a line
// saying how much was left out; invalid UTF-8 is replaced.
func (o *shellOutput) text() (string, bool, int64) {
	tail := o.tail
	if len(tail) == o.tailLimit && o.tailPos > 0 {
		tail = append(append([]byte{}, o.tail[o.tailPos:]...), o.tail[:o.tailPos]...)
	}
	kept := int64(len(o.head) + len(tail))
	if kept >= o.total {
		return strings.ToValidUTF8(string(o.head)+string(tail), string(utf8.RuneError)), false, o.total
	}
	head := trimPartialRuneEnd(o.head)
	tail = trimPartialRuneStart(tail)
	s := strings.ToValidUTF8(string(head), string(utf8.RuneError)) +
		fmt.Sprintf("\n… (%d bytes left out) …\n", o.total-kept) +
		strings.ToValidUTF8(string(tail), string(utf8.RuneError))
	return s, true, o.total
}

func trimPartialRuneEnd(b []byte) []byte {
	for i := 0; i < 3 && len(b) > 0; i++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

func trimPartialRuneStart(b []byte) []byte {
	for i := 0; i < 3 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return b
}
