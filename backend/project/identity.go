package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// A project's identity is its projectId and the folder it belongs to. The id is
// written into the folder (.crewagent.json), so the folder alone cannot be trusted
// with it: a copy or a clone of a repository that committed the file carries the
// same id. The runtime home therefore records, beside the project's data, the
// canonical path of the folder the data belongs to (IdentityFileName). A folder
// that claims an id whose data belongs to another path is either
//   - a second folder (the other path still exists and still holds the id: a
//     copy or a clone): it becomes a new project, with a new id written into its
//     .crewagent.json and none of the other folder's conversations;
//   - or the same project moved or renamed (the other path is gone, or no longer
//     holds the id): the user is asked once whether it keeps its conversations
//     (Moved) or starts afresh.

// IdentityFileName is the file, in a project's data folder, that names the
// folder the data belongs to.
const IdentityFileName = "identity.json"

// Moved is what Open does with a folder that looks like a project moved from
// another path.
type Moved int

const (
	// MovedAsk fails with CodeMoved (the question, in words): the caller asks the
	// user and opens again with MovedKeep or MovedNew.
	MovedAsk Moved = iota
	// MovedKeep takes the project's data along: its conversations, runs and
	// choices now belong to the new path.
	MovedKeep
	// MovedNew makes the folder a new project (a new id), leaving the old data
	// where it is.
	MovedNew
)

// OpenOptions choose how Open treats a folder whose identity is in question.
type OpenOptions struct {
	// Moved answers the question of a project that looks moved.
	Moved Moved
}

// Detail names of a CodeMoved error.
const (
	DetailMovedFrom = "movedFrom" // the path the project's data belongs to
	DetailProjectID = "projectId"
	DetailName      = "projectName"
)

// identity is the content of IdentityFileName.
type identity struct {
	ProjectID string `json:"projectId"`
	Root      string `json:"root"`
	BoundAt   string `json:"boundAt"`
}

func identityPath(home, id string) string {
	return filepath.Join(DataDir(home, id), IdentityFileName)
}

func readIdentity(path string) (*identity, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioError(path, "read", err)
	}
	var b identity
	if err := json.Unmarshal(data, &b); err != nil || b.Root == "" {
		// A damaged record is no record: the folder that opens next claims the
		// data, as before any was kept (see bindingOf).
		return nil, nil
	}
	return &b, nil
}

func writeIdentity(home, id, root string) error {
	path := identityPath(home, id)
	data, err := json.MarshalIndent(identity{ProjectID: id, Root: root, BoundAt: now()}, "", "  ")
	if err == nil {
		err = fsx.WriteFile(path, append(data, '\n'), 0o600)
	}
	if err != nil {
		return ioError(path, "write", err)
	}
	return nil
}

// bindingOf returns the folder the data of id belongs to ("" when it belongs to
// no folder yet). Data kept before the record existed belongs to the folder the
// recent-projects list last opened with this id.
func bindingOf(home, id, root string) (string, error) {
	b, err := readIdentity(identityPath(home, id))
	switch {
	case err != nil:
		return "", err
	case b != nil:
		return b.Root, nil
	}
	if !hasData(DataDir(home, id)) {
		return "", nil
	}
	list, err := readRecent(recentPath(home))
	if err != nil {
		return "", nil // the list is a hint only
	}
	for _, r := range list {
		if r.ID != id {
			continue
		}
		if r.Root == root {
			return root, nil
		}
		return r.Root, nil
	}
	return "", nil
}

// hasData reports whether a data folder holds anything beyond the identity record
// and its lock.
func hasData(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		switch e.Name() {
		case IdentityFileName, IdentityFileName + ".lock":
		default:
			return true
		}
	}
	return false
}

// holdsID reports whether the folder root exists and its .crewagent.json still
// holds id.
func holdsID(root, id string) bool {
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return false
	}
	m, _, err := readMeta(MetaPath(root))
	return err == nil && m != nil && m.str("projectId") == id
}

// sameFolder reports whether two paths name one folder.
func sameFolder(a, b string) bool {
	if a == b {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// bind settles the identity of the folder root (canonical) whose file m claims
// an id: the data folder of the id it ends with exists and belongs to root. It
// may give m a new id (a copy, or a moved project the user starts afresh), which
// it writes to path. notice says in words what was decided when it was not the
// plain case; movedFrom is the path a moved project's data was taken from.
func bind(home, root, path string, m meta, o OpenOptions) (notice, movedFrom string, err error) {
	id := m.str("projectId")
	dir := DataDir(home, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", ioError(dir, "create", err)
	}
	lockPath := filepath.Join(dir, IdentityFileName+".lock")
	unlock, err := fsx.Lock(lockPath)
	if err != nil {
		return "", "", ioError(lockPath, "lock", err)
	}
	defer unlock()
	bound, err := bindingOf(home, id, root)
	if err != nil {
		return "", "", err
	}
	name := m.str("projectName")
	if name == "" {
		name = filepath.Base(root)
	}
	switch {
	case bound == "":
		return "", "", writeIdentity(home, id, root)
	case sameFolder(bound, root):
		if bound != root {
			return "", "", writeIdentity(home, id, root)
		}
		if _, err := os.Stat(identityPath(home, id)); err != nil { // kept before the record existed
			return "", "", writeIdentity(home, id, root)
		}
		return "", "", nil
	case holdsID(bound, id):
		// A second folder with the same id: a copy or a clone.
		if err := renew(home, root, path, m); err != nil {
			return "", "", err
		}
		return fmt.Sprintf("%s is a copy of project %q at %s: it is a new project here, without that folder's conversations (its project id in %s was renewed)",
			root, name, bound, MetaFileName), "", nil
	}
	switch o.Moved {
	case MovedKeep:
		if err := writeIdentity(home, id, root); err != nil {
			return "", "", err
		}
		return fmt.Sprintf("project %q moved from %s to %s: its conversations came along", name, bound, root), bound, nil
	case MovedNew:
		if err := renew(home, root, path, m); err != nil {
			return "", "", err
		}
		return fmt.Sprintf("%s is a new project; the conversations of project %q from %s stay with that project id", root, name, bound), "", nil
	}
	e := errs.Msg(CodeMoved, "project.moved", errs.Params{"name": name, "from": bound})
	e.Details = map[string]any{DetailPath: root, DetailMovedFrom: bound, DetailProjectID: id, DetailName: name}
	return "", "", e
}

// renew gives the folder a new project id (written to its .crewagent.json at
// path, every other field kept) and binds the new id's data folder to it.
func renew(home, root, path string, m meta) error {
	id := uuid.NewString()
	ts := now()
	m.set("projectId", id)
	m.set("createdAt", ts)
	m.set("updatedAt", ts)
	if err := m.write(path); err != nil {
		return err
	}
	dir := DataDir(home, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ioError(dir, "create", err)
	}
	return writeIdentity(home, id, root)
}
