// Command fakellm serves a scripted fake OpenAI-compatible API for end-to-end tests of the
// app: it prints FAKE_LLM_URL=<base URL> on stdout and serves until SIGINT or SIGTERM.
//
// Usage:
//
//	go run ./cmd/fakellm -addr 127.0.0.1:0 -script rules.json [-models a,b] [-api-key KEY] [-v]
//	    [-refuse-fields prompt_cache_key,stream_options [-refuse-style openai|pydantic]]
//	    [-refuse-schema-keywords '$schema,additionalProperties'] [-cache openai|deepseek]
//
// The script is a JSON list of rules ({"match", "on_tool_result", "times", "response"});
// its format is documented in package crewagent/backend/llm/fakellm. Without a script
// every request is echoed. GET <base>/../_fakellm/requests lists the received requests.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"crewagent/backend/llm/fakellm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run serves until ctx ends and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	script := fs.String("script", "", "JSON rule file (default: echo every request)")
	models := fs.String("models", "fake-model", "comma-separated model ids listed by GET /v1/models")
	apiKey := fs.String("api-key", "", "require this bearer token (default: accept any request)")
	lenient := fs.Bool("lenient", false, "accept requests the OpenAI API would reject")
	verbose := fs.Bool("v", false, "log each request on stderr")
	refuseFields := fs.String("refuse-fields", "", "comma-separated request fields refused as unknown (e.g. prompt_cache_key,stream_options)")
	refuseStyle := fs.String("refuse-style", fakellm.RefuseOpenAI, "how unknown fields are refused: openai (400) or pydantic (422)")
	refuseKeywords := fs.String("refuse-schema-keywords", "", "comma-separated tool schema keywords refused the way Gemini does (e.g. $schema,additionalProperties)")
	template := fs.String("template", "", "render chats with a strict chat template and refuse what it cannot render: alternating (Mistral, Llama-2) or no-system (Gemma)")
	cache := fs.String("cache", "", "report cached prompt tokens in usage: openai (prompt_tokens_details.cached_tokens) or deepseek (prompt_cache_hit_tokens)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakellm: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	switch *refuseStyle {
	case fakellm.RefuseOpenAI, fakellm.RefusePydantic:
	default:
		fmt.Fprintf(stderr, "fakellm: -refuse-style must be %s or %s\n", fakellm.RefuseOpenAI, fakellm.RefusePydantic)
		return 2
	}
	switch *cache {
	case "", fakellm.CacheOpenAI, fakellm.CacheDeepSeek:
	default:
		fmt.Fprintf(stderr, "fakellm: -cache must be %s or %s\n", fakellm.CacheOpenAI, fakellm.CacheDeepSeek)
		return 2
	}
	switch *template {
	case fakellm.TemplateOpenAI, fakellm.TemplateAlternating, fakellm.TemplateNoSystem:
	default:
		fmt.Fprintf(stderr, "fakellm: -template must be %s or %s\n", fakellm.TemplateAlternating, fakellm.TemplateNoSystem)
		return 2
	}
	var rules []fakellm.Rule
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err != nil {
			fmt.Fprintf(stderr, "fakellm: cannot read the script: %v\n", err)
			return 1
		}
		if rules, err = fakellm.ParseScript(data); err != nil {
			fmt.Fprintf(stderr, "fakellm: %v\n", err)
			return 1
		}
	}
	srv, err := fakellm.NewOnAddr(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "fakellm: cannot listen on %s: %v\n", *addr, err)
		return 1
	}
	defer srv.Close()
	srv.SetModels(strings.Split(*models, ",")...)
	srv.RequireAPIKey(*apiKey)
	srv.SetStrict(!*lenient)
	srv.RefuseFields(*refuseStyle, list(*refuseFields)...)
	srv.RefuseSchemaKeywords(list(*refuseKeywords)...)
	srv.SetCacheReport(*cache)
	srv.SetTemplate(*template)
	responder := fakellm.NewRules(rules...)
	srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		if *verbose {
			fmt.Fprintf(stderr, "fakellm: #%d model=%s stream=%v messages=%d tools=%d last=%q\n",
				r.Seq, r.Model, r.Stream, len(r.Messages), len(r.Tools), clip(r.LastMessage().Text(), 80))
		}
		return responder.Respond(r)
	})
	fmt.Fprintf(stdout, "FAKE_LLM_URL=%s\n", srv.URL())
	<-ctx.Done()
	return 0
}

// list splits a comma-separated flag value, without empty items.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
