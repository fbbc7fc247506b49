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
	keepMaskedEndpointKeys(&out, st.effective())
	for _, ev := range st.overrides {
		_ = ev.set(&out, st.values[ev.name]) // checked in LoadWithEnv
	}
	return out
}

// keepMaskedEndpointKeys puts back the key of each endpoint whose key is
// still masked, from the endpoint of the same name in from (an endpoint
// renamed in the same edit needs its key again).
func keepMaskedEndpointKeys(in *Settings, from Settings) {
	for i, e := range in.LLM.Endpoints {
		if !IsMasked(e.APIKey) {
			continue
		}
		in.LLM.Endpoints[i].APIKey = ""
		if old, ok := from.LLM.EndpointNamed(e.Name); ok && e.Name != DefaultEndpoint {
			in.LLM.Endpoints[i].APIKey = old.APIKey
		}
	}
}
