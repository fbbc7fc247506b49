package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// Path returns the settings file of a runtime home.
func Path(home string) string { return filepath.Join(home, FileName) }

// Override is one field whose effective value comes from the environment.
type Override struct {
	Field    string `json:"field"`    // JSON path, e.g. "llm.model"
	Variable string `json:"variable"` // e.g. "CREWAGENT_LLM_MODEL"
}

// envVar maps one environment variable to one field.
type envVar struct {
	name  string
	field string
	set   func(s *Settings, v string) error
	keep  func(dst *Settings, src Settings) // copies the field from src
}

// envVars lists the supported overrides. Empty values count as unset.
var envVars = []envVar{
	{"CREWAGENT_LLM_BASE_URL", "llm.baseUrl",
		func(s *Settings, v string) error {
			if err := checkBaseURL(v); err != nil {
				return err
			}
			s.LLM.BaseURL = v
			return nil
		},
		func(d *Settings, s Settings) { d.LLM.BaseURL = s.LLM.BaseURL }},
	{"CREWAGENT_LLM_API_KEY", "llm.apiKey",
		func(s *Settings, v string) error { s.LLM.APIKey = v; return nil },
		func(d *Settings, s Settings) { d.LLM.APIKey = s.LLM.APIKey }},
	{"CREWAGENT_LLM_MODEL", "llm.model",
		func(s *Settings, v string) error { s.LLM.Model = v; return nil },
		func(d *Settings, s Settings) { d.LLM.Model = s.LLM.Model }},
	{"CREWAGENT_TOKEN_BUDGET", "context.tokenBudget",
		func(s *Settings, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("%q is not a positive integer number of tokens", v)
			}
			s.Context.TokenBudget = n
			return nil
		},
		func(d *Settings, s Settings) { d.Context.TokenBudget = s.Context.TokenBudget }},
}

// Store holds the settings of one runtime home in two views:
//
//   - File: what settings.json says, with defaults for the fields it does not set.
//   - Effective: File with the environment overrides applied; what the runtime uses.
//
// Saving always starts from File, so values that came from the environment
// (an API key in CREWAGENT_LLM_API_KEY, say) are never written to the file.
// A Store is safe for concurrent use.
type Store struct {
	home      string
	mu        sync.Mutex
	file      Settings
	overrides []envVar
	values    map[string]string // variable -> value
}

// Load reads <home>/settings.json and the CREWAGENT_* environment variables.
// A missing (or empty) file gives the defaults; fields the file leaves out keep
// their defaults; unknown fields are ignored here and preserved by Save.
// A corrupt file or a bad environment value is an *Error naming the file or the
// variable. Load does not validate: call Effective().Validate().
// If the file is readable by others, Load restricts it to 0600.
func Load(home string) (*Store, error) { return LoadWithEnv(home, os.LookupEnv) }

// LoadWithEnv is Load with the environment read through lookup.
func LoadWithEnv(home string, lookup func(string) (string, bool)) (*Store, error) {
	file, err := readFile(Path(home))
	if err != nil {
		return nil, err
	}
	return withEnv(home, file, lookup)
}

// LoadForReading is Load for commands that only read: a corrupt settings file does not stop
// them. It then returns a store with the defaults (and the environment overrides) and the
// file's error as warning; such a store must not be saved (Update would replace the file).
// Other errors are returned as by Load.
func LoadForReading(home string) (st *Store, warning error, err error) {
	st, err = Load(home)
	if errs.CodeOf(err) != CodeCorrupt {
		return st, nil, err
	}
	st, envErr := withEnv(home, Defaults(), os.LookupEnv)
	if envErr != nil {
		return nil, nil, envErr
	}
	return st, err, nil
}

func withEnv(home string, file Settings, lookup func(string) (string, bool)) (*Store, error) {
	st := &Store{home: home, file: file, values: map[string]string{}}
	probe := file.Clone()
	var ps []Problem
	for _, ev := range envVars {
		v, ok := lookup(ev.name)
		v = strings.TrimSpace(v)
		if !ok || v == "" {
			continue
		}
		if err := ev.set(&probe, v); err != nil {
			ps = append(ps, Problem{Field: ev.name, Message: err.Error()})
			continue
		}
		st.overrides = append(st.overrides, ev)
		st.values[ev.name] = v
	}
	if err := problemsError(CodeEnv, "bad environment variable: ", ps); err != nil {
		return nil, err
	}
	return st, nil
}

// Home returns the runtime home the store reads and writes.
func (st *Store) Home() string { return st.home }

// File returns the settings as stored in the file (defaults filled in).
func (st *Store) File() Settings {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.file.Clone()
}

// Effective returns the settings the runtime uses: File plus environment overrides.
func (st *Store) Effective() Settings {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.effective()
}

func (st *Store) effective() Settings {
	s := st.file.Clone()
	for _, ev := range st.overrides {
		_ = ev.set(&s, st.values[ev.name]) // checked in LoadWithEnv
	}
	return s
}

// Overrides lists the fields whose effective value comes from the environment
// (the UI shows them as read-only).
func (st *Store) Overrides() []Override {
	out := make([]Override, len(st.overrides))
	for i, ev := range st.overrides {
		out[i] = Override{Field: ev.field, Variable: ev.name}
	}
	return out
}

// Update saves settings edited in the UI (which shows Effective().Masked()):
//   - an API key still masked (IsMasked) keeps the key stored in the file;
//   - fields overridden by the environment keep their file values;
//   - everything else is taken from in.
//
// The result is validated, written with Save and becomes File.
func (st *Store) Update(in Settings) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	next := in.Clone()
	if IsMasked(next.LLM.APIKey) {
		next.LLM.APIKey = st.file.LLM.APIKey
	}
	keepMaskedEndpointKeys(&next, st.file)
	for _, ev := range st.overrides {
		ev.keep(&next, st.file)
	}
	if err := Save(st.home, next); err != nil {
		return err
	}
	st.file = next
	return nil
}

func readFile(path string) (Settings, error) {
	s := Defaults()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, &Error{Code: CodeIO, Message: fmt.Sprintf("cannot read settings file %s: %v", path, err), Cause: err}
	}
	restrictMode(path)
	return parse(path, data)
}

// parse decodes a settings file over the defaults; path names it in errors.
func parse(path string, data []byte) (Settings, error) {
	s := Defaults()
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // saved as "UTF-8 with BOM" by an editor
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Defaults(), &Error{Code: CodeCorrupt, Cause: err,
			Message: fmt.Sprintf("settings file %s is not valid: %s; fix or delete it (defaults are used when it is missing)", path, describeJSONError(data, err))}
	}
	if s.Context.MaxMessages == legacyMaxMessages && s.Context.MaxChars == legacyMaxChars {
		s.Context.MaxMessages, s.Context.MaxChars = 0, 0
	}
	return s.Clone(), nil
}

// describeJSONError says where a decoding error is, by line and column or by field.
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return fmt.Sprintf("%v at line %d, column %d", syn, line, col)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("expected a JSON object, found %s", typ.Value)
		}
		return fmt.Sprintf("%s must be %s, found %s", typ.Field, typ.Type, typ.Value)
	default:
		return err.Error()
	}
}

func lineCol(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// restrictMode makes an existing settings file private to its owner.
func restrictMode(path string) {
	if runtime.GOOS == "windows" {
		return
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600)
	}
}

// Save validates s and writes it to <home>/settings.json atomically (temporary
// file, fsync, rename) with mode 0600, creating home (0700) if needed. Fields of
// the existing file that Settings does not know are kept. Save writes s as
// given: callers that hold effective settings use Store.Update instead.
func Save(home string, s Settings) error {
	s = s.Clone()
	if err := s.Validate(); err != nil {
		return err
	}
	path := Path(home)
	ioErr := func(err error) error {
		return &Error{Code: CodeIO, Message: fmt.Sprintf("cannot write settings file %s: %v", path, err), Cause: err}
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return ioErr(err)
	}
	data, err := encode(s, path)
	if err != nil {
		return ioErr(err)
	}
	if err := fsx.WriteFileTemp(path, data, 0o600, ".settings-*.tmp"); err != nil {
		return ioErr(err)
	}
	return nil
}

// encode marshals s, merged over the unknown fields of the current file.
func encode(s Settings, path string) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := unmarshalNumbers(raw, &doc); err != nil {
		return nil, err
	}
	if old, err := os.ReadFile(path); err == nil {
		var prev any
		if unmarshalNumbers(old, &prev) == nil {
			doc = merge(prev, doc)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func unmarshalNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// merge overlays next on prev: objects merge key by key, anything else is replaced.
func merge(prev, next any) any {
	pm, ok1 := prev.(map[string]any)
	nm, ok2 := next.(map[string]any)
	if !ok1 || !ok2 {
		return next
	}
	for k, v := range nm {
		pm[k] = merge(pm[k], v)
	}
	return pm
}
