package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// DefaultArtifactsDir is the project-relative folder whose new files are reported through
// Config.OnArtifactWritten when Config.ArtifactsDir is empty.
const DefaultArtifactsDir = "artifacts"

// ToolDef describes one tool for the model: its name, description and JSON-schema parameters.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// StateGuard validates a write to @state/workflow.md (by fs.write or fs.apply_patch) before it
// happens. oldContent is nil when the file does not exist yet. Return a *ToolError with code
// E_SCHEMA_VALIDATION or E_INVALID_TRANSITION (and details such as allowedNext) to choose
// what the model sees; any other error becomes E_SCHEMA_VALIDATION. Messages go to the model
// as they are, so they must not contain host paths.
type StateGuard interface {
	ValidateStateWrite(oldContent, newContent []byte) error
}

// AskUserHandler receives each widget ui.ask_user registers, e.g. to persist it with the
// tool message or push it to the UI. It must not block waiting for the answer. An error
// fails the call with E_INTERNAL and the widget is not left pending.
type AskUserHandler interface {
	AskUser(ctx context.Context, w Widget) error
}

// Config configures a Host. Only Roots and Policy matter for most callers.
type Config struct {
	// Roots are the folders behind @project, @pkg and @state.
	Roots Roots
	// Policy is the effective (merged) tool policy; zero limits take the defaults.
	Policy Policy
	// StateGuard, when set, validates writes to @state/workflow.md.
	StateGuard StateGuard
	// ArtifactsDir is the project-relative artifacts folder (default "artifacts").
	ArtifactsDir string
	// OnArtifactWritten is called with the project-relative path (slash-separated) after
	// fs.write creates a new file under @project/<ArtifactsDir>/. An error fails the call
	// with E_INTERNAL and its message (the callback undoes the write itself if it has to).
	OnArtifactWritten func(projectRelPath string) error
	// ExecLog receives one JSON line per call. ExecLogPath, when set instead, is a file the
	// lines are appended to (created with its parent folders on first use).
	ExecLog     io.Writer
	ExecLogPath string
	// AskUser receives the widgets of ui.ask_user (optional).
	AskUser AskUserHandler
	// Allow, when not nil, narrows the tools offered to these names (MCP
	// tools, mcp__*, aside: their servers are narrowed by the MCP policy).
	// A conversation created with a tool list (conv.create) gets it here.
	Allow []string
	// Shell is how shell.run runs its commands (offered where Policy.Shell.Enabled).
	Shell ShellConfig
	// OnToolOutput, when set, receives the output of a running tool as it comes (shell.run:
	// stdout and stderr interleaved), for a live view of the call. It runs on the goroutine
	// that reads the command's output: it must not block for long.
	OnToolOutput func(ToolOutput)
	// Providers offer more tools, listed after the built-in ones (see Provider).
	// A provider tool whose name a built-in tool or an earlier provider already
	// uses is left out.
	Providers []Provider
	// Changes, when set, records every change the tools make to @project
	// files, before it is made (fs.write, fs.apply_patch, shell.run).
	Changes ChangeRecorder
	// Now and NewID default to time.Now and uuid.NewString.
	Now   func() time.Time
	NewID func() string
}

// toolSpec is one tool: its definition, the policy family that gates it, and its body.
type toolSpec struct {
	name        string
	family      string // "fs", "shell" or "ui"
	description string
	schema      string
	run         func(ctx context.Context, h *Host, args json.RawMessage) Result
	// def, for a provider's tool, is its definition as the provider gave it.
	provided *ToolDef
}

func (t toolSpec) def() ToolDef {
	if t.provided != nil {
		return *t.provided
	}
	return ToolDef{Name: t.name, Description: t.description, Parameters: json.RawMessage(t.schema)}
}

// allTools lists every tool the host knows, in the order they are offered.
func allTools() []toolSpec {
	return []toolSpec{fsListTool(), fsReadTool(), fsSearchTool(), fsWriteTool(), fsApplyPatchTool(), shellRunTool(), uiAskUserTool()}
}

// Host runs tool calls for one conversation or run. It is safe for concurrent use.
type Host struct {
	cfg          Config
	policy       Policy
	sandbox      *Sandbox
	known        []toolSpec
	visible      []toolSpec
	artifactsDir string

	writeMu sync.Mutex // serialises fs.write / fs.apply_patch (precondition checks + write)

	logMu  sync.Mutex
	logErr error

	pendingMu sync.Mutex
	pending   []Widget
}

// NewHost builds a host. The tool list and call enforcement both come from cfg.Policy.
func NewHost(cfg Config) *Host {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	h := &Host{cfg: cfg, policy: cfg.Policy.Normalized(), sandbox: NewSandbox(cfg.Roots), known: allTools()}
	h.artifactsDir = strings.Trim(filepathToSlashClean(cfg.ArtifactsDir), "/")
	if h.artifactsDir == "" {
		h.artifactsDir = DefaultArtifactsDir
	}
	for _, t := range h.known {
		if t.family == "fs" && !h.policy.FS.Enabled {
			continue
		}
		if t.family == "shell" && (!h.policy.Shell.Enabled || h.sandbox.Roots().Project == "") {
			continue
		}
		h.visible = append(h.visible, t)
	}
	for _, p := range cfg.Providers {
		for _, d := range p.Tools() {
			if d.Name == "" || slices.ContainsFunc(h.visible, func(t toolSpec) bool { return t.name == d.Name }) {
				continue
			}
			d, p := d, p
			h.visible = append(h.visible, toolSpec{name: d.Name, family: "provider", description: d.Description, provided: &d,
				run: func(ctx context.Context, _ *Host, args json.RawMessage) Result {
					res, ok := p.Call(ctx, d.Name, args)
					if !ok {
						return failure(errf(CodeToolNotAvailable, "%s is no longer available", d.Name))
					}
					return res
				}})
		}
	}
	if cfg.Allow != nil {
		h.visible = slices.DeleteFunc(h.visible, func(t toolSpec) bool {
			return !conversation.IsMCPTool(t.name) && !slices.Contains(cfg.Allow, t.name)
		})
	}
	for _, p := range cfg.Providers {
		if ha, ok := p.(HostAware); ok {
			ha.HostTools(h.ToolNames())
		}
	}
	return h
}

func filepathToSlashClean(p string) string {
	if p == "" {
		return ""
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// Policy returns the effective policy (limits filled in).
func (h *Host) Policy() Policy { return h.policy }

// Sandbox returns the host's path sandbox.
func (h *Host) Sandbox() *Sandbox { return h.sandbox }

// Tools returns the tools visible under the policy.
func (h *Host) Tools() []ToolDef {
	defs := make([]ToolDef, len(h.visible))
	for i, t := range h.visible {
		defs[i] = t.def()
	}
	return defs
}

// ToolNames returns the names of the visible tools.
func (h *Host) ToolNames() []string {
	names := make([]string, len(h.visible))
	for i, t := range h.visible {
		names[i] = t.name
	}
	return names
}

// PolicyText is a short model- and human-readable summary of the effective policy.
func (h *Host) PolicyText() string { return h.policy.text(h.ToolNames(), h.sandbox.Roots()) }

// ExecLogErr returns the last error writing the execution log, if any. Logging failures
// never fail a tool call.
func (h *Host) ExecLogErr() error {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return h.logErr
}

type toolCallIDKey struct{}

// WithToolCallID attaches the model's tool call id to ctx; the execution log and widgets
// record it.
func WithToolCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, toolCallIDKey{}, id)
}

func toolCallID(ctx context.Context) string {
	id, _ := ctx.Value(toolCallIDKey{}).(string)
	return id
}

// ToolCallID returns the model's tool call id attached with WithToolCallID ("" when none).
func ToolCallID(ctx context.Context) string { return toolCallID(ctx) }

// Call runs one tool call. Tool failures come back as ok:false results, never as Go errors.
// Every call, refused ones included, is appended to the execution log.
func (h *Host) Call(ctx context.Context, name, argsJSON string) Result {
	start := h.cfg.Now()
	res := h.call(ctx, name, argsJSON)
	h.logCall(ctx, start, name, argsJSON, res)
	return res
}

func (h *Host) call(ctx context.Context, name, argsJSON string) (res Result) {
	idx := slices.IndexFunc(h.visible, func(t toolSpec) bool { return t.name == name })
	if idx < 0 {
		if h.cfg.Allow != nil && !slices.Contains(h.cfg.Allow, name) && !conversation.IsMCPTool(name) {
			return failure(errf(CodeToolNotAvailable, "%s is not available in this conversation: it was created with a narrower list of tools", name).
				withDetail("available", h.ToolNames()))
		}
		if name == conversation.ToolShellRun {
			return failure(errf(CodeToolNotAvailable, "%s is not available: commands are turned off here by the tool policy", name).
				withDetail("available", h.ToolNames()))
		}
		if slices.ContainsFunc(h.known, func(t toolSpec) bool { return t.name == name }) {
			return failure(errf(CodeToolNotAvailable, "%s is not available: file tools are disabled by the tool policy", name).
				withDetail("available", h.ToolNames()))
		}
		return failure(errf(CodeToolNotAvailable, "unknown tool %q", name).withDetail("available", h.ToolNames()))
	}
	if err := ctx.Err(); err != nil {
		return failure(errf(CodeInternal, "the call was cancelled before it started"))
	}
	raw := []byte(strings.TrimSpace(argsJSON))
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if !json.Valid(raw) {
		return failure(errf(CodeBadArguments, "the arguments are not valid JSON"))
	}
	if raw[0] != '{' {
		return failure(errf(CodeBadArguments, "the arguments must be a JSON object"))
	}
	defer func() {
		if p := recover(); p != nil {
			res = failure(errf(CodeInternal, "%s failed unexpectedly", name))
		}
	}()
	if name == conversation.ToolShellRun {
		done, terr := h.beginCommand(ctx)
		if terr != nil {
			return failure(terr)
		}
		res = h.visible[idx].run(ctx, h, raw)
		if err := done(); err != nil && res.OK {
			return failure(errf(CodeInternal, "the command ran but what it changed was not recorded: %s", err.Error()))
		}
		return res
	}
	return h.visible[idx].run(ctx, h, raw)
}

// decodeArgs decodes a JSON object into v, refusing unknown fields.
func decodeArgs(raw json.RawMessage, v any) *ToolError {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := err.Error()
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Type != nil {
			t := ute.Type
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			msg = fmt.Sprintf("field %q must be %s", ute.Field, jsonKind(t.Kind()))
		}
		return errf(CodeBadArguments, "invalid arguments: %s", strings.TrimPrefix(msg, "json: "))
	}
	if dec.More() {
		return errf(CodeBadArguments, "invalid arguments: extra data after the JSON object")
	}
	return nil
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		return "an integer"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + k.String()
}

// execLine is one line of execution.jsonl for a tool call.
type execLine struct {
	TS         string          `json:"ts"`
	Type       string          `json:"type"`
	Tool       string          `json:"tool"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Args       json.RawMessage `json:"args"`
	OK         bool            `json:"ok"`
	Code       string          `json:"code,omitempty"`
	DurationMs int64           `json:"durationMs"`
}

// ExecLineType is the "type" of tool-call lines in execution.jsonl.
const ExecLineType = "tool_call"

func (h *Host) logCall(ctx context.Context, start time.Time, name, argsJSON string, res Result) {
	if h.cfg.ExecLog == nil && h.cfg.ExecLogPath == "" {
		return
	}
	line := execLine{
		TS:         fsx.Stamp(start),
		Type:       ExecLineType,
		Tool:       name,
		ToolCallID: toolCallID(ctx),
		Args:       logArgs(argsJSON),
		OK:         res.OK,
		Code:       res.Code(),
		DurationMs: h.cfg.Now().Sub(start).Milliseconds(),
	}
	b, err := json.Marshal(line)
	if err != nil {
		h.setLogErr(err)
		return
	}
	b = append(b, '\n')
	h.logMu.Lock()
	defer h.logMu.Unlock()
	if h.cfg.ExecLog != nil {
		if _, err := h.cfg.ExecLog.Write(b); err != nil {
			h.logErr = err
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.cfg.ExecLogPath), 0o755); err != nil {
		h.logErr = err
		return
	}
	f, err := os.OpenFile(h.cfg.ExecLogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		h.logErr = err
		return
	}
	if _, err := f.Write(b); err != nil {
		h.logErr = err
	}
	if err := f.Close(); err != nil && h.logErr == nil {
		h.logErr = err
	}
}

func (h *Host) setLogErr(err error) {
	h.logMu.Lock()
	h.logErr = err
	h.logMu.Unlock()
}

// Limits of the argument copy kept in the execution log.
const (
	logContentMax = 200
	logStringMax  = 1000
)

// logArgs returns the arguments for the execution log with "content" (and any very long
// string) truncated. Arguments that are not JSON are kept as a truncated string.
func logArgs(argsJSON string) json.RawMessage {
	dec := json.NewDecoder(strings.NewReader(argsJSON))
	dec.UseNumber()
	var v any
	if strings.TrimSpace(argsJSON) == "" {
		v = map[string]any{}
	} else if err := dec.Decode(&v); err != nil || dec.More() {
		b, _ := json.Marshal(truncateString(argsJSON, logStringMax))
		return b
	}
	b, err := json.Marshal(truncateArgs("", v))
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

func truncateArgs(key string, v any) any {
	switch t := v.(type) {
	case string:
		if key == "content" {
			return truncateString(t, logContentMax)
		}
		return truncateString(t, logStringMax)
	case map[string]any:
		for k, x := range t {
			t[k] = truncateArgs(k, x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = truncateArgs(key, x)
		}
		return t
	}
	return v
}

// truncateString cuts s to at most max bytes on a rune boundary and notes the cut.
func truncateString(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := runeBoundary(s, max)
	return fmt.Sprintf("%s…(truncated, %d bytes)", s[:cut], len(s))
}

// runeBoundary returns the largest n <= max such that s[:n] does not split a rune.
func runeBoundary(s string, max int) int {
	if max >= len(s) {
		return len(s)
	}
	n := max
	for n > 0 && n > max-4 && !isRuneStart(s[n]) {
		n--
	}
	if !isRuneStart(s[n]) {
		return max
	}
	return n
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
