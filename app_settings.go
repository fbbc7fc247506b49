package main

import (
	"context"
	"time"

	"crewagent/backend/engine"
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
}

// settingsStore loads <home>/settings.json on first use. A file that cannot be
// read is reported each time until it is fixed.
func (a *App) settingsStore() (*settings.Store, error) {
	a.settingsMu.Lock()
	defer a.settingsMu.Unlock()
	if a.settings != nil {
		return a.settings, nil
	}
	st, err := settings.Load(a.home)
	if err != nil {
		return nil, err
	}
	a.settings = st
	return st, nil
}

func (a *App) settingsView(st *settings.Store) SettingsView {
	eff := st.Effective()
	ov := st.Overrides()
	if ov == nil {
		ov = []settings.Override{}
	}
	return SettingsView{
		Settings:      eff.Masked(),
		Overrides:     ov,
		LLMConfigured: eff.RequireLLM() == nil,
		HasAPIKey:     eff.LLM.APIKey != "",
		Path:          settings.Path(a.home),
	}
}

// GetSettings returns the settings for the settings screen.
func (a *App) GetSettings() (SettingsView, error) {
	st, err := a.settingsStore()
	if err != nil {
		return SettingsView{}, toAppError(err)
	}
	return a.settingsView(st), nil
}

// SaveSettings validates and saves settings edited in the UI. A still-masked
// API key keeps the stored key; fields the environment overrides keep their
// file values. Invalid values fail with E_SETTINGS_INVALID naming each field.
func (a *App) SaveSettings(in settings.Settings) (SettingsView, error) {
	st, err := a.settingsStore()
	if err != nil {
		return SettingsView{}, toAppError(err)
	}
	if err := in.Validate(); err != nil {
		return SettingsView{}, toAppError(err)
	}
	if err := st.Update(in); err != nil {
		return SettingsView{}, toAppError(err)
	}
	return a.settingsView(st), nil
}

// ConnectionResult is the outcome of TestConnection.
type ConnectionResult struct {
	OK        bool   `json:"ok"`
	Code      string `json:"code,omitempty"` // an llm.Code* value when OK is false
	Message   string `json:"message"`
	Model     string `json:"model"`
	BaseURL   string `json:"baseUrl"`
	LatencyMs int64  `json:"latencyMs"`
}

// TestConnection sends one tiny request with the LLM settings as edited in
// the UI (not yet saved): a masked key means the stored key, and fields the
// environment overrides use the environment's values. It reports success or
// the exact error; the call itself fails only when settings cannot be read.
func (a *App) TestConnection(in settings.Settings) (ConnectionResult, error) {
	st, err := a.settingsStore()
	if err != nil {
		return ConnectionResult{}, toAppError(err)
	}
	cfg := effectiveLLM(st, in)
	res := ConnectionResult{Model: cfg.LLM.Model, BaseURL: cfg.LLM.BaseURL}
	if err := cfg.RequireLLM(); err != nil {
		res.Code, res.Message = llm.CodeNotConfigured, err.Error()
		return res, nil
	}
	ctx, cancel := context.WithTimeout(a.lifetime, testConnectionTimeout)
	defer cancel()
	t0 := time.Now()
	err = llm.New(engine.LLMConfig(cfg.LLM)).TestConnection(ctx)
	res.LatencyMs = time.Since(t0).Milliseconds()
	if err != nil {
		e := llm.AsError(err)
		res.Code, res.Message = e.Code, e.Error()
		return res, nil
	}
	res.OK, res.Message = true, "Connected: "+cfg.LLM.Model+" answered in "+time.Duration(res.LatencyMs*int64(time.Millisecond)).String()
	return res, nil
}

// effectiveLLM applies the rules of settings.Store.Update to settings edited
// in the UI, but with the environment's values winning, as they will at run time.
func effectiveLLM(st *settings.Store, in settings.Settings) settings.Settings {
	eff := st.Effective()
	out := in.Clone()
	if settings.IsMasked(out.LLM.APIKey) {
		out.LLM.APIKey = eff.LLM.APIKey
	}
	for _, o := range st.Overrides() {
		switch o.Field {
		case "llm.baseUrl":
			out.LLM.BaseURL = eff.LLM.BaseURL
		case "llm.model":
			out.LLM.Model = eff.LLM.Model
		case "llm.apiKey":
			out.LLM.APIKey = eff.LLM.APIKey
		case "context.tokenBudget":
			out.Context.TokenBudget = eff.Context.TokenBudget
		}
	}
	return out
}
