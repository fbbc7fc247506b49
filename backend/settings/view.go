package settings

// View is what the settings screen shows: the effective settings with the
// API key masked, the fields the environment overrides (read-only in the
// UI) and whether an LLM endpoint is configured.
type View struct {
	Settings  Settings   `json:"settings"`
	Overrides []Override `json:"overrides"`
	// LLMConfigured is false while the base URL or the model is missing.
	LLMConfigured bool `json:"llmConfigured"`
	// HasAPIKey is true when a key is stored or set in the environment.
	HasAPIKey bool   `json:"hasApiKey"`
	Path      string `json:"path"`
	// Warnings name the values in effect that are out of range, each with
	// what is used instead (Settings.Warnings).
	Warnings []Problem `json:"warnings"`
}

// View returns the settings as the settings screen shows them.
func (st *Store) View() View {
	eff := st.Effective()
	ov := st.Overrides()
	if ov == nil {
		ov = []Override{}
	}
	warnings := eff.Warnings()
	if warnings == nil {
		warnings = []Problem{}
	}
	return View{
		Settings:      eff.Masked(),
		Overrides:     ov,
		LLMConfigured: eff.RequireLLM() == nil,
		HasAPIKey:     eff.LLM.APIKey != "",
		Path:          Path(st.home),
		Warnings:      warnings,
	}
}
