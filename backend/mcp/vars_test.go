package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func testVars(env map[string]string) Vars {
	return Vars{WorkspaceFolder: "/work/proj", UserHome: "/home/u", Lookup: func(n string) (string, bool) {
		v, ok := env[n]
		return v, ok
	}}
}

func TestExpand(t *testing.T) {
	v := testVars(map[string]string{"TOKEN": "t0k3n", "EMPTY": "", "HOST": "example.com", "CREWAGENT_LLM_API_KEY": "sk-app"})
	sep := string(filepath.Separator)
	cases := []struct {
		in, want string
		errName  string // the variable the error names; "-" for a malformed reference
	}{
		{"plain", "plain", ""},
		{"$HOME and $TOKEN stay", "$HOME and $TOKEN stay", ""},
		{"${env:TOKEN}", "t0k3n", ""},
		{"Bearer ${TOKEN}", "Bearer t0k3n", ""},
		{"${HOST:-localhost}:${PORT:-8080}", "example.com:8080", ""},
		{"${EMPTY:-fallback}", "fallback", ""},
		{"${EMPTY}", "", ""},
		{"${NOPE:-}", "", ""},
		{"${workspaceFolder}/data", "/work/proj/data", ""},
		{"${workspaceRoot}", "/work/proj", ""},
		{"${workspaceFolderBasename}", "proj", ""},
		{"${userHome}/.config", "/home/u/.config", ""},
		{"a${pathSeparator}b${/}c", "a" + sep + "b" + sep + "c", ""},
		{"$${TOKEN}", "${TOKEN}", ""},
		{"${env:TOKEN}${TOKEN}", "t0k3nt0k3n", ""},
		{"${NOPE}", "", "NOPE"},
		{"--key=${env:MISSING_KEY}", "", "MISSING_KEY"},
		{"${input:apiKey}", "", "input:apiKey"},
		{"${env:CREWAGENT_LLM_API_KEY}", "", "CREWAGENT_LLM_API_KEY"},
		{"${TOKEN", "", "-"},
		{"${}", "", "-"},
		{"${1BAD}", "", "-"},
		{"${env:}", "", "-"},
		{"${command:foo}", "", "-"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := v.Expand(c.in)
			if c.errName == "" {
				if err != nil || got != c.want {
					t.Fatalf("Expand(%q) = %q, %v; want %q", c.in, got, err, c.want)
				}
				return
			}
			var ve *VarError
			if !errors.As(err, &ve) {
				t.Fatalf("Expand(%q) = %q, %v; want an error", c.in, got, err)
			}
			if c.errName != "-" && (ve.Name != c.errName || !strings.Contains(ve.Message, strings.TrimPrefix(c.errName, "input:"))) {
				t.Fatalf("error %q names %q, want %q", ve.Message, ve.Name, c.errName)
			}
		})
	}
	if _, err := (Vars{}).Expand("${workspaceFolder}"); err == nil || !strings.Contains(err.Error(), "no project") {
		t.Fatalf("workspaceFolder without a project: %v", err)
	}
}

// FuzzExpand: expansion never panics, leaves text without "${" alone, and never leaves a
// reference it resolved in its output when no value holds one.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"${env:A}", "${A:-b}", "x${workspaceFolder}y", "$${A}", "${", "${input:x}", "${A:-${B}}", "${/}"} {
		f.Add(s)
	}
	v := testVars(map[string]string{"A": "1", "B": "2"})
	f.Fuzz(func(t *testing.T, s string) {
		out, err := v.Expand(s)
		if !strings.Contains(s, "${") && (err != nil || out != s) {
			t.Fatalf("Expand(%q) = %q, %v", s, out, err)
		}
		if err == nil && strings.Contains(out, "${") && !strings.Contains(s, "$${") && !strings.Contains(s, ":-") {
			t.Fatalf("Expand(%q) left a reference: %q", s, out)
		}
		if err != nil {
			var ve *VarError
			if !errors.As(err, &ve) || ve.Message == "" {
				t.Fatalf("Expand(%q): error %v is not a VarError with a message", s, err)
			}
		}
	})
}

func TestParseEnvFile(t *testing.T) {
	got, err := ParseEnvFile([]byte("\uFEFF# comment\nA=1\nexport B = two words \nC='single $x # kept'\nD=\"line\\nbreak \\\"q\\\"\"\nE=value # comment\n\nF=\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1", "B": "two words", "C": "single $x # kept", "D": "line\nbreak \"q\"", "E": "value", "F": ""}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	for _, bad := range []string{"NOEQUALS", "1X=2", "A=\"open"} {
		if _, err := ParseEnvFile([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("FROM_FILE=f\nOVERRIDDEN=file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := testVars(map[string]string{"TOKEN": "secret-token"})
	v.WorkspaceFolder = root
	cfg := ServerConfig{Name: "s", Command: "${workspaceFolder}/bin/srv", Args: []string{"--token", "${env:TOKEN}"},
		Env: map[string]string{"OVERRIDDEN": "own", "T": "${TOKEN}"}, EnvFile: "${workspaceFolder}/.env", Cwd: "${workspaceFolder}"}
	got, err := cfg.Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	want := ServerConfig{Name: "s", Command: root + "/bin/srv", Args: []string{"--token", "secret-token"},
		Env: map[string]string{"OVERRIDDEN": "own", "T": "secret-token", "FROM_FILE": "f"}, EnvFile: root + "/.env", Cwd: root}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if cfg.Args[1] != "${env:TOKEN}" {
		t.Fatal("Resolve changed the configuration it was given")
	}
	// A relative envFile is relative to the project root.
	if got, err := (ServerConfig{Command: "x", EnvFile: ".env"}).Resolve(v); err != nil || got.Env["FROM_FILE"] != "f" {
		t.Fatalf("relative envFile: %+v %v", got, err)
	}
	for _, c := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Command: "x", Args: []string{"a", "${GONE}"}}, "args[1]: the environment variable GONE is not set"},
		{ServerConfig{URL: "https://h/${env:GONE}"}, "url: the environment variable GONE is not set"},
		{ServerConfig{URL: "https://h", Headers: map[string]string{"Authorization": "Bearer ${input:pat}"}}, `headers.Authorization: ${input:pat} asks for a value`},
		{ServerConfig{Command: "x", EnvFile: "missing.env"}, "envFile: cannot read " + filepath.Join(root, "missing.env")},
	} {
		if _, err := c.cfg.Resolve(v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"github":        "github",
		"my server":     "'my server'",
		"it's":          `'it'\''s'`,
		"数据":            "数据",
		"a;rm -rf":      "'a;rm -rf'",
		"":              "''",
		"name\u3000gap": "'name\u3000gap'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ApproveCommand("my server"); got != "crewagent mcp approve 'my server'" {
		t.Errorf("ApproveCommand = %q", got)
	}
}

// A value that only refers to variables is shown as written (it holds no secret), and the
// error that names an unset one is not masked; the values references resolve to are.
func TestReferencesAreNotSecrets(t *testing.T) {
	cfg := ServerConfig{Name: "gh", URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer ${env:GH_TOKEN}", "X-Key": "literal-secret-value"}}
	r := cfg.Redacted()
	if r.Headers["Authorization"] != "Bearer ${env:GH_TOKEN}" || r.Headers["X-Key"] == "literal-secret-value" {
		t.Fatalf("redacted %v", r.Headers)
	}
	red := newRedactor(cfg)
	msg := "headers.Authorization: the environment variable GH_TOKEN is not set (it is used as ${env:GH_TOKEN})"
	if got := red.scrub(msg); got != msg {
		t.Fatalf("scrubbed %q", got)
	}
	resolved, err := cfg.Resolve(testVars(map[string]string{"GH_TOKEN": "ghp_resolved_secret"}))
	if err != nil {
		t.Fatal(err)
	}
	red = red.with(resolved)
	if got := red.scrub("401 for ghp_resolved_secret and literal-secret-value"); strings.Contains(got, "ghp_resolved_secret") || strings.Contains(got, "literal-secret-value") {
		t.Fatalf("scrubbed %q", got)
	}
}

// FuzzParseEnvFile: any content parses or fails with a message naming its line; names are
// valid variable names and no value keeps a line break it did not escape.
func FuzzParseEnvFile(f *testing.F) {
	for _, s := range []string{"A=1\n", "export B='x'\n# c\n", "C=\"a\\nb\"\n", "D=e # f\n", "=x", "A=\"open"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vars, err := ParseEnvFile(data)
		if err != nil {
			if !strings.Contains(err.Error(), "line ") && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for k, v := range vars {
			if !validVarName(k) {
				t.Fatalf("name %q", k)
			}
			if strings.Contains(v, "\n") && !strings.Contains(string(data), `\n`) {
				t.Fatalf("value %q of %q has a raw line break", v, k)
			}
		}
	})
}
