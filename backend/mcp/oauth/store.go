package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"golang.org/x/oauth2"
)

// TokensFile is the name of the file, in the runtime home, that keeps the tokens of the
// remote servers the user signed in to (mode 0600, like the API keys).
const TokensFile = "mcp-tokens.json"

// Entry is what the store keeps for one server: the token and what refreshing it takes.
type Entry struct {
	// URL is the server's URL the token was obtained for: a token is never sent to another.
	URL          string           `json:"url"`
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	TokenURL     string           `json:"tokenUrl"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	Token        *oauth2.Token    `json:"token"`
}

// Store is the token file of a runtime home. Its methods are safe for concurrent use.
type Store struct {
	path string
	mu   sync.Mutex
}

// NewStore returns the store of the runtime home home.
func NewStore(home string) *Store { return &Store{path: filepath.Join(home, TokensFile)} }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

func (s *Store) load() (map[string]Entry, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]Entry{}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: %v", s.path, err)
		}
	}
	return m, nil
}

func (s *Store) save(m map[string]Entry) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".mcp-tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// Get returns the entry of the server named name when it was obtained for url.
func (s *Store) Get(name, url string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return Entry{}, false
	}
	e, ok := m[name]
	if !ok || e.URL != url || e.Token == nil {
		return Entry{}, false
	}
	return e, true
}

// Lookup returns the entry of the server named name, whatever its URL.
func (s *Store) Lookup(name string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return Entry{}, false
	}
	e, ok := m[name]
	return e, ok
}

// Put keeps e as the entry of the server named name.
func (s *Store) Put(name string, e Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		m = map[string]Entry{}
	}
	m[name] = e
	return s.save(m)
}

// Delete forgets the entry of the server named name; it reports whether there was one.
func (s *Store) Delete(name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return false, err
	}
	if _, ok := m[name]; !ok {
		return false, nil
	}
	delete(m, name)
	return true, s.save(m)
}

// Names lists the servers the store has a token for, sorted.
func (s *Store) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, _ := s.load()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
