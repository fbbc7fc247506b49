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
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// A machine client may authenticate with a signed JWT instead of a secret
// (private_key_jwt, RFC 7523): Config.PrivateKey holds its key, PEM-encoded (PKCS #8, or
// SEC 1 / PKCS #1), and the algorithm follows from the key: ES256, ES384 or ES512 for an
// EC key of the matching curve, RS256 for RSA, EdDSA for Ed25519.

// signer is a parsed private key and the JWS algorithm it signs with.
type signer struct {
	key crypto.Signer
	alg string
}

func parseSigner(pemText string) (*signer, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(pemText)))
	if block == nil {
		return nil, errors.New("privateKey is not a PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("privateKey: %v", err)
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return &signer{k, "ES256"}, nil
		case elliptic.P384():
			return &signer{k, "ES384"}, nil
		case elliptic.P521():
			return &signer{k, "ES512"}, nil
		}
		return nil, errors.New("privateKey: an EC key of an unsupported curve")
	case *rsa.PrivateKey:
		return &signer{k, "RS256"}, nil
	case ed25519.PrivateKey:
		return &signer{k, "EdDSA"}, nil
	}
	return nil, fmt.Errorf("privateKey: unsupported key type %T", key)
}

// assertion returns a client assertion: a JWT from clientID about itself for audience,
// good for a minute.
func (s *signer) assertion(clientID, audience string, now time.Time) (string, error) {
	b64 := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": s.alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": clientID, "sub": clientID, "aud": audience, "jti": rand.Text(),
		"iat": now.Unix(), "exp": now.Add(time.Minute).Unix(),
	})
	input := b64.EncodeToString(header) + "." + b64.EncodeToString(claims)
	var sig []byte
	var err error
	switch k := s.key.(type) {
	case *ecdsa.PrivateKey:
		var digest []byte
		switch s.alg {
		case "ES256":
			d := sha256.Sum256([]byte(input))
			digest = d[:]
		case "ES384":
			d := sha512.Sum384([]byte(input))
			digest = d[:]
		default:
			d := sha512.Sum512([]byte(input))
			digest = d[:]
		}
		var r, ss *big.Int
		r, ss, err = ecdsa.Sign(rand.Reader, k, digest)
		if err == nil {
			n := (k.Curve.Params().BitSize + 7) / 8 // JWS: r and s, fixed width
			sig = make([]byte, 2*n)
			r.FillBytes(sig[:n])
			ss.FillBytes(sig[n:])
		}
	case *rsa.PrivateKey:
		d := sha256.Sum256([]byte(input))
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:])
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, []byte(input))
	}
	if err != nil {
		return "", err
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// clientAssertionGrant signs in a machine client with a signed JWT: the authorization
// server found from the server's metadata, the scopes as for a user's sign-in.
func (h *Handler) clientAssertionGrant(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	c := h.o.Config
	s, err := parseSigner(c.PrivateKey)
	if err != nil {
		return err
	}
	cs, prm, asm, err := h.discover(ctx, req, resp)
	if err != nil {
		return err
	}
	scopes := scopesFor(c, cs, prm)
	src := &assertionSource{
		ctx: context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, h.o.HTTPClient),
		cfg: clientcredentials.Config{ClientID: c.ClientID, TokenURL: asm.TokenEndpoint, Scopes: scopes, AuthStyle: oauth2.AuthStyleInParams},
		s:   s, audience: asm.Issuer, resource: prm.Resource,
	}
	tok, err := src.Token()
	if err != nil {
		return err
	}
	ts := oauth2.ReuseTokenSource(tok, src)
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
	return nil
}

// assertionSource gets a token with a new assertion each time.
type assertionSource struct {
	ctx      context.Context
	cfg      clientcredentials.Config
	s        *signer
	audience string
	resource string
}

func (a *assertionSource) Token() (*oauth2.Token, error) {
	jwt, err := a.s.assertion(a.cfg.ClientID, a.audience, time.Now())
	if err != nil {
		return nil, err
	}
	cfg := a.cfg
	cfg.EndpointParams = url.Values{
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {jwt},
	}
	if a.resource != "" {
		cfg.EndpointParams.Set("resource", a.resource)
	}
	return cfg.Token(a.ctx)
}

// discover reads the challenges of the server's 401 (or 403), then discovers its
// protected-resource metadata and its authorization server's metadata.
func (h *Handler) discover(ctx context.Context, req *http.Request, resp *http.Response) ([]oauthex.Challenge, *oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, error) {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	prm, err := resourceMetadata(ctx, h.o.HTTPClient, cs, req.URL)
	if err != nil {
		return nil, nil, nil, err
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], h.o.HTTPClient)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if asm == nil {
		return nil, nil, nil, errors.New("the authorization server publishes no metadata")
	}
	return cs, prm, asm, nil
}

// resourceMetadata discovers the protected-resource metadata of the server at u: from the
// 401's resource_metadata, then at the well-known URIs (for u's path, then the root).
func resourceMetadata(ctx context.Context, client *http.Client, cs []oauthex.Challenge, u *url.URL) (*oauthex.ProtectedResourceMetadata, error) {
	resource := *u
	resource.RawQuery, resource.Fragment = "", ""
	type try struct{ meta, resource string }
	var tries []try
	for _, c := range cs {
		if m := c.Params["resource_metadata"]; m != "" {
			tries = append(tries, try{m, resource.String()})
			break
		}
	}
	w := resource
	w.Path = "/.well-known/oauth-protected-resource" + resource.Path
	tries = append(tries, try{w.String(), resource.String()})
	w.Path = "/.well-known/oauth-protected-resource"
	root := resource
	root.Path = ""
	tries = append(tries, try{w.String(), root.String()})
	for _, t := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.meta, t.resource, client)
		if err == nil && prm != nil {
			if len(prm.AuthorizationServers) == 0 {
				return nil, errors.New("the protected-resource metadata names no authorization server")
			}
			return prm, nil
		}
	}
	return nil, errors.New("the server publishes no protected-resource metadata")
}
