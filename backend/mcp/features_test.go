package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// featureServer is an MCP server of the SDK with a tool of each kind the client handles:
// progress, logging, elicitation, resource links and images, plus resources and prompts.
func featureServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "features", Version: "1.0.0"}, &sdk.ServerOptions{
		Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}},
	})
	type stepsArgs struct {
		Steps int `json:"steps,omitempty"`
		Gap   int `json:"gapMs"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "work", Description: "reports progress for each step"}, func(ctx context.Context, req *sdk.CallToolRequest, a stepsArgs) (*sdk.CallToolResult, any, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= a.Steps; i++ {
			select {
			case <-time.After(time.Duration(a.Gap) * time.Millisecond):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			if tok != nil {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(a.Steps), Message: "step"})
			}
		}
		return ftext("done after %d steps", a.Steps), nil, nil
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "quiet", Description: "sleeps without progress"}, func(ctx context.Context, req *sdk.CallToolRequest, a stepsArgs) (*sdk.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(a.Gap) * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return ftext("slept"), nil, nil
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "log", Description: "logs a line"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "features", Data: "disk almost full"})
		_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "debug", Logger: "features", Data: "below the level"})
		return ftext("logged"), nil, nil
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "ask", Description: "asks the user"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Who are you?", RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{"type": "string"},
				"age":  map[string]any{"type": "integer", "default": 30},
			},
		}})
		if err != nil {
			return nil, nil, err
		}
		b, _ := json.Marshal(res.Content)
		return ftext("%s %s", res.Action, b), nil, nil
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "link", Description: "returns a resource link"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "the report is ready"},
			&sdk.ResourceLink{URI: "file:///report.txt", Name: "report", MIMEType: "text/plain"},
		}}, nil, nil
	})
	srv.AddResource(&sdk.Resource{URI: "file:///report.txt", Name: "report", MIMEType: "text/plain", Description: "the weekly report"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "sales up 4%"}}}, nil
		})
	srv.AddResource(&sdk.Resource{URI: "file:///logo.png", Name: "logo", MIMEType: "image/png"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: []byte("\x89PNG fake")}}}, nil
		})
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "file:///notes/{day}.md", Name: "notes"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "notes of " + req.Params.URI}}}, nil
		})
	srv.AddPrompt(&sdk.Prompt{Name: "review", Description: "reviews a file", Arguments: []*sdk.PromptArgument{
		{Name: "file", Description: "the file to review", Required: true},
		{Name: "tone"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Description: "a review", Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: "Review " + req.Params.Arguments["file"] + " in a " + req.Params.Arguments["tone"] + " tone"}},
		}}, nil
	})
	return srv
}

// serveFeatures serves featureServer over real HTTP: streamable HTTP at /mcp and the
// legacy SSE transport at /sse and /events.
func serveFeatures(t *testing.T) string {
	t.Helper()
	srv := featureServer()
	get := func(*http.Request) *sdk.Server { return srv }
	mux := http.NewServeMux()
	mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(get, nil))
	mux.Handle("/sse", sdk.NewSSEHandler(get, nil))
	mux.Handle("/events", sdk.NewSSEHandler(get, nil))
	mux.Handle("/streamable/sse", sdk.NewStreamableHTTPHandler(get, nil))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestTransports(t *testing.T) {
	base := serveFeatures(t)
	cases := []struct {
		name, url, typ string
		transport      string
		wantErr        string
	}{
		{name: "streamable", url: base + "/mcp", transport: TransportHTTP},
		{name: "sse named", url: base + "/events", typ: "sse", transport: TransportSSE},
		{name: "sse from the url", url: base + "/sse", transport: TransportSSE},
		{name: "a /sse url that speaks streamable HTTP", url: base + "/streamable/sse", transport: TransportSSE},
		{name: "an sse server named http", url: base + "/events", typ: "http", transport: TransportHTTP,
			wantErr: `set "type": "sse"`},
		{name: "nothing at a /sse url", url: base + "/none/sse", transport: TransportSSE,
			wantErr: `neither transport worked at this /sse URL`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ServerConfig{Name: "f", Source: SourceSettings, URL: tc.url, Type: tc.typ}
			if got := cfg.Transport(); got != tc.transport {
				t.Fatalf("transport %q, want %q", got, tc.transport)
			}
			m := newTestManager(t, []ServerConfig{cfg}, nil)
			r := m.Call(context.Background(), "mcp__f__link", nil, nil)
			st, _ := m.Status("f")
			if tc.wantErr != "" {
				if r.OK || !strings.Contains(st.Error, tc.wantErr) {
					t.Fatalf("status error %q, want it to contain %q (result %s)", st.Error, tc.wantErr, r.Content)
				}
				return
			}
			if !r.OK || !strings.Contains(r.Text, "the report is ready") {
				t.Fatalf("call: %s (status %s)", r.Content, st.Summary())
			}
		})
	}
}

func TestProgressExtendsTheTimeout(t *testing.T) {
	base := serveFeatures(t)
	cfg := ServerConfig{Name: "f", Source: SourceSettings, URL: base + "/mcp"}
	cases := []struct {
		name     string
		tool     string
		args     string
		maxCall  time.Duration
		ok       bool
		progress int
		wantErr  string
	}{
		// 6 steps 150ms apart: 900ms in all, longer than the 400ms timeout.
		{name: "progress keeps it going", tool: "work", args: `{"steps":6,"gapMs":150}`, ok: true, progress: 6},
		{name: "no progress times out", tool: "quiet", args: `{"gapMs":1500}`, wantErr: "no answer within 400ms"},
		{name: "progress is bounded by the longest call", tool: "work", args: `{"steps":20,"gapMs":150}`, maxCall: 700 * time.Millisecond,
			wantErr: "no answer and no progress within 400ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.CallTimeout = 400 * time.Millisecond; o.MaxCallTime = tc.maxCall })
			var mu sync.Mutex
			var seen []Progress
			r := m.Call(context.Background(), "mcp__f__"+tc.tool, []byte(tc.args), &CallOptions{Progress: func(p Progress) {
				mu.Lock()
				seen = append(seen, p)
				mu.Unlock()
			}})
			if r.OK != tc.ok {
				t.Fatalf("ok %v, want %v: %s", r.OK, tc.ok, r.Content)
			}
			if tc.wantErr != "" && !strings.Contains(r.Message, tc.wantErr) {
				t.Fatalf("message %q, want %q", r.Message, tc.wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.progress > 0 {
				// The last notification may come after the answer: it is not waited for.
				if len(seen) < tc.progress-1 || len(seen) > tc.progress || seen[0].String() != "1/6 step" {
					t.Fatalf("progress %v", seen)
				}
			}
		})
	}
}

func TestLoggingNotificationsGoToTheLog(t *testing.T) {
	base := serveFeatures(t)
	for _, url := range []string{base + "/mcp", base + "/sse"} {
		m := newTestManager(t, []ServerConfig{{Name: "f", Source: SourceSettings, URL: url}}, nil)
		if r := m.Call(context.Background(), "mcp__f__log", nil, nil); !r.OK {
			t.Fatal(r.Content)
		}
		st, _ := m.Status("f")
		var log string
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			b, _ := os.ReadFile(st.LogPath)
			if log = string(b); strings.Contains(log, "disk almost full") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !strings.Contains(log, "[warning] features: disk almost full") {
			t.Fatalf("%s: log %q", url, log)
		}
		if strings.Contains(log, "below the level") {
			t.Fatalf("%s: a debug message was logged: %q", url, log)
		}
	}
}

func TestElicitation(t *testing.T) {
	base := serveFeatures(t)
	cfg := ServerConfig{Name: "f", Source: SourceSettings, URL: base + "/mcp"}
	cases := []struct {
		name   string
		elicit ElicitFunc
		want   string
	}{
		{name: "accepted: the defaults fill what is left out", elicit: func(_ context.Context, r ElicitRequest) (ElicitResponse, error) {
			if r.Server != "f" || r.Message != "Who are you?" || !strings.Contains(string(r.Schema), `"age"`) {
				t.Errorf("request %+v", r)
			}
			return ElicitResponse{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}, want: `accept {"age":30,"name":"Ada"}`},
		{name: "declined", elicit: func(context.Context, ElicitRequest) (ElicitResponse, error) {
			return ElicitResponse{Action: "decline", Content: map[string]any{"name": "x"}}, nil
		}, want: `decline null`},
		{name: "nobody to ask", want: `does not support elicitation`},
		// The call's 400ms timeout does not run while the user takes a second to answer.
		{name: "a slow answer", elicit: func(context.Context, ElicitRequest) (ElicitResponse, error) {
			time.Sleep(time.Second)
			return ElicitResponse{Action: "accept", Content: map[string]any{"name": "Bo"}}, nil
		}, want: `accept {"age":30,"name":"Bo"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.Elicit = tc.elicit; o.CallTimeout = 400 * time.Millisecond })
			r := m.Call(context.Background(), "mcp__f__ask", nil, nil)
			if got := r.Text + r.Message; !strings.Contains(got, tc.want) {
				t.Fatalf("got %s, want %q", r.Content, tc.want)
			}
		})
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	base := serveFeatures(t)
	m := newTestManager(t, []ServerConfig{{Name: "f", Source: SourceSettings, URL: base + "/sse"}}, nil)
	ctx := context.Background()
	list, templates, err := m.Resources(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[1].URI != "file:///report.txt" || list[1].Description != "the weekly report" {
		t.Fatalf("resources %+v", list)
	}
	if len(templates) != 1 || templates[0].URITemplate != "file:///notes/{day}.md" {
		t.Fatalf("templates %+v", templates)
	}
	contents, err := m.ReadResource(ctx, "f", "file:///report.txt")
	if err != nil || len(contents) != 1 || contents[0].Text != "sales up 4%" {
		t.Fatalf("read: %+v %v", contents, err)
	}
	if _, err := m.ReadResource(ctx, "f", "file:///missing"); err == nil {
		t.Fatal("reading a missing resource succeeded")
	}
	prompts, err := m.Prompts(ctx, "f")
	if err != nil || len(prompts) != 1 || len(prompts[0].Arguments) != 2 || !prompts[0].Arguments[0].Required || prompts[0].Arguments[1].Required {
		t.Fatalf("prompts %+v %v", prompts, err)
	}
	desc, msgs, err := m.GetPrompt(ctx, "f", "review", map[string]string{"file": "main.go", "tone": "kind"})
	if err != nil || desc != "a review" || len(msgs) != 1 || msgs[0].Role != "user" || msgs[0].Text != "Review main.go in a kind tone" {
		t.Fatalf("prompt: %q %+v %v", desc, msgs, err)
	}
	if _, err := m.Prompts(ctx, "nope"); err == nil {
		t.Fatal("an unknown server has prompts")
	}
}

// The model reads a resource link a tool returned through mcp__read_resource.
func TestModelReadsResourceLinks(t *testing.T) {
	base := serveFeatures(t)
	m := newTestManager(t, []ServerConfig{{Name: "f", Source: SourceSettings, URL: base + "/mcp"}}, nil)
	var saved []Attachment
	p := m.Provider(ProviderOptions{Save: func(_ context.Context, a Attachment) (string, error) {
		saved = append(saved, a)
		return "outputs/" + a.Name, nil
	}})
	var def string
	for _, d := range p.Tools() {
		if d.Name == ReadResourceTool {
			def = string(d.Parameters)
		}
	}
	if !strings.Contains(def, `"enum":["f"]`) {
		t.Fatalf("no %s tool for the server: %q", ReadResourceTool, def)
	}
	ctx := context.Background()
	res, _ := p.Call(ctx, "mcp__f__link", nil)
	var link struct {
		ResourceLinks []ResourceLink `json:"resourceLinks"`
	}
	if err := json.Unmarshal([]byte(res.Content), &link); err != nil || len(link.ResourceLinks) != 1 {
		t.Fatalf("link result %s", res.Content)
	}
	args, _ := json.Marshal(map[string]string{"server": "f", "uri": link.ResourceLinks[0].URI})
	cases := []struct {
		args string
		ok   bool
		want string
	}{
		{string(args), true, `"text":"sales up 4%"`},
		{`{"server":"f","uri":"file:///logo.png"}`, true, `"ref":"outputs/resource-1.png"`},
		{`{"server":"g","uri":"file:///x"}`, false, `there is no MCP server`},
		{`{"uri":"file:///x"}`, false, `the arguments must be`},
	}
	for _, tc := range cases {
		r, handled := p.Call(ctx, ReadResourceTool, []byte(tc.args))
		if !handled || r.OK != tc.ok || !strings.Contains(r.Content, tc.want) {
			t.Fatalf("%s: %v %s, want %q", tc.args, r.OK, r.Content, tc.want)
		}
	}
	if len(saved) != 1 || string(saved[0].Data) != "\x89PNG fake" {
		t.Fatalf("saved %+v", saved)
	}
	// A provider narrowed to other servers neither offers nor runs it for this one.
	q := m.Provider(ProviderOptions{Servers: []string{}})
	for _, d := range q.Tools() {
		if d.Name == ReadResourceTool {
			t.Fatal("offered without a server")
		}
	}
	if r, _ := q.Call(ctx, ReadResourceTool, args); r.OK {
		t.Fatal("read through a provider that does not allow the server")
	}
}

func ftext(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}
