package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name    string
		cfg     *Config
		wantErr string
	}{
		{name: "none", cfg: nil},
		{name: "empty", cfg: &Config{}},
		{name: "pre-registered public client", cfg: &Config{ClientID: "c"}},
		{name: "pre-registered with a secret", cfg: &Config{ClientID: "c", ClientSecret: "s", Scopes: []string{"a"}}},
		{name: "machine client", cfg: &Config{ClientID: "c", ClientSecret: "s", Grant: GrantClientCredentials}},
		{name: "machine client without a secret", cfg: &Config{ClientID: "c", Grant: GrantClientCredentials}, wantErr: "needs clientId and clientSecret"},
		{name: "secret alone", cfg: &Config{ClientSecret: "s"}, wantErr: "clientSecret without clientId"},
		{name: "unknown grant", cfg: &Config{Grant: "password"}, wantErr: `unknown grant "password"`},
		{name: "metadata document", cfg: &Config{ClientMetadataURL: "https://app.example/client.json"}},
		{name: "metadata document over http", cfg: &Config{ClientMetadataURL: "http://app.example/client.json"}, wantErr: "https URL with a path"},
		{name: "metadata document at the root", cfg: &Config{ClientMetadataURL: "https://app.example/"}, wantErr: "https URL with a path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestStore(t *testing.T) {
	home := t.TempDir()
	s := NewStore(home)
	if _, ok := s.Get("a", "https://a/mcp"); ok {
		t.Fatal("an empty store has an entry")
	}
	e := Entry{URL: "https://a/mcp", ClientID: "c", TokenURL: "https://a/token", Token: &oauth2.Token{AccessToken: "at", RefreshToken: "rt"}}
	if err := s.Put("a", e); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("b", Entry{URL: "https://b/mcp", Token: &oauth2.Token{AccessToken: "bt"}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(home, TokensFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	cases := []struct {
		name, url string
		ok        bool
	}{
		{"a", "https://a/mcp", true},
		{"a", "https://evil/mcp", false}, // the URL changed: the token is not for it
		{"b", "https://b/mcp", true},
		{"c", "https://a/mcp", false},
	}
	for _, tc := range cases {
		got, ok := s.Get(tc.name, tc.url)
		if ok != tc.ok || ok && got.Token == nil {
			t.Errorf("Get(%s, %s) = %+v, %v", tc.name, tc.url, got, ok)
		}
	}
	if got, _ := s.Get("a", "https://a/mcp"); got.Token.RefreshToken != "rt" || got.ClientID != "c" {
		t.Errorf("entry read back: %+v", got)
	}
	if names := s.Names(); !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("names %v", names)
	}
	if ok, err := s.Delete("a"); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if ok, _ := s.Delete("a"); ok {
		t.Error("deleted twice")
	}
	if names := s.Names(); !slices.Equal(names, []string{"b"}) {
		t.Errorf("names after delete %v", names)
	}
	// A damaged file gives no token and refuses a delete (a new sign-in rewrites it).
	if err := os.WriteFile(s.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete("b"); err == nil {
		t.Error("a damaged file deleted from without an error")
	}
	if _, ok := s.Get("b", "https://b/mcp"); ok {
		t.Error("an entry read from a damaged file")
	}
}

func TestHeadlessConsent(t *testing.T) {
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	defer hs.Close()
	mux.HandleFunc("/approve", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/login?"+r.URL.RawQuery, http.StatusFound) // one hop on the server first
	})
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("redirect_uri")+"?code=c1&state="+r.URL.Query().Get("state"), http.StatusFound)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<form>sign in</form>")) })
	g, err := Headless{}.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cases := []struct {
		name, path, wantCode, wantErr string
	}{
		{name: "approved after a hop", path: "/approve?redirect_uri=" + g.RedirectURL() + "&state=s1", wantCode: "c1"},
		{name: "a page that asks the user", path: "/page", wantErr: "200 OK without a redirect back"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := g.Wait(context.Background(), hs.URL+tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || q.Get("code") != tc.wantCode || q.Get("state") != "s1" {
				t.Fatalf("got %v %v", q, err)
			}
		})
	}
}
