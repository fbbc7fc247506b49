package mcp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Variables in server entries. The configuration files users bring write them in three
// conventions, all understood in command, args, env values, cwd, url, header values and
// envFile:
//
//	${env:NAME}         Cursor and VS Code: the environment variable NAME
//	${NAME}             Claude Code: the same
//	${NAME:-default}    Claude Code: NAME, or default when NAME is unset or empty
//	${workspaceFolder}  Cursor and VS Code: the project root (also ${workspaceRoot})
//	${workspaceFolderBasename}, ${userHome}, ${pathSeparator} (also ${/})
//
// A variable that is not defined (and has no default) is an error naming it: the server does
// not start and its status says which variable is missing; the text "${NAME}" is never sent
// to a server. The app's own variables (CREWAGENT_*, its settings and API key) are refused. VS Code's ${input:ID} (a value it prompts for) is an error that names the
// input. A "$" not followed by "{" is kept as it is, and so is "$${" written as an escape
// for a literal "${".

// appVarPrefix starts the names of the app's own environment variables, which hold its
// settings and API key: no configuration can hand them to a server.
const appVarPrefix = "CREWAGENT_"

// VarError is an undefined or malformed variable reference.
type VarError struct {
	// Name is the variable ("" for a malformed reference).
	Name string
	// Message says what is wrong.
	Message string
}

func (e *VarError) Error() string { return e.Message }

// Vars resolves the variables of one server's configuration.
type Vars struct {
	// WorkspaceFolder is the project root ("" without a project).
	WorkspaceFolder string
	// Lookup reads the environment (os.LookupEnv when nil).
	Lookup func(name string) (string, bool)
	// UserHome is the user's home folder (os.UserHomeDir when "").
	UserHome string
}

func (v Vars) lookup(name string) (string, bool) {
	if v.Lookup != nil {
		return v.Lookup(name)
	}
	return os.LookupEnv(name)
}

// Expand replaces the variable references of s.
func (v Vars) Expand(s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		if i > 0 && s[i-1] == '$' { // "$${" is a literal "${"
			b.WriteString(s[:i])
			b.WriteString("{")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			return "", &VarError{Message: fmt.Sprintf("%q has a \"${\" without its closing \"}\"", clip(s[i:]))}
		}
		ref := s[i+2 : i+2+end]
		val, err := v.resolve(ref)
		if err != nil {
			return "", err
		}
		b.WriteString(val)
		s = s[i+2+end+1:]
	}
}

// resolve gives the value of the reference inside "${…}".
func (v Vars) resolve(ref string) (string, error) {
	switch ref {
	case "workspaceFolder", "workspaceRoot":
		if v.WorkspaceFolder == "" {
			return "", &VarError{Name: ref, Message: "${" + ref + "} is used but no project is open"}
		}
		return v.WorkspaceFolder, nil
	case "workspaceFolderBasename":
		if v.WorkspaceFolder == "" {
			return "", &VarError{Name: ref, Message: "${" + ref + "} is used but no project is open"}
		}
		return filepath.Base(v.WorkspaceFolder), nil
	case "userHome":
		if v.UserHome != "" {
			return v.UserHome, nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", &VarError{Name: ref, Message: "${userHome}: the home folder is unknown: " + err.Error()}
		}
		return home, nil
	case "pathSeparator", "/":
		return string(filepath.Separator), nil
	}
	if id, ok := strings.CutPrefix(ref, "input:"); ok {
		return "", &VarError{Name: ref, Message: fmt.Sprintf("${%s} asks for a value when the server starts (a VS Code input), which is not supported here; put the value in the environment and write ${env:NAME} instead, or write it in place of the reference (input %q)", ref, id)}
	}
	name, def, hasDefault := ref, "", false
	if n, ok := strings.CutPrefix(ref, "env:"); ok {
		name = n
	} else if n, d, ok := strings.Cut(ref, ":-"); ok {
		name, def, hasDefault = n, d, true
	}
	if !validVarName(name) {
		return "", &VarError{Message: fmt.Sprintf("${%s} is not a variable reference this configuration understands (${env:NAME}, ${NAME}, ${NAME:-default}, ${workspaceFolder}, ${userHome})", clip(ref))}
	}
	if strings.HasPrefix(strings.ToUpper(name), appVarPrefix) {
		return "", &VarError{Name: name, Message: fmt.Sprintf("${%s}: the %s* variables are the app's own settings (its API key among them) and are not given to servers", ref, appVarPrefix)}
	}
	val, ok := v.lookup(name)
	if hasDefault && val == "" {
		return def, nil
	}
	if !ok {
		return "", &VarError{Name: name, Message: fmt.Sprintf("the environment variable %s is not set (it is used as ${%s}); set it, or give a default with ${%s:-value}", name, ref, name)}
	}
	return val, nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// checkVars reports malformed references in s (unclosed or not understood) without looking
// any variable up: a configuration can be saved while a variable is unset.
func checkVars(s string) error {
	probe := Vars{WorkspaceFolder: "/", UserHome: "/", Lookup: func(string) (string, bool) { return "x", true }}
	_, err := probe.Expand(s)
	var ve *VarError
	if errors.As(err, &ve) && strings.HasPrefix(ve.Name, "input:") {
		return nil // reported when the server starts, with the input's name
	}
	return err
}

// Resolve returns the configuration with every variable expanded and the variables of its
// envFile added to Env (the entry's own env wins over the file's). An error names the field
// and the variable; the server must not start then.
func (c ServerConfig) Resolve(v Vars) (ServerConfig, error) {
	out := c.Clone()
	field := func(name string, s *string) error {
		x, err := v.Expand(*s)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*s = x
		return nil
	}
	if err := field("command", &out.Command); err != nil {
		return c, err
	}
	for i := range out.Args {
		if err := field(fmt.Sprintf("args[%d]", i), &out.Args[i]); err != nil {
			return c, err
		}
	}
	if err := field("cwd", &out.Cwd); err != nil {
		return c, err
	}
	if err := field("url", &out.URL); err != nil {
		return c, err
	}
	if out.OAuth != nil {
		if err := field("oauth.clientId", &out.OAuth.ClientID); err != nil {
			return c, err
		}
		if err := field("oauth.clientSecret", &out.OAuth.ClientSecret); err != nil {
			return c, err
		}
		if err := field("oauth.privateKey", &out.OAuth.PrivateKey); err != nil {
			return c, err
		}
	}
	for _, m := range []struct {
		name string
		vals map[string]string
	}{{"env", out.Env}, {"headers", out.Headers}} {
		for _, k := range sortedKeys(m.vals) {
			val := m.vals[k]
			if err := field(m.name+"."+k, &val); err != nil {
				return c, err
			}
			m.vals[k] = val
		}
	}
	if out.EnvFile != "" {
		if err := field("envFile", &out.EnvFile); err != nil {
			return c, err
		}
		path := out.EnvFile
		if !filepath.IsAbs(path) && v.WorkspaceFolder != "" {
			path = filepath.Join(v.WorkspaceFolder, path)
		}
		data, err := readEnvFile(path)
		if err != nil {
			return c, fmt.Errorf("envFile: %w", err)
		}
		if c.envFileDigest != "" && c.envFileDigest != digestOf(data) {
			return c, fmt.Errorf("envFile: %s changed after the project's configuration was read, so it is not the file that was approved; it is read again (and asks for a new approval) when the configuration is reloaded", path)
		}
		vars, err := ParseEnvFile(data)
		if err != nil {
			return c, fmt.Errorf("envFile: %s: %w", path, err)
		}
		if out.Env == nil && len(vars) > 0 {
			out.Env = map[string]string{}
		}
		for k, val := range vars {
			if _, own := out.Env[k]; !own {
				out.Env[k] = val
			}
		}
	}
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxEnvFileBytes bounds an envFile.
const maxEnvFileBytes = 1 << 20

// ReadEnvFile reads a dotenv file: NAME=value lines, an optional "export " before the name,
// "#" comments and blank lines; a value may be in single quotes (taken as is) or double
// quotes (with \n, \t, \" and \\ escapes); an unquoted value ends at " #". Variables are not
// expanded inside the file.
func ReadEnvFile(path string) (map[string]string, error) {
	data, err := readEnvFile(path)
	if err != nil {
		return nil, err
	}
	vars, err := ParseEnvFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vars, nil
}

func readEnvFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if len(data) > maxEnvFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxEnvFileBytes)
	}
	return data, nil
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ParseEnvFile parses the content of a dotenv file (see ReadEnvFile).
func ParseEnvFile(data []byte) (map[string]string, error) {
	out := map[string]string{}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxEnvFileBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !validVarName(name) {
			return nil, fmt.Errorf("line %d is not NAME=value", n)
		}
		val = strings.TrimSpace(val)
		switch {
		case len(val) >= 2 && val[0] == '\'' && strings.IndexByte(val[1:], '\'') >= 0:
			val = val[1 : 1+strings.IndexByte(val[1:], '\'')]
		case len(val) >= 1 && val[0] == '"':
			s, ok := unquoteDouble(val[1:])
			if !ok {
				return nil, fmt.Errorf("line %d: the value's closing \" is missing", n)
			}
			val = s
		default:
			if i := strings.Index(val, " #"); i >= 0 {
				val = strings.TrimSpace(val[:i])
			}
		}
		out[name] = val
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// unquoteDouble reads a double-quoted value up to its closing quote.
func unquoteDouble(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"':
			return b.String(), true
		case ch == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(ch)
		}
	}
	return "", false
}
