// Package project owns where things live: the runtime home, a project folder's
// identity file (.crewagent.json) and data directory, and the recent-projects list.
package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HomeEnv names the environment variable that sets the runtime home.
const HomeEnv = "CREWAGENT_HOME"

// ResolveHome returns the runtime home: flagHome (--home) if set, else
// $CREWAGENT_HOME, else os.UserConfigDir()/crewagent. A leading "~/" means the
// user's home folder. The result is absolute and the folder exists (created
// with mode 0700 when missing).
func ResolveHome(flagHome string) (string, error) {
	return resolveHome(flagHome, os.Getenv(HomeEnv), os.UserConfigDir, os.UserHomeDir)
}

func resolveHome(flagHome, envHome string, configDir, userHome func() (string, error)) (string, error) {
	home, source := strings.TrimSpace(flagHome), "--home"
	if home == "" {
		home, source = strings.TrimSpace(envHome), "$"+HomeEnv
	}
	if home == "" {
		dir, err := configDir()
		if err != nil {
			return "", &Error{Code: CodeHome, Cause: err,
				Message: fmt.Sprintf("cannot find the user configuration folder (%v); set %s or pass --home", err, HomeEnv)}
		}
		home, source = filepath.Join(dir, "crewagent"), "the user configuration folder"
	}
	if home == "~" || strings.HasPrefix(home, "~/") || strings.HasPrefix(home, `~\`) {
		uh, err := userHome()
		if err != nil {
			return "", &Error{Code: CodeHome, Cause: err, Message: fmt.Sprintf("cannot expand ~ in %s (from %s): %v", home, source, err)}
		}
		home = filepath.Join(uh, home[1:])
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", withPath(&Error{Code: CodeHome, Cause: err, Message: fmt.Sprintf("invalid runtime home %s (from %s): %v", home, source, err)}, home)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", withPath(&Error{Code: CodeHome, Cause: err,
			Message: fmt.Sprintf("cannot create the runtime home %s (from %s): %v", abs, source, err)}, abs)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", withPath(&Error{Code: CodeHome, Cause: err, Message: fmt.Sprintf("runtime home %s (from %s) is not a folder", abs, source)}, abs)
	}
	return abs, nil
}

// DataDir returns the data folder of a project: <home>/projects/<projectID>.
func DataDir(home, projectID string) string {
	return filepath.Join(home, "projects", projectID)
}

// RuntimePaths lists what tools must never reach, whatever the project folder is: the
// runtime home itself and, for a home that is also a parent of project folders (a home set
// to ~), each of its parts — the settings (API keys), every project's data, the installed
// packages and the runtime's own lists. tools.Roots.Deny takes it.
func RuntimePaths(home string) []string {
	if home == "" {
		return nil
	}
	return []string{
		home,
		filepath.Join(home, "settings.json"),
		filepath.Join(home, "projects"),
		filepath.Join(home, "packages"),
		filepath.Join(home, "packages.json"),
		filepath.Join(home, "packages.lock"),
		filepath.Join(home, RecentFileName),
		filepath.Join(home, RecentFileName+".lock"),
		filepath.Join(home, "skills"),
	}
}
