// Package checkpoint keeps what the project's files were before each change a
// tool call made, so that the changes of a turn onward can be undone.
//
// Per project it keeps, in one folder (<home>/projects/<projectId>/checkpoints):
//   - blobs/<sha256>: file contents, stored once whatever the number of
//     changes that refer to them;
//   - journal.jsonl: one Record per changed file, appended in order;
//   - tree.json: the metadata (size, mtime, mode) and hash of the project's
//     files as last seen, so that a command's changes can be found by
//     comparing the tree before and after it without reading every file;
//   - rewind.json: while a rewind restores files (removed once it is done);
//     a store opened with it left behind finishes that rewind first.
//
// Nothing of the project is touched but the files being restored, and the
// project's own .git is never read or written.
package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"crewagent/backend/fsx"
)

// State is a file's state: whether it exists, its content's sha256 and its
// permission bits.
type State struct {
	Exists bool   `json:"exists"`
	Sha256 string `json:"sha256,omitempty"`
	Mode   uint32 `json:"mode,omitempty"`
}

func (s State) same(o State) bool {
	if !s.Exists || !o.Exists {
		return s.Exists == o.Exists
	}
	return s.Sha256 == o.Sha256 && s.Mode == o.Mode
}

// Record kinds.
const (
	KindChange = "change" // a tool call changed the file
	KindRewind = "rewind" // a rewind restored the file
)

// Record is one line of the journal: one file changed by one tool call, or
// restored by one rewind.
type Record struct {
	Kind           string `json:"kind"`
	ConversationID string `json:"conversationId"`
	// MessageID is the user message whose turn made the change (for a
	// rewind: the message it rewound to).
	MessageID  string `json:"messageId,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	Tool       string `json:"tool,omitempty"`
	// RewindID is set on the records of a rewind.
	RewindID string `json:"rewindId,omitempty"`
	// Path is project-relative, slash-separated.
	Path   string `json:"path"`
	Before State  `json:"before"`
	After  State  `json:"after"`
	Time   string `json:"time"`
}

// Change says who makes a change: the conversation (the root of a chain of
// conversations) and its user message whose turn it belongs to, and the
// tool call.
type Change struct {
	ConversationID string
	MessageID      string
	ToolCallID     string
	Tool           string
}

// Limits bound a tree walk.
type Limits struct {
	// MaxFiles is the most files a walk looks at (default 20000).
	MaxFiles int
	// MaxFileBytes: larger files are not kept (default 16 MiB); a change to
	// one is recorded without its content and cannot be restored.
	MaxFileBytes int64
	// MaxWalkBytes bounds the contents one walk keeps (default 256 MiB): the
	// first command in a large project does not copy all of it; the files
	// beyond are recorded without their content.
	MaxWalkBytes int64
}

// Skipped are the folder names a tree walk does not enter.
var Skipped = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true, "__pycache__": true, ".venv": true, ".cache": true}

// Store is one project's checkpoint store. It is safe for concurrent use.
type Store struct {
	dir    string
	root   string
	limits Limits
	now    func() time.Time
	newID  func() string

	mu   sync.Mutex
	tree map[string]treeEntry // nil until loaded
	// blobs are the contents known to be stored (it saves a stat a file).
	blobs sync.Map

	jmu     sync.Mutex
	journal *journalCache // nil until read
}

type treeEntry struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`
	Mode  uint32 `json:"mode"`
	Sha   string `json:"sha256,omitempty"` // "" when the file was too big to keep
}

// Options configure Open.
type Options struct {
	Limits Limits
	Now    func() time.Time
	NewID  func() string
}

// Open opens (creating it) the store in dir for the project folder root.
// A rewind left unfinished (the process was killed) is finished first.
func Open(dir, root string, o Options) (*Store, error) {
	if o.Limits.MaxFiles <= 0 {
		o.Limits.MaxFiles = 20000
	}
	if o.Limits.MaxFileBytes <= 0 {
		o.Limits.MaxFileBytes = 16 << 20
	}
	if o.Limits.MaxWalkBytes <= 0 {
		o.Limits.MaxWalkBytes = 256 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = newID
	}
	rr, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o755); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	s := &Store{dir: dir, root: rr, limits: o.Limits, now: o.Now, newID: o.NewID}
	if err := s.recover(); err != nil {
		return nil, err
	}
	return s, nil
}

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

func (s *Store) journalPath() string { return filepath.Join(s.dir, "journal.jsonl") }
func (s *Store) intentPath() string  { return filepath.Join(s.dir, "rewind.json") }
func (s *Store) treePath() string    { return filepath.Join(s.dir, "tree.json") }
func (s *Store) blobPath(sha string) string {
	return filepath.Join(s.dir, "blobs", sha[:2], sha)
}

// abs returns the host path of a project-relative path, refusing any that
// leaves the project.
func (s *Store) abs(rel string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if rel == "" || filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("checkpoint: %q is not a path inside the project", rel)
	}
	return filepath.Join(s.root, clean), nil
}

// putBlob stores content and returns its sha256.
func (s *Store) putBlob(content []byte) (string, error) {
	sum := sha256.Sum256(content)
	sha := hex.EncodeToString(sum[:])
	if _, ok := s.blobs.Load(sha); ok {
		return sha, nil
	}
	p := s.blobPath(sha)
	if _, err := os.Stat(p); err == nil {
		s.blobs.Store(sha, true)
		return sha, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	if err := writeAtomic(p, content, 0o600); err != nil {
		return "", err
	}
	s.blobs.Store(sha, true)
	return sha, nil
}

// Blob returns stored content by sha256.
func (s *Store) Blob(sha string) ([]byte, error) {
	if len(sha) != 64 {
		return nil, fmt.Errorf("checkpoint: bad blob id %q", sha)
	}
	return os.ReadFile(s.blobPath(sha))
}

// capture reads the file at rel and keeps its content: its state now.
func (s *Store) capture(rel string) (State, error) {
	p, err := s.abs(rel)
	if err != nil {
		return State{}, err
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, err
	}
	if !fi.Mode().IsRegular() {
		return State{}, fmt.Errorf("checkpoint: %s is not a regular file", rel)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return State{}, err
	}
	sha, err := s.putBlob(b)
	if err != nil {
		return State{}, err
	}
	return State{Exists: true, Sha256: sha, Mode: uint32(fi.Mode().Perm())}, nil
}

// Begin is called before a tool call that may change files: paths are the
// project-relative files it changes, or nil when it may change any
// (a command: the tree is compared before and after). The returned function,
// called once the call is over, records what changed.
func (s *Store) Begin(c Change, paths []string) (func() error, error) {
	if paths == nil {
		return s.beginTree(c)
	}
	before := make([]State, len(paths))
	for i, p := range paths {
		st, err := s.capture(p)
		if err != nil {
			return nil, err
		}
		before[i] = st
	}
	return func() error {
		var recs []Record
		for i, p := range paths {
			after, err := s.capture(p)
			if err != nil {
				return err
			}
			if !after.same(before[i]) {
				recs = append(recs, s.record(c, p, before[i], after))
			}
		}
		return s.appendRecords(recs)
	}, nil
}

func (s *Store) record(c Change, path string, before, after State) Record {
	return Record{Kind: KindChange, ConversationID: c.ConversationID, MessageID: c.MessageID, ToolCallID: c.ToolCallID, Tool: c.Tool,
		Path: path, Before: before, After: after, Time: fsx.Stamp(s.now())}
}

// beginTree keeps the content of every file of the tree whose metadata
// changed since last seen, and compares the tree after the call.
func (s *Store) beginTree(c Change) (func() error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before, err := s.syncTree()
	if err != nil {
		return nil, err
	}
	return func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		after, err := s.syncTree()
		if err != nil {
			return err
		}
		var recs []Record
		for p, b := range before {
			a, ok := after[p]
			switch {
			case !ok:
				recs = append(recs, s.record(c, p, b.state(), State{}))
			case a != b:
				recs = append(recs, s.record(c, p, b.state(), a.state()))
			}
		}
		for p, a := range after {
			if _, ok := before[p]; !ok {
				recs = append(recs, s.record(c, p, State{}, a.state()))
			}
		}
		sortRecords(recs)
		return s.appendRecords(recs)
	}, nil
}

func (e treeEntry) state() State { return State{Exists: true, Sha256: e.Sha, Mode: e.Mode} }

// syncTree walks the project, keeps the content of every file new or
// changed since the last walk and returns the tree (s.mu held).
func (s *Store) syncTree() (map[string]treeEntry, error) {
	if s.tree == nil {
		s.tree = map[string]treeEntry{}
		if b, err := os.ReadFile(s.treePath()); err == nil {
			_ = json.Unmarshal(b, &s.tree)
		}
	}
	out := map[string]treeEntry{}
	n := 0
	var kept int64
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == s.root {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if p != s.root && Skipped[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if n >= s.limits.MaxFiles {
			return filepath.SkipAll
		}
		n++
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		e := treeEntry{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode().Perm())}
		if old, ok := s.tree[rel]; ok && old.Size == e.Size && old.MTime == e.MTime && old.Mode == e.Mode {
			out[rel] = old
			return nil
		}
		if e.Size <= s.limits.MaxFileBytes && kept+e.Size <= s.limits.MaxWalkBytes {
			kept += e.Size
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			if e.Sha, err = s.putBlob(b); err != nil {
				return err
			}
		}
		out[rel] = e
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	s.tree = out
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(s.treePath(), b, 0o600); err != nil {
		return nil, err
	}
	return out, nil
}

// appendRecords appends records to the journal in one write.
func (s *Store) appendRecords(recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return s.appendLines(buf.Bytes(), recs)
}

// appendLines appends the journal lines of recs in one write, and adds recs
// to the journal as last read when nothing else wrote to it meanwhile.
func (s *Store) appendLines(lines []byte, recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	f, err := os.OpenFile(s.journalPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	before, _ := f.Stat()
	if _, err := f.Write(lines); err != nil {
		f.Close()
		return fmt.Errorf("checkpoint: %w", err)
	}
	after, _ := f.Stat()
	if err := f.Close(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	s.jmu.Lock()
	defer s.jmu.Unlock()
	if c := s.journal; c != nil && before != nil && after != nil && os.SameFile(c.fi, before) && c.size == before.Size() &&
		after.Size() == before.Size()+int64(len(lines)) {
		c.recs = append(c.recs[:len(c.recs):len(c.recs)], recs...)
		c.fi, c.size = after, after.Size()
	} else {
		s.journal = nil
	}
	return nil
}

// journalCache is the journal as last read: up to size bytes of the file fi.
type journalCache struct {
	fi   fs.FileInfo
	size int64
	recs []Record
}

// Records returns the journal, oldest first. A torn last line is skipped.
// The journal is read once; later calls read only what was appended since
// (another process may append too), or all of it again when it was
// replaced (pruning). The slice must not be changed.
func (s *Store) Records() ([]Record, error) {
	f, err := os.Open(s.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	s.jmu.Lock()
	defer s.jmu.Unlock()
	var recs []Record
	var from int64
	if c := s.journal; c != nil && os.SameFile(c.fi, fi) && fi.Size() >= c.size && (fi.Size() > c.size || fi.ModTime().Equal(c.fi.ModTime())) {
		recs, from = c.recs[:len(c.recs):len(c.recs)], c.size
		if from == fi.Size() {
			return recs, nil
		}
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	size := from
	var torn []Record // a last line without its newline: returned, read again next time
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var rec Record
			if json.Unmarshal(line, &rec) == nil {
				if err == nil {
					recs = append(recs, rec)
				} else {
					torn = append(torn, rec)
				}
			}
		}
		if err == nil {
			size += int64(len(line))
			continue
		}
		if err == io.EOF {
			break
		}
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	s.journal = &journalCache{fi: fi, size: size, recs: recs}
	return append(recs[:len(recs):len(recs)], torn...), nil
}

// writeRecords replaces the journal (pruning).
func (s *Store) writeRecords(recs []Record) error {
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return fsx.WriteFile(s.journalPath(), buf.Bytes(), 0o600)
}

// writeAtomic replaces path with data through a temporary file renamed over
// it: a reader, and the disk after the process is killed, see the old or the
// new content, never a part. It does not sync (a rewind's intent file, which
// is synced, redoes the restore after a crash of the machine).
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".rw-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "rw-" + hex.EncodeToString(b[:])
}

func sortRecords(recs []Record) {
	sort.Slice(recs, func(i, j int) bool { return recs[i].Path < recs[j].Path })
}
