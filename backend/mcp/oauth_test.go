package mcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"crewagent/backend/mcp/oauth"
)

// authServer is an authorization server and an MCP server it protects, both over real
// HTTP: the MCP server answers 401 with its protected-resource metadata until it is given
// a token the authorization server issued for it.
type authServer struct {
	t   *testing.T
	url string
	// Settings of the authorization server.
	register    bool          // offers dynamic client registration
	authMethods []string      // token_endpoint_auth_methods_supported
	lifetime    time.Duration // of an access token
	refuse      bool          // the user refuses consent
	legacy      bool          // a 2025-03-26 server: no resource metadata, another issuer
	clientID    string        // a pre-registered client
	secret      string
	jwtKey      *ecdsa.PublicKey // the pre-registered client's key, for private_key_jwt

	mu        sync.Mutex
	events    []string            // "register", "authorize", "token:<grant>", "refresh"
	authorize []url.Values        // the authorization requests
	tokenReqs []*http.Request     // the token requests (form parsed)
	codes     map[string][]string // code → challenge, redirect, resource, scope
	tokens    map[string]time.Time
	refreshes map[string]bool
	clients   map[string]string // client id → secret ("" for a public client)
	n         int
}

func newAuthServer(t *testing.T, mod func(*authServer)) *authServer {
	t.Helper()
	a := &authServer{t: t, register: true, authMethods: []string{"none", "client_secret_basic", "client_secret_post"}, lifetime: time.Hour,
		codes: map[string][]string{}, tokens: map[string]time.Time{}, refreshes: map[string]bool{}, clients: map[string]string{}}
	if mod != nil {
		mod(a)
	}
	if a.clientID != "" {
		a.clients[a.clientID] = a.secret
	}
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	a.url = hs.URL

	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		issuer := a.url
		if a.legacy {
			issuer = a.url + "/oauth"
		}
		m := map[string]any{
			"issuer": issuer, "authorization_endpoint": a.url + "/authorize", "token_endpoint": a.url + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
			"token_endpoint_auth_methods_supported": a.authMethods,
			"scopes_supported":                      []string{"notes", "offline_access"},
			"revocation_endpoint":                   a.url + "/revoke",
		}
		if a.register {
			m["registration_endpoint"] = a.url + "/register"
		}
		writeJSON(w, m)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var meta oauthex.ClientRegistrationMetadata
		if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
			http.Error(w, "bad registration", http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		a.n++
		id := fmt.Sprintf("client-%d", a.n)
		a.clients[id] = ""
		a.events = append(a.events, "register")
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		if _, known := a.clients[r.PostForm.Get("client_id")]; !known {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		a.events = append(a.events, "revoke:"+r.PostForm.Get("token_type_hint"))
		delete(a.refreshes, r.PostForm.Get("token"))
		delete(a.tokens, r.PostForm.Get("token"))
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		a.events = append(a.events, "authorize")
		a.authorize = append(a.authorize, q)
		_, known := a.clients[q.Get("client_id")]
		a.n++
		code := fmt.Sprintf("code-%d", a.n)
		a.codes[code] = []string{q.Get("code_challenge"), q.Get("redirect_uri"), q.Get("resource"), q.Get("scope")}
		a.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"state": {q.Get("state")}}
		switch {
		case !known || q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code":
			v.Set("error", "invalid_request")
		case a.refuse:
			v.Set("error", "access_denied")
			v.Set("error_description", "the user said no")
		default:
			v.Set("code", code)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		a.tokenReqs = append(a.tokenReqs, r)
		a.events = append(a.events, "token:"+r.PostForm.Get("grant_type"))
		id, secret, basic := r.BasicAuth()
		if !basic {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		want, known := a.clients[id]
		if a.jwtKey != nil {
			known = false // the client proves who it is with its key only
		}
		if a.jwtKey != nil && r.PostForm.Get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			if sub := a.verifyAssertion(r.PostForm.Get("client_assertion")); sub == a.clientID {
				id, known, want, secret = sub, true, "assertion", "assertion"
			}
		}
		if !known || secret != want {
			w.WriteHeader(http.StatusUnauthorized)
			writeJSON(w, map[string]string{"error": "invalid_client"})
			return
		}
		bad := func() {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
		}
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			c, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c[0] || r.PostForm.Get("redirect_uri") != c[1] || r.PostForm.Get("resource") != c[2] {
				bad()
				return
			}
		case "refresh_token":
			if !a.refreshes[r.PostForm.Get("refresh_token")] {
				bad()
				return
			}
		case "client_credentials":
			if want == "" {
				bad()
				return
			}
		default:
			bad()
			return
		}
		a.n++
		tok := fmt.Sprintf("access-%d", a.n)
		a.tokens[tok] = time.Now().Add(a.lifetime)
		resp := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(a.lifetime.Seconds())}
		if r.PostForm.Get("grant_type") != "client_credentials" {
			rt := fmt.Sprintf("refresh-%d", a.n)
			a.refreshes[rt] = true
			resp["refresh_token"] = rt
		}
		writeJSON(w, resp)
	})

	// The protected MCP server, streamable HTTP at /mcp and legacy SSE at /sse.
	srv := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "read", Description: "reads the notes", InputSchema: objectSchemaAny()}, func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) (*sdk.CallToolResult, any, error) {
		return textResult("the notes say hello"), nil, nil
	})
	get := func(*http.Request) *sdk.Server { return srv }
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		exp, ok := a.tokens[token]
		if !ok || time.Now().After(exp) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: exp}, nil
	}
	for _, p := range []string{"/mcp", "/sse"} {
		var h http.Handler = sdk.NewStreamableHTTPHandler(get, nil)
		if p == "/sse" {
			h = sdk.NewSSEHandler(get, nil)
		}
		if a.legacy {
			mux.Handle(p, auth.RequireBearerToken(verify, nil)(h))
			continue
		}
		mux.Handle(p, auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: a.url + "/.well-known/oauth-protected-resource" + p})(h))
		mux.Handle("/.well-known/oauth-protected-resource"+p, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: a.url + p, AuthorizationServers: []string{a.url}, ScopesSupported: []string{"notes"},
		}))
	}
	return a
}

// verifyAssertion returns the subject of a client assertion signed with jwtKey (ES256)
// for this authorization server, or "".
func (a *authServer) verifyAssertion(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return ""
	}
	var header struct{ Alg string }
	var claims struct {
		Iss, Sub, Aud, Jti string
		Exp                int64
	}
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	c, _ := base64.RawURLEncoding.DecodeString(parts[1])
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	if json.Unmarshal(h, &header) != nil || json.Unmarshal(c, &claims) != nil || header.Alg != "ES256" || len(sig) != 64 {
		return ""
	}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(a.jwtKey, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return ""
	}
	if claims.Iss != claims.Sub || claims.Aud != a.url || claims.Jti == "" || time.Now().Unix() > claims.Exp {
		return ""
	}
	return claims.Sub
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (a *authServer) eventList() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.events)
}

// machineKey is the key of the machine client that signs its assertions.
var machineKey, machineKeyPEM = func() (*ecdsa.PrivateKey, string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	return k, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}()

// browserConsent is the desktop consent with a "browser" that follows the redirects of
// the authorization URL, as a user who approves at once would: the redirect reaches the
// consent's loopback listener.
func browserConsent(opened *[]string) oauth.Browser {
	var mu sync.Mutex
	return oauth.Browser{Open: func(u string) error {
		mu.Lock()
		*opened = append(*opened, u)
		mu.Unlock()
		go func() {
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}}
}

func TestOAuthSignIn(t *testing.T) {
	cases := []struct {
		name       string
		server     func(*authServer)
		path, typ  string
		oauth      *oauth.Config
		headless   bool
		wantEvents []string
		wantErr    string
		check      func(t *testing.T, a *authServer)
	}{
		{name: "dynamic registration, browser consent", path: "/mcp",
			wantEvents: []string{"register", "authorize", "token:authorization_code"},
			check: func(t *testing.T, a *authServer) {
				q := a.authorize[0]
				if q.Get("resource") != a.url+"/mcp" {
					t.Errorf("resource %q, want the server's URL", q.Get("resource"))
				}
				s := strings.Fields(q.Get("scope"))
				slices.Sort(s)
				if !slices.Equal(s, []string{"notes", "offline_access"}) {
					t.Errorf("scope %q, want the resource's scopes and offline_access", q.Get("scope"))
				}
				if u, _ := url.Parse(q.Get("redirect_uri")); u == nil || u.Hostname() != "127.0.0.1" || u.Port() == "" {
					t.Errorf("redirect %q, want a loopback port", q.Get("redirect_uri"))
				}
			}},
		{name: "2025-03-26 server", path: "/mcp", headless: true, server: func(a *authServer) { a.legacy = true },
			wantEvents: []string{"register", "authorize", "token:authorization_code"},
			check: func(t *testing.T, a *authServer) {
				if q := a.authorize[0]; q.Get("resource") != a.url+"/mcp" || q.Get("code_challenge") == "" {
					t.Errorf("authorization request %v", q)
				}
			}},
		{name: "legacy SSE transport", path: "/sse", typ: "sse", headless: true,
			wantEvents: []string{"register", "authorize", "token:authorization_code"}},
		{name: "pre-registered client, basic auth", path: "/mcp", headless: true,
			server: func(a *authServer) {
				a.register = false
				a.clientID, a.secret = "desk", "s3cret-value"
				a.authMethods = []string{"client_secret_basic"}
			},
			oauth:      &oauth.Config{ClientID: "desk", ClientSecret: "s3cret-value", Scopes: []string{"notes"}},
			wantEvents: []string{"authorize", "token:authorization_code"},
			check: func(t *testing.T, a *authServer) {
				if _, _, ok := a.tokenReqs[0].BasicAuth(); !ok {
					t.Error("the token request has no basic authentication")
				}
				if s := strings.Fields(a.authorize[0].Get("scope")); !slices.Contains(s, "notes") || len(s) != 2 {
					t.Errorf("scope %q, want the configured one and offline_access", s)
				}
			}},
		{name: "pre-registered client, secret in the form", path: "/mcp", headless: true,
			server: func(a *authServer) {
				a.register = false
				a.clientID, a.secret = "desk", "s3cret-value"
				a.authMethods = []string{"client_secret_post"}
			},
			oauth:      &oauth.Config{ClientID: "desk", ClientSecret: "s3cret-value"},
			wantEvents: []string{"authorize", "token:authorization_code"},
			check: func(t *testing.T, a *authServer) {
				if a.tokenReqs[0].PostForm.Get("client_secret") != "s3cret-value" {
					t.Error("the token request has no client_secret")
				}
			}},
		{name: "machine client", path: "/mcp",
			server:     func(a *authServer) { a.register = false; a.clientID, a.secret = "robot", "robot-secret" },
			oauth:      &oauth.Config{ClientID: "robot", ClientSecret: "robot-secret", Grant: oauth.GrantClientCredentials},
			wantEvents: []string{"token:client_credentials"}},
		{name: "machine client with a key", path: "/mcp",
			server:     func(a *authServer) { a.register = false; a.clientID, a.jwtKey = "robot", &machineKey.PublicKey },
			oauth:      &oauth.Config{ClientID: "robot", PrivateKey: machineKeyPEM, Grant: oauth.GrantClientCredentials},
			wantEvents: []string{"token:client_credentials"},
			check: func(t *testing.T, a *authServer) {
				if f := a.tokenReqs[0].PostForm; f.Get("resource") != a.url+"/mcp" || f.Get("client_secret") != "" {
					t.Errorf("token request %v", f)
				}
			}},
		{name: "machine client with another key", path: "/mcp",
			server: func(a *authServer) {
				a.register = false
				other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
				a.clientID, a.jwtKey = "robot", &other.PublicKey
			},
			oauth:      &oauth.Config{ClientID: "robot", PrivateKey: machineKeyPEM, Grant: oauth.GrantClientCredentials},
			wantEvents: []string{"token:client_credentials"}, wantErr: "invalid_client"},
		{name: "consent refused", path: "/mcp", headless: true, server: func(a *authServer) { a.refuse = true },
			wantEvents: []string{"register", "authorize"}, wantErr: "access_denied: the user said no"},
		{name: "no way to identify the client", path: "/mcp", headless: true, server: func(a *authServer) { a.register = false },
			wantErr: "no configured client registration methods"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthServer(t, tc.server)
			home := t.TempDir()
			var opened []string
			var consent oauth.Consent = browserConsent(&opened)
			if tc.headless {
				consent = oauth.Headless{}
			}
			cfg := ServerConfig{Name: "notes", Source: SourceSettings, URL: a.url + tc.path, Type: tc.typ, OAuth: tc.oauth}
			m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.Home = home; o.OAuthConsent = consent })
			r := m.Call(context.Background(), "mcp__notes__read", nil, nil)
			st, _ := m.Status("notes")
			if got := a.eventList(); !slices.Equal(got, tc.wantEvents) {
				t.Errorf("authorization server saw %v, want %v", got, tc.wantEvents)
			}
			if tc.wantErr != "" {
				if r.OK || !strings.Contains(st.Error, tc.wantErr) || strings.Contains(st.Error, "legacy SSE") {
					t.Fatalf("status %q, want an error with %q", st.Summary(), tc.wantErr)
				}
				if names := SignedIn(home); len(names) != 0 {
					t.Errorf("tokens kept after a failed sign-in: %v", names)
				}
				return
			}
			if !r.OK || r.Text != "the notes say hello" {
				t.Fatalf("call: %s (status %s)", r.Content, st.Summary())
			}
			if !tc.headless && tc.oauth == nil && len(opened) != 1 {
				t.Errorf("the browser was opened %d times, want once", len(opened))
			}
			if tc.check != nil {
				tc.check(t, a)
			}
			if tc.oauth != nil && tc.oauth.Grant == oauth.GrantClientCredentials {
				return // nothing to keep: the machine client asks again
			}
			// The token is kept in the runtime home, readable by the user only.
			path := filepath.Join(home, oauth.TokensFile)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
			}
			if names := SignedIn(home); !slices.Equal(names, []string{"notes"}) {
				t.Errorf("signed in to %v", names)
			}
			// Nothing about it in the server's status.
			if b, _ := json.Marshal(st); strings.Contains(string(b), "access-") || strings.Contains(string(b), "refresh-") {
				t.Errorf("the status shows a token: %s", b)
			}
		})
	}
}

// A new manager (the app started again) uses the kept token; an expired one is refreshed
// without the user; a token refused is replaced by a new sign-in; signing out forgets it.
func TestOAuthTokenKept(t *testing.T) {
	// Tokens are renewed 10s before they expire: one of 12s is good for 2s.
	a := newAuthServer(t, func(a *authServer) { a.lifetime = 12 * time.Second })
	home := t.TempDir()
	cfg := ServerConfig{Name: "notes", Source: SourceSettings, URL: a.url + "/mcp"}
	call := func() {
		t.Helper()
		m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.Home = home; o.OAuthConsent = oauth.Headless{} })
		defer m.Close()
		r := m.Call(context.Background(), "mcp__notes__read", nil, nil)
		if !r.OK {
			st, _ := m.Status("notes")
			t.Fatalf("call: %s (status %s)", r.Content, st.Summary())
		}
	}
	call()
	signIn := []string{"register", "authorize", "token:authorization_code"}
	if got := a.eventList(); !slices.Equal(got, signIn) {
		t.Fatalf("first start: %v, want %v", got, signIn)
	}
	call()
	if got := a.eventList(); !slices.Equal(got, signIn) {
		t.Fatalf("second start signed in again: %v", got)
	}
	time.Sleep(2100 * time.Millisecond) // the access token expires
	call()
	want := append(slices.Clone(signIn), "token:refresh_token")
	if got := a.eventList(); !slices.Equal(got, want) {
		t.Fatalf("after expiry: %v, want %v", got, want)
	}
	// The authorization server forgets its grants: the refresh is refused, the user signs
	// in again.
	a.mu.Lock()
	clear(a.refreshes)
	a.mu.Unlock()
	time.Sleep(2100 * time.Millisecond)
	call()
	want = append(want, "token:refresh_token", "register", "authorize", "token:authorization_code")
	if got := a.eventList(); !slices.Equal(got, want) {
		t.Fatalf("after a refused refresh: %v, want %v", got, want)
	}
	// A token is never sent to another URL than the one it was obtained for.
	if _, ok := oauth.NewStore(home).Get("notes", a.url+"/other"); ok {
		t.Error("the token is offered for another URL")
	}
	kept, _ := oauth.NewStore(home).Lookup("notes")
	if r, err := SignOut(context.Background(), home, "notes"); !r.SignedIn || !r.Revoked || err != nil {
		t.Fatalf("sign out: %+v %v", r, err)
	}
	want = append(want, "revoke:refresh_token", "revoke:access_token")
	if got := a.eventList(); !slices.Equal(got, want) {
		t.Fatalf("sign out: %v, want %v", got, want)
	}
	a.mu.Lock()
	_, stillValid := a.tokens[kept.Token.AccessToken]
	a.mu.Unlock()
	if stillValid {
		t.Error("the access token is still valid after signing out")
	}
	if r, _ := SignOut(context.Background(), home, "notes"); r.SignedIn {
		t.Error("signed out twice")
	}
	call()
	want = append(want, "register", "authorize", "token:authorization_code")
	if got := a.eventList(); !slices.Equal(got, want) {
		t.Fatalf("after signing out: %v, want %v", got, want)
	}
}

// The handshake's timeout does not run while the user is signing in in the browser.
func TestOAuthConsentPausesTheHandshakeTimeout(t *testing.T) {
	a := newAuthServer(t, nil)
	slow := oauth.Browser{Open: func(u string) error {
		go func() {
			time.Sleep(1500 * time.Millisecond) // longer than the handshake may take
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}}
	cases := []struct {
		name    string
		signIn  time.Duration
		wantErr string
	}{
		{name: "a slow user", signIn: time.Minute},
		{name: "no sign-in in time", signIn: 300 * time.Millisecond, wantErr: "no sign-in completed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ServerConfig{Name: "notes", Source: SourceSettings, URL: a.url + "/mcp"}
			m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) {
				o.OAuthConsent, o.HandshakeTimeout, o.SignInTimeout = slow, time.Second, tc.signIn
			})
			r := m.Call(context.Background(), "mcp__notes__read", nil, nil)
			st, _ := m.Status("notes")
			if tc.wantErr != "" {
				if r.OK || !strings.Contains(st.Error, tc.wantErr) {
					t.Fatalf("status %s, want an error with %q", st.Summary(), tc.wantErr)
				}
				return
			}
			if !r.OK {
				t.Fatalf("call: %s (status %s)", r.Content, st.Summary())
			}
		})
	}
}

// staticToken is an OAuth handler that always has the same token.
type staticToken struct{ authorized int }

func (s *staticToken) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "tok-123", TokenType: "Bearer"}), nil
}

func (s *staticToken) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	s.authorized++
	resp.Body.Close()
	return nil
}

// The SSE transport's requests carry the token to the server's origin only.
func TestAuthTransportKeepsTheTokenToTheServer(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	handler := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[name] = r.Header.Get("Authorization")
			mu.Unlock()
			w.WriteHeader(http.StatusUnauthorized)
		})
	}
	server := httptest.NewServer(handler("server"))
	defer server.Close()
	other := httptest.NewServer(handler("other"))
	defer other.Close()
	h := &staticToken{}
	c := &http.Client{Transport: newAuthTransport(http.DefaultTransport, h, server.URL+"/sse")}
	cases := []struct {
		name, url, wantAuth string
		authorized          int
	}{
		{name: "server", url: server.URL + "/messages?session=1", wantAuth: "Bearer tok-123", authorized: 1},
		{name: "other", url: other.URL + "/messages", wantAuth: "", authorized: 1},
	}
	for _, tc := range cases {
		resp, err := c.Post(tc.url, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		mu.Lock()
		got := seen[tc.name]
		mu.Unlock()
		if got != tc.wantAuth || h.authorized != tc.authorized {
			t.Errorf("%s: Authorization %q, sign-ins %d; want %q, %d", tc.name, got, h.authorized, tc.wantAuth, tc.authorized)
		}
	}
}

// SignedIn lists the servers the runtime home home keeps a token for.
func SignedIn(home string) []string { return oauth.NewStore(home).Names() }
