package settings

import "testing"

func TestEffectiveForAppliesTheEnvironment(t *testing.T) {
	home := t.TempDir()
	st, err := LoadWithEnv(home, envMap(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	saved := st.File()
	saved.LLM.BaseURL, saved.LLM.Model, saved.LLM.APIKey = "http://127.0.0.1:9/v1", "stored-model", "sk-stored-key-1234"
	if err := Save(home, saved); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CREWAGENT_LLM_MODEL": "env-model", "CREWAGENT_TOKEN_BUDGET": "4096"}
	st, err = LoadWithEnv(home, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	in := st.Effective().Masked()
	in.LLM.BaseURL, in.LLM.Model, in.Context.TokenBudget = "http://edited/v1", "edited-model", 9999
	out := st.EffectiveFor(in)
	// every overridden field, whichever it is, takes the environment's value
	for _, o := range st.Overrides() {
		eff := st.Effective()
		switch o.Field {
		case "llm.model":
			if out.LLM.Model != eff.LLM.Model {
				t.Errorf("llm.model = %q, want the environment's %q", out.LLM.Model, eff.LLM.Model)
			}
		case "context.tokenBudget":
			if out.Context.TokenBudget != eff.Context.TokenBudget {
				t.Errorf("context.tokenBudget = %d, want %d", out.Context.TokenBudget, eff.Context.TokenBudget)
			}
		default:
			t.Errorf("unexpected override %+v", o)
		}
	}
	if out.LLM.BaseURL != "http://edited/v1" || out.LLM.APIKey != "sk-stored-key-1234" {
		t.Fatalf("edited %+v", out.LLM)
	}
	in.LLM.APIKey = "sk-typed"
	if st.EffectiveFor(in).LLM.APIKey != "sk-typed" {
		t.Fatal("a typed key was replaced")
	}
}
