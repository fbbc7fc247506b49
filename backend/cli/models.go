package cli

import (
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
