package app

import (
	"crewagent/backend/engine"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
)

// SettingsView is what the settings screen shows (settings.Store.View).
type SettingsView = settings.View

// GetSettings returns the settings for the settings screen.
func (rt *Runtime) GetSettings() (SettingsView, error) {
	st, err := rt.Settings()
	if err != nil {
		return SettingsView{}, err
	}
	return st.View(), nil
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
	return st.View(), nil
}

// ConnectionResult is the outcome of TestConnection.
type ConnectionResult = llm.ConnectionResult

// TestConnection asks the endpoint, with the LLM settings as edited in the
// UI (not yet saved) and as the runtime would use them once saved
// (settings.Store.EffectiveFor), for its models, then sends one tiny request
// to the chosen model (llm.Probe). The call itself fails only when settings
// cannot be read.
func (rt *Runtime) TestConnection(in settings.Settings) (ConnectionResult, error) {
	st, err := rt.Settings()
	if err != nil {
		return ConnectionResult{}, err
	}
	return engine.TestConnection(rt.lifetime, st.EffectiveFor(in)), nil
}
