package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Enterprise-managed authorization (the MCP extension for organisations' single sign-on):
// the user signs in once at the organisation's identity provider (OpenID Connect, in the
// browser); its ID token is exchanged there (RFC 8693 token exchange) for an identity
// assertion grant addressed to the MCP server's authorization server, which trades it for
// an access token (RFC 7523 JWT bearer grant). No consent screen per server: the
// organisation's policy decides. The runtime's client at the authorization server is the
// entry's clientId (and clientSecret); its client at the identity provider is the
// "enterprise" object's.

// Enterprise is the "enterprise" object of a server's "oauth" entry.
type Enterprise struct {
	// Issuer is the identity provider's issuer URL (its metadata is discovered there).
	Issuer string `json:"issuer"`
	// ClientID and ClientSecret are the runtime's client at the identity provider (the
	// secret only for a confidential client).
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// TokenEndpoint is the identity provider's token endpoint, when its metadata does not
	// give it (discovered from Issuer otherwise).
	TokenEndpoint string `json:"tokenEndpoint,omitempty"`
	// Scopes are asked for at the sign-in (default openid, profile and email).
	Scopes []string `json:"scopes,omitempty"`
	// LoginHint is passed to the identity provider (an e-mail address that routes to the
	// organisation's sign-in).
	LoginHint string `json:"loginHint,omitempty"`
	// IDToken, when set, gives the user's ID token instead of a sign-in in the browser
	// (a caller that has one already).
	IDToken func(ctx context.Context) (string, error) `json:"-"`
}

// GrantJWTBearer is the grant that trades an identity assertion for an access token.
const GrantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

func (e *Enterprise) validate(c *Config) error {
	switch {
	case e.Issuer == "":
		return errors.New("oauth: enterprise needs the identity provider's issuer")
	case e.ClientID == "":
		return errors.New("oauth: enterprise needs clientId, the client at the identity provider")
	case c.ClientID == "":
		return errors.New("oauth: enterprise needs clientId, the client at the MCP server's authorization server")
	case c.Grant != "" && c.Grant != "authorization_code":
		return errors.New("oauth: enterprise is not for the " + c.Grant + " grant")
	case c.PrivateKey != "":
		return errors.New("oauth: enterprise authenticates its client with clientSecret, not privateKey")
	}
	return nil
}

// enterprise signs in through the organisation's identity provider.
func (h *Handler) enterprise(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	c := h.o.Config
	cs, prm, asm, err := h.discover(ctx, req, resp)
	if err != nil {
		return err
	}
	if len(asm.GrantTypesSupported) > 0 && !slices.Contains(asm.GrantTypesSupported, GrantJWTBearer) {
		return errors.New("the authorization server does not accept identity assertions (the JWT bearer grant): sign in without \"enterprise\"")
	}
	idToken, err := h.idToken(ctx)
	if err != nil {
		return err
	}
	tokenEndpoint := c.Enterprise.TokenEndpoint
	if tokenEndpoint == "" {
		idp, err := auth.GetAuthServerMetadata(ctx, c.Enterprise.Issuer, h.o.HTTPClient)
		if err != nil {
			return fmt.Errorf("the identity provider's metadata: %w", err)
		}
		if idp == nil || idp.TokenEndpoint == "" {
			return errors.New("the identity provider publishes no token endpoint: set \"tokenEndpoint\"")
		}
		tokenEndpoint = idp.TokenEndpoint
	}
	idpClient := &oauthex.ClientCredentials{ClientID: c.Enterprise.ClientID}
	if c.Enterprise.ClientSecret != "" {
		idpClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.Enterprise.ClientSecret}
	}
	scopes := scopesFor(c, cs, prm)
	grant, err := oauthex.ExchangeToken(ctx, tokenEndpoint, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           asm.Issuer,
		Resource:           prm.Resource,
		Scope:              scopes,
		SubjectToken:       idToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, idpClient, h.o.HTTPClient)
	if err != nil {
		// An ID token the identity provider no longer takes is not asked for again.
		h.mu.Lock()
		h.id = ""
		h.mu.Unlock()
		return fmt.Errorf("the identity provider refused the exchange: %w", err)
	}
	style := oauth2.AuthStyleInHeader // client_secret_basic, the default of RFC 8414
	if m := asm.TokenEndpointAuthMethodsSupported; len(m) > 0 && !slices.Contains(m, "client_secret_basic") && slices.Contains(m, "client_secret_post") {
		style = oauth2.AuthStyleInParams
	}
	cfg := &oauth2.Config{
		ClientID:     c.ClientID,
		ClientSecret: c.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: asm.TokenEndpoint, AuthStyle: style},
		Scopes:       scopes,
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.o.HTTPClient), "",
		oauth2.SetAuthURLParam("grant_type", GrantJWTBearer),
		oauth2.SetAuthURLParam("assertion", grant.AccessToken))
	if err != nil {
		return fmt.Errorf("the authorization server refused the identity assertion: %w", err)
	}
	h.keep(cfg, tok)
	return nil
}

// idToken is the user's ID token at the identity provider: the one of the last sign-in
// while it is valid, else a new one (from Enterprise.IDToken, or a sign-in in the browser).
func (h *Handler) idToken(ctx context.Context) (string, error) {
	h.mu.Lock()
	id := h.id
	h.mu.Unlock()
	if id != "" && time.Until(jwtExpiry(id)) > time.Minute {
		return id, nil
	}
	e := h.o.Config.Enterprise
	if e.IDToken != nil {
		id, err := e.IDToken(ctx)
		if err != nil {
			return "", fmt.Errorf("the ID token: %w", err)
		}
		h.remember(id)
		return id, nil
	}
	g, err := h.o.Consent.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer g.Close()
	idpClient := &oauthex.ClientCredentials{ClientID: e.ClientID}
	if e.ClientSecret != "" {
		idpClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.ClientSecret}
	}
	scopes := e.Scopes
	if len(scopes) == 0 {
		scopes = []string{"openid", "profile", "email"}
	} else if !slices.Contains(scopes, "openid") {
		scopes = append([]string{"openid"}, scopes...)
	}
	tok, err := extauth.PerformOIDCLogin(ctx, &extauth.OIDCLoginConfig{
		IssuerURL:   e.Issuer,
		Credentials: idpClient,
		RedirectURL: g.RedirectURL(),
		Scopes:      scopes,
		LoginHint:   e.LoginHint,
		HTTPClient:  h.o.HTTPClient,
	}, func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		q, err := h.wait(ctx, g, a.URL)
		if err != nil {
			return nil, err
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	})
	if err != nil {
		return "", fmt.Errorf("signing in at the identity provider: %w", err)
	}
	id, _ = tok.Extra("id_token").(string)
	h.remember(id)
	return id, nil
}

func (h *Handler) remember(id string) {
	h.mu.Lock()
	h.id = id
	h.mu.Unlock()
}

// jwtExpiry is the exp claim of a JWT (unverified: the identity provider checks it), or
// the zero time.
func jwtExpiry(jwt string) time.Time {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return time.Time{}
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return time.Time{}
	}
	var claims struct {
		Exp float64 `json:"exp"`
	}
	if json.Unmarshal(b, &claims) != nil || claims.Exp <= 0 {
		return time.Time{}
	}
	return time.Unix(int64(claims.Exp), 0)
}

// scopesFor are the scopes asked of the server's authorization server: the entry's, else
// those the 401 names, else those the server's metadata lists.
func scopesFor(c *Config, cs []oauthex.Challenge, prm *oauthex.ProtectedResourceMetadata) []string {
	if len(c.Scopes) > 0 {
		return c.Scopes
	}
	for _, ch := range cs {
		if ch.Scheme == "bearer" && ch.Params["scope"] != "" {
			return strings.Fields(ch.Params["scope"])
		}
	}
	return prm.ScopesSupported
}
