package convlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// Defaults of Options.
const (
	DefaultLargeOutputThreshold = 50 * 1024
	DefaultPreviewChars         = 2000
	DefaultIndexFlushDelay      = 200 * time.Millisecond
	// DefaultTitle is the title of a conversation that has no user message yet.
	DefaultTitle = "New conversation"
)

// Options configure a Store. The zero value is usable.
type Options struct {
	// Counter counts tokens of appended messages; nil leaves Tokens at zero.
	Counter conversation.TokenCounter
	// LargeOutputThreshold is the content size in bytes above which a tool
	// result is written to logs/tool-results and replaced by a preview.
	// 0 means DefaultLargeOutputThreshold; a negative value disables it.
	LargeOutputThreshold int
	// PreviewChars is how many characters of a large tool result the preview
	// keeps; 0 means DefaultPreviewChars.
	PreviewChars int
	// IndexFlushDelay is how long index changes made by Append wait before
	// index.json is rewritten (coalescing many appends into one write).
	// 0 means DefaultIndexFlushDelay; a negative value writes at every append.
	// Changes made by Create, Rename, UpdateMeta, Checkpoint, Fork and Delete
	// are always written before those methods return.
	IndexFlushDelay time.Duration
	// Logger receives warnings about skipped lines and repairs; nil means slog.Default().
	Logger *slog.Logger
}

// ForkOptions choose where a fork ends. Both empty copies the whole conversation.
type ForkOptions struct {
	// AtMessageID copies the effective entries up to and including this one,
	// each in its latest version.
	AtMessageID string
	// Checkpoint copies the log as it was when the named checkpoint was
	// recorded (every line up to and including the checkpoint event).
	Checkpoint string
}

// Store is the conversation store of one project data directory:
// conversations/index.json plus one append-only messages.jsonl per
// conversation. Only one writable Store may be open per directory (see Open).
// A Store is safe for concurrent use.
type Store struct {
	dir      string
	opts     Options
	log      *slog.Logger
	readOnly bool
	lockFile *os.File

	opMu   sync.RWMutex // shared by every operation, exclusive in Close
	closed bool         // guarded by opMu

	mu           sync.Mutex // guards the fields below
	index        map[string]*conversation.ConversationMeta
	convs        map[string]*sync.RWMutex
	dirty        bool
	timer        *time.Timer
	timerPending bool
	indexStamp   os.FileInfo // read-only stores: index.json as last loaded

	flushMu   sync.Mutex // serialises index.json writes
	refreshMu sync.Mutex // serialises index reloads of read-only stores
	own       ownWrites

	// written keeps the lines committed to each conversation until a
	// Publishing store takes them (nil: nobody takes them, none are kept).
	writtenMu sync.Mutex
	written   map[string][]*conversation.Entry
}

// Open opens the conversation store of projectDataDir for reading and
// writing, creating the folders it needs. It takes an exclusive lock on
// <dir>/.lock (holding the pid) that lasts until Close or the end of the
// process; a second Open of the same directory, from any process, fails with
// an error matching ErrProjectLocked.
func Open(projectDataDir string, opts Options) (*Store, error) {
	dir, err := filepath.Abs(projectDataDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(conversationsDir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("convlog: %w", err)
	}
	lf, err := acquireLock(dir)
	if err != nil {
		return nil, err
	}
	s := newStore(dir, opts, false)
	s.lockFile = lf
	if err := s.loadIndex(); err != nil {
		lf.Close()
		return nil, err
	}
	s.removeLeftovers()
	return s, nil
}

// OpenReadOnly opens the store without the writer lock. Every mutating method
// returns ErrReadOnly. It reloads index.json when the file changes, so it
// follows a writer in another process (index changes made by appends show up
// after the writer's IndexFlushDelay).
func OpenReadOnly(projectDataDir string, opts Options) (*Store, error) {
	dir, err := filepath.Abs(projectDataDir)
	if err != nil {
		return nil, err
	}
	s := newStore(dir, opts, true)
	if err := s.loadIndex(); err != nil {
		return nil, err
	}
	return s, nil
}

func newStore(dir string, opts Options, readOnly bool) *Store {
	if opts.LargeOutputThreshold == 0 {
		opts.LargeOutputThreshold = DefaultLargeOutputThreshold
	}
	if opts.PreviewChars <= 0 {
		opts.PreviewChars = DefaultPreviewChars
	}
	if opts.IndexFlushDelay == 0 {
		opts.IndexFlushDelay = DefaultIndexFlushDelay
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.Default()
	}
	return &Store{
		dir:      dir,
		opts:     opts,
		log:      lg.With("component", "convlog"),
		readOnly: readOnly,
		index:    map[string]*conversation.ConversationMeta{},
		convs:    map[string]*sync.RWMutex{},
	}
}

func acquireLock(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("convlog: lock: %w", err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		if errors.Is(err, errLockBusy) {
			b, _ := os.ReadFile(path)
			return nil, lockedError(dir, b)
		}
		return nil, fmt.Errorf("convlog: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// Close writes pending index changes and releases the writer lock. Calls
// after Close fail with ErrClosed.
func (s *Store) Close() error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	var err error
	if !s.readOnly {
		err = s.flushIndex()
	}
	if s.lockFile != nil {
		if cerr := s.lockFile.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// DataDir returns the absolute project data directory.
func (s *Store) DataDir() string { return s.dir }

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// IsOwnWrite reports whether path (under the data directory) is being written
// by this store right now or is exactly as this store last left it (same
// file, size and modification time, or still removed). A file watcher uses
// it to skip the store's own changes. Always false for read-only stores.
func (s *Store) IsOwnWrite(path string) bool {
	if s.readOnly {
		return false
	}
	if !filepath.IsAbs(path) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	return s.own.match(path)
}

// begin starts an operation; write operations fail on read-only stores.
func (s *Store) begin(write bool) (func(), error) {
	if write && s.readOnly {
		return nil, ErrReadOnly
	}
	s.opMu.RLock()
	if s.closed {
		s.opMu.RUnlock()
		return nil, ErrClosed
	}
	return s.opMu.RUnlock, nil
}

// beginWrite starts a write operation on an existing conversation: it holds
// the conversation's write lock until release is called, and returns the
// conversation's index record.
func (s *Store) beginWrite(id string) (m conversation.ConversationMeta, release func(), err error) {
	done, err := s.begin(true)
	if err != nil {
		return m, nil, err
	}
	l := s.convLock(id)
	l.Lock()
	release = func() {
		l.Unlock()
		done()
	}
	if m, err = s.lookup(id); err != nil {
		release()
		return m, nil, err
	}
	return m, release, nil
}

func (s *Store) convLock(id string) *sync.RWMutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.convs[id]
	if l == nil {
		l = new(sync.RWMutex)
		s.convs[id] = l
	}
	return l
}

func (s *Store) reporter(id, file string) func(badLine) {
	return func(b badLine) {
		if b.torn {
			s.log.Warn("ignoring incomplete last line (an interrupted write); the next append repairs it",
				"conversation", id, "file", file, "offset", b.off, "error", b.err)
			return
		}
		args := []any{"conversation", id, "file", file, "offset", b.off, "error", b.err}
		if b.line > 0 {
			args = append(args, "line", b.line)
		}
		s.log.Warn("skipping corrupt line", args...)
	}
}

// ---- queries ----

// List returns the conversations, most recently active first. Records whose
// folder has disappeared are dropped from the index.
func (s *Store) List() ([]conversation.ConversationMeta, error) {
	release, err := s.begin(false)
	if err != nil {
		return nil, err
	}
	defer release()
	s.refreshReadOnly()
	s.adopt(nil)
	s.mu.Lock()
	out := make([]conversation.ConversationMeta, 0, len(s.index))
	for _, m := range s.index {
		out = append(out, cloneMeta(m))
	}
	s.mu.Unlock()
	kept := out[:0]
	var gone []string
	for _, m := range out {
		if dirExists(convDir(s.dir, m.ID)) {
			kept = append(kept, m)
		} else {
			gone = append(gone, m.ID)
		}
	}
	if len(gone) > 0 {
		s.dropRecords(gone)
	}
	sortMetas(kept)
	return kept, nil
}

// Get returns the index record of a conversation.
func (s *Store) Get(id string) (conversation.ConversationMeta, error) {
	if err := checkConvID(id); err != nil {
		return conversation.ConversationMeta{}, err
	}
	release, err := s.begin(false)
	if err != nil {
		return conversation.ConversationMeta{}, err
	}
	defer release()
	s.refreshReadOnly()
	m, err := s.lookup(id)
	if err != nil {
		return conversation.ConversationMeta{}, err
	}
	return m, nil
}

// lookup returns a copy of the record of id, healing the index when the
// conversation folder is gone.
func (s *Store) lookup(id string) (conversation.ConversationMeta, error) {
	s.mu.Lock()
	m := s.index[id]
	var c conversation.ConversationMeta
	if m != nil {
		c = cloneMeta(m)
	}
	s.mu.Unlock()
	if m == nil {
		if !s.adopt([]string{id}) {
			return c, fmt.Errorf("convlog: conversation %s: %w", id, ErrNotFound)
		}
		return s.lookup(id)
	}
	if !dirExists(convDir(s.dir, id)) {
		s.dropRecords([]string{id})
		return conversation.ConversationMeta{}, fmt.Errorf("convlog: conversation %s: %w", id, ErrNotFound)
	}
	return c, nil
}

// dropRecords removes index records whose conversation folder is gone.
func (s *Store) dropRecords(ids []string) {
	s.mu.Lock()
	for _, id := range ids {
		if _, ok := s.index[id]; ok && !dirExists(convDir(s.dir, id)) {
			s.log.Warn("dropping index record of a conversation whose folder is gone", "conversation", id)
			delete(s.index, id)
			s.dirty = true
		}
	}
	s.mu.Unlock()
	if !s.readOnly {
		if err := s.flushIndex(); err != nil {
			s.log.Error("writing index.json", "error", err)
		}
	}
}

// Load returns the effective entries of a conversation: one per id, in the
// order ids first appeared, each with the content of its last line.
func (s *Store) Load(id string) ([]*conversation.Entry, error) {
	return s.reading(id, func() ([]*conversation.Entry, error) { return s.readAll(id) })
}

// reading checks id, then runs read under the conversation's read lock once
// the conversation is known to exist.
func (s *Store) reading(id string, read func() ([]*conversation.Entry, error)) ([]*conversation.Entry, error) {
	if err := checkConvID(id); err != nil {
		return nil, err
	}
	release, err := s.begin(false)
	if err != nil {
		return nil, err
	}
	defer release()
	s.refreshReadOnly()
	l := s.convLock(id)
	l.RLock()
	defer l.RUnlock()
	if _, err := s.lookup(id); err != nil {
		return nil, err
	}
	return read()
}

// LoadTail returns the last n effective entries (messages and events) of a
// conversation in effective order, reading the log backwards in blocks from
// its end; only the lines after the n-th newest entry are read, not the file.
//
// Semantics of updates: the line that introduces an id has no "updatedAt";
// update lines (Update, MarkCompacted) have one. An entry is in the tail when
// the line that introduced it is among the last n introductions; its content
// is that of its last line. An update line near the end for an older entry
// therefore neither adds that entry to the tail nor pushes a newer entry out,
// and an entry whose introduction and update both lie in the tail appears
// once, updated. For lines written without "updatedAt" by other programs,
// the line is taken as the introduction if no earlier one was read. The
// result equals the last n entries of Load for every log this store writes.
// A legacy messages.json is read whole.
func (s *Store) LoadTail(id string, n int) ([]*conversation.Entry, error) {
	return s.readBack(id, func(f *os.File, size int64, report func(badLine)) ([]*conversation.Entry, error) {
		if n <= 0 {
			return []*conversation.Entry{}, nil
		}
		return readTail(f, size, n, report)
	}, func(all []*conversation.Entry) []*conversation.Entry {
		if n <= 0 {
			return []*conversation.Entry{}
		}
		if len(all) > n {
			all = all[len(all)-n:]
		}
		return all
	})
}

// LoadSinceCompaction returns the last compaction event followed by every
// entry introduced after it (same update semantics as LoadTail), reading the
// log backwards only as far as that event. Without a compaction event it
// returns the whole conversation.
func (s *Store) LoadSinceCompaction(id string) ([]*conversation.Entry, error) {
	return s.readBack(id, func(f *os.File, size int64, report func(badLine)) ([]*conversation.Entry, error) {
		return readSinceCompaction(f, size, report)
	}, func(all []*conversation.Entry) []*conversation.Entry {
		for i := len(all) - 1; i >= 0; i-- {
			if all[i].Type == conversation.TypeEvt && all[i].Event == conversation.EventCompaction {
				return all[i:]
			}
		}
		return all
	})
}

func (s *Store) readBack(id string, fromLog func(*os.File, int64, func(badLine)) ([]*conversation.Entry, error), fromAll func([]*conversation.Entry) []*conversation.Entry) ([]*conversation.Entry, error) {
	return s.reading(id, func() ([]*conversation.Entry, error) { return s.readBackLocked(id, fromLog, fromAll) })
}

func (s *Store) readBackLocked(id string, fromLog func(*os.File, int64, func(badLine)) ([]*conversation.Entry, error), fromAll func([]*conversation.Entry) []*conversation.Entry) ([]*conversation.Entry, error) {
	f, err := os.Open(logPath(s.dir, id))
	if errors.Is(err, fs.ErrNotExist) {
		all, err := s.readAll(id)
		if err != nil {
			return nil, err
		}
		return fromAll(all), nil
	}
	if err != nil {
		return nil, fmt.Errorf("convlog: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("convlog: %w", err)
	}
	out, err := fromLog(f, fi.Size(), s.reporter(id, LogFile))
	if err != nil {
		return nil, fmt.Errorf("convlog: reading %s: %w", f.Name(), err)
	}
	return out, nil
}

// readAll reads the effective entries from messages.jsonl, or from a legacy
// messages.json when there is no log yet. A conversation without either is empty.
func (s *Store) readAll(id string) ([]*conversation.Entry, error) {
	for attempt := 0; ; attempt++ {
		data, err := os.ReadFile(logPath(s.dir, id))
		if err == nil {
			return parseLog(data, s.reporter(id, LogFile)), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("convlog: %w", err)
		}
		data, err = os.ReadFile(legacyPath(s.dir, id))
		if err == nil {
			entries, err := parseLegacy(data, s.reporter(id, LegacyFile))
			if err != nil {
				s.log.Warn("unreadable legacy messages.json", "conversation", id, "error", err)
				return []*conversation.Entry{}, nil
			}
			return entries, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("convlog: %w", err)
		}
		// A migration in another process may have renamed the legacy file
		// between the two reads; look for the log once more.
		if attempt > 0 {
			return []*conversation.Entry{}, nil
		}
	}
}

// ---- writes ----

// Create adds an empty conversation. An empty title becomes DefaultTitle (and
// is later replaced by the first user message); activeType is chat (default),
// agent or workflow.
func (s *Store) Create(title, activeType string) (conversation.ConversationMeta, error) {
	release, err := s.begin(true)
	if err != nil {
		return conversation.ConversationMeta{}, err
	}
	defer release()
	title = strings.TrimSpace(title)
	if title == "" {
		title = DefaultTitle
	}
	if activeType == "" {
		activeType = conversation.ActiveChat
	}
	if activeType != conversation.ActiveChat && activeType != conversation.ActiveAgent && activeType != conversation.ActiveWorkflow {
		return conversation.ConversationMeta{}, fmt.Errorf("%w: activeType %q (want chat, agent or workflow)", ErrInvalidArgument, activeType)
	}
	id := uuid.NewString()
	if err := s.createLog(id, nil); err != nil {
		return conversation.ConversationMeta{}, err
	}
	now := fsx.Now()
	return s.addRecord(&conversation.ConversationMeta{ID: id, Title: title, ActiveType: activeType, CreatedAt: now, LastActiveAt: now})
}

// CreateWith adds a conversation together with its first entries (a send's user message):
// the log holds them from the moment the conversation exists, so a crash can never leave it
// empty. Entries are prepared as by Append; title and activeType as in Create (a default
// title is taken from the first user message).
func (s *Store) CreateWith(title, activeType string, entries ...*conversation.Entry) (conversation.ConversationMeta, error) {
	if len(entries) == 0 {
		return s.Create(title, activeType)
	}
	return s.CreateRecord(conversation.ConversationMeta{Title: title, ActiveType: activeType}, entries...)
}

// CreateRecord is CreateWith for a record that says more from the start:
// besides Title and ActiveType, it takes SelectedAgentID, ParentID, Origin
// and Instructions from tmpl (a child conversation's record is whole from
// the moment it exists). At least one entry is required.
func (s *Store) CreateRecord(tmpl conversation.ConversationMeta, entries ...*conversation.Entry) (conversation.ConversationMeta, error) {
	if len(entries) == 0 {
		return conversation.ConversationMeta{}, fmt.Errorf("%w: a conversation is created with its first entry", ErrInvalidArgument)
	}
	release, err := s.begin(true)
	if err != nil {
		return conversation.ConversationMeta{}, err
	}
	defer release()
	title := strings.TrimSpace(tmpl.Title)
	if title == "" {
		title = DefaultTitle
	}
	activeType := tmpl.ActiveType
	if activeType == "" {
		activeType = conversation.ActiveChat
	}
	if activeType != conversation.ActiveChat && activeType != conversation.ActiveAgent && activeType != conversation.ActiveWorkflow {
		return conversation.ConversationMeta{}, fmt.Errorf("%w: activeType %q (want chat, agent or workflow)", ErrInvalidArgument, activeType)
	}
	if err := prepareNew(entries); err != nil {
		return conversation.ConversationMeta{}, err
	}
	id := uuid.NewString()
	for _, e := range entries {
		if err := s.externalize(id, e); err != nil {
			os.RemoveAll(toolResultsDir(s.dir, id))
			return conversation.ConversationMeta{}, err
		}
		s.count(e)
	}
	var buf bytes.Buffer
	if err := encodeEntries(&buf, entries); err != nil {
		return conversation.ConversationMeta{}, err
	}
	if err := s.createLog(id, buf.Bytes()); err != nil {
		os.RemoveAll(toolResultsDir(s.dir, id))
		return conversation.ConversationMeta{}, err
	}
	now := fsx.Now()
	c := cloneMeta(&tmpl)
	m := &conversation.ConversationMeta{ID: id, Title: title, ActiveType: activeType, CreatedAt: now, LastActiveAt: now,
		SelectedAgentID: c.SelectedAgentID, ParentID: c.ParentID, Origin: c.Origin, Instructions: c.Instructions}
	deriveMeta(m, entries, false)
	m.LogSize = int64(buf.Len())
	m.LastActiveAt = now
	return s.addRecord(m)
}

// prepareNew fills in and checks new entries as Append does.
func prepareNew(entries []*conversation.Entry) error {
	now := fsx.Now()
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e == nil {
			return fmt.Errorf("%w: nil entry", ErrInvalidArgument)
		}
		if e.ID == "" {
			e.ID = uuid.NewString()
		}
		if e.CreatedAt == "" {
			e.CreatedAt = now
		}
		if e.Type == "" {
			e.Type = conversation.TypeMsg
		}
		e.UpdatedAt = ""
		if err := validateEntry(e); err != nil {
			return err
		}
		if seen[e.ID] {
			return fmt.Errorf("%w: entry id %q appears twice in one append", ErrInvalidArgument, e.ID)
		}
		seen[e.ID] = true
	}
	return nil
}

// addRecord puts the record of a new conversation into the index, writes
// index.json and returns a copy of the record.
func (s *Store) addRecord(m *conversation.ConversationMeta) (conversation.ConversationMeta, error) {
	s.mu.Lock()
	s.index[m.ID] = m
	s.dirty = true
	c := cloneMeta(m)
	s.mu.Unlock()
	if err := s.flushIndex(); err != nil {
		return conversation.ConversationMeta{}, err
	}
	return c, nil
}

// createLog makes the folder of a new conversation with a log holding data. The folder is
// built under a hidden staging name and renamed into place once its log is on disk, so a
// crash leaves either no conversation or a whole one; Open removes staging leftovers.
func (s *Store) createLog(id string, data []byte) error {
	dir, path := convDir(s.dir, id), logPath(s.dir, id)
	staging := filepath.Join(conversationsDir(s.dir), stagingPrefix+id)
	if err := os.Mkdir(staging, 0o755); err != nil {
		return fmt.Errorf("convlog: %w", err)
	}
	fail := func(err error) error {
		os.RemoveAll(staging)
		return fmt.Errorf("convlog: %w", err)
	}
	if _, err := writeFileAtomic(filepath.Join(staging, LogFile), data, 0o644); err != nil {
		return fail(err)
	}
	s.own.begin(dir, path)
	if err := os.Rename(staging, dir); err != nil {
		s.own.abort(dir)
		s.own.abort(path)
		return fail(err)
	}
	s.own.endStat(dir)
	s.own.endStat(path)
	if err := fsx.SyncDir(conversationsDir(s.dir)); err != nil {
		return fmt.Errorf("convlog: %w", err)
	}
	return nil
}

// stagingPrefix names the folder a new conversation is built in before it appears.
const stagingPrefix = ".new-"

// Append adds entries to a conversation with one write and one fdatasync:
// when it returns nil, the entries are on disk. It fills in, on the entries
// themselves, an empty ID (a UUID), CreatedAt (now) and Type ("msg"); counts
// the tokens of messages once through Options.Counter; and moves the content
// of large tool results to logs/tool-results (see Options.LargeOutputThreshold),
// leaving a preview and FullOutputPath. Append is for new entries; use Update
// to change one. The index record (message count, last activity, a title
// taken from the first user message) is updated in memory at once and
// written to index.json after Options.IndexFlushDelay.
func (s *Store) Append(id string, entries ...*conversation.Entry) error {
	if err := checkConvID(id); err != nil {
		return err
	}
	release, err := s.begin(true)
	if err != nil {
		return err
	}
	defer release()
	if len(entries) == 0 {
		return nil
	}
	if err := prepareNew(entries); err != nil {
		return err
	}
	l := s.convLock(id)
	l.Lock()
	defer l.Unlock()
	if _, err := s.lookup(id); err != nil {
		return err
	}
	for _, e := range entries {
		if err := s.externalize(id, e); err != nil {
			return err
		}
		s.count(e)
	}
	return s.commit(id, entries)
}

// Update records a new version of an existing entry by appending a line with
// the same id (the last line wins). Empty Type and CreatedAt are taken from
// the current version; UpdatedAt is set to now. Tokens are counted again when
// the content changed.
func (s *Store) Update(id string, e *conversation.Entry) error {
	if err := checkConvID(id); err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("%w: nil entry", ErrInvalidArgument)
	}
	if err := checkMsgID(e.ID); err != nil {
		return err
	}
	_, release, err := s.beginWrite(id)
	if err != nil {
		return err
	}
	defer release()
	if err := s.migrate(id); err != nil {
		return err
	}
	cur, err := s.latest(id, []string{e.ID})
	if err != nil {
		return err
	}
	prev := cur[e.ID]
	if e.Type == "" {
		e.Type = prev.Type
	}
	if e.CreatedAt == "" {
		e.CreatedAt = prev.CreatedAt
	}
	if err := validateEntry(e); err != nil {
		return err
	}
	e.UpdatedAt = fsx.Now()
	if err := s.externalize(id, e); err != nil {
		return err
	}
	if e.Text() != prev.Text() || e.Tokens == 0 {
		e.Tokens, e.TokenEncoding = 0, ""
		s.count(e)
	}
	return s.commit(id, []*conversation.Entry{e})
}

// UpdateAndAppend records new versions of existing entries (as Update does)
// and adds new entries (as Append does) with one write: either all of them
// are in the log or none. Branch points use it to take a variant out of the
// context, record their event and add an edited message at once.
func (s *Store) UpdateAndAppend(id string, updates []*conversation.Entry, added ...*conversation.Entry) error {
	if err := checkConvID(id); err != nil {
		return err
	}
	for _, e := range updates {
		if e == nil {
			return fmt.Errorf("%w: nil entry", ErrInvalidArgument)
		}
		if err := checkMsgID(e.ID); err != nil {
			return err
		}
	}
	if err := prepareNew(added); err != nil {
		return err
	}
	seen := make(map[string]bool, len(updates)+len(added))
	for _, e := range append(append([]*conversation.Entry{}, updates...), added...) {
		if seen[e.ID] {
			return fmt.Errorf("%w: entry id %q appears twice in one write", ErrInvalidArgument, e.ID)
		}
		seen[e.ID] = true
	}
	_, release, err := s.beginWrite(id)
	if err != nil {
		return err
	}
	defer release()
	if err := s.migrate(id); err != nil {
		return err
	}
	ids := make([]string, len(updates))
	for i, e := range updates {
		ids[i] = e.ID
	}
	cur, err := s.latest(id, ids)
	if err != nil {
		return err
	}
	for _, e := range updates {
		prev := cur[e.ID]
		if e.Type == "" {
			e.Type = prev.Type
		}
		if e.CreatedAt == "" {
			e.CreatedAt = prev.CreatedAt
		}
		if err := validateEntry(e); err != nil {
			return err
		}
		e.UpdatedAt = fsx.Now()
		if err := s.externalize(id, e); err != nil {
			return err
		}
		if e.Text() != prev.Text() || e.Tokens == 0 {
			e.Tokens, e.TokenEncoding = 0, ""
			s.count(e)
		}
	}
	for _, e := range added {
		if err := s.externalize(id, e); err != nil {
			return err
		}
		s.count(e)
	}
	return s.commit(id, append(append([]*conversation.Entry{}, updates...), added...))
}

// latest returns the current version of each id, or ErrNotFound naming the
// missing ones. The log must exist (call migrate first).
func (s *Store) latest(id string, ids []string) (map[string]*conversation.Entry, error) {
	f, err := os.Open(logPath(s.dir, id))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("convlog: %w", err)
	}
	found := map[string]*conversation.Entry{}
	if err == nil {
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("convlog: %w", err)
		}
		if found, err = findLatest(f, fi.Size(), ids); err != nil {
			return nil, fmt.Errorf("convlog: %w", err)
		}
	}
	var missing []string
	for _, x := range ids {
		if found[x] == nil {
			missing = append(missing, x)
		}
	}
	if len(missing) > 0 {
		if len(missing) > 5 {
			missing = append(missing[:5], "…")
		}
		return nil, fmt.Errorf("convlog: conversation %s: entries %s: %w", id, strings.Join(missing, ", "), ErrNotFound)
	}
	return found, nil
}

// MarkCompacted marks messages as compacted without deleting anything: it
// appends, in one write, a copy of each message's current version with
// "compacted":true, then one "compaction" event carrying data (nil records
// {"messageIds":[…]}). It returns the event.
func (s *Store) MarkCompacted(id string, msgIDs []string, data any) (*conversation.Entry, error) {
	if err := checkConvID(id); err != nil {
		return nil, err
	}
	raw, err := eventData(data, map[string]any{"messageIds": msgIDs})
	if err != nil {
		return nil, err
	}
	_, release, err := s.beginWrite(id)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := s.migrate(id); err != nil {
		return nil, err
	}
	ids := uniqueStrings(msgIDs)
	cur, err := s.latest(id, ids)
	if err != nil {
		return nil, err
	}
	now := fsx.Now()
	lines := make([]*conversation.Entry, 0, len(ids)+1)
	for _, x := range ids {
		c := *cur[x]
		c.Compacted = true
		c.UpdatedAt = now
		lines = append(lines, &c)
	}
	evt := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: now, Event: conversation.EventCompaction, Data: raw}
	lines = append(lines, evt)
	if err := s.commit(id, lines); err != nil {
		return nil, err
	}
	return evt, nil
}

// Checkpoint records a named position: a "checkpoint" event in the log
// (data {"name","messageId"}) and a record in the conversation's metadata.
// Names are unique per conversation (ErrCheckpointExists).
func (s *Store) Checkpoint(id, name string) (conversation.Checkpoint, error) {
	if err := checkConvID(id); err != nil {
		return conversation.Checkpoint{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 || strings.ContainsFunc(name, isControl) {
		return conversation.Checkpoint{}, fmt.Errorf("%w: checkpoint name %q (want 1-200 characters, no control characters)", ErrInvalidArgument, name)
	}
	m, release, err := s.beginWrite(id)
	if err != nil {
		return conversation.Checkpoint{}, err
	}
	defer release()
	for _, c := range m.Checkpoints {
		if c.Name == name {
			return conversation.Checkpoint{}, fmt.Errorf("convlog: conversation %s: checkpoint %q: %w", id, name, ErrCheckpointExists)
		}
	}
	if err := s.migrate(id); err != nil {
		return conversation.Checkpoint{}, err
	}
	last := ""
	if f, err := os.Open(logPath(s.dir, id)); err == nil {
		fi, serr := f.Stat()
		if serr == nil {
			var tail []*conversation.Entry
			tail, serr = readTail(f, fi.Size(), 1, nil)
			if len(tail) > 0 {
				last = tail[0].ID
			}
		}
		f.Close()
		if serr != nil {
			return conversation.Checkpoint{}, fmt.Errorf("convlog: %w", serr)
		}
	}
	raw, _ := json.Marshal(checkpointData{Name: name, MessageID: last})
	evt := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: fsx.Now(), Event: conversation.EventCheckpoint, Data: raw}
	if err := s.commit(id, []*conversation.Entry{evt}); err != nil {
		return conversation.Checkpoint{}, err
	}
	cp := conversation.Checkpoint{Name: name, MessageID: last, CreatedAt: evt.CreatedAt}
	s.mu.Lock()
	if rec := s.index[id]; rec != nil {
		rec.Checkpoints = append(rec.Checkpoints, cp)
		s.dirty = true
	}
	s.mu.Unlock()
	return cp, s.flushIndex()
}

type checkpointData struct {
	Name      string `json:"name"`
	MessageID string `json:"messageId"`
}

type forkOriginData struct {
	ParentID    string `json:"parentId"`
	ParentTitle string `json:"parentTitle,omitempty"`
	Title       string `json:"title,omitempty"` // the fork's own title when it is not derived
	AtMessageID string `json:"atMessageId,omitempty"`
	Checkpoint  string `json:"checkpoint,omitempty"`
}

// Rename sets the title of a conversation.
func (s *Store) Rename(id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" || strings.ContainsFunc(title, isControl) {
		return fmt.Errorf("%w: title must be non-empty text on one line", ErrInvalidArgument)
	}
	return s.UpdateMeta(id, func(m *conversation.ConversationMeta) { m.Title = title })
}

// UpdateMeta changes a conversation's index record through fn (which gets a
// copy; its ID and HasSummary, derived from the log, cannot be changed) and
// writes index.json.
func (s *Store) UpdateMeta(id string, fn func(*conversation.ConversationMeta)) error {
	if err := checkConvID(id); err != nil {
		return err
	}
	m, release, err := s.beginWrite(id)
	if err != nil {
		return err
	}
	defer release()
	hasSummary := m.HasSummary
	fn(&m)
	m.ID, m.HasSummary = id, hasSummary
	s.mu.Lock()
	if _, ok := s.index[id]; ok {
		c := cloneMeta(&m)
		s.index[id] = &c
		s.dirty = true
	}
	s.mu.Unlock()
	return s.flushIndex()
}

// Delete removes a conversation with everything that belongs to it, in this
// order: its tool-result files (logs/tool-results/<id>/), its folder, then its
// index record. Each folder is first renamed to a hidden trash name and then
// removed, so a crash leaves either the whole folder or none of it; an index
// record whose folder is gone is dropped on the next load. Missing folders
// are not an error; a conversation unknown to both the index and the disk is
// ErrNotFound.
func (s *Store) Delete(id string) error {
	if err := checkConvID(id); err != nil {
		return err
	}
	release, err := s.begin(true)
	if err != nil {
		return err
	}
	defer release()
	l := s.convLock(id)
	l.Lock()
	defer l.Unlock()
	s.mu.Lock()
	_, inIndex := s.index[id]
	s.mu.Unlock()
	dir, results := convDir(s.dir, id), toolResultsDir(s.dir, id)
	if !inIndex && !pathExists(dir) && !pathExists(results) {
		return fmt.Errorf("convlog: conversation %s: %w", id, ErrNotFound)
	}
	if err := removeTree(results); err != nil {
		return fmt.Errorf("convlog: deleting tool results of %s: %w", id, err)
	}
	paths := []string{dir, filepath.Join(dir, LogFile), filepath.Join(dir, LegacyFile), filepath.Join(dir, MigratedFile)}
	s.own.begin(paths...)
	err = removeTree(dir)
	for _, p := range paths {
		if err != nil {
			s.own.abort(p)
		} else {
			s.own.end(p, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("convlog: deleting conversation %s: %w", id, err)
	}
	s.mu.Lock()
	delete(s.index, id)
	delete(s.convs, id)
	s.dirty = true
	s.mu.Unlock()
	return s.flushIndex()
}

const trashPrefix = ".trash-"

// removeTree renames path to a hidden trash name in the same folder, makes
// the rename durable, then removes the trash. A missing path is not an error.
func removeTree(path string) error {
	parent, base := filepath.Split(path)
	trash := filepath.Join(parent, trashPrefix+base+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Rename(path, trash); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := fsx.SyncDir(filepath.Clean(parent)); err != nil {
		return err
	}
	return os.RemoveAll(trash)
}

// removeLeftovers removes what crashes leave behind: trash folders of interrupted
// deletions, staging folders of interrupted creations and forks, temporary files of
// interrupted atomic writes (in the conversations folder and in each conversation's), and
// the tool-result folders of conversations that no longer exist. (Conversation folders
// without a record and without any entry are removed when the index is loaded.)
func (s *Store) removeLeftovers() {
	for _, root := range []string{conversationsDir(s.dir), toolResultsRoot(s.dir)} {
		des, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, de := range des {
			name := de.Name()
			switch {
			case root == conversationsDir(s.dir) && (strings.HasPrefix(name, stagingPrefix) || isTempName(name)):
				s.log.Info("removing the leftover of an interrupted write", "path", filepath.Join(root, name))
				if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
					s.log.Warn("removing the leftover of an interrupted write", "path", filepath.Join(root, name), "error", err)
				}
			case root == conversationsDir(s.dir) && de.IsDir() && IsValidID(name):
				s.removeTempFiles(filepath.Join(root, name))
			case strings.HasPrefix(name, trashPrefix):
				if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
					s.log.Warn("removing leftover of an interrupted deletion", "path", filepath.Join(root, name), "error", err)
				}
			case root == toolResultsRoot(s.dir) && de.IsDir() && IsValidID(name) && !pathExists(convDir(s.dir, name)):
				s.log.Warn("removing tool results of a conversation that no longer exists", "conversation", name)
				if err := removeTree(filepath.Join(root, name)); err != nil {
					s.log.Warn("removing orphaned tool results", "conversation", name, "error", err)
				}
			}
		}
	}
}

// isTempName reports the name of an atomic write's temporary file (".<name>.tmp").
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
}

// removeTempFiles removes the temporary files of interrupted atomic writes in a
// conversation folder.
func (s *Store) removeTempFiles(dir string) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		if !de.IsDir() && isTempName(de.Name()) {
			s.log.Info("removing the leftover of an interrupted write", "path", filepath.Join(dir, de.Name()))
			if err := os.Remove(filepath.Join(dir, de.Name())); err != nil {
				s.log.Warn("removing the leftover of an interrupted write", "path", filepath.Join(dir, de.Name()), "error", err)
			}
		}
	}
}

// commit appends prepared entries as one write and updates the index record.
// Entries without UpdatedAt are new; they count as messages and may set the title.
func (s *Store) commit(id string, entries []*conversation.Entry) error {
	if err := s.migrate(id); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := encodeEntries(&buf, entries); err != nil {
		return err
	}
	fi, err := s.appendBytes(id, buf.Bytes())
	if err != nil {
		return err
	}
	s.keepWritten(id, entries)
	s.mu.Lock()
	if m := s.index[id]; m != nil {
		m.LogSize = fi.Size()
		for _, e := range entries {
			if e.IsSummary() {
				m.HasSummary = true
			}
			if e.UpdatedAt != "" || e.Type != conversation.TypeMsg {
				continue
			}
			m.MessageCount++
			addUsage(m, e)
			if e.Role == conversation.RoleUser && !e.IsMeta && isDefaultTitle(m.Title) {
				if t := titleFrom(e.Text()); t != "" {
					m.Title = t
				}
			}
		}
		m.LastActiveAt = fsx.Now()
		s.dirty = true
		if s.opts.IndexFlushDelay > 0 {
			if !s.timerPending {
				s.timerPending = true
				if s.timer == nil {
					s.timer = time.AfterFunc(s.opts.IndexFlushDelay, s.timedFlush)
				} else {
					s.timer.Reset(s.opts.IndexFlushDelay)
				}
			}
		}
	}
	s.mu.Unlock()
	if s.opts.IndexFlushDelay < 0 {
		return s.flushIndex()
	}
	return nil
}

func (s *Store) timedFlush() {
	s.mu.Lock()
	s.timerPending = false
	s.mu.Unlock()
	s.opMu.RLock()
	defer s.opMu.RUnlock()
	if s.closed {
		return
	}
	if err := s.flushIndex(); err != nil {
		s.log.Error("writing index.json", "error", err)
	}
}

// encodeEntries writes one compact JSON line per entry (HTML characters not
// escaped). A message without content gets "content":null after its role, so
// every message line has the OpenAI "content" field.
func encodeEntries(buf *bytes.Buffer, entries []*conversation.Entry) error {
	size := 0
	for _, e := range entries {
		size += 256 + len(e.Text()) + len(e.Data)
		for _, tc := range e.ToolCalls {
			size += 64 + len(tc.Function.Arguments)
		}
	}
	buf.Grow(size) // one allocation for a large batch (10,000 compaction marks)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		start := buf.Len()
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("%w: entry %s: %v", ErrInvalidArgument, e.ID, err)
		}
		if e.Type == conversation.TypeMsg && e.Content == nil && roles[e.Role] {
			// The first `"role":"` in the line is the field: earlier fields
			// are type, id and createdAt, whose quotes inside values are escaped.
			line := buf.Bytes()[start:]
			field := []byte(`"role":"` + e.Role + `"`)
			if i := bytes.Index(line, field); i >= 0 {
				at := start + i + len(field)
				tail := append([]byte(`,"content":null`), buf.Bytes()[at:]...)
				buf.Truncate(at)
				buf.Write(tail)
			}
		}
	}
	return nil
}

// appendBytes appends complete lines to the log and flushes them with
// fdatasync. An incomplete last line left by an interrupted write is repaired
// first: completed with its missing newline when it decodes as an entry,
// truncated away otherwise.
func (s *Store) appendBytes(id string, data []byte) (os.FileInfo, error) {
	path := logPath(s.dir, id)
	s.own.begin(path)
	fi, err := appendDurable(path, data, func(tail []byte, off int64) {
		s.log.Warn("truncating incomplete last line left by an interrupted write",
			"conversation", id, "offset", off, "bytes", len(tail))
	})
	if err != nil {
		s.own.abort(path)
		return nil, fmt.Errorf("convlog: appending to %s: %w", path, err)
	}
	s.own.end(path, fi)
	return fi, nil
}

func appendDurable(path string, data []byte, onTruncate func(tail []byte, off int64)) (os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	created := false
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
		created = true
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if size := fi.Size(); size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			return nil, err
		}
		if last[0] != '\n' {
			complete, err := repairTail(f, size, onTruncate)
			if err != nil {
				return nil, err
			}
			if complete {
				data = append([]byte{'\n'}, data...)
			}
		}
	}
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	if err := datasync(f); err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if created {
		if err := fsx.SyncDir(filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	return fi, nil
}

// repairTail handles a log that does not end with '\n'. It reports whether the
// unterminated last line is a complete entry (it then only needs its newline);
// otherwise it truncates the file before that line.
func repairTail(f *os.File, size int64, onTruncate func([]byte, int64)) (bool, error) {
	var tail []byte
	off := int64(0)
	err := scanBackward(f, size, func(line []byte, o int64, _ bool) bool {
		tail, off = append([]byte(nil), line...), o
		return false
	})
	if err != nil {
		return false, err
	}
	if !isBlank(tail) {
		if _, err := decodeLine(tail); err == nil {
			return true, nil
		}
	}
	if onTruncate != nil {
		onTruncate(tail, off)
	}
	if err := f.Truncate(off); err != nil {
		return false, err
	}
	return false, nil
}

// migrate turns a legacy messages.json into messages.jsonl before the first
// write. Order, safe at every step: (1) write the converted log to a temp file,
// fsync it and rename it to messages.jsonl, fsync the folder; (2) rename
// messages.json to messages.json.migrated (kept as a backup), fsync the
// folder. A crash before (1) completes leaves the legacy file in charge; a
// crash between (1) and (2) leaves both files, and the log wins — the next
// write finishes step (2).
func (s *Store) migrate(id string) error {
	dir := convDir(s.dir, id)
	legacy, log, migrated := filepath.Join(dir, LegacyFile), filepath.Join(dir, LogFile), filepath.Join(dir, MigratedFile)
	if !pathExists(legacy) {
		return nil
	}
	if !pathExists(log) {
		data, err := os.ReadFile(legacy)
		if err != nil {
			return fmt.Errorf("convlog: %w", err)
		}
		entries, err := parseLegacy(data, s.reporter(id, LegacyFile))
		if err != nil {
			return fmt.Errorf("convlog: conversation %s: %w", id, err)
		}
		for _, e := range entries {
			e.UpdatedAt = ""
			s.count(e)
		}
		var buf bytes.Buffer
		if err := encodeEntries(&buf, entries); err != nil {
			return err
		}
		s.own.begin(log)
		fi, err := writeFileAtomic(log, buf.Bytes(), 0o644)
		if err != nil {
			s.own.abort(log)
			return fmt.Errorf("convlog: migrating %s: %w", legacy, err)
		}
		s.own.end(log, fi)
		s.log.Info("migrated legacy messages.json to messages.jsonl", "conversation", id, "entries", len(entries))
	}
	s.own.begin(legacy, migrated)
	if err := os.Rename(legacy, migrated); err != nil {
		s.own.abort(legacy)
		s.own.abort(migrated)
		return fmt.Errorf("convlog: migrating %s: %w", legacy, err)
	}
	s.own.end(legacy, nil)
	s.own.endStat(migrated)
	if err := fsx.SyncDir(dir); err != nil {
		return fmt.Errorf("convlog: %w", err)
	}
	return nil
}

// count stores the token count of a message once.
func (s *Store) count(e *conversation.Entry) {
	if s.opts.Counter == nil || e.Type != conversation.TypeMsg || e.Tokens != 0 {
		return
	}
	e.Tokens, e.TokenEncoding = s.opts.Counter.CountEntry(e)
}

var roles = map[string]bool{conversation.RoleSystem: true, conversation.RoleUser: true, conversation.RoleAssistant: true, conversation.RoleTool: true, conversation.RoleDeveloper: true}

func validateEntry(e *conversation.Entry) error {
	if err := checkMsgID(e.ID); err != nil {
		return err
	}
	switch e.Type {
	case conversation.TypeMsg:
		if !roles[e.Role] {
			return fmt.Errorf("%w: entry %s: role %q (want system, user, assistant, tool or developer)", ErrInvalidArgument, e.ID, e.Role)
		}
	case conversation.TypeEvt:
		if e.Event == "" {
			return fmt.Errorf("%w: event entry %s has no event name", ErrInvalidArgument, e.ID)
		}
	default:
		return fmt.Errorf("%w: entry %s: type %q (want msg or evt)", ErrInvalidArgument, e.ID, e.Type)
	}
	if len(e.Data) > 0 && !json.Valid(e.Data) {
		return fmt.Errorf("%w: entry %s: data is not valid JSON", ErrInvalidArgument, e.ID)
	}
	if len(e.Widget) > 0 && !json.Valid(e.Widget) {
		return fmt.Errorf("%w: entry %s: widget is not valid JSON", ErrInvalidArgument, e.ID)
	}
	return nil
}

// eventData marshals data (json.RawMessage is taken as is; nil uses def).
func eventData(data, def any) (json.RawMessage, error) {
	if data == nil {
		data = def
	}
	if raw, ok := data.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, fmt.Errorf("%w: event data is not valid JSON", ErrInvalidArgument)
		}
		return raw, nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("%w: event data: %v", ErrInvalidArgument, err)
	}
	return raw, nil
}

// ---- helpers ----

func isDefaultTitle(t string) bool { return t == "" || t == DefaultTitle }

// TitleOf is the title a conversation gets from its first message (a new
// conversation with the default title takes it when that message is
// appended).
func TitleOf(text string) string { return titleFrom(text) }

// titleFrom makes a title of the first non-empty line of a message (of the
// user's own text for a run's message): spaces collapsed, at most 60
// characters.
func titleFrom(text string) string {
	text = conversation.RunInputText(text)
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		r := []rune(line)
		if len(r) > 60 {
			return strings.TrimSpace(string(r[:60])) + "…"
		}
		return line
	}
	return ""
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func uniqueStrings(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, x := range in {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func pathExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func cloneMeta(m *conversation.ConversationMeta) conversation.ConversationMeta {
	c := *m
	c.Runs = append([]conversation.RunRef(nil), m.Runs...)
	c.Checkpoints = append([]conversation.Checkpoint(nil), m.Checkpoints...)
	if m.Origin != nil {
		o := *m.Origin
		c.Origin = &o
	}
	c.Instructions = m.Instructions.Clone()
	c.ApprovalAllow = cloneList(m.ApprovalAllow)
	if m.Waiting != nil {
		w := *m.Waiting
		c.Waiting = &w
	}
	c.Usage = cloneUsage(m.Usage)
	return c
}

func cloneUsage(t *conversation.UsageTotals) *conversation.UsageTotals {
	if t == nil {
		return nil
	}
	c := *t
	if t.Last != nil {
		l := *t.Last
		c.Last = &l
	}
	if t.Models != nil {
		c.Models = make(map[string]*conversation.ModelUsage, len(t.Models))
		for k, v := range t.Models {
			m := *v
			c.Models[k] = &m
		}
	}
	return &c
}

// addUsage counts the usage of a new message into the record's totals.
func addUsage(m *conversation.ConversationMeta, e *conversation.Entry) {
	if e.Usage == nil {
		return
	}
	if m.Usage == nil {
		m.Usage = &conversation.UsageTotals{}
	}
	m.Usage.Add(e.Model, *e.Usage)
}

// cloneList copies a list keeping nil apart from empty.
func cloneList(in []string) []string {
	if in == nil {
		return nil
	}
	return append([]string{}, in...)
}
