package conversation

import (
	"strings"
	"testing"
	"time"

	"crewagent/backend/errs"
)

// Every failure Describe can say is a pair of templates the window has,
// filled with their values: the title and the advice are their English.
func TestDescribeSaysEveryFailureByItsTemplates(t *testing.T) {
	messages := []string{"", "dial tcp 127.0.0.1:1: connect: connection refused", "the connection closed before the answer", "stalled: no data",
		"timed out connecting", "insufficient_quota: check your billing", "model 'x' not found"}
	statuses := []int{0, 400, 404, 500}
	seen := map[string]bool{}
	for _, e := range errs.Catalogue {
		for _, code := range append([]string{e.Code}, e.Replaces...) {
			for _, msg := range messages {
				for _, status := range statuses {
					for _, provider := range []string{"", "127.0.0.1:1"} {
						for _, wait := range []time.Duration{0, time.Second, 20 * time.Second, 5 * time.Minute} {
							b := ErrorBlock{Code: code, Message: msg, Status: status, Provider: provider, RetryAfter: wait}
							p := Describe(b)
							for _, part := range []struct{ key, text string }{{p.TitleKey, p.Title}, {p.AdviceKey, p.Advice}} {
								if _, ok := errs.Messages[part.key]; !ok {
									t.Fatalf("Describe(%+v): %q is not a template", b, part.key)
								}
								if part.text != errs.Text(part.key, p.Params) || part.text == "" || strings.Contains(part.text, "{{") {
									t.Fatalf("Describe(%+v): %q is not its template %q filled", b, part.text, part.key)
								}
								seen[part.key] = true
							}
						}
					}
				}
			}
		}
	}
	for key := range errs.Messages {
		if strings.HasPrefix(key, "problem.") && !seen[key] {
			t.Errorf("the template %s is never said", key)
		}
	}
}
