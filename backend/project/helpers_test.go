package project

import "path/filepath"

// HomeOf returns the runtime home of a project data folder (DataDir(home, id)), or "" for "".
func HomeOf(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Clean(dataDir)))
}
