package project

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"crewagent/backend/errs"
)

func TestResolveHomeOrder(t *testing.T) {
	base := t.TempDir()
	configDir := func() (string, error) { return filepath.Join(base, "config"), nil }
	userHome := func() (string, error) { return filepath.Join(base, "user"), nil }
	cases := []struct {
		name, flag, env, want string
	}{
		{"flag wins", filepath.Join(base, "flag"), filepath.Join(base, "env"), filepath.Join(base, "flag")},
		{"env", "", filepath.Join(base, "env"), filepath.Join(base, "env")},
		{"default", "", "", filepath.Join(base, "config", "crewagent")},
		{"blank flag", "  ", filepath.Join(base, "env2"), filepath.Join(base, "env2")},
		{"tilde", "~/ch", "", filepath.Join(base, "user", "ch")},
		{"nested", filepath.Join(base, "a", "b", "c"), "", filepath.Join(base, "a", "b", "c")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveHome(tc.flag, tc.env, configDir, userHome)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("home = %q, want %q", got, tc.want)
			}
			fi, err := os.Stat(got)
			if err != nil || !fi.IsDir() {
				t.Fatalf("home not created: %v", err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
				t.Errorf("mode = %o, want 700", fi.Mode().Perm())
			}
		})
	}
}

func TestResolveHomeErrors(t *testing.T) {
	base := t.TempDir()
	noConfig := func() (string, error) { return "", errors.New("$HOME is not defined") }
	if _, err := resolveHome("", "", noConfig, os.UserHomeDir); errs.CodeOf(err) != CodeHome {
		t.Errorf("no config dir: err = %v", err)
	}
	file := filepath.Join(base, "file")
	os.WriteFile(file, []byte("x"), 0o600)
	if _, err := resolveHome(file, "", noConfig, os.UserHomeDir); errs.CodeOf(err) != CodeHome {
		t.Errorf("home is a file: err = %v", err)
	}
}

func TestResolveHomeFromEnvironment(t *testing.T) {
	base := t.TempDir()
	t.Chdir(base)
	t.Setenv(HomeEnv, "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "xdg"))
	t.Setenv("HOME", base)
	t.Setenv("AppData", filepath.Join(base, "xdg"))
	want, _ := os.UserConfigDir()
	if got, err := ResolveHome(""); err != nil || got != filepath.Join(want, "crewagent") {
		t.Errorf("default: %q, %v", got, err)
	}
	t.Setenv(HomeEnv, "rel-env")
	if got, err := ResolveHome(""); err != nil || got != filepath.Join(base, "rel-env") {
		t.Errorf("env: %q, %v", got, err)
	}
	if got, err := ResolveHome("rel-flag"); err != nil || got != filepath.Join(base, "rel-flag") {
		t.Errorf("flag: %q, %v", got, err)
	}
}

func TestRuntimePathsAndHomeOf(t *testing.T) {
	home := filepath.Join(t.TempDir(), "crewagent")
	paths := RuntimePaths(home)
	if len(paths) == 0 || paths[0] != home {
		t.Fatalf("%v", paths)
	}
	for _, want := range []string{"settings.json", "projects", "packages", "packages.json", RecentFileName} {
		found := false
		for _, p := range paths {
			found = found || p == filepath.Join(home, want)
		}
		if !found {
			t.Errorf("%s missing from %v", want, paths)
		}
	}
	if RuntimePaths("") != nil || HomeOf("") != "" {
		t.Fatal("empty home")
	}
	if got := HomeOf(DataDir(home, "abc")); got != home {
		t.Fatalf("HomeOf: %s", got)
	}
}
