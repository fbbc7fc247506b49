package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// ErrNoRevocation is Revoke's answer when the authorization server offers no revocation
// endpoint: the token can only be forgotten.
var ErrNoRevocation = errors.New("the authorization server offers no token revocation")

// Revoke asks the authorization server of e's server to revoke its tokens (RFC 7009): the
// refresh token, then the access token. The server is found the way a sign-in finds it
// (protected-resource metadata, else the server's origin).
func Revoke(ctx context.Context, client *http.Client, e Entry) error {
	if client == nil {
		client = http.DefaultClient
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		return err
	}
	issuer := u.Scheme + "://" + u.Host
	if prm, err := resourceMetadata(ctx, client, nil, u); err == nil {
		issuer = prm.AuthorizationServers[0]
	}
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, client)
	if err != nil {
		return err
	}
	if asm == nil || asm.RevocationEndpoint == "" {
		return ErrNoRevocation
	}
	if !sameTrust(u, asm.RevocationEndpoint) {
		return fmt.Errorf("the revocation endpoint %s is not https", asm.RevocationEndpoint)
	}
	if e.Token == nil {
		return nil
	}
	for _, t := range []struct{ hint, value string }{{"refresh_token", e.Token.RefreshToken}, {"access_token", e.Token.AccessToken}} {
		if t.value == "" {
			continue
		}
		form := url.Values{"token": {t.value}, "token_type_hint": {t.hint}}
		basic := e.ClientSecret != "" && e.AuthStyle != oauth2.AuthStyleInParams
		if !basic {
			form.Set("client_id", e.ClientID)
			if e.ClientSecret != "" {
				form.Set("client_secret", e.ClientSecret)
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, asm.RevocationEndpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if basic {
			req.SetBasicAuth(url.QueryEscape(e.ClientID), url.QueryEscape(e.ClientSecret))
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("revoking the %s: %s", strings.ReplaceAll(t.hint, "_", " "), resp.Status)
		}
	}
	return nil
}
