package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Consent gets the user's consent at an authorization server: it gives the redirect URL
// the server sends the user back to, then waits for that redirect.
type Consent interface {
	// Begin prepares one authorization: the returned Grant's RedirectURL is registered
	// with the authorization server, then Grant.Wait is called with the authorization URL.
	Begin(ctx context.Context) (Grant, error)
}

// Grant is one authorization in progress.
type Grant interface {
	RedirectURL() string
	// Wait has the user visit authURL and returns the parameters of the redirect back
	// (code, state, iss, or error and error_description).
	Wait(ctx context.Context, authURL string) (url.Values, error)
	Close()
}

// Browser is the consent of a desktop user: the system browser is opened at the
// authorization URL and a listener on a loopback port (127.0.0.1, a random port) waits
// for the redirect back.
type Browser struct {
	// Open opens a URL in the system browser; nil is OpenBrowser.
	Open func(string) error
	// Notify, when set, is told the URL the user is asked to visit (for a terminal, which
	// prints it in case no browser opens).
	Notify func(authURL string)
}

// Begin implements Consent.
func (b Browser) Begin(context.Context) (Grant, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the sign-in redirect: %v", err)
	}
	g := &browserGrant{b: b, ln: ln, got: make(chan url.Values, 1)}
	g.redirect = "http://" + ln.Addr().String() + "/callback"
	g.srv = &http.Server{Handler: http.HandlerFunc(g.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

type browserGrant struct {
	b        Browser
	ln       net.Listener
	srv      *http.Server
	redirect string
	got      chan url.Values
}

func (g *browserGrant) RedirectURL() string { return g.redirect }

func (g *browserGrant) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	msg := "Signed in. You can close this window."
	if e := q.Get("error"); e != "" {
		msg = "Sign-in refused: " + e
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>crewagent</title><p>%s</p>", html.EscapeString(msg))
	select {
	case g.got <- q:
	default:
	}
}

func (g *browserGrant) Wait(ctx context.Context, authURL string) (url.Values, error) {
	if g.b.Notify != nil {
		g.b.Notify(authURL)
	}
	open := g.b.Open
	if open == nil {
		open = OpenBrowser
	}
	if err := open(authURL); err != nil && g.b.Notify == nil {
		return nil, fmt.Errorf("cannot open the browser for sign-in: %v", err)
	}
	select {
	case q := <-g.got:
		return q, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no sign-in completed: %w", ctx.Err())
	}
}

func (g *browserGrant) Close() { _ = g.srv.Close() }

// OpenBrowser opens u in the system's browser.
func OpenBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// Headless is the consent of an authorization server that approves without a user (a
// test server or a machine setup): the authorization URL is requested with an HTTP client
// and its redirect to the loopback redirect URL is read without being followed.
type Headless struct {
	// Client requests the authorization URL; nil is a default client. Its redirects are
	// followed until one leads to the redirect URL.
	Client *http.Client
}

// HeadlessRedirectURL is the redirect URL a Headless consent registers; nothing listens
// there, the redirect is read from the authorization server's answer.
const HeadlessRedirectURL = "http://127.0.0.1:9/callback"

// Begin implements Consent.
func (h Headless) Begin(context.Context) (Grant, error) { return headlessGrant{h}, nil }

type headlessGrant struct{ h Headless }

func (headlessGrant) RedirectURL() string { return HeadlessRedirectURL }
func (headlessGrant) Close()              {}

func (g headlessGrant) Wait(ctx context.Context, authURL string) (url.Values, error) {
	base := g.h.Client
	if base == nil {
		base = &http.Client{Timeout: 30 * time.Second}
	}
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		if strings.HasPrefix(req.URL.String(), HeadlessRedirectURL) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, HeadlessRedirectURL) {
		return nil, fmt.Errorf("the authorization server answered %s without a redirect back", resp.Status)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, err
	}
	return u.Query(), nil
}
