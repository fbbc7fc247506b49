package mcp

import (
	"slices"
	"strings"
	"testing"

	"crewagent/backend/mcp/oauth"
)

func TestRedactedAndMergeSecrets(t *testing.T) {
	stored := ServerConfig{Name: "gh", Command: "npx", Env: map[string]string{"GITHUB_TOKEN": "ghp_abcdefghijklmnop", "DEBUG": "1"},
		URL: "", Headers: nil}
	r := stored.Redacted()
	if r.Env["GITHUB_TOKEN"] != "••••mnop" || r.Env["DEBUG"] != "••••" {
		t.Fatalf("redacted env %v", r.Env)
	}
	if stored.Env["GITHUB_TOKEN"] != "ghp_abcdefghijklmnop" {
		t.Fatal("Redacted changed the original")
	}
	// The UI sends back the redacted form with one value changed and one added.
	edited := r.Clone()
	edited.Env["DEBUG"] = "0"
	edited.Env["NEW"] = "v"
	merged := MergeSecrets(edited, stored)
	want := map[string]string{"GITHUB_TOKEN": "ghp_abcdefghijklmnop", "DEBUG": "0", "NEW": "v"}
	for k, v := range want {
		if merged.Env[k] != v {
			t.Fatalf("merged env %v", merged.Env)
		}
	}

	remote := ServerConfig{Name: "r", URL: "https://user:pass1234@example.com/mcp?key=abcd1234efgh&mode=x", Headers: map[string]string{"Authorization": "Bearer tok-0123456789"}}
	rr := remote.Redacted()
	if rr.URL != "https://user:••••@example.com/mcp?key=••••&mode=••••" || rr.Headers["Authorization"] != "••••6789" {
		t.Fatalf("redacted remote: %q %v", rr.URL, rr.Headers)
	}
	back := MergeSecrets(rr, remote)
	if back.URL != remote.URL || back.Headers["Authorization"] != remote.Headers["Authorization"] {
		t.Fatalf("merge back: %+v", back)
	}
	changed := rr.Clone()
	changed.URL = "https://other.example.com/mcp"
	if got := MergeSecrets(changed, remote).URL; got != "https://other.example.com/mcp" {
		t.Fatalf("a changed URL was replaced: %q", got)
	}
}

func TestRedactorScrubsSecretValues(t *testing.T) {
	cfg := ServerConfig{
		Env:     map[string]string{"TOKEN": "sk-live-0123456789", "MODE": "fast", "PATH_LIKE": "needs escaping & more"},
		Headers: map[string]string{"Authorization": "Bearer hdr-token-abcdef"},
		URL:     "https://h/mcp?api_key=url-secret-value",
	}
	red := newRedactor(cfg)
	in := `Post "https://h/mcp?api_key=url-secret-value": 401; token sk-live-0123456789; auth Bearer hdr-token-abcdef; bare hdr-token-abcdef; needs+escaping+%26+more; mode fast`
	out := red.scrub(in)
	for _, s := range []string{"sk-live-0123456789", "hdr-token-abcdef", "url-secret-value", "needs+escaping"} {
		if strings.Contains(out, s) {
			t.Errorf("%q still in %q", s, out)
		}
	}
	if !strings.Contains(out, "mode fast") {
		t.Errorf("a short value was scrubbed: %q", out)
	}
}

// The secrets of a sign-in configuration are masked for the UI, the original
// is left as it is, and what the UI sends back masked gets the stored value.
func TestRedactedSignInSecrets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		oauth *oauth.Config
		// secrets reads the secrets of a configuration.
		secrets func(o *oauth.Config) []string
	}{
		{"client secret and private key", &oauth.Config{ClientID: "app", ClientSecret: "cs-0123456789", PrivateKey: "-----BEGIN KEY-----abcd"},
			func(o *oauth.Config) []string { return []string{o.ClientSecret, o.PrivateKey} }},
		{"identity provider's client secret", &oauth.Config{Enterprise: &oauth.Enterprise{Issuer: "https://idp.example.com", ClientID: "rt", ClientSecret: "idp-secret-9876", Scopes: []string{"openid"}}},
			func(o *oauth.Config) []string { return []string{o.Enterprise.ClientSecret} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := ServerConfig{Name: "r", URL: "https://example.com/mcp", OAuth: tc.oauth}
			want := tc.secrets(stored.OAuth)
			r := stored.Redacted()
			for i, v := range tc.secrets(r.OAuth) {
				if !strings.HasPrefix(v, "••••") || v == want[i] {
					t.Fatalf("secret %d shown as %q", i, v)
				}
			}
			if got := tc.secrets(stored.OAuth); !slices.Equal(got, want) {
				t.Fatalf("Redacted changed the original: %q", got)
			}
			if got := tc.secrets(MergeSecrets(r, stored).OAuth); !slices.Equal(got, want) {
				t.Fatalf("merged back: %q, want %q", got, want)
			}
		})
	}
}
