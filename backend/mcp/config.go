package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"

	"crewagent/backend/errs"
	"crewagent/backend/mcp/oauth"
)

// Source says where a server's configuration comes from.
type Source string

const (
	// SourceSettings is the mcpServers table of settings.json: written by the user, trusted.
	SourceSettings Source = "settings"
	// SourceProject is a project's .mcp.json: untrusted until approved for that project.
	SourceProject Source = "project"
)

// Transport kinds.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	// TransportSSE is the legacy HTTP+SSE transport (protocol 2024-11-05): a GET event
	// stream at the URL and POSTs to the endpoint it announces.
	TransportSSE = "sse"
)

// ServerConfig is one entry of an mcpServers table, in the shape Claude Desktop and Cursor
// use: {command, args, env, cwd} for a local (stdio) server, {url, headers} for a
// streamable HTTP one, and disabled for either. Env and Headers may hold secrets. Its JSON
// is the entry as the table stores it, without the name (the table's key).
//
// Every string but the name may hold variables (see Vars): they are kept as written here and
// expanded by Resolve when the server starts. EnvFile names a dotenv file (relative to the
// project root) whose variables are added to Env.
type ServerConfig struct {
	Name string `json:"-"`
	// File is, for a project server, the project-relative file it comes from (.mcp.json,
	// .cursor/mcp.json or .vscode/mcp.json).
	File     string            `json:"-"`
	Source   Source            `json:"-"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	EnvFile  string            `json:"envFile,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// Type is the transport the entry names for a url server: "http" (streamable HTTP) or
	// "sse" (the legacy SSE transport); empty when it names none (see Transport).
	Type string `json:"type,omitempty"`
	// OAuth configures the sign-in to a url server that requires one (a pre-registered
	// client, scopes, a machine client); nil signs in with dynamic registration when the
	// server asks.
	OAuth *oauth.Config `json:"oauth,omitempty"`

	// envFileDigest is, for a project server with an envFile, the SHA-256 of that file's
	// content as it was read with the configuration: part of Hash, so an approval covers the
	// variables the project's file gives the server as well.
	envFileDigest string
	// projectRoot is, for a project server, the canonical path of the project folder whose
	// file defines it: part of Hash, so an approval covers the server in that folder only
	// (a copy or clone of the project, which carries the same project id, asks again).
	projectRoot string
}

// Transport returns TransportStdio for a command, else the transport the entry names
// (Type), else TransportSSE for a URL whose path ends in /sse (the legacy transport's usual
// endpoint; see AutoSSE), else TransportHTTP.
func (c ServerConfig) Transport() string {
	switch {
	case c.URL == "":
		return TransportStdio
	case c.Type == TransportSSE || c.Type == TransportHTTP:
		return c.Type
	case sseURL(c.URL):
		return TransportSSE
	}
	return TransportHTTP
}

// AutoSSE reports whether the legacy SSE transport was chosen from the URL alone (no type
// given): when it fails, streamable HTTP is tried at the same URL.
func (c ServerConfig) AutoSSE() bool {
	return c.URL != "" && c.Type == "" && sseURL(c.URL)
}

// sseURL reports whether the path of u ends in /sse (variables are not expanded here: a
// URL whose path is a variable is not recognised).
func sseURL(u string) bool {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return strings.HasSuffix(strings.TrimRight(u, "/"), "/sse")
}

// hashTransport is the transport as approvals have always recorded it: stdio, http for
// every url server, sse only when the entry names it.
func (c ServerConfig) hashTransport() string {
	switch {
	case c.URL == "":
		return TransportStdio
	case c.Type == TransportSSE:
		return TransportSSE
	}
	return TransportHTTP
}

// Clone returns a deep copy.
func (c ServerConfig) Clone() ServerConfig {
	c.Args = slices.Clone(c.Args)
	c.Env = cloneMap(c.Env)
	c.Headers = cloneMap(c.Headers)
	if c.OAuth != nil {
		o := *c.OAuth
		o.Scopes = slices.Clone(o.Scopes)
		if o.Enterprise != nil {
			e := *o.Enterprise
			e.Scopes = slices.Clone(e.Scopes)
			o.Enterprise = &e
		}
		c.OAuth = &o
	}
	return c
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Hash identifies what the entry runs: transport, command, args, env, envFile, cwd, url and
// headers as written, and the content of a project server's envFile (not the name, the
// source, the file or disabled). An approval holds the hash of the configuration
// it approved, so an edited entry needs a new approval. The form is "sha256:<hex>".
func (c ServerConfig) Hash() string {
	canon := struct {
		Transport string            `json:"transport"`
		Command   string            `json:"command"`
		Args      []string          `json:"args"`
		Env       map[string]string `json:"env"`
		EnvFile   string            `json:"envFile,omitempty"`
		EnvDigest string            `json:"envFileDigest,omitempty"`
		Root      string            `json:"projectRoot,omitempty"`
		Cwd       string            `json:"cwd"`
		URL       string            `json:"url"`
		Headers   map[string]string `json:"headers"`
		OAuth     *oauth.Config     `json:"oauth,omitempty"`
	}{c.hashTransport(), c.Command, nilIfEmpty(c.Args), nilIfEmptyMap(c.Env), c.EnvFile, c.envFileDigest, c.projectRoot, c.Cwd, c.URL, nilIfEmptyMap(c.Headers), c.OAuth}
	b, _ := json.Marshal(canon) // maps marshal with sorted keys: the form is canonical
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilIfEmptyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// Problem is one thing wrong with a configuration. Server is the entry's name ("" for the
// document as a whole) and Field the entry's field ("" for the entry itself). Messages never
// contain env or header values.
type Problem struct {
	Server  string `json:"server,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// Key and Params: the template of errs.Messages Message was made from,
	// and the values it names (the window says it in the user's language);
	// In is the project file the problem was found in, when Message says so.
	Key    string      `json:"key,omitempty"`
	Params errs.Params `json:"params,omitempty"`
	In     string      `json:"in,omitempty"`
}

// problem is a Problem whose message is a template of errs.Messages.
func problem(server, field, key string, params errs.Params) Problem {
	return Problem{Server: server, Field: field, Message: errs.Text(key, params), Key: key, Params: params}
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Server != "" {
		b.WriteString("server " + strconvQuote(p.Server))
		if p.Field != "" {
			b.WriteString(" " + p.Field)
		}
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// ParseServers parses an mcpServers table: a JSON object of name → entry. Each entry is
// checked on its own; a bad entry is reported in the problems and left out, the others are
// returned, sorted by name. Unknown fields of an entry are ignored. An empty or null table
// has no servers.
func ParseServers(table []byte, src Source) ([]ServerConfig, []Problem) {
	table = bytes.TrimSpace(table)
	if len(table) == 0 || string(table) == "null" {
		return nil, nil
	}
	entries, err := objectEntries(table)
	if err != nil {
		return nil, []Problem{problem("", "", "mcp.tableNotObject", errs.Params{"detail": err.Error()})}
	}
	var out []ServerConfig
	var problems []Problem
	names := map[string]bool{}
	wires := map[string]string{} // tool-name form -> name
	for _, e := range entries {
		if names[e.key] {
			problems = append(problems, problem(e.key, "", "mcp.definedTwice", nil))
			continue
		}
		names[e.key] = true
		if err := CheckServerName(e.key); err != nil {
			problems = append(problems, Problem{Server: e.key, Message: err.Error()})
			continue
		}
		wire := ServerWireName(e.key)
		if other, clash := wires[wire]; clash {
			problems = append(problems, problem(e.key, "", "mcp.sameWireName", errs.Params{"wire": wire, "other": other}))
			continue
		}
		cfg, ps := parseEntry(e.key, e.value)
		if len(ps) > 0 {
			problems = append(problems, ps...)
			continue
		}
		wires[wire] = e.key
		cfg.Source = src
		out = append(out, cfg)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}

// ParseProjectFile parses the content of a project's .mcp.json (see ParseFile). Its servers
// have SourceProject and File ProjectFileName.
func ParseProjectFile(data []byte) ([]ServerConfig, []Problem) {
	return ParseFile(data, SourceProject, ProjectFileName)
}

// ParseFile parses a configuration file: Claude Desktop's, Claude Code's and Cursor's
// {"mcpServers": {...}}, or VS Code's {"servers": {...}, "inputs": [...]}. The servers have
// src as their source and file (a project-relative path, "" for the settings) as their File.
func ParseFile(data []byte, src Source, file string) ([]ServerConfig, []Problem) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if len(data) == 0 {
		return nil, nil
	}
	entries, err := objectEntries(data)
	if err != nil {
		return nil, []Problem{problem("", "", "mcp.fileNotObject", errs.Params{"file": file, "detail": err.Error()})}
	}
	table, ok := serverTable(entries)
	if !ok {
		return nil, []Problem{problem("", "", "mcp.fileNoServers", errs.Params{"file": file})}
	}
	servers, problems := ParseServers(table, src)
	for i := range servers {
		servers[i].File = file
	}
	return servers, problems
}

// serverTable finds the table of servers among the members of a whole configuration file:
// "mcpServers", else VS Code's "servers" when it is an object whose members are objects
// (and not itself a server, with a command or url of its own) or when "inputs" stands
// beside it.
func serverTable(entries []member) (json.RawMessage, bool) {
	for _, e := range entries {
		if e.key == "mcpServers" {
			return e.value, true
		}
	}
	var servers json.RawMessage
	hasInputs := false
	for _, e := range entries {
		switch e.key {
		case "servers":
			servers = e.value
		case "inputs":
			hasInputs = true
		}
	}
	if servers == nil {
		return nil, false
	}
	if hasInputs {
		return servers, true
	}
	var table map[string]json.RawMessage
	if err := json.Unmarshal(servers, &table); err != nil {
		return nil, false
	}
	for _, v := range table {
		var entry map[string]json.RawMessage
		if err := json.Unmarshal(v, &entry); err != nil || entry == nil {
			return nil, false // "servers" is a server entry with a field of another kind
		}
	}
	if _, cmd := table["command"]; cmd {
		return nil, false
	}
	if _, url := table["url"]; url {
		return nil, false
	}
	return servers, true
}

// ParseBlock parses configuration text a user pasted: a whole Claude Desktop / Cursor file
// ({"mcpServers": {...}}), a whole VS Code file ({"servers": {...}, "inputs": [...]}), the
// table itself ({"name": {...}, ...}), or one or more `"name": {...}` members without the
// enclosing braces (a trailing comma is fine). The servers are returned with src as their
// source.
func ParseBlock(text string, src Source) ([]ServerConfig, []Problem) {
	t := strings.TrimSpace(strings.TrimPrefix(text, "\uFEFF"))
	if t == "" {
		return nil, []Problem{problem("", "", "mcp.nothingToParse", nil)}
	}
	if !strings.HasPrefix(t, "{") {
		t = "{" + strings.TrimSuffix(t, ",") + "}"
	}
	entries, err := objectEntries([]byte(t))
	if err != nil {
		return nil, []Problem{problem("", "", "mcp.notObject", errs.Params{"detail": err.Error()})}
	}
	if table, ok := serverTable(entries); ok {
		return ParseServers(table, src)
	}
	return ParseServers([]byte(t), src)
}

type member struct {
	key   string
	value json.RawMessage
}

// objectEntries returns the members of a JSON object in order (duplicates included).
func objectEntries(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("found %s instead of an object", jsonKindOf(tok))
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(data, err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonErr(data, err)
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonErr(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the object")
	}
	return out, nil
}

func jsonErr(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")) + 1
		return fmt.Errorf("%v (line %d)", syn, line)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the JSON ends too early")
	}
	return err
}

func jsonKindOf(v any) string {
	switch t := v.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}

// parseEntry checks one entry. Problems name the field; values of env and headers never
// appear in them.
func parseEntry(name string, raw json.RawMessage) (ServerConfig, []Problem) {
	cfg := ServerConfig{Name: name}
	var ps []Problem
	bad := func(field, format string, args ...any) {
		ps = append(ps, Problem{Server: name, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	say := func(field, key string, params errs.Params) {
		ps = append(ps, problem(name, field, key, params))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		var v any
		_ = json.Unmarshal(raw, &v)
		bad("", "must be an object such as {\"command\": \"npx\", \"args\": [\"-y\", \"…\"]} or {\"url\": \"https://…\"}, found %s", jsonValueKind(v))
		return cfg, ps
	}
	str := func(field string, dst *string) bool {
		v, ok := fields[field]
		if !ok || string(v) == "null" {
			return false
		}
		if err := json.Unmarshal(v, dst); err != nil {
			say(field, "mcp.mustBeString", nil)
			return false
		}
		return true
	}
	strMap := func(field string) map[string]string {
		v, ok := fields[field]
		if !ok || string(v) == "null" {
			return nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			say(field, "mcp.mustBeStringMap", nil)
			return nil
		}
		out := make(map[string]string, len(m))
		for k, rv := range m {
			var s string
			if err := json.Unmarshal(rv, &s); err != nil {
				var x any
				_ = json.Unmarshal(rv, &x)
				bad(field+"."+k, "must be a string, found %s", jsonValueKind(x))
				continue
			}
			out[k] = s
		}
		return out
	}

	hasCommand := str("command", &cfg.Command)
	hasURL := str("url", &cfg.URL)
	str("cwd", &cfg.Cwd)
	str("envFile", &cfg.EnvFile)
	var typ string
	str("type", &typ)
	if v, ok := fields["args"]; ok && string(v) != "null" {
		var arr []json.RawMessage
		if err := json.Unmarshal(v, &arr); err != nil {
			say("args", "mcp.mustBeStringArray", nil)
		} else {
			cfg.Args = make([]string, 0, len(arr))
			for i, a := range arr {
				var s string
				if err := json.Unmarshal(a, &s); err != nil {
					say(fmt.Sprintf("args[%d]", i), "mcp.mustBeString", nil)
					continue
				}
				cfg.Args = append(cfg.Args, s)
			}
		}
	}
	cfg.Env = strMap("env")
	cfg.Headers = strMap("headers")
	if v, ok := fields["oauth"]; ok && string(v) != "null" {
		var o oauth.Config
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			bad("oauth", "must be an object such as {\"clientId\": \"…\", \"clientSecret\": \"…\", \"scopes\": [\"…\"]}: %v", err)
		} else if err := o.Validate(); err != nil {
			bad("oauth", "%s", strings.TrimPrefix(err.Error(), "oauth: "))
		} else {
			cfg.OAuth = &o
		}
	}
	if v, ok := fields["disabled"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &cfg.Disabled); err != nil {
			say("disabled", "mcp.mustBeBool", nil)
		}
	}

	checkRef := func(field, v string) {
		if err := checkVars(v); err != nil {
			bad(field, "%v", err)
		}
	}
	checkRef("command", cfg.Command)
	for i, a := range cfg.Args {
		checkRef(fmt.Sprintf("args[%d]", i), a)
	}
	checkRef("cwd", cfg.Cwd)
	checkRef("envFile", cfg.EnvFile)
	for _, k := range sortedKeys(cfg.Env) {
		checkRef("env."+k, cfg.Env[k])
	}
	for _, k := range sortedKeys(cfg.Headers) {
		checkRef("headers."+k, cfg.Headers[k])
	}
	if cfg.OAuth != nil {
		checkRef("oauth.clientId", cfg.OAuth.ClientID)
		checkRef("oauth.clientSecret", cfg.OAuth.ClientSecret)
		checkRef("oauth.privateKey", cfg.OAuth.PrivateKey)
	}

	switch typ {
	case "", "stdio":
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		cfg.Type = TransportHTTP
	case "sse":
		cfg.Type = TransportSSE
	default:
		say("type", "mcp.badType", errs.Params{"type": typ})
	}
	switch {
	case hasCommand && hasURL:
		say("", "mcp.commandAndURL", nil)
	case !hasCommand && !hasURL:
		say("", "mcp.noCommandOrURL", nil)
	case hasCommand:
		if strings.TrimSpace(cfg.Command) == "" {
			say("command", "mcp.empty", nil)
		}
		if typ != "" && typ != "stdio" {
			say("type", "mcp.typeWithCommand", errs.Params{"type": typ})
		}
		cfg.Type = ""
		if len(cfg.Headers) > 0 {
			say("headers", "mcp.onlyURLPlural", nil)
		}
		if cfg.OAuth != nil {
			say("oauth", "mcp.onlyURL", nil)
			cfg.OAuth = nil
		}
		if strings.ContainsRune(cfg.Command, 0) {
			say("command", "mcp.nul", nil)
		}
		for k := range cfg.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				say("env", "mcp.badEnvName", errs.Params{"name": k})
			}
		}
		cfg.Headers = nil
	case hasURL:
		if err := checkVars(cfg.URL); err != nil {
			bad("url", "%v", err)
		} else if err := checkServerURL(probeURL(cfg.URL)); err != nil {
			say("url", "mcp.badURL", nil)
		}
		if typ == "stdio" {
			say("type", "mcp.stdioWithURL", nil)
		}
		if len(cfg.Args) > 0 {
			say("args", "mcp.onlyCommandPlural", nil)
		}
		if len(cfg.Env) > 0 {
			say("env", "mcp.onlyCommand", nil)
		}
		if cfg.Cwd != "" {
			say("cwd", "mcp.onlyCommand", nil)
		}
		if cfg.EnvFile != "" {
			say("envFile", "mcp.onlyCommand", nil)
		}
		for k, v := range cfg.Headers {
			if !validHeaderName(k) {
				say("headers", "mcp.badHeaderName", errs.Params{"name": k})
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				say("headers."+k, "mcp.lineBreaks", nil)
			}
		}
		cfg.Args, cfg.Env = nil, nil
	}
	return cfg, ps
}

func jsonValueKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// probeURL stands a URL with variables in for the URL they give, for checking its form:
// ${workspaceFolder} and the like become a path, other variables "1" (a host or a port).
func probeURL(raw string) string {
	if !strings.Contains(raw, "${") {
		return raw
	}
	if strings.HasPrefix(raw, "${") {
		return "http://x/" // the whole URL comes from a variable: checked when the server starts
	}
	s, err := (Vars{WorkspaceFolder: "/", UserHome: "/", Lookup: func(string) (string, bool) { return "1", true }}).Expand(raw)
	if err != nil {
		return raw
	}
	return s
}

// checkServerURL accepts absolute http and https URLs. Its message does not repeat the URL
// (a query may hold a token).
func checkServerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL such as https://example.com/mcp")
	}
	return nil
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r > 126 || r <= 32 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// Validate checks one configuration as ParseServers would and returns its problems.
func (c ServerConfig) Validate() []Problem {
	if err := CheckServerName(c.Name); err != nil {
		return []Problem{{Server: c.Name, Message: err.Error()}}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return []Problem{{Server: c.Name, Message: err.Error()}}
	}
	_, ps := parseEntry(c.Name, b)
	return ps
}
