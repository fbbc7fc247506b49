package oauth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Servers of the 2025-03-26 revision of the MCP specification publish no protected-resource
// metadata: the authorization server is the MCP server's origin, its metadata at
// /.well-known/oauth-authorization-server there, and that metadata's issuer need not be
// the origin (that revision does not ask for it). Such a server is signed in to with the
// endpoints its metadata names.

// legacyMetadata returns the authorization server metadata of a 2025-03-26 server: nil
// when the server names its protected-resource metadata (in its 401 or at a well-known
// URI), or publishes no authorization server metadata at its origin (the newer discovery
// then falls back to the default endpoints).
func (h *Handler) legacyMetadata(ctx context.Context, req *http.Request, resp *http.Response) *oauthex.AuthServerMeta {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		if c.Params["resource_metadata"] != "" {
			return nil
		}
	}
	u := *req.URL
	u.RawQuery, u.Fragment, u.User = "", "", nil
	// Metadata found at either well-known URI (valid or not) is the newer discovery's.
	for _, p := range []string{"/.well-known/oauth-protected-resource" + u.Path, "/.well-known/oauth-protected-resource"} {
		w := u
		w.Path = p
		if found(ctx, h.o.HTTPClient, w.String()) {
			return nil
		}
	}
	u.Path = "/.well-known/oauth-authorization-server"
	var asm oauthex.AuthServerMeta
	if err := getJSON(ctx, h.o.HTTPClient, u.String(), &asm); err != nil {
		return nil
	}
	origin := req.URL.Scheme + "://" + req.URL.Host
	if asm.Issuer == origin || !sameTrust(req.URL, asm.AuthorizationEndpoint) || !sameTrust(req.URL, asm.TokenEndpoint) ||
		(asm.RegistrationEndpoint != "" && !sameTrust(req.URL, asm.RegistrationEndpoint)) {
		// An issuer that is the origin is discovered the newer way as well.
		return nil
	}
	return &asm
}

// sameTrust reports whether endpoint may be used for the server at server: an https URL,
// or an http one when the server itself is reached over http on a loopback or the same host.
func sameTrust(server *url.URL, endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		return server.Scheme == "http" && u.Hostname() == server.Hostname()
	}
	return false
}

func found(ctx context.Context, c *http.Client, u string) bool {
	var v map[string]any
	return getJSON(ctx, c, u, &v) == nil
}

func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// legacySignIn signs in at the endpoints of asm: the configured client or one registered
// there, PKCE and the resource parameter as for newer servers.
func (h *Handler) legacySignIn(ctx context.Context, g Grant, resource string, asm *oauthex.AuthServerMeta) error {
	redirect := g.RedirectURL()
	cfg := &oauth2.Config{
		Endpoint:    oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint},
		RedirectURL: redirect,
	}
	switch c := h.o.Config; {
	case c != nil && c.ClientID != "":
		cfg.ClientID, cfg.ClientSecret = c.ClientID, c.ClientSecret
	case asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, h.registration(redirect), h.o.HTTPClient)
		if err != nil {
			return fmt.Errorf("registering the client: %w", err)
		}
		cfg.ClientID, cfg.ClientSecret = reg.ClientID, reg.ClientSecret
		if reg.TokenEndpointAuthMethod == "client_secret_basic" {
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
		} else {
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		}
	default:
		return errors.New("the authorization server offers no client registration; set oauth.clientId in the server's entry")
	}
	if c := h.o.Config; c != nil {
		cfg.Scopes = c.Scopes
	}
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	q, err := h.wait(ctx, g, cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource)))
	if err != nil {
		return err
	}
	if q.Get("state") != state {
		return errors.New("the authorization server answered with another state")
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.o.HTTPClient), q.Get("code"),
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return fmt.Errorf("token exchange failed: %w", err)
	}
	h.keep(cfg, tok)
	return nil
}
