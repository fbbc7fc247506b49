package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// RecentFileName is the recent-projects list inside the runtime home.
const RecentFileName = "recent-projects.json"

// MaxRecent is how many projects the recent list keeps.
const MaxRecent = 20

// RecentProject is one entry of the recent-projects list.
type RecentProject struct {
	Root         string `json:"root"`
	ID           string `json:"id"`
	Name         string `json:"name"`
	LastOpenedAt string `json:"lastOpenedAt"`
	Exists       bool   `json:"exists"` // the folder is still there (checked when listed)
}

type recentRecord struct {
	Root         string `json:"root"`
	ID           string `json:"id"`
	Name         string `json:"name"`
	LastOpenedAt string `json:"lastOpenedAt"`
}

type recentFile struct {
	Version  int            `json:"version"`
	Projects []recentRecord `json:"projects"`
}

// Touch puts p first in <home>/recent-projects.json (one entry per root, at most
// MaxRecent). Concurrent calls, from any process, are serialised by a lock file.
// A corrupt list is moved aside to recent-projects.json.corrupt and started afresh.
func Touch(home string, p *Project) error {
	return updateRecent(home, func(list []recentRecord) []recentRecord {
		list = slices.DeleteFunc(list, func(r recentRecord) bool { return r.Root == p.Root })
		list = slices.Insert(list, 0, recentRecord{Root: p.Root, ID: p.ID, Name: p.Name, LastOpenedAt: now()})
		return list[:min(len(list), MaxRecent)]
	})
}

// Forget removes root from the recent list (no error when it is not listed).
func Forget(home, root string) error {
	keys := rootKeys(root)
	return updateRecent(home, func(list []recentRecord) []recentRecord {
		return slices.DeleteFunc(list, func(r recentRecord) bool { return slices.Contains(keys, r.Root) })
	})
}

// Recent lists the recent projects, most recent first, each with Exists set.
// A missing list is empty; a corrupt one is an error with code CodeRecentCorrupt.
func Recent(home string) ([]RecentProject, error) {
	list, err := readRecent(recentPath(home))
	if err != nil {
		return nil, err
	}
	out := make([]RecentProject, len(list))
	for i, r := range list {
		fi, err := os.Stat(r.Root)
		out[i] = RecentProject{Root: r.Root, ID: r.ID, Name: r.Name, LastOpenedAt: r.LastOpenedAt,
			Exists: err == nil && fi.IsDir()}
	}
	return out, nil
}

func recentPath(home string) string { return filepath.Join(home, RecentFileName) }

// rootKeys returns the forms under which root may be listed: as given (absolute)
// and with symlinks resolved, the way Open stores it.
func rootKeys(root string) []string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	keys := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		keys = append(keys, real)
	}
	return keys
}

func updateRecent(home string, change func([]recentRecord) []recentRecord) error {
	path := recentPath(home)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return ioError(home, "create", err)
	}
	unlock, err := fsx.Lock(path + ".lock")
	if err != nil {
		return ioError(path+".lock", "lock", err)
	}
	defer unlock()
	list, err := readRecent(path)
	if errs.CodeOf(err) == CodeRecentCorrupt {
		if rerr := os.Rename(path, path+".corrupt"); rerr != nil {
			return ioError(path, "move aside", rerr)
		}
		list, err = nil, nil
	}
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(recentFile{Version: 1, Projects: change(list)}, "", "  ")
	if err == nil {
		err = fsx.WriteFile(path, append(data, '\n'), 0o600)
	}
	if err != nil {
		return ioError(path, "write", err)
	}
	return nil
}

func readRecent(path string) ([]recentRecord, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioError(path, "read", err)
	}
	var f recentFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, withPath(&Error{Code: CodeRecentCorrupt, Cause: err,
			Message: fmt.Sprintf("%s is not a valid recent-projects list (%v); it is replaced the next time a project is opened", path, err)}, path)
	}
	return slices.DeleteFunc(f.Projects, func(r recentRecord) bool { return r.Root == "" }), nil
}
