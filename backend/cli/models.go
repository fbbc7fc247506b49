package cli

import (
	"crewagent/backend/conversation"
	"fmt"
	"strings"
)

// cmdModels lists the endpoints of the settings with their models, asking
// each server for its list.
func cmdModels(e *env, _ []string) error {
	rt, err := e.runtime()
	if err != nil {
		return err
	}
	list := rt.Models(e.ctx)
	return e.print(list, func() {
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "no LLM endpoint is configured: set llm.baseUrl (or CREWAGENT_LLM_BASE_URL), and more servers in llm.endpoints")
			return
		}
		for _, ep := range list {
			fmt.Fprintf(e.stdout, "%s  %s\n", ep.Name, ep.BaseURL)
			if ep.Error != "" {
				fmt.Fprintf(e.stdout, "  (%s)\n", ep.Error)
			}
			for _, m := range ep.Models {
				mark := ""
				if m == ep.Default {
					mark = "  (default)"
				}
				fmt.Fprintf(e.stdout, "  %s%s\n", m, mark)
			}
			if len(ep.Models) == 0 && ep.Error == "" {
				fmt.Fprintln(e.stdout, "  (the server lists no model)")
			}
		}
		fmt.Fprintln(e.stdout, strings.TrimSpace("choose one for a conversation with: crewagent chat --conversation ID [--endpoint NAME] --model MODEL ..."))
	})
}

// cmdUsage prints what the project's conversations used, and cost where
// llm.prices has their models.
func cmdUsage(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	rep, err := ws.Usage()
	if err != nil {
		return err
	}
	return e.print(rep, func() {
		if len(rep.Conversations) == 0 {
			fmt.Fprintln(e.stdout, "no model calls in this project yet")
			return
		}
		for _, c := range rep.Conversations {
			fmt.Fprintf(e.stdout, "%s  %s  %s\n", c.ID, c.Title, usageLine(c.Usage.PromptTokens, c.Usage.CompletionTokens, c.Usage.CachedTokens, c.Usage.Calls, c.Cost))
		}
		t := rep.Total
		fmt.Fprintf(e.stdout, "total  %d conversations  %s\n", len(rep.Conversations), usageLine(t.PromptTokens, t.CompletionTokens, t.CachedTokens, t.Calls, rep.Cost))
		if rep.Cost != nil && len(rep.Cost.Unpriced) > 0 {
			fmt.Fprintf(e.stdout, "no price for %s (llm.prices in settings): not counted in the cost\n", strings.Join(quoted(rep.Cost.Unpriced), ", "))
		}
	})
}

func usageLine(in, out, cached, calls int, cost *conversation.Cost) string {
	s := fmt.Sprintf("%d calls, %d tokens in (%d cached), %d out", calls, in, cached, out)
	if cost != nil {
		s += fmt.Sprintf(", %.4f %s", cost.Amount, cost.Currency)
	}
	return s
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if n == "" {
			n = "answers of an unknown model"
		} else {
			n = fmt.Sprintf("%q", n)
		}
		out[i] = n
	}
	return out
}
