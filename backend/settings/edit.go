package settings

// EffectiveFor returns settings edited in the UI (not yet saved) as the
// runtime would use them: a still-masked API key stands for the key in
// effect, and every environment override wins, by the same rules as
// Effective. Test Connection tries exactly these.
func (st *Store) EffectiveFor(in Settings) Settings {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := in.Clone()
	if IsMasked(out.LLM.APIKey) {
		out.LLM.APIKey = st.effective().LLM.APIKey
	}
	for _, ev := range st.overrides {
		_ = ev.set(&out, st.values[ev.name]) // checked in LoadWithEnv
	}
	return out
}
