//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestServerEnvKeepsOnlyTheBasicsPlusItsOwn(t *testing.T) {
	environ := []string{"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "XDG_CONFIG_HOME=/c",
		"CREWAGENT_LLM_API_KEY=secret", "AWS_SECRET_ACCESS_KEY=x", "HTTPS_PROXY=http://proxy:3128", "MALFORMED"}
	got := serverEnv(environ, map[string]string{"GITHUB_TOKEN": "t", "PATH": "/opt/bin"})
	slices.Sort(got)
	want := []string{"GITHUB_TOKEN=t", "HOME=/home/u", "HTTPS_PROXY=http://proxy:3128", "LANG=C.UTF-8", "LC_ALL=C", "PATH=/opt/bin", "XDG_CONFIG_HOME=/c"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func TestResolveCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	exe := filepath.Join(bin, "my-server")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "not-exec"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(bin, "a-dir"), 0o755)
	env := []string{"PATH=relative:" + bin}

	for _, tt := range []struct{ cmd, want, err string }{
		{cmd: "my-server", want: exe},
		{cmd: "./bin/my-server", want: exe},
		{cmd: exe, want: exe},
		{cmd: "not-exec", err: "was not found on the PATH"},
		{cmd: "a-dir", err: "was not found on the PATH"},
		{cmd: "missing", err: `command "missing" was not found on the PATH`},
		{cmd: "./bin/not-exec", err: "it is not executable"},
		{cmd: "./bin/nothing", err: "no such file"},
	} {
		got, err := resolveCommand(tt.cmd, dir, env)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.cmd, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q %v, want %q", tt.cmd, got, err, tt.want)
		}
	}
}
