package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"crewagent/backend/mcp/oauth"
)

// Signing in to remote servers (OAuth): a url server that answers 401 is signed in to as
// the MCP authorization specification says (see package oauth), with the consent of
// Options.OAuthConsent; its token is kept in the runtime home's token file
// (oauth.TokensFile, mode 0600), never in the settings, the project or a log.

// oauthHandler returns the OAuth handler of the resolved url server cfg; waiting is told
// when the wait for the user's consent begins and ends.
func (s *server) oauthHandler(cfg ServerConfig, waiting func(bool)) auth.OAuthHandler {
	opts := s.m.opts
	var store *oauth.Store
	if opts.Home != "" {
		store = oauth.NewStore(opts.Home)
	}
	h, err := oauth.NewHandler(oauth.Options{
		Server:         cfg.Name,
		URL:            cfg.URL,
		Config:         cfg.OAuth,
		Store:          store,
		Consent:        opts.OAuthConsent,
		HTTPClient:     &http.Client{Timeout: 30 * time.Second},
		ClientName:     opts.ClientName,
		ConsentTimeout: opts.SignInTimeout,
		Waiting:        waiting,
	})
	if err != nil {
		return nil // the configuration was checked when it was read
	}
	return h
}

// SignOutResult says what SignOut did.
type SignOutResult struct {
	// SignedIn: a token was kept for the server, and is now forgotten.
	SignedIn bool `json:"signedIn"`
	// Revoked: the authorization server revoked it; else NotRevoked says why not.
	Revoked    bool   `json:"revoked"`
	NotRevoked string `json:"notRevoked,omitempty"`
}

// SignOut forgets the token kept for the server named name in the runtime home home; the
// server signs in again the next time it asks. The authorization server is first asked to
// revoke the token (RFC 7009), within ctx; the token is forgotten either way.
func SignOut(ctx context.Context, home, name string) (SignOutResult, error) {
	store := oauth.NewStore(home)
	e, ok := store.Lookup(name)
	if !ok {
		return SignOutResult{}, nil
	}
	var r SignOutResult
	if err := oauth.Revoke(ctx, &http.Client{Timeout: 15 * time.Second}, e); err != nil {
		r.NotRevoked = err.Error()
	} else {
		r.Revoked = true
	}
	had, err := store.Delete(name)
	r.SignedIn = had
	return r, err
}

// authTransport gives the legacy SSE transport, which has no OAuth support of its own,
// what the streamable one does: the token on every request, and on a 401 (or a 403 asking
// for more scopes) a sign-in and one retry. Only requests to the server's origin (its URL's
// scheme and host) get them: the endpoint an SSE server names for messages could be
// elsewhere.
type authTransport struct {
	base   http.RoundTripper
	h      auth.OAuthHandler
	origin string
}

func newAuthTransport(base http.RoundTripper, h auth.OAuthHandler, serverURL string) *authTransport {
	t := &authTransport{base: base, h: h}
	if u, err := url.Parse(serverURL); err == nil {
		t.origin = originOf(u)
	}
	return t
}

func originOf(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.h == nil || originOf(req.URL) != t.origin {
		return t.base.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil && req.GetBody == nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.base.RoundTrip(t.withToken(req))
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if err := t.h.Authorize(req.Context(), req, resp); err != nil {
		return nil, err
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		retry.Body = b
	}
	return t.base.RoundTrip(t.withToken(retry))
}

// withToken returns req with the handler's current token, if it has one.
func (t *authTransport) withToken(req *http.Request) *http.Request {
	ts, err := t.h.TokenSource(req.Context())
	if err != nil || ts == nil {
		return req
	}
	tok, err := ts.Token()
	if err != nil || tok == nil {
		return req
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", tok.Type()+" "+tok.AccessToken)
	return r
}

func (t *authTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
