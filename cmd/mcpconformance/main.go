// Command mcpconformance is the client the MCP conformance suite
// (@modelcontextprotocol/conformance) drives: given a server URL it connects through the
// runtime's own MCP client (backend/mcp's Manager, as the app uses it), lists the tools and
// calls each one with arguments made from its schema, answering what the server asks
// (elicitation) the way the app does when the user accepts a form as it is offered.
//
//	mcpconformance [-timeout 20s] URL
//
// A server that requires signing in (the suite's auth scenarios) is signed in to through
// the runtime's OAuth client (backend/mcp/oauth) with a headless consent: the suite's
// authorization servers approve at once, so the authorization URL is requested and its
// redirect read. The scenario's context (MCP_CONFORMANCE_CONTEXT: a pre-registered client,
// a machine client, an organisation's identity provider and the user's ID token there)
// becomes the server entry's "oauth" object, as a user would write it.
//
// It exits 0 when every step succeeded, 1 otherwise (the suite judges the exchanges).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"crewagent/backend/mcp"
	"crewagent/backend/mcp/oauth"
)

func main() {
	timeout := flag.Duration("timeout", 20*time.Second, "bound of the whole run")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mcpconformance [-timeout D] URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "mcpconformance:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string) error {
	home, err := os.MkdirTemp("", "mcpconformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	const name = "conformance"
	m := mcp.NewManager(mcp.Options{
		Home:         home,
		ProjectID:    "conformance",
		ProjectRoot:  filepath.Join(home),
		Servers:      []mcp.ServerConfig{{Name: name, Source: mcp.SourceSettings, URL: url, OAuth: oauthConfig(os.Getenv("MCP_CONFORMANCE_CONTEXT"))}},
		ClientName:   "crewagent-conformance",
		OAuthConsent: oauth.Headless{},
		// The user accepts each form as it is offered: its fields keep their defaults.
		Elicit: func(_ context.Context, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
			fmt.Printf("%s asks: %s\n", r.Server, r.Message)
			return mcp.ElicitResponse{Action: "accept"}, nil
		},
	})
	defer m.Close()
	list := m.Tools(ctx, nil)
	st, _ := m.Status(name)
	if st.State != mcp.StateReady {
		return fmt.Errorf("the server is %s", st.Summary())
	}
	fmt.Printf("connected: %s %s, %d tools\n", st.ServerName, st.ServerVersion, len(list))
	failures := 0
	for _, t := range list {
		args := exampleArgs(t.InputSchema)
		r := m.Call(ctx, t.WireName, args, nil)
		fmt.Printf("%s %s -> %s\n", t.Name, args, r.Content)
		if !r.OK {
			failures++
		}
	}
	if failures > 0 {
		return fmt.Errorf("%d of %d calls failed", failures, len(list))
	}
	return nil
}

// clientMetadataURL is the client id offered to authorization servers that accept client
// metadata documents: the URL the suite's authorization server expects of its client.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// oauthConfig is the server entry's "oauth" object for the scenario's context.
func oauthConfig(contextJSON string) *oauth.Config {
	var c struct {
		Name         string `json:"name"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		PrivateKey   string `json:"private_key_pem"`
		// An organisation's identity provider and the user's ID token there.
		IdPIssuer   string `json:"idp_issuer"`
		IdPClientID string `json:"idp_client_id"`
		IdPIDToken  string `json:"idp_id_token"`
		IdPToken    string `json:"idp_token_endpoint"`
	}
	_ = json.Unmarshal([]byte(contextJSON), &c)
	cfg := &oauth.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, PrivateKey: c.PrivateKey, ClientMetadataURL: clientMetadataURL}
	switch {
	case strings.HasPrefix(c.Name, "auth/client-credentials"):
		cfg.Grant = oauth.GrantClientCredentials
		cfg.ClientMetadataURL = ""
	case c.IdPIssuer != "":
		cfg.ClientMetadataURL = ""
		cfg.Enterprise = &oauth.Enterprise{Issuer: c.IdPIssuer, ClientID: c.IdPClientID, TokenEndpoint: c.IdPToken, IDToken: func(context.Context) (string, error) {
			return c.IdPIDToken, nil
		}}
	}
	return cfg
}

// exampleArgs makes arguments for a tool from its input schema: each property's default,
// else its first enum value, else a value of its type.
func exampleArgs(schema json.RawMessage) []byte {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for k, p := range s.Properties {
		if d, ok := p["default"]; ok {
			args[k] = d
			continue
		}
		if e, ok := p["enum"].([]any); ok && len(e) > 0 {
			args[k] = e[0]
			continue
		}
		switch p["type"] {
		case "number", "integer":
			args[k] = 2
		case "boolean":
			args[k] = true
		case "array":
			args[k] = []any{}
		case "object":
			args[k] = map[string]any{}
		default:
			args[k] = "example"
		}
	}
	b, _ := json.Marshal(args)
	return b
}
