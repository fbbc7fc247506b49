package settings

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"crewagent/backend/errs"
)

func noEnv(string) (string, bool) { return "", false }

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func writeFile(t *testing.T, home, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(Path(home), []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(Path(home), mode); err != nil { // umask may have narrowed it
		t.Fatal(err)
	}
}

func TestDefaults(t *testing.T) {
	d := Defaults()
	if err := d.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	checks := map[string][2]any{
		"llm.timeoutSeconds":                  {d.LLM.TimeoutSeconds, 120},
		"llm.connectTimeoutSeconds":           {d.LLM.ConnectTimeoutSeconds, 10},
		"llm.firstTokenTimeoutSeconds":        {d.LLM.FirstTokenTimeoutSeconds, 60},
		"llm.idleTimeoutSeconds":              {d.LLM.IdleTimeoutSeconds, 60},
		"llm.maxRetries":                      {d.LLM.MaxRetries, 3},
		"context.maxMessages":                 {d.Context.MaxMessages, 0},
		"context.maxChars":                    {d.Context.MaxChars, 0},
		"context.summaryShare":                {d.Context.SummaryShare, 0.5},
		"context.recallShare":                 {d.Context.RecallShare, 0.05},
		"context.includeCollapsedUiEvents":    {d.Context.IncludeCollapsedUIEventsInContext, false},
		"llm.embeddingsModel":                 {d.LLM.EmbeddingsModel, ""},
		"context.tokenBudget":                 {d.Context.TokenBudget, 128000},
		"context.reserveForResponse":          {d.Context.ReserveForResponse, 8192},
		"context.triggerThreshold":            {d.Context.TriggerThreshold, 0.95},
		"context.targetAfterCompression":      {d.Context.TargetAfterCompression, 0.6},
		"context.compressionStrategy":         {d.Context.CompressionStrategy, "key-messages"},
		"context.includeToolResultsInContext": {d.Context.IncludeToolResultsInContext, true},
		"tools.fs.enabled":                    {d.Tools.FS.Enabled, true},
		"tools.fs.maxReadBytes":               {d.Tools.FS.MaxReadBytes, 524288},
		"tools.fs.maxWriteBytes":              {d.Tools.FS.MaxWriteBytes, 2097152},
		"tools.mcp.enabled":                   {d.Tools.MCP.Enabled, true},
		"engine.maxTurns":                     {d.Engine.MaxTurns, 30},
		"theme":                               {d.Theme, "system"},
	}
	for field, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", field, c[0], c[1])
		}
	}
	if d.Tools.MCP.AllowedServers == nil || len(d.Tools.MCP.AllowedServers) != 0 {
		t.Errorf("allowedServers = %#v, want empty list", d.Tools.MCP.AllowedServers)
	}
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	home := t.TempDir()
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.File(), Defaults()) || !reflect.DeepEqual(st.Effective(), Defaults()) {
		t.Fatalf("got %+v, want defaults", st.File())
	}
	if _, err := os.Stat(Path(home)); !os.IsNotExist(err) {
		t.Errorf("Load created the file: %v", err)
	}
}

func TestLoadEmptyFileGivesDefaults(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, " \n", 0o600)
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.File(), Defaults()) {
		t.Fatalf("got %+v", st.File())
	}
}

func TestLoadPartialFile(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, `{"llm":{"model":"qwen2.5","baseUrl":"http://127.0.0.1:11434/v1"},
		"context":{"tokenBudget":32000,"includeToolResultsInContext":false},
		"tools":{"fs":{"enabled":false}}, "theme":"dark"}`, 0o600)
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.LLM.Model = "qwen2.5"
	want.LLM.BaseURL = "http://127.0.0.1:11434/v1"
	want.Context.TokenBudget = 32000
	want.Context.IncludeToolResultsInContext = false
	want.Tools.FS.Enabled = false
	want.Theme = ThemeDark
	if got := st.File(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestRoundTripKeepsUnknownFields(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, `{"llm":{"provider":"openai","model":"old"},"future":{"x":[1,2.5]},"theme":"dark"}`, 0o600)
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	s := st.File()
	s.LLM.Model = "gpt-4o"
	s.LLM.APIKey = "sk-test-1234567890"
	s.LLM.SummaryModel = "gpt-4o-mini"
	s.Tools.MCP.AllowedServers = []string{"github"}
	s.Context.CompressionStrategy = StrategyLLMSummary
	if err := Save(home, s); err != nil {
		t.Fatal(err)
	}
	st2, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := st2.File(); !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip:\ngot  %+v\nwant %+v", got, s)
	}
	data, _ := os.ReadFile(Path(home))
	for _, want := range []string{`"provider": "openai"`, `"future": {`, `2.5`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("saved file lost %s:\n%s", want, data)
		}
	}

	// Clearing an optional value really clears it.
	s.LLM.SummaryModel = ""
	s.Tools.MCP.AllowedServers = nil
	if err := Save(home, s); err != nil {
		t.Fatal(err)
	}
	st3, _ := LoadWithEnv(home, noEnv)
	if got := st3.File(); got.LLM.SummaryModel != "" || len(got.Tools.MCP.AllowedServers) != 0 {
		t.Fatalf("cleared values came back: %+v", got)
	}
}

func TestEnvOverrides(t *testing.T) {
	home := t.TempDir()
	file := Defaults()
	file.LLM.BaseURL = "https://api.openai.com/v1"
	file.LLM.Model = "gpt-4o"
	file.LLM.APIKey = "sk-file-key-0000"
	if err := Save(home, file); err != nil {
		t.Fatal(err)
	}
	st, err := LoadWithEnv(home, envMap(map[string]string{
		"CREWAGENT_LLM_BASE_URL": "http://127.0.0.1:11434/v1",
		"CREWAGENT_LLM_API_KEY":  "sk-env-secret-9999",
		"CREWAGENT_LLM_MODEL":    "llama3",
		"CREWAGENT_TOKEN_BUDGET": " 4096 ",
	}))
	if err != nil {
		t.Fatal(err)
	}
	eff := st.Effective()
	if eff.LLM.BaseURL != "http://127.0.0.1:11434/v1" || eff.LLM.APIKey != "sk-env-secret-9999" ||
		eff.LLM.Model != "llama3" || eff.Context.TokenBudget != 4096 {
		t.Fatalf("effective = %+v", eff.LLM)
	}
	if !reflect.DeepEqual(st.File(), file) {
		t.Fatalf("file view changed by env: %+v", st.File().LLM)
	}
	if got := len(st.Overrides()); got != 4 {
		t.Errorf("Overrides() = %v", st.Overrides())
	}

	// The UI sends back what it was shown, with one real edit.
	in := eff.Masked()
	in.Theme = ThemeDark
	if err := st.Update(in); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(Path(home))
	for _, leaked := range []string{"sk-env-secret-9999", "llama3", "11434", "4096", "••••"} {
		if strings.Contains(string(data), leaked) {
			t.Errorf("settings file contains %q:\n%s", leaked, data)
		}
	}
	reread, _ := LoadWithEnv(home, noEnv)
	want := file
	want.Theme = ThemeDark
	if !reflect.DeepEqual(reread.File(), want) {
		t.Fatalf("after update: %+v", reread.File())
	}
	if st.Effective().LLM.APIKey != "sk-env-secret-9999" || st.File().Theme != ThemeDark {
		t.Errorf("store views not updated: %+v", st.Effective().LLM)
	}
}

func TestEmptyEnvValueIsUnset(t *testing.T) {
	st, err := LoadWithEnv(t.TempDir(), envMap(map[string]string{"CREWAGENT_LLM_MODEL": "", "CREWAGENT_TOKEN_BUDGET": "  "}))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Overrides()) != 0 || !reflect.DeepEqual(st.Effective(), Defaults()) {
		t.Fatalf("empty env values applied: %v", st.Overrides())
	}
}

func TestLoadUsesProcessEnvironment(t *testing.T) {
	t.Setenv("CREWAGENT_LLM_MODEL", "from-env")
	st, err := Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if st.Effective().LLM.Model != "from-env" {
		t.Fatalf("model = %q", st.Effective().LLM.Model)
	}
}

func TestBadEnvValues(t *testing.T) {
	cases := map[string]string{
		"CREWAGENT_TOKEN_BUDGET": "lots",
		"CREWAGENT_LLM_BASE_URL": "localhost:11434",
	}
	for name, value := range cases {
		_, err := LoadWithEnv(t.TempDir(), envMap(map[string]string{name: value}))
		if errs.CodeOf(err) != CodeEnv || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), value) {
			t.Errorf("%s=%s: err = %v (code %q)", name, value, err, errs.CodeOf(err))
		}
	}
	_, err := LoadWithEnv(t.TempDir(), envMap(map[string]string{"CREWAGENT_TOKEN_BUDGET": "-5"}))
	if errs.CodeOf(err) != CodeEnv {
		t.Errorf("negative budget: %v", err)
	}
}

func TestFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX modes")
	}
	home := filepath.Join(t.TempDir(), "new-home")
	if err := Save(home, Defaults()); err != nil {
		t.Fatal(err)
	}
	assertMode(t, Path(home), 0o600)
	assertMode(t, home, 0o700)

	// An existing world-readable file is fixed by Save...
	writeFile(t, home, `{"theme":"dark"}`, 0o644)
	if err := Save(home, Defaults()); err != nil {
		t.Fatal(err)
	}
	assertMode(t, Path(home), 0o600)

	// ...and by Load.
	writeFile(t, home, `{"theme":"dark"}`, 0o666)
	if _, err := LoadWithEnv(home, noEnv); err != nil {
		t.Fatal(err)
	}
	assertMode(t, Path(home), 0o600)

	entries, _ := os.ReadDir(home)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s mode = %o, want %o", path, got, want)
	}
}

func TestCorruptFile(t *testing.T) {
	cases := []struct {
		name, content, mention string
	}{
		{"syntax", "{\n  \"llm\": {\n    \"model\": \"x\",\n  }\n}", "line 4"},
		{"truncated", `{"llm": {"model": "x"`, "unexpected end"},
		{"wrong type", `{"context": {"tokenBudget": "lots"}}`, "context.tokenBudget"},
		{"not an object", `["a"]`, "expected a JSON object"},
		{"trailing garbage", `{} {}`, "invalid character"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, home, tc.content, 0o600)
			_, err := LoadWithEnv(home, noEnv)
			if errs.CodeOf(err) != CodeCorrupt {
				t.Fatalf("err = %v, want %s", err, CodeCorrupt)
			}
			msg := err.Error()
			if !strings.Contains(msg, Path(home)) || !strings.Contains(msg, tc.mention) {
				t.Errorf("message %q should name the file and %q", msg, tc.mention)
			}
			if data, _ := os.ReadFile(Path(home)); string(data) != tc.content {
				t.Errorf("corrupt file was changed")
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*Settings)
		fields []string // nil = valid
	}{
		{"defaults", func(*Settings) {}, nil},
		{"http url", func(s *Settings) { s.LLM.BaseURL = "http://127.0.0.1:11434/v1" }, nil},
		{"https url", func(s *Settings) { s.LLM.BaseURL = "https://api.openai.com/v1" }, nil},
		{"llm summary", func(s *Settings) { s.Context.CompressionStrategy = StrategyLLMSummary }, nil},
		{"zero retries", func(s *Settings) { s.LLM.MaxRetries = 0 }, nil},
		{"no scheme", func(s *Settings) { s.LLM.BaseURL = "localhost:11434" }, []string{"llm.baseUrl"}},
		{"ftp", func(s *Settings) { s.LLM.BaseURL = "ftp://example.com" }, []string{"llm.baseUrl"}},
		{"no host", func(s *Settings) { s.LLM.BaseURL = "http://" }, []string{"llm.baseUrl"}},
		{"bad budget", func(s *Settings) { s.Context.TokenBudget = 0 }, []string{"context.tokenBudget"}},
		{"reserve too big", func(s *Settings) { s.Context.ReserveForResponse = 128000 }, []string{"context.reserveForResponse"}},
		{"negative reserve", func(s *Settings) { s.Context.ReserveForResponse = -1 }, []string{"context.reserveForResponse"}},
		{"timeouts", func(s *Settings) {
			s.LLM.TimeoutSeconds, s.LLM.ConnectTimeoutSeconds, s.LLM.FirstTokenTimeoutSeconds, s.LLM.IdleTimeoutSeconds, s.LLM.MaxRetries = 0, -1, 0, 0, -1
		}, []string{"llm.timeoutSeconds", "llm.connectTimeoutSeconds", "llm.firstTokenTimeoutSeconds", "llm.idleTimeoutSeconds", "llm.maxRetries"}},
		{"trigger 1", func(s *Settings) { s.Context.TriggerThreshold = 1 }, []string{"context.triggerThreshold"}},
		{"target 0", func(s *Settings) { s.Context.TargetAfterCompression = 0 }, []string{"context.targetAfterCompression"}},
		{"target above trigger", func(s *Settings) { s.Context.TargetAfterCompression = 0.97 }, []string{"context.targetAfterCompression"}},
		{"target equals trigger", func(s *Settings) { s.Context.TargetAfterCompression = 0.95 }, []string{"context.targetAfterCompression"}},
		{"strategy", func(s *Settings) { s.Context.CompressionStrategy = "magic" }, []string{"context.compressionStrategy"}},
		{"limits", func(s *Settings) {
			s.Context.MaxMessages, s.Context.MaxChars, s.Tools.FS.MaxReadBytes, s.Tools.FS.MaxWriteBytes, s.Engine.MaxTurns = -1, -1, 0, -1, 0
		}, []string{"context.maxMessages", "context.maxChars", "tools.fs.maxReadBytes", "tools.fs.maxWriteBytes", "engine.maxTurns"}},
		{"caps off", func(s *Settings) { s.Context.MaxMessages, s.Context.MaxChars = 0, 0 }, nil},
		{"shares", func(s *Settings) { s.Context.SummaryShare, s.Context.RecallShare = 0, 0.7 }, []string{"context.summaryShare", "context.recallShare"}},
		{"embeddings url", func(s *Settings) { s.LLM.EmbeddingsBaseURL = "ftp://x" }, []string{"llm.embeddingsBaseUrl"}},
		{"empty server", func(s *Settings) { s.Tools.MCP.AllowedServers = []string{"a", ""} }, []string{"tools.mcp.allowedServers[1]"}},
		{"theme", func(s *Settings) { s.Theme = "blue" }, []string{"theme"}},
		{"request shape", func(s *Settings) { s.LLM.RequestShape = "strict" }, []string{"llm.requestShape"}},
		{"request shape alternating", func(s *Settings) { s.LLM.RequestShape = "alternating" }, nil},
		{"reasoning effort", func(s *Settings) { s.LLM.ReasoningEffort = "max" }, []string{"llm.reasoningEffort"}},
		{"reasoning effort low", func(s *Settings) { s.LLM.ReasoningEffort = "low" }, nil},
		{"theme light", func(s *Settings) { s.Theme = ThemeLight }, nil},
		{"theme dark", func(s *Settings) { s.Theme = ThemeDark }, nil},
		{"theme system", func(s *Settings) { s.Theme = ThemeSystem }, nil},
		{"theme empty", func(s *Settings) { s.Theme = "" }, []string{"theme"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Defaults()
			tc.edit(&s)
			err := s.Validate()
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalid {
				t.Fatalf("err = %v, want %s", err, CodeInvalid)
			}
			var got []string
			for _, p := range ProblemsOf(err) {
				got = append(got, p.Field)
				if !strings.Contains(err.Error(), p.Field+": ") {
					t.Errorf("message %q does not name %s", err, p.Field)
				}
			}
			if !reflect.DeepEqual(got, tc.fields) {
				t.Errorf("fields = %v, want %v", got, tc.fields)
			}
		})
	}
}

func TestSaveRejectsInvalid(t *testing.T) {
	home := t.TempDir()
	s := Defaults()
	s.Theme = "blue"
	if err := Save(home, s); errs.CodeOf(err) != CodeInvalid {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(Path(home)); !os.IsNotExist(err) {
		t.Errorf("invalid settings were written")
	}
}

func TestRequireLLM(t *testing.T) {
	s := Defaults()
	err := s.RequireLLM()
	if errs.CodeOf(err) != CodeLLMNotConfigured || !strings.Contains(err.Error(), "llm.baseUrl") || !strings.Contains(err.Error(), "llm.model") {
		t.Fatalf("err = %v", err)
	}
	s.LLM.BaseURL, s.LLM.Model = "http://127.0.0.1:1/v1", "m"
	if err := s.RequireLLM(); err != nil {
		t.Fatal(err)
	}
}

func TestMaskKey(t *testing.T) {
	cases := map[string]string{
		"":                    "",
		"abc":                 "••••",
		"1234567":             "••••",
		"sk-proj-abcdefWXYZ":  "••••WXYZ",
		"sk-1234567890abcdef": "••••cdef",
	}
	for key, want := range cases {
		got := MaskKey(key)
		if got != want {
			t.Errorf("MaskKey(%q) = %q, want %q", key, got, want)
		}
		if key != "" && !IsMasked(got) {
			t.Errorf("IsMasked(%q) = false", got)
		}
		if key != "" && IsMasked(key) {
			t.Errorf("IsMasked(%q) = true for a real key", key)
		}
	}
	s := Defaults()
	s.LLM.APIKey = "sk-secret-key-1234"
	s.Tools.MCP.AllowedServers = []string{"a"}
	m := s.Masked()
	if m.LLM.APIKey != "••••1234" || s.LLM.APIKey != "sk-secret-key-1234" {
		t.Fatalf("Masked: %q / original %q", m.LLM.APIKey, s.LLM.APIKey)
	}
	m.Tools.MCP.AllowedServers[0] = "b"
	if s.Tools.MCP.AllowedServers[0] != "a" {
		t.Error("Masked shares the allowedServers slice")
	}
}

func TestUpdateAPIKey(t *testing.T) {
	home := t.TempDir()
	s := Defaults()
	s.LLM.APIKey = "sk-stored-key-5678"
	if err := Save(home, s); err != nil {
		t.Fatal(err)
	}
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		sent, want string
	}{
		{"••••5678", "sk-stored-key-5678"}, // unchanged in the UI
		{"••••", "sk-stored-key-5678"},
		{"sk-new-key-0001", "sk-new-key-0001"}, // typed a new key
		{"", ""},                               // cleared
	}
	for _, step := range steps {
		in := st.Effective().Masked()
		in.LLM.APIKey = step.sent
		if err := st.Update(in); err != nil {
			t.Fatal(err)
		}
		reread, err := LoadWithEnv(home, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		if got := reread.File().LLM.APIKey; got != step.want {
			t.Errorf("sent %q: stored %q, want %q", step.sent, got, step.want)
		}
	}
}

func TestUpdateRejectsInvalid(t *testing.T) {
	home := t.TempDir()
	st, _ := LoadWithEnv(home, noEnv)
	in := st.Effective()
	in.Context.TriggerThreshold = 2
	if err := st.Update(in); errs.CodeOf(err) != CodeInvalid {
		t.Fatalf("err = %v", err)
	}
	if st.File().Context.TriggerThreshold != 0.95 {
		t.Error("store changed after a rejected update")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"llm":{"model":"x"},"context":{"tokenBudget":1000}}`))
	f.Add([]byte(`{"tools":{"mcp":{"allowedServers":null}}}`))
	f.Add([]byte(`[`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse("settings.json", data)
		if err != nil {
			if errs.CodeOf(err) != CodeCorrupt || !strings.Contains(err.Error(), "settings.json") {
				t.Fatalf("error without code or file name: %v", err)
			}
			return
		}
		if s.Tools.MCP.AllowedServers == nil {
			t.Fatal("nil allowedServers")
		}
	})
}

func TestByteOrderMarkIsAccepted(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "\uFEFF"+`{"llm": {"model": "gpt-4o", "baseUrl": "http://127.0.0.1:11434/v1"}}`, 0o600)
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if s := st.Effective(); s.LLM.Model != "gpt-4o" || s.LLM.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Fatalf("%+v", s.LLM)
	}
}

func TestLoadForReadingToleratesACorruptFile(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, `{"llm": {"model": "x",}`, 0o600)
	t.Setenv("CREWAGENT_LLM_MODEL", "from-env")
	st, warning, err := LoadForReading(home)
	if err != nil || errs.CodeOf(warning) != CodeCorrupt || !strings.Contains(warning.Error(), Path(home)) {
		t.Fatalf("store %v, warning %v, err %v", st, warning, err)
	}
	if s := st.Effective(); s.LLM.Model != "from-env" || s.Context.TokenBudget != Defaults().Context.TokenBudget {
		t.Fatalf("%+v", s)
	}
	writeFile(t, home, `{"llm": {"model": "ok"}}`, 0o600)
	if _, warning, err := LoadForReading(home); warning != nil || err != nil {
		t.Fatalf("a valid file: %v %v", warning, err)
	}
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "lots")
	if _, _, err := LoadForReading(home); errs.CodeOf(err) != CodeEnv {
		t.Fatalf("a bad variable is still an error: %v", err)
	}
}

// A file written by an earlier version holds the caps it had as defaults
// (80 messages, 120000 characters): they become the current default (off),
// while caps a user chose stay.
func TestLegacyCapDefaultsTurnOff(t *testing.T) {
	for _, tc := range []struct {
		body        string
		msgs, chars int
	}{
		{`{"context":{"maxMessages":80,"maxChars":120000}}`, 0, 0},
		{`{"context":{"maxMessages":40,"maxChars":120000}}`, 40, 120000},
		{`{"context":{"maxMessages":80,"maxChars":50000}}`, 80, 50000},
	} {
		s, err := parse("settings.json", []byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if s.Context.MaxMessages != tc.msgs || s.Context.MaxChars != tc.chars {
			t.Errorf("%s: caps %d/%d, want %d/%d", tc.body, s.Context.MaxMessages, s.Context.MaxChars, tc.msgs, tc.chars)
		}
	}
}

// Warnings name every out-of-range value read from a file and say what is
// used instead; valid settings give none.
func TestWarningsOfOutOfRangeValues(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string
	}{
		{"valid", `{"engine":{"maxTurns":3}}`, nil},
		{"token budget", `{"context":{"tokenBudget":-5}}`, []string{"context.tokenBudget: must be a positive integer, got -5: the default of 128000 tokens is used"}},
		{"max turns", `{"engine":{"maxTurns":-1}}`, []string{"engine.maxTurns: must be a positive integer, got -1: the default of 30 is used"}},
		{"chain depth", `{"engine":{"maxInterruptChainDepth":-3}}`, []string{"engine.maxInterruptChainDepth: must be 0 or more, got -3: handing a turn"}},
		{"budgets", `{"engine":{"maxConversationsPerMessage":0,"maxModelCallsPerMessage":-2}}`, []string{
			"engine.maxConversationsPerMessage: must be a positive integer, got 0: the default of 20 is used",
			"engine.maxModelCallsPerMessage: must be a positive integer, got -2: the default of 200 is used"}},
		{"no fallback known", `{"llm":{"maxRetries":-4}}`, []string{"llm.maxRetries: must be 0 or more, got -4: correct it in Settings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(Path(home), []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := LoadWithEnv(home, func(string) (string, bool) { return "", false })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range st.Effective().Warnings() {
				got = append(got, w.Field+": "+w.Message)
				// Said by templates in the window: the same words.
				if w.Key != "" && errs.Text(w.Key, w.Params) != w.Message {
					t.Errorf("%s: %q is not its template %s filled: %q", w.Field, w.Message, w.Key, errs.Text(w.Key, w.Params))
				}
				if w.Key == "" && tt.want != nil {
					t.Errorf("%s: %q has no template", w.Field, w.Message)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", got, len(tt.want))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Fatalf("warning %q, want it to start with %q", got[i], tt.want[i])
				}
			}
		})
	}
}

func TestApprovalsSettings(t *testing.T) {
	s := Defaults()
	if s.Approvals != nil {
		t.Fatal("approvals set by default")
	}
	s.Approvals = &Approvals{Mode: "auto-edit", Deny: []string{"shell.run(git push)"}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	c := s.Clone()
	c.Approvals.Deny[0] = "changed"
	if s.Approvals.Deny[0] != "shell.run(git push)" {
		t.Fatal("Clone shares the rules")
	}
	s.Approvals.Mode = "yolo"
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "approvals.mode") {
		t.Fatalf("%v", err)
	}
}
