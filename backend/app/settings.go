package app

import (
	"context"
	"fmt"
	"time"

	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
)

// testConnectionTimeout bounds a Test Connection click.
const testConnectionTimeout = 30 * time.Second

// SettingsView is what the settings screen shows: the effective settings with
// the API key masked, the fields the environment overrides (read-only in the
// UI) and whether an LLM endpoint is configured.
type SettingsView struct {
	Settings  settings.Settings   `json:"settings"`
	Overrides []settings.Override `json:"overrides"`
	// LLMConfigured is false while the base URL or the model is missing.
	LLMConfigured bool `json:"llmConfigured"`
	// HasAPIKey is true when a key is stored or set in the environment.
	HasAPIKey bool   `json:"hasApiKey"`
	Path      string `json:"path"`
	// Warnings name the values in effect that are out of range, each with
	// what is used instead (settings.Settings.Warnings).
	Warnings []settings.Problem `json:"warnings"`
}

func (rt *Runtime) settingsView(st *settings.Store) SettingsView {
	eff := st.Effective()
	ov := st.Overrides()
	if ov == nil {
		ov = []settings.Override{}
	}
	warnings := eff.Warnings()
	if warnings == nil {
		warnings = []settings.Problem{}
	}
	return SettingsView{
		Settings:      eff.Masked(),
		Overrides:     ov,
		LLMConfigured: eff.RequireLLM() == nil,
		HasAPIKey:     eff.LLM.APIKey != "",
		Path:          settings.Path(rt.home),
		Warnings:      warnings,
	}
}

// GetSettings returns the settings for the settings screen.
func (rt *Runtime) GetSettings() (SettingsView, error) {
	st, err := rt.Settings()
	if err != nil {
		return SettingsView{}, err
	}
	return rt.settingsView(st), nil
}

// SaveSettings validates and saves settings edited in the UI. A still-masked
// API key keeps the stored key; fields the environment overrides keep their
// file values. Invalid values fail with E_SETTINGS_INVALID naming each field.
func (rt *Runtime) SaveSettings(in settings.Settings) (SettingsView, error) {
	st, err := rt.Settings()
	if err != nil {
		return SettingsView{}, err
	}
	if err := in.Validate(); err != nil {
		return SettingsView{}, err
	}
	if err := st.Update(in); err != nil {
		return SettingsView{}, err
	}
	return rt.settingsView(st), nil
}

// ConnectionResult is the outcome of TestConnection.
type ConnectionResult struct {
	OK        bool   `json:"ok"`
	Code      string `json:"code,omitempty"` // an errs code when OK is false
	Message   string `json:"message"`
	Model     string `json:"model"`
	BaseURL   string `json:"baseUrl"`
	LatencyMs int64  `json:"latencyMs"`
	// Models are the model ids the endpoint lists (GET /models), sorted;
	// empty when it lists none or cannot list them (ModelsError says why).
	Models      []string `json:"models"`
	ModelsError string   `json:"modelsError,omitempty"`
}

// modelsTimeout bounds the model list of a Test Connection click.
const modelsTimeout = 10 * time.Second

// TestConnection asks the endpoint, with the LLM settings as edited in the
// UI (not yet saved) and as the runtime would use them once saved
// (settings.Store.EffectiveFor), for its models, then sends one tiny request
// to the chosen model. It reports success or the exact error, with the
// models the endpoint serves so the user can pick one (also when no model
// is chosen yet); the call itself fails only when settings cannot be read.
func (rt *Runtime) TestConnection(in settings.Settings) (ConnectionResult, error) {
	st, err := rt.Settings()
	if err != nil {
		return ConnectionResult{}, err
	}
	cfg := st.EffectiveFor(in)
	res := ConnectionResult{Model: cfg.LLM.Model, BaseURL: cfg.LLM.BaseURL, Models: []string{}}
	if cfg.LLM.BaseURL == "" {
		res.Code, res.Message = errs.LLMNotConfigured, cfg.RequireLLM().Error()
		return res, nil
	}
	lcfg := engine.LLMConfig(cfg.LLM)
	mcfg := lcfg
	mcfg.Timeout, mcfg.MaxRetries = modelsTimeout, -1
	t0 := time.Now()
	if models, err := listModels(rt.lifetime, mcfg); err != nil {
		res.ModelsError = llm.AsError(err).Error()
	} else {
		res.Models = models
	}
	if cfg.LLM.Model == "" {
		res.LatencyMs = time.Since(t0).Milliseconds()
		res.Code = errs.LLMNotConfigured
		switch {
		case len(res.Models) > 0:
			res.Message = fmt.Sprintf("The server answers and serves %s: choose the model to use.", countNoun(len(res.Models), "model"))
		case res.ModelsError != "":
			res.Message = res.ModelsError
		default:
			res.Message = "The server answers but lists no model: download or load one there, or type its name."
		}
		return res, nil
	}
	ctx, cancel := context.WithTimeout(rt.lifetime, testConnectionTimeout)
	defer cancel()
	t0 = time.Now()
	err = llm.New(lcfg).TestConnection(ctx)
	res.LatencyMs = time.Since(t0).Milliseconds()
	if err != nil {
		e := llm.AsError(err)
		res.Code, res.Message = e.Code, e.Error()
		return res, nil
	}
	res.OK, res.Message = true, fmt.Sprintf("Connected: %s answered in %s", cfg.LLM.Model, latency(res.LatencyMs))
	return res, nil
}

// latency says how long an answer took: "8 ms", "1.4 s".
func latency(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// countNoun says "1 model", "3 models".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
