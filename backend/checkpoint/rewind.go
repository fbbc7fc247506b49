package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"crewagent/backend/fsx"
)

// ErrNothingToRestore is returned when no recorded change is left to undo.
var ErrNothingToRestore = errors.New("nothing to restore")

// ErrUnknownRewind is returned by UndoRewind for an id no rewind has.
var ErrUnknownRewind = errors.New("no such rewind")

// Result is what a rewind did.
type Result struct {
	// RewindID names the rewind: UndoRewind(RewindID) puts back the files as
	// they were just before it.
	RewindID string `json:"rewindId,omitempty"`
	// Restored are the files written back or removed, sorted.
	Restored []string `json:"restored"`
	// Kept are files changed since the last recorded change (by the user or
	// another program): left as they are unless forced.
	Kept []string `json:"kept"`
	// Unrestorable are files whose earlier content was too big to keep.
	Unrestorable []string `json:"unrestorable"`
}

// intent is the rewind.json file: what a rewind is about to restore.
type intent struct {
	RewindID       string   `json:"rewindId"`
	ConversationID string   `json:"conversationId"`
	MessageID      string   `json:"messageId"`
	Records        []Record `json:"records"`
	// lines are the records as journal lines (each ending in a newline),
	// set by marshal: the intent file and the journal share them.
	lines []byte
}

// marshal encodes the intent file, each record encoded once: the same
// encodings are appended to the journal when the rewind is done.
func (in *intent) marshal() ([]byte, error) {
	head, err := json.Marshal(struct {
		RewindID       string `json:"rewindId"`
		ConversationID string `json:"conversationId"`
		MessageID      string `json:"messageId"`
	}{in.RewindID, in.ConversationID, in.MessageID})
	if err != nil {
		return nil, err
	}
	var lines, out bytes.Buffer
	out.Write(head[:len(head)-1])
	out.WriteString(`,"records":[`)
	for i, r := range in.Records {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(b)
		lines.Write(b)
		lines.WriteByte('\n')
	}
	out.WriteString("]}")
	in.lines = lines.Bytes()
	return out.Bytes(), nil
}

// RestoreOptions say which files changed since are restored anyway and
// whether anything is done at all.
type RestoreOptions struct {
	// Force restores every file changed since the tools last wrote it.
	Force bool
	// ForcePaths restores these files (project-relative) even if changed
	// since.
	ForcePaths []string
	// DryRun only says what would be restored and kept: nothing is written
	// (the result has no RewindID).
	DryRun bool
}

func (o RestoreOptions) forced(p string) bool {
	if o.Force {
		return true
	}
	for _, f := range o.ForcePaths {
		if f == p {
			return true
		}
	}
	return false
}

// Rewind puts the project's files back as they were before the changes that
// conversation convID recorded in the turns of the user messages in turns
// (the rewound message and every later one), undoing them newest first.
// Files changed since the last recorded change are kept unless force.
// to is the message rewound to (recorded with the rewind).
func (s *Store) Rewind(convID, to string, turns map[string]bool, force bool) (*Result, error) {
	return s.RewindWith(convID, to, turns, RestoreOptions{Force: force})
}

// RewindWith is Rewind with the files changed since chosen one by one, or
// only planned.
func (s *Store) RewindWith(convID, to string, turns map[string]bool, o RestoreOptions) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.Records()
	if err != nil {
		return nil, err
	}
	// The target state of a file is the one before the oldest selected change.
	target := map[string]State{}
	var order []string
	for _, r := range recs {
		if r.Kind != KindChange || r.ConversationID != convID || !turns[r.MessageID] {
			continue
		}
		if _, ok := target[r.Path]; !ok {
			target[r.Path] = r.Before
			order = append(order, r.Path)
		}
	}
	return s.restore(convID, to, order, target, lastLeft(recs, target), o)
}

// UndoCall puts back the files one tool call changed as they were before
// it. convIDs are the conversations its records may name (the conversation
// of the call and the one its turn belongs to); when the same call id was
// recorded more than once, the latest call is undone. A file changed since
// that call (by a later call, the user or another program) is kept unless
// forced.
func (s *Store) UndoCall(convIDs []string, toolCallID string, o RestoreOptions) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.Records()
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, c := range convIDs {
		in[c] = true
	}
	match := func(r Record) bool {
		return r.Kind == KindChange && r.ToolCallID == toolCallID && in[r.ConversationID]
	}
	end := len(recs) - 1
	for end >= 0 && !match(recs[end]) {
		end--
	}
	if end < 0 || toolCallID == "" {
		return nil, ErrNothingToRestore
	}
	// One call's records are appended together.
	start := end
	for start > 0 && match(recs[start-1]) {
		start--
	}
	target, left := map[string]State{}, map[string]State{}
	var order []string
	convID := recs[end].ConversationID
	for _, r := range recs[start : end+1] {
		if _, ok := target[r.Path]; !ok {
			target[r.Path] = r.Before
			order = append(order, r.Path)
		}
		left[r.Path] = r.After
	}
	return s.restore(convID, toolCallID, order, target, left, o)
}

// UndoRewind puts back the files a rewind restored as they were just before
// it.
func (s *Store) UndoRewind(rewindID string, force bool) (*Result, error) {
	return s.UndoRewindWith(rewindID, RestoreOptions{Force: force})
}

// UndoRewindWith is UndoRewind with the files changed since chosen one by
// one, or only planned.
func (s *Store) UndoRewindWith(rewindID string, o RestoreOptions) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.Records()
	if err != nil {
		return nil, err
	}
	target := map[string]State{}
	var order []string
	convID := ""
	for _, r := range recs {
		if r.Kind != KindRewind || r.RewindID != rewindID {
			continue
		}
		convID = r.ConversationID
		if _, ok := target[r.Path]; !ok {
			target[r.Path] = r.Before
			order = append(order, r.Path)
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnknownRewind, rewindID)
	}
	return s.restore(convID, rewindID, order, target, lastLeft(recs, target), o)
}

// lastLeft returns what the last record of each path of target left in it.
func lastLeft(recs []Record, target map[string]State) map[string]State {
	left := map[string]State{}
	for _, r := range recs {
		if _, ok := target[r.Path]; ok {
			left[r.Path] = r.After
		}
	}
	return left
}

// IsRewind reports whether id names a recorded rewind.
func (s *Store) IsRewind(id string) bool {
	recs, err := s.Records()
	if err != nil {
		return false
	}
	for _, r := range recs {
		if r.Kind == KindRewind && r.RewindID == id {
			return true
		}
	}
	return false
}

// restore brings each path of order to its target state (s.mu held). A
// file is restored only when it is as left says the tools left it, or when
// forced.
func (s *Store) restore(convID, to string, order []string, target, left map[string]State, o RestoreOptions) (*Result, error) {
	if len(order) == 0 {
		return nil, ErrNothingToRestore
	}
	res := &Result{Restored: []string{}, Kept: []string{}, Unrestorable: []string{}}
	in := intent{RewindID: s.newID(), ConversationID: convID, MessageID: to}
	now := fsx.Stamp(s.now())
	sort.Strings(order)
	// The current states, read (and kept) in parallel: the files are many
	// and small, the time is the disk's.
	cur := make([]State, len(order))
	bad := make([]bool, len(order))
	parallel(len(order), func(i int) error {
		st, err := s.capture(order[i])
		cur[i], bad[i] = st, err != nil
		return nil
	})
	for i, p := range order {
		want := target[p]
		if bad[i] {
			res.Kept = append(res.Kept, p) // a folder or special file there now
			continue
		}
		if cur[i].same(want) {
			continue
		}
		if want.Exists && want.Sha256 == "" {
			res.Unrestorable = append(res.Unrestorable, p)
			continue
		}
		if l := left[p]; !o.forced(p) && !(cur[i].same(l) && (l.Sha256 != "" || !l.Exists)) {
			res.Kept = append(res.Kept, p)
			continue
		}
		in.Records = append(in.Records, Record{Kind: KindRewind, ConversationID: convID, MessageID: to, RewindID: in.RewindID,
			Path: p, Before: cur[i], After: want, Time: now})
		res.Restored = append(res.Restored, p)
	}
	if len(in.Records) == 0 {
		if len(res.Kept)+len(res.Unrestorable) == 0 {
			return nil, ErrNothingToRestore
		}
		return res, nil
	}
	if o.DryRun {
		return res, nil
	}
	b, err := in.marshal()
	if err != nil {
		return nil, err
	}
	// Not synced: a killed process leaves it to the next Open whole or not
	// at all (written aside and renamed), and the files it restores are not
	// synced either.
	if err := writeAtomic(s.intentPath(), b, 0o600); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := s.finish(in); err != nil {
		return nil, err
	}
	res.RewindID = in.RewindID
	return res, nil
}

// afterPut, in tests, stops a rewind after its i-th file as a kill would.
var afterPut func(i int) error

// finish restores the files of a written intent, journals the rewind and
// removes the intent. Each step can be done again after a crash.
func (s *Store) finish(in intent) error {
	workers := 0
	if afterPut != nil {
		workers = 1 // the order of a test's interruption
	}
	if err := parallelN(len(in.Records), workers, func(i int) error {
		r := in.Records[i]
		if err := s.put(r.Path, r.After); err != nil {
			return fmt.Errorf("checkpoint: restoring %s: %w", r.Path, err)
		}
		if afterPut != nil {
			return afterPut(i)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := s.appendLines(in.lines, in.Records); err != nil {
		return err
	}
	if err := os.Remove(s.intentPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// recover finishes a rewind whose process was killed.
func (s *Store) recover() error {
	b, err := os.ReadFile(s.intentPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	var in intent
	if err := json.Unmarshal(b, &in); err == nil {
		// A file being written when the process was killed leaves its
		// temporary copy behind.
		for _, r := range in.Records {
			if p, err := s.abs(r.Path); err == nil {
				tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "."+globEscape(filepath.Base(p))+".rw-*"))
				for _, t := range tmps {
					_ = os.Remove(t)
				}
			}
		}
	}
	if err := json.Unmarshal(b, &in); err != nil {
		// Written atomically: a file that does not parse was never ours.
		return os.Remove(s.intentPath())
	}
	recs, err := s.Records()
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Kind == KindRewind && r.RewindID == in.RewindID {
			// Journaled already: only the removal was left.
			return os.Remove(s.intentPath())
		}
	}
	if _, err := in.marshal(); err != nil {
		return err
	}
	return s.finish(in)
}

// put brings the file at rel to state st.
func (s *Store) put(rel string, st State) error {
	p, err := s.abs(rel)
	if err != nil {
		return err
	}
	if !st.Exists {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := s.Blob(st.Sha256)
	if err != nil {
		return err
	}
	err = writeInPlace(p, b, fs.FileMode(st.Mode)&fs.ModePerm)
	if errors.Is(err, fs.ErrNotExist) { // its folder is gone too
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		err = writeInPlace(p, b, fs.FileMode(st.Mode)&fs.ModePerm)
	}
	return err
}

// Bounds limit what a store keeps.
type Bounds struct {
	MaxAge   time.Duration // 0: no limit
	MaxBytes int64         // 0: no limit
}

// Prune drops the records older than b.MaxAge, then the oldest ones while
// the contents they keep weigh more than b.MaxBytes, and removes the
// contents nothing refers to any more. It returns how many records it
// dropped.
func (s *Store) Prune(b Bounds) (int, error) {
	return s.drop(func(recs []Record) []Record {
		if b.MaxAge > 0 {
			cut := fsx.Stamp(s.now().Add(-b.MaxAge))
			i := 0
			for i < len(recs) && recs[i].Time < cut {
				i++
			}
			recs = recs[i:]
		}
		if b.MaxBytes > 0 {
			size := map[string]int64{}
			count := map[string]int{}
			var total int64
			ref := func(sha string, d int) {
				if sha == "" {
					return
				}
				if _, ok := size[sha]; !ok {
					if fi, err := os.Stat(s.blobPath(sha)); err == nil {
						size[sha] = fi.Size()
					}
				}
				count[sha] += d
				if d > 0 && count[sha] == 1 {
					total += size[sha]
				} else if d < 0 && count[sha] == 0 {
					total -= size[sha]
				}
			}
			for _, r := range recs {
				ref(r.Before.Sha256, 1)
				ref(r.After.Sha256, 1)
			}
			i := 0
			for i < len(recs) && total > b.MaxBytes {
				ref(recs[i].Before.Sha256, -1)
				ref(recs[i].After.Sha256, -1)
				i++
			}
			recs = recs[i:]
		}
		return recs
	})
}

// DeleteConversation drops the records of a conversation and the contents
// only they referred to.
func (s *Store) DeleteConversation(convID string) error {
	_, err := s.drop(func(recs []Record) []Record {
		out := recs[:0]
		for _, r := range recs {
			if r.ConversationID != convID {
				out = append(out, r)
			}
		}
		return out
	})
	return err
}

// drop rewrites the journal with keep's records and collects the blobs.
func (s *Store) drop(keep func([]Record) []Record) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.Records()
	if err != nil {
		return 0, err
	}
	n := len(recs)
	kept := keep(append([]Record(nil), recs...))
	if len(kept) == n {
		return 0, nil // nothing dropped: the contents are collected with the next drop
	}
	if err := s.writeRecords(kept); err != nil {
		return 0, err
	}
	used := map[string]bool{}
	for _, r := range kept {
		used[r.Before.Sha256], used[r.After.Sha256] = true, true
	}
	if s.tree == nil {
		if b, err := os.ReadFile(s.treePath()); err == nil {
			_ = json.Unmarshal(b, &s.tree)
		}
	}
	for _, e := range s.tree {
		used[e.Sha] = true
	}
	if b, err := os.ReadFile(s.intentPath()); err == nil {
		var in intent
		if json.Unmarshal(b, &in) == nil {
			for _, r := range in.Records {
				used[r.Before.Sha256], used[r.After.Sha256] = true, true
			}
		}
	}
	err = filepath.WalkDir(filepath.Join(s.dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if !used[d.Name()] {
			s.blobs.Delete(d.Name())
			_ = os.Remove(p)
		}
		return nil
	})
	return n - len(kept), err
}

// globEscape escapes the pattern characters of a file name.
func globEscape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// parallel runs fn for 0..n-1 on a few goroutines and returns the first error.
func parallel(n int, fn func(i int) error) error { return parallelN(n, 0, fn) }

func parallelN(n, workers int, fn func(i int) error) error {
	if workers <= 0 {
		workers = 8
	}
	if workers > n {
		workers = n
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n || first != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}
