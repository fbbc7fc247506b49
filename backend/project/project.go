package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// MetaFileName is the identity file written into every project root.
const MetaFileName = ".crewagent.json"

// SchemaVersion is the schemaVersion written to new identity files.
const SchemaVersion = "1"

// DefaultArtifactsDir is the artifacts folder, relative to the root, of new projects.
const DefaultArtifactsDir = "artifacts"

// Project is an opened project folder.
type Project struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Root            string `json:"root"`         // absolute, symlinks resolved
	DataDir         string `json:"dataDir"`      // <home>/projects/<ID>, exists
	ArtifactsDir    string `json:"artifactsDir"` // absolute, inside Root; created by whoever writes artifacts
	ActivePackageID string `json:"activePackageId"`
	CreatedAt       string `json:"createdAt"`
	UpdatedAt       string `json:"updatedAt"`
	// Notice says in words what opening decided about the folder's identity
	// when it was not the plain case (a copy made a new project, a moved
	// project kept its data); "" otherwise.
	Notice string `json:"notice,omitempty"`
	// MovedFrom is, when this opening took a moved project's data along
	// (MovedKeep), the path the project was at; "" otherwise.
	MovedFrom string `json:"movedFrom,omitempty"`
}

// MetaPath returns the identity file of a project root.
func MetaPath(root string) string { return filepath.Join(root, MetaFileName) }

// Open opens the project folder root for the runtime home home.
//
// root must be an existing folder. Its .crewagent.json is read; when it is
// missing (or empty), or has no valid projectId (a UUID), a projectId is
// generated and the file is written atomically, keeping every other field,
// unknown ones included. A file that is not a JSON object is an error with code
// CodeMetaCorrupt and is left untouched. The data folder <home>/projects/<id>
// is created (0700) and belongs to this folder from then on (see identity.go):
// a copy of the folder elsewhere becomes a new project; a moved one fails with
// CodeMoved, the question to ask the user (OpenWith answers it).
func Open(home, root string) (*Project, error) { return OpenWith(home, root, OpenOptions{}) }

// OpenWith is Open with the answer to the question of a moved project.
func OpenWith(home, root string, o OpenOptions) (*Project, error) {
	if strings.TrimSpace(home) == "" {
		return nil, &Error{Code: CodeHome, Message: "no runtime home given"}
	}
	abs, err := canonicalDir(root)
	if err != nil {
		return nil, err
	}
	path := MetaPath(abs)
	m, exists, err := readMeta(path)
	if err != nil {
		return nil, err
	}
	switch {
	case m == nil && exists: // empty file
		m = newMeta(filepath.Base(abs))
		if err := m.write(path); err != nil {
			return nil, err
		}
	case m == nil:
		m = newMeta(filepath.Base(abs))
		data, err := m.encode()
		if err != nil {
			return nil, ioError(path, "write", err)
		}
		created, err := createExclusive(path, data, 0o644)
		if err != nil {
			return nil, ioError(path, "write", err)
		}
		if !created { // another process created it meanwhile: use theirs
			if m, _, err = readMeta(path); err != nil {
				return nil, err
			}
			if m == nil || !validID(m.str("projectId")) {
				return nil, withPath(&Error{Code: CodeMetaInvalid, Message: fmt.Sprintf("%s changed while it was being created; open the project again", path)}, path)
			}
		}
	case !validID(m.str("projectId")):
		m.set("projectId", uuid.NewString())
		m.fillMissing(filepath.Base(abs))
		m.set("updatedAt", now())
		if err := m.write(path); err != nil {
			return nil, err
		}
	}
	if _, err := m.project(abs, path); err != nil { // refuse a bad file before any data is made
		return nil, err
	}
	notice, movedFrom, err := bind(home, abs, path, m, o)
	if err != nil {
		return nil, err
	}
	p, err := m.project(abs, path)
	if err != nil {
		return nil, err
	}
	p.DataDir, p.Notice, p.MovedFrom = DataDir(home, p.ID), notice, movedFrom
	return p, nil
}

// Create makes the folder <parentDir>/<name> for a new project and opens it.
// name must be usable as a folder name on every desktop system; the folder must
// not exist yet.
func Create(home, parentDir, name string) (*Project, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	parent, err := canonicalDir(parentDir)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(parent, name)
	if err := os.Mkdir(root, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, withPath(errs.MsgWrap(CodeExists, err, "project.exists", errs.Params{"path": root}), root)
		}
		return nil, ioError(root, "create", err)
	}
	p, err := Open(home, root)
	if err != nil {
		os.RemoveAll(root) // only what this call just made
		return nil, err
	}
	return p, nil
}

// ValidateName checks a new project's name, which becomes a folder name.
func ValidateName(name string) error {
	bad := func(why string) error {
		return &Error{Code: CodeNameInvalid, Message: fmt.Sprintf("invalid project name %q: %s", name, why)}
	}
	switch {
	case strings.TrimSpace(name) == "":
		return bad("it is empty")
	case name == "." || name == "..":
		return bad("it is not a folder name")
	case strings.ContainsAny(name, `/\`):
		return bad("it must not contain / or \\")
	case strings.ContainsAny(name, `<>:"|?*`):
		return bad(`it must not contain any of < > : " | ? *`)
	case strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return bad("it must not contain control characters")
	case name != strings.TrimSpace(name) || strings.HasSuffix(name, "."):
		return bad("it must not start or end with a space, or end with a dot")
	case len(name) > 255:
		return bad("it is longer than 255 bytes")
	}
	stem := strings.ToUpper(strings.SplitN(name, ".", 2)[0])
	switch stem {
	case "CON", "PRN", "AUX", "NUL",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		return bad("it is a reserved device name on Windows")
	}
	return nil
}

// SetActivePackage records packageID ("" for none) as the project's active
// package in .crewagent.json and in p.
func SetActivePackage(p *Project, packageID string) error {
	path := MetaPath(p.Root)
	m, _, err := readMeta(path)
	if err != nil {
		return err
	}
	if m == nil { // deleted or emptied since Open: write it again with the same identity
		m = newMeta(p.Name)
		m.set("projectId", p.ID)
		if p.CreatedAt != "" {
			m.set("createdAt", p.CreatedAt)
		}
	} else if id := m.str("projectId"); id != p.ID {
		return withPath(&Error{Code: CodeIDChanged, Message: fmt.Sprintf("%s now has projectId %q instead of %q; open the project again", path, id, p.ID)}, path)
	}
	ts := now()
	m.set("activePackageId", packageID)
	m.set("updatedAt", ts)
	if err := m.write(path); err != nil {
		return err
	}
	p.ActivePackageID, p.UpdatedAt = packageID, ts
	return nil
}

// canonicalDir returns the absolute, symlink-resolved path of an existing folder.
func canonicalDir(dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", errs.Msg(CodeNotFound, "project.noFolder", nil)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", withPath(&Error{Code: CodeNotFound, Cause: err, Message: fmt.Sprintf("invalid folder %s: %v", dir, err)}, dir)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", withPath(errs.MsgWrap(CodeNotFound, err, "project.notFound", errs.Params{"path": abs}), abs)
	case err != nil:
		return "", ioError(abs, "read", err)
	case !fi.IsDir():
		return "", withPath(errs.Msg(CodeNotDir, "project.notDir", errs.Params{"path": abs}), abs)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

func ioError(path, verb string, err error) error {
	return withPath(&Error{Code: CodeIO, Cause: err, Message: fmt.Sprintf("cannot %s %s: %v", verb, path, err)}, path)
}

func validID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

// meta is the content of .crewagent.json, kept field by field so unknown fields
// survive a rewrite.
type meta map[string]json.RawMessage

func newMeta(name string) meta {
	ts := now()
	m := meta{}
	m.set("schemaVersion", SchemaVersion)
	m.set("projectId", uuid.NewString())
	m.set("projectName", name)
	m.set("artifactsDir", DefaultArtifactsDir)
	m.set("activePackageId", "")
	m.set("createdAt", ts)
	m.set("updatedAt", ts)
	return m
}

// readMeta returns a nil meta when the file is missing (exists false) or
// empty (exists true).
func readMeta(path string) (m meta, exists bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, ioError(path, "read", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, true, nil
	}
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		why := "it is null"
		if err != nil {
			why = err.Error()
		}
		return nil, true, withPath(&Error{Code: CodeMetaCorrupt, Cause: err,
			Message: fmt.Sprintf("%s is not a valid project file (%s); fix it, or delete it to give the folder a new project id", path, why)}, path)
	}
	return m, true, nil
}

// str returns a field's string value, or "" when it is absent or not a string.
func (m meta) str(key string) string {
	var s string
	if raw, ok := m[key]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func (m meta) set(key, value string) {
	raw, _ := json.Marshal(value) // a string always marshals
	m[key] = raw
}

// fillMissing adds the standard fields that are absent (present ones are kept as they are).
func (m meta) fillMissing(name string) {
	ts := now()
	for k, v := range map[string]string{
		"schemaVersion": SchemaVersion, "projectName": name, "artifactsDir": DefaultArtifactsDir,
		"activePackageId": "", "createdAt": ts, "updatedAt": ts,
	} {
		if _, ok := m[k]; !ok {
			m.set(k, v)
		}
	}
}

func (m meta) encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]json.RawMessage(m)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (m meta) write(path string) error {
	data, err := m.encode()
	if err == nil {
		err = fsx.WriteFile(path, data, 0o644)
	}
	if err != nil {
		return ioError(path, "write", err)
	}
	return nil
}

func (m meta) project(root, path string) (*Project, error) {
	p := &Project{
		ID:              m.str("projectId"),
		Name:            m.str("projectName"),
		Root:            root,
		ActivePackageID: m.str("activePackageId"),
		CreatedAt:       m.str("createdAt"),
		UpdatedAt:       m.str("updatedAt"),
	}
	if p.Name == "" {
		p.Name = filepath.Base(root)
	}
	art := m.str("artifactsDir")
	if art == "" {
		art = DefaultArtifactsDir
	}
	if !filepath.IsLocal(filepath.FromSlash(art)) {
		return nil, withPath(&Error{Code: CodeMetaInvalid, Message: fmt.Sprintf("%s: artifactsDir %q must be a relative folder inside the project", path, art)}, path)
	}
	p.ArtifactsDir = filepath.Join(root, filepath.FromSlash(art))
	return p, nil
}

// Info is an open project as the window sees it.
type Info struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Root            string `json:"root"`
	DataDir         string `json:"dataDir"`
	ActivePackageID string `json:"activePackageId"`
	// Notice says in words what opening decided about the folder's identity
	// (a copy made a new project, a moved project kept its conversations);
	// shown once, "" in the plain case.
	Notice string `json:"notice,omitempty"`
}

// Info is the project as the window sees it (without its notice).
func (p Project) Info() Info {
	return Info{ID: p.ID, Name: p.Name, Root: p.Root, DataDir: p.DataDir, ActivePackageID: p.ActivePackageID}
}
