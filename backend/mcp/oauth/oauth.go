// Package oauth signs the runtime in to remote MCP servers that require it, as the MCP
// authorization specification says: on a 401 (or a 403 asking for more scopes) from the
// server, its protected-resource metadata is discovered (the WWW-Authenticate
// resource_metadata, then the well-known URIs), then its authorization server's metadata
// (RFC 8414 and OpenID discovery), the client is identified (a client ID metadata
// document, a pre-registered client id, or dynamic registration), and the user's consent
// is obtained with PKCE (S256) and the resource parameter (RFC 8707); the token, with its
// refresh token when the server grants one (offline_access is asked for when supported),
// is kept in the runtime home's token file. A machine client uses the client_credentials
// grant instead. The protocol steps are the MCP go-sdk's auth package.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Config is the "oauth" object of a server's entry; every field is optional.
type Config struct {
	// ClientID and ClientSecret name a client registered with the authorization server
	// beforehand; without them the client registers itself (dynamic registration).
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// Scopes replaces the scopes asked for (by default those the server's 401 names,
	// else those its metadata lists); offline_access is added when the authorization
	// server supports it, for a refresh token.
	Scopes []string `json:"scopes,omitempty"`
	// ClientMetadataURL is an https URL where the client's metadata document is published
	// (used as the client id when the authorization server supports it).
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Grant is "client_credentials" for a machine client (ClientID and ClientSecret or
	// PrivateKey required, no user consent); empty is the authorization code grant.
	Grant string `json:"grant,omitempty"`
	// PrivateKey is a machine client's PEM private key: it signs a JWT that authenticates
	// the client (private_key_jwt) instead of a secret.
	PrivateKey string `json:"privateKey,omitempty"`
	// Enterprise, when set, signs in through the organisation's identity provider
	// (enterprise-managed authorization) instead of a consent at the server's own
	// authorization server.
	Enterprise *Enterprise `json:"enterprise,omitempty"`
}

// GrantClientCredentials is Config.Grant for a machine client.
const GrantClientCredentials = "client_credentials"

// Validate reports a configuration that cannot work.
func (c *Config) Validate() error {
	if c == nil {
		return nil
	}
	switch c.Grant {
	case "", "authorization_code":
	case GrantClientCredentials:
		if c.ClientID == "" || (c.ClientSecret == "") == (c.PrivateKey == "") {
			return errors.New("oauth: the client_credentials grant needs clientId and either clientSecret or privateKey")
		}
	default:
		return fmt.Errorf("oauth: unknown grant %q (authorization_code or client_credentials)", c.Grant)
	}
	if c.PrivateKey != "" && c.Grant != GrantClientCredentials {
		return errors.New("oauth: privateKey is for the client_credentials grant")
	}
	if c.ClientSecret != "" && c.ClientID == "" {
		return errors.New("oauth: clientSecret without clientId")
	}
	if c.Enterprise != nil {
		if err := c.Enterprise.validate(c); err != nil {
			return err
		}
	}
	if c.ClientMetadataURL != "" {
		u, err := url.Parse(c.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Path == "" || u.Path == "/" {
			return errors.New("oauth: clientMetadataUrl must be an https URL with a path")
		}
	}
	return nil
}

// Options configure the handler of one server.
type Options struct {
	Server string // the server's name: its key in the store
	URL    string // the server's URL
	Config *Config
	// Store keeps the tokens; nil keeps them in memory only.
	Store   *Store
	Consent Consent
	// HTTPClient makes the requests to the metadata, registration and token endpoints.
	HTTPClient *http.Client
	ClientName string
	// ConsentTimeout bounds the wait for the user's consent (default 5 minutes).
	ConsentTimeout time.Duration
	// Waiting, when set, is called with true when the wait for the user's consent begins
	// and with false when it ends.
	Waiting func(bool)
}

// Handler is the auth.OAuthHandler of one remote server.
type Handler struct {
	o  Options
	mu sync.Mutex
	ts oauth2.TokenSource
	cc *extauth.ClientCredentialsHandler
	// id is the user's ID token at the organisation's identity provider (enterprise).
	id string
	// failed is the sign-in that failed: the requests that follow on the same
	// connection attempt fail with it instead of asking the user again.
	failed error
}

var _ auth.OAuthHandler = (*Handler)(nil)

// NewHandler returns the handler of a server, with the token the store keeps for it.
func NewHandler(o Options) (*Handler, error) {
	if err := o.Config.Validate(); err != nil {
		return nil, err
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Consent == nil {
		o.Consent = Browser{}
	}
	if o.ConsentTimeout <= 0 {
		o.ConsentTimeout = 5 * time.Minute
	}
	h := &Handler{o: o}
	if o.Store != nil {
		if e, ok := o.Store.Get(o.Server, o.URL); ok {
			cfg := &oauth2.Config{
				ClientID:     e.ClientID,
				ClientSecret: e.ClientSecret,
				Endpoint:     oauth2.Endpoint{TokenURL: e.TokenURL, AuthStyle: e.AuthStyle},
				Scopes:       e.Scopes,
			}
			h.ts = h.keeping(cfg, e.Token, true)
		}
	}
	return h, nil
}

// TokenSource implements auth.OAuthHandler.
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ts == nil {
		return nil, nil
	}
	return h.ts, nil
}

// Authorize implements auth.OAuthHandler: it runs the sign-in after a 401 or 403.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	h.mu.Lock()
	failed := h.failed
	h.mu.Unlock()
	if failed != nil {
		resp.Body.Close()
		return failed
	}
	var err error
	if c := h.o.Config; c != nil && c.Enterprise != nil {
		err = h.enterprise(ctx, req, resp)
	} else if c != nil && c.Grant == GrantClientCredentials && c.PrivateKey != "" {
		err = h.clientAssertionGrant(ctx, req, resp)
	} else if c != nil && c.Grant == GrantClientCredentials {
		err = h.clientCredentials(ctx, req, resp)
	} else {
		err = h.authorizationCode(ctx, req, resp)
	}
	if err != nil {
		err = &Error{Server: h.o.Server, Err: err}
		if ctx.Err() == nil {
			h.mu.Lock()
			h.failed = err
			h.mu.Unlock()
		}
	}
	return err
}

// Error is a failed sign-in.
type Error struct {
	Server string
	Err    error
}

func (e *Error) Error() string { return "signing in to " + e.Server + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func (h *Handler) authorizationCode(ctx context.Context, req *http.Request, resp *http.Response) error {
	g, err := h.o.Consent.Begin(ctx)
	if err != nil {
		resp.Body.Close()
		return err
	}
	defer g.Close()
	redirect := g.RedirectURL()
	if asm := h.legacyMetadata(ctx, req, resp); asm != nil {
		resp.Body.Close()
		return h.legacySignIn(ctx, g, req.URL.String(), asm)
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: h.registration(redirect),
		},
		AuthorizationCodeFetcher: func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			q, err := h.wait(ctx, g, a.URL)
			if err != nil {
				return nil, err
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
		RequestRefreshToken:   true,
		AcceptUnadvertisedIss: true,
		Client:                h.o.HTTPClient,
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			return h.keeping(cfg, tok, false), nil
		},
	}
	if c := h.o.Config; c != nil {
		if c.ClientID != "" {
			pre := &oauthex.ClientCredentials{ClientID: c.ClientID}
			if c.ClientSecret != "" {
				pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.ClientSecret}
			}
			cfg.PreregisteredClient = pre
		}
		if c.ClientMetadataURL != "" {
			cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: c.ClientMetadataURL}
		}
		if len(c.Scopes) > 0 {
			scopes := append([]string(nil), c.Scopes...)
			cfg.ScopeFilter = func([]string) []string { return scopes }
		}
	}
	inner, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		resp.Body.Close()
		return err
	}
	if err := inner.Authorize(ctx, req, resp); err != nil {
		return err
	}
	ts, err := inner.TokenSource(ctx)
	if err != nil {
		return err
	}
	if ts != nil {
		h.mu.Lock()
		h.ts = ts
		h.mu.Unlock()
	}
	return nil
}

// registration is the client's metadata for dynamic registration: a public client with
// the loopback redirect.
func (h *Handler) registration(redirect string) *oauthex.ClientRegistrationMetadata {
	return &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirect},
		ClientName:              h.o.ClientName,
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: "none",
	}
}

// wait has the user consent at authURL (the handshake's timeout paused meanwhile) and
// returns the redirect's parameters, or the authorization server's refusal.
func (h *Handler) wait(ctx context.Context, g Grant, authURL string) (url.Values, error) {
	if h.o.Waiting != nil {
		h.o.Waiting(true)
		defer h.o.Waiting(false)
	}
	ctx, cancel := context.WithTimeout(ctx, h.o.ConsentTimeout)
	defer cancel()
	q, err := g.Wait(ctx, authURL)
	if err != nil {
		return nil, err
	}
	if e := q.Get("error"); e != "" {
		if d := q.Get("error_description"); d != "" {
			e += ": " + d
		}
		return nil, fmt.Errorf("the authorization server refused: %s", e)
	}
	return q, nil
}

func (h *Handler) clientCredentials(ctx context.Context, req *http.Request, resp *http.Response) error {
	h.mu.Lock()
	if h.cc == nil {
		c := h.o.Config
		cc, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: c.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: c.ClientSecret}},
			HTTPClient:  h.o.HTTPClient,
		})
		if err != nil {
			h.mu.Unlock()
			resp.Body.Close()
			return err
		}
		h.cc = cc
	}
	cc := h.cc
	h.mu.Unlock()
	// The token source outlives the request that asked for it.
	if err := cc.Authorize(context.WithoutCancel(ctx), req, resp); err != nil {
		return err
	}
	ts, err := cc.TokenSource(ctx)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
	return nil
}

// keep makes tok, from a sign-in with cfg, the handler's token (refreshed and stored).
func (h *Handler) keep(cfg *oauth2.Config, tok *oauth2.Token) {
	ts := h.keeping(cfg, tok, false)
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
}

// keeping is the token source of cfg starting from tok, refreshed with the handler's HTTP
// client, whose every new token is written to the store. A token it cannot refresh is
// forgotten: the request goes without one and its 401 starts a new sign-in.
// stored says tok was read from the store (it is not written again).
func (h *Handler) keeping(cfg *oauth2.Config, tok *oauth2.Token, stored bool) oauth2.TokenSource {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.o.HTTPClient)
	k := &keptSource{h: h, cfg: cfg, src: cfg.TokenSource(ctx, tok), refresh: tok.RefreshToken != ""}
	if stored {
		k.last = tok.AccessToken
	} else {
		k.save(tok)
	}
	return k
}

type keptSource struct {
	h   *Handler
	cfg *oauth2.Config
	src oauth2.TokenSource
	// refresh is whether the token came with a refresh token: an expired one without
	// cannot be renewed, only replaced by a new sign-in.
	refresh bool
	mu      sync.Mutex
	last    string
}

func (k *keptSource) Token() (*oauth2.Token, error) {
	t, err := k.src.Token()
	var refused *oauth2.RetrieveError
	if errors.As(err, &refused) || (err != nil && !k.refresh) {
		k.h.forget(k)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	k.save(t)
	return t, nil
}

func (k *keptSource) save(t *oauth2.Token) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if t == nil || t.AccessToken == k.last {
		return
	}
	k.last = t.AccessToken
	if k.h.o.Store == nil {
		return
	}
	_ = k.h.o.Store.Put(k.h.o.Server, Entry{
		URL:          k.h.o.URL,
		ClientID:     k.cfg.ClientID,
		ClientSecret: k.cfg.ClientSecret,
		TokenURL:     k.cfg.Endpoint.TokenURL,
		AuthStyle:    k.cfg.Endpoint.AuthStyle,
		Scopes:       k.cfg.Scopes,
		Token:        t,
	})
}

// forget drops the token source k when it is still the handler's, and its stored token.
func (h *Handler) forget(k *keptSource) {
	h.mu.Lock()
	mine := h.ts == oauth2.TokenSource(k)
	if mine {
		h.ts = nil
	}
	h.mu.Unlock()
	if mine && h.o.Store != nil {
		_, _ = h.o.Store.Delete(h.o.Server)
	}
}
