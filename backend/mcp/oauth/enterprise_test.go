package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeJWT is an unsigned token with the given claims (the servers below only read them).
func fakeJWT(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	return "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString(b) + ".sig"
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// An organisation's sign-on, end to end against an identity provider, an authorization
// server and a protected server of their own: the user signs in once at the identity
// provider (OpenID Connect with PKCE, through the consent), its ID token is exchanged for
// an identity assertion addressed to the authorization server and the server, which is
// traded with the client's secret (HTTP Basic) for the access token; a second sign-in
// while the ID token is valid does not ask the user again.
func TestEnterpriseSignIn(t *testing.T) {
	var mu sync.Mutex
	var logins, exchanges, grants int
	var failures []string
	fail := func(format string, a ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	idpMux, asMux, rsMux := http.NewServeMux(), http.NewServeMux(), http.NewServeMux()
	idp, as, rs := httptest.NewServer(idpMux), httptest.NewServer(asMux), httptest.NewServer(rsMux)
	defer idp.Close()
	defer as.Close()
	defer rs.Close()
	idToken := fakeJWT(map[string]any{"sub": "ada@example.com", "aud": "desk-app", "exp": time.Now().Add(time.Hour).Unix()})

	idpMux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": idp.URL, "authorization_endpoint": idp.URL + "/authorize",
			"token_endpoint": idp.URL + "/token", "code_challenge_methods_supported": []string{"S256"}})
	})
	idpMux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		logins++
		mu.Unlock()
		if q.Get("client_id") != "desk-app" || q.Get("code_challenge_method") != "S256" || !strings.Contains(q.Get("scope"), "openid") || q.Get("login_hint") != "ada@example.com" {
			fail("sign-in request %v", q)
		}
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=login-code&state="+q.Get("state"), http.StatusFound)
	})
	idpMux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			if r.Form.Get("code") != "login-code" || r.Form.Get("code_verifier") == "" {
				fail("code exchange %v", r.Form)
			}
			writeJSON(w, map[string]any{"access_token": "idp-at", "token_type": "Bearer", "id_token": idToken})
		case "urn:ietf:params:oauth:grant-type:token-exchange":
			mu.Lock()
			exchanges++
			mu.Unlock()
			f := r.Form
			if f.Get("subject_token") != idToken || f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
				f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" || f.Get("audience") != as.URL ||
				f.Get("resource") != rs.URL+"/mcp" || f.Get("client_id") != "desk-app" {
				fail("token exchange %v", f)
			}
			writeJSON(w, map[string]any{"access_token": "the-assertion", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	})
	asMux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": as.URL, "authorization_endpoint": as.URL + "/authorize", "token_endpoint": as.URL + "/token",
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{GrantJWTBearer},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"}})
	})
	asMux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, basic := r.BasicAuth()
		mu.Lock()
		grants++
		mu.Unlock()
		if r.Form.Get("grant_type") != GrantJWTBearer || r.Form.Get("assertion") != "the-assertion" || !basic || id != "mcp-client" || secret != "s3cret" {
			fail("assertion grant %v basic=%v %s", r.Form, basic, id)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		writeJSON(w, map[string]any{"access_token": "server-at", "token_type": "Bearer", "expires_in": 3600})
	})
	rsMux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{as.URL}})
	})

	cfg := &Config{ClientID: "mcp-client", ClientSecret: "s3cret",
		Enterprise: &Enterprise{Issuer: idp.URL, ClientID: "desk-app", LoginHint: "ada@example.com"}}
	home := t.TempDir()
	h, err := NewHandler(Options{Server: "corp", URL: rs.URL + "/mcp", Config: cfg, Consent: Headless{}, Store: NewStore(home)})
	if err != nil {
		t.Fatal(err)
	}
	unauthorized := func() (*http.Request, *http.Response) {
		req, _ := http.NewRequest(http.MethodPost, rs.URL+"/mcp", nil)
		resp := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}
		return req, resp
	}
	for round := 1; round <= 2; round++ {
		req, resp := unauthorized()
		if err := h.Authorize(context.Background(), req, resp); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		ts, _ := h.TokenSource(context.Background())
		if ts == nil {
			t.Fatalf("round %d: no token", round)
		}
		if tok, err := ts.Token(); err != nil || tok.AccessToken != "server-at" {
			t.Fatalf("round %d: token %v %v", round, tok, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(failures) > 0 {
		t.Fatal(strings.Join(failures, "\n"))
	}
	if logins != 1 || exchanges != 2 || grants != 2 {
		t.Fatalf("logins %d, exchanges %d, grants %d; want 1, 2, 2", logins, exchanges, grants)
	}
	if e, ok := NewStore(home).Get("corp", rs.URL+"/mcp"); !ok || e.Token.AccessToken != "server-at" {
		t.Fatalf("the token is not kept: %+v %v", e, ok)
	}
}
