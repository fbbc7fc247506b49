package mcp

import (
	"net/url"
	"sort"
	"strings"

	"crewagent/backend/mcp/oauth"
	"crewagent/backend/settings"
)

// Secrets. Env values, header values, a URL's password and its query values are treated
// like API keys: they stay in settings.json (or .mcp.json) and in the server's process; the
// statuses, errors and stderr tails this package builds have them replaced by "••••", and
// the configuration shown to the UI has them masked (Redacted).

// Redacted returns a copy safe to show: each env and header value masked with
// settings.MaskKey, the URL's password and query values masked too. MergeSecrets undoes it
// for values the user did not change.
//
// A value that only refers to variables ("${env:GITHUB_TOKEN}", "Bearer ${TOKEN}") holds no
// secret of its own and is shown as written; the values it resolves to are secrets. The env
// of a project server (from the project's own file) is shown as written: it is what the user
// approves.
func (c ServerConfig) Redacted() ServerConfig {
	r := c.Clone()
	for k, v := range r.Env {
		// A project server's environment is the project's, not the user's secret: it is
		// shown as written, so that approving it shows what it will run with.
		if c.Source != SourceProject && !onlyReferences(v) {
			r.Env[k] = settings.MaskKey(v)
		}
	}
	for k, v := range r.Headers {
		if !onlyReferences(v) {
			r.Headers[k] = settings.MaskKey(v)
		}
	}
	r.URL = redactURL(r.URL)
	if r.OAuth != nil {
		for _, v := range oauthSecrets(r.OAuth) {
			if *v != "" && !onlyReferences(*v) {
				*v = settings.MaskKey(*v)
			}
		}
	}
	return r
}

// MergeSecrets returns edited with every value still masked (settings.IsMasked) replaced by
// the value stored for the same key, and the URL restored when it is still the redacted
// stored URL: the UI edits Redacted() and sends it back.
func MergeSecrets(edited, stored ServerConfig) ServerConfig {
	out := edited.Clone()
	for k, v := range out.Env {
		if old, ok := stored.Env[k]; ok && settings.IsMasked(v) {
			out.Env[k] = old
		}
	}
	for k, v := range out.Headers {
		if old, ok := stored.Headers[k]; ok && settings.IsMasked(v) {
			out.Headers[k] = old
		}
	}
	if out.OAuth != nil && stored.OAuth != nil {
		old := stored.Clone().OAuth
		if out.OAuth.Enterprise != nil && old.Enterprise == nil {
			old.Enterprise = &oauth.Enterprise{}
		}
		olds := oauthSecrets(old)
		for i, v := range oauthSecrets(out.OAuth) {
			if settings.IsMasked(*v) {
				*v = *olds[i]
			}
		}
	}
	if stored.URL != "" && out.URL == redactURL(stored.URL) {
		out.URL = stored.URL
	}
	return out
}

// oauthSecrets are the secrets of a sign-in configuration: the client's secret
// and private key, and the client secret at the identity provider.
func oauthSecrets(o *oauth.Config) []*string {
	out := []*string{&o.ClientSecret, &o.PrivateKey}
	if o.Enterprise != nil {
		out = append(out, &o.Enterprise.ClientSecret)
	}
	return out
}

const mask = "••••"

func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return mask
	}
	userinfo := ""
	if u.User != nil {
		userinfo = u.User.Username()
		if _, has := u.User.Password(); has {
			userinfo = url.User(userinfo).String() + ":" + mask
		}
		u.User = nil
	}
	if u.RawQuery != "" {
		var parts []string
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, _, _ := strings.Cut(kv, "=")
			parts = append(parts, k+"="+mask)
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	s := u.String()
	if userinfo != "" {
		s = strings.Replace(s, "://", "://"+userinfo+"@", 1)
	}
	return s
}

// redactor removes a server's secret values from text.
type redactor struct{ secrets []string }

// minSecretLen: shorter values ("1", "true", "debug") are not hidden in text, or common
// words of every message would be. Keys and tokens are longer.
const minSecretLen = 8

func newRedactor(c ServerConfig) redactor {
	var ss []string
	add := func(v string) {
		if len(v) >= minSecretLen && !onlyReferences(v) {
			ss = append(ss, v)
			if e := url.QueryEscape(v); e != v {
				ss = append(ss, e)
			}
		}
	}
	for _, v := range c.Env {
		add(v)
	}
	if c.OAuth != nil {
		add(c.OAuth.ClientSecret)
		add(c.OAuth.PrivateKey)
	}
	for _, v := range c.Headers {
		add(v)
		// "Bearer <token>": hide the token on its own as well.
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(tok)
		}
	}
	if u, err := url.Parse(c.URL); err == nil && c.URL != "" {
		if p, has := u.User.Password(); has {
			add(p)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
		if u.RawQuery != "" {
			add(u.RawQuery)
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	sort.Slice(ss, func(i, j int) bool { return len(ss[i]) > len(ss[j]) })
	return redactor{ss}
}

// onlyReferences reports whether v holds variable references and, beside them, less text
// than a secret could be ("Bearer ", "--token=").
func onlyReferences(v string) bool {
	if !strings.Contains(v, "${") {
		return false
	}
	rest := v
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			break
		}
		rest = rest[:i] + rest[i+j+1:]
	}
	return len(rest) < minSecretLen
}

// with returns the redactor that also hides the secrets of c.
func (r *redactor) with(c ServerConfig) redactor {
	more := newRedactor(c)
	seen := map[string]bool{}
	var ss []string
	for _, v := range append(append([]string{}, r.secrets...), more.secrets...) {
		if !seen[v] {
			seen[v] = true
			ss = append(ss, v)
		}
	}
	sort.Slice(ss, func(i, j int) bool { return len(ss[i]) > len(ss[j]) })
	return redactor{ss}
}

func (r *redactor) scrub(s string) string {
	for _, v := range r.secrets {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, mask)
		}
	}
	return s
}
