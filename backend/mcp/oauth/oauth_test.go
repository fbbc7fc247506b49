package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
		{name: "machine client without a secret", cfg: &Config{ClientID: "c", Grant: GrantClientCredentials}, wantErr: "needs clientId and either clientSecret or privateKey"},
		{name: "machine client with a key", cfg: &Config{ClientID: "c", PrivateKey: "-----BEGIN PRIVATE KEY-----", Grant: GrantClientCredentials}},
		{name: "machine client with a key and a secret", cfg: &Config{ClientID: "c", ClientSecret: "s", PrivateKey: "k", Grant: GrantClientCredentials}, wantErr: "either clientSecret or privateKey"},
		{name: "a key for a user's sign-in", cfg: &Config{ClientID: "c", PrivateKey: "k"}, wantErr: "privateKey is for the client_credentials grant"},
		{name: "secret alone", cfg: &Config{ClientSecret: "s"}, wantErr: "clientSecret without clientId"},
		{name: "unknown grant", cfg: &Config{Grant: "password"}, wantErr: `unknown grant "password"`},
		{name: "enterprise", cfg: &Config{ClientID: "c", ClientSecret: "s", Enterprise: &Enterprise{Issuer: "https://idp.example", ClientID: "d"}}},
		{name: "enterprise without the identity provider", cfg: &Config{ClientID: "c", Enterprise: &Enterprise{ClientID: "d"}}, wantErr: "issuer"},
		{name: "enterprise without a client there", cfg: &Config{ClientID: "c", Enterprise: &Enterprise{Issuer: "https://idp.example"}}, wantErr: "client at the identity provider"},
		{name: "enterprise without a client at the server", cfg: &Config{Enterprise: &Enterprise{Issuer: "https://idp.example", ClientID: "d"}}, wantErr: "client at the MCP server's authorization server"},
		{name: "enterprise as a machine client", cfg: &Config{ClientID: "c", ClientSecret: "s", Grant: GrantClientCredentials, Enterprise: &Enterprise{Issuer: "https://idp.example", ClientID: "d"}}, wantErr: "not for the client_credentials grant"},
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

// Client assertions verify with the public key of each kind of key a machine client may have.
func TestClientAssertion(t *testing.T) {
	ec256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	pkcs8 := func(k any) string {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	sec1, _ := x509.MarshalECPrivateKey(ec256)
	cases := []struct {
		name, pem, alg string
		verify         func(input, sig []byte) bool
	}{
		{"P-256", pkcs8(ec256), "ES256", func(in, sig []byte) bool {
			d := sha256.Sum256(in)
			return len(sig) == 64 && ecdsa.Verify(&ec256.PublicKey, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
		}},
		{"P-256 in SEC 1", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})), "ES256", func(in, sig []byte) bool {
			d := sha256.Sum256(in)
			return ecdsa.Verify(&ec256.PublicKey, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
		}},
		{"P-384", pkcs8(ec384), "ES384", func(in, sig []byte) bool {
			d := sha512.Sum384(in)
			return len(sig) == 96 && ecdsa.Verify(&ec384.PublicKey, d[:], new(big.Int).SetBytes(sig[:48]), new(big.Int).SetBytes(sig[48:]))
		}},
		{"RSA", pkcs8(rsaKey), "RS256", func(in, sig []byte) bool {
			d := sha256.Sum256(in)
			return rsa.VerifyPKCS1v15(&rsaKey.PublicKey, crypto.SHA256, d[:], sig) == nil
		}},
		{"Ed25519", pkcs8(edKey), "EdDSA", func(in, sig []byte) bool {
			return ed25519.Verify(edKey.Public().(ed25519.PublicKey), in, sig)
		}},
	}
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parseSigner(tc.pem)
			if err != nil || s.alg != tc.alg {
				t.Fatalf("signer %v %v, want %s", s, err, tc.alg)
			}
			jwt, err := s.assertion("robot", "https://as.example", now)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(jwt, ".")
			sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
			if len(parts) != 3 || !tc.verify([]byte(parts[0]+"."+parts[1]), sig) {
				t.Fatalf("the assertion does not verify: %s", jwt)
			}
			var claims map[string]any
			b, _ := base64.RawURLEncoding.DecodeString(parts[1])
			if json.Unmarshal(b, &claims) != nil || claims["iss"] != "robot" || claims["sub"] != "robot" || claims["aud"] != "https://as.example" ||
				claims["exp"] != float64(now.Unix()+60) || claims["jti"] == "" {
				t.Fatalf("claims %s", b)
			}
		})
	}
	for _, bad := range []string{"", "not pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"} {
		if _, err := parseSigner(bad); err == nil {
			t.Errorf("parseSigner(%q) accepted", bad)
		}
	}
}

func FuzzParseSigner(f *testing.F) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	f.Add(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	f.Add("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := parseSigner(text)
		if err != nil {
			return
		}
		if s.alg == "" {
			t.Fatal("a key without an algorithm")
		}
		if _, err := s.assertion("c", "https://as", time.Now()); err != nil {
			t.Fatalf("an accepted key does not sign: %v", err)
		}
	})
}

func TestRevoke(t *testing.T) {
	var seen []string
	var withRevocation bool
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	defer hs.Close()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		m := map[string]any{"issuer": hs.URL, "authorization_endpoint": hs.URL + "/authorize", "token_endpoint": hs.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}}
		if withRevocation {
			m["revocation_endpoint"] = hs.URL + "/revoke"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m)
	})
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, basic := r.BasicAuth()
		if !basic {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		seen = append(seen, fmt.Sprintf("%s %s:%s basic=%v", r.PostForm.Get("token_type_hint"), id, secret, basic))
	})
	tok := &oauth2.Token{AccessToken: "at", RefreshToken: "rt"}
	cases := []struct {
		name       string
		revocation bool
		entry      Entry
		want       []string
		wantErr    error
	}{
		{name: "public client", revocation: true, entry: Entry{ClientID: "pub", Token: tok},
			want: []string{"refresh_token pub: basic=false", "access_token pub: basic=false"}},
		{name: "secret in the header", revocation: true, entry: Entry{ClientID: "c", ClientSecret: "s", AuthStyle: oauth2.AuthStyleInHeader, Token: tok},
			want: []string{"refresh_token c:s basic=true", "access_token c:s basic=true"}},
		{name: "secret in the form", revocation: true, entry: Entry{ClientID: "c", ClientSecret: "s", AuthStyle: oauth2.AuthStyleInParams, Token: &oauth2.Token{AccessToken: "at"}},
			want: []string{"access_token c:s basic=false"}},
		{name: "no revocation endpoint", entry: Entry{ClientID: "c", Token: tok}, wantErr: ErrNoRevocation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen, withRevocation = nil, tc.revocation
			tc.entry.URL = hs.URL + "/mcp" // no resource metadata: the origin is the authorization server
			err := Revoke(context.Background(), nil, tc.entry)
			if !errors.Is(err, tc.wantErr) || !slices.Equal(seen, tc.want) {
				t.Fatalf("Revoke: %v, requests %q; want %v, %q", err, seen, tc.wantErr, tc.want)
			}
		})
	}
}
