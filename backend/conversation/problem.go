package conversation

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"crewagent/backend/errs"
)

// Problem says in words what a failed reply ran into and what to do about
// it; the code and the server's own message stay in the ErrorBlock, for the
// details.
type Problem struct {
	// Title is what went wrong, as a sentence without codes.
	Title string `json:"title"`
	// Advice is what to do (may be empty).
	Advice string `json:"advice,omitempty"`
	// Settings is true when the fix lies in the LLM settings (address, key,
	// model, limits).
	Settings bool `json:"settings,omitempty"`
}

// IsStop reports whether a failure block records a reply that was stopped
// (the Stop button, Esc, or the app closing) rather than one that failed.
func IsStop(b ErrorBlock) bool { return b.Code == errs.LLMAborted || b.Code == errs.Aborted }

// contains reports whether s holds any of the fragments (s lower-cased).
func contains(s string, fragments ...string) bool {
	s = strings.ToLower(s)
	for _, f := range fragments {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// Describe says what a failure block means for the person reading the
// conversation. It is the one place where codes and server messages become
// sentences.
func Describe(b ErrorBlock) Problem {
	where := "the configured address"
	if b.Provider != "" {
		where = b.Provider
	}
	msg := b.Message
	switch b.Code {
	case errs.LLMAborted, errs.Aborted:
		return Problem{Title: "Stopped", Advice: "The answer was stopped before it was complete."}
	case errs.LLMNotConfigured, "LLM_NOT_CONFIGURED":
		return Problem{Title: "No model is set up yet", Advice: "Set the server address and the model in Settings.", Settings: true}
	case errs.LLMNetwork:
		switch {
		case contains(msg, "connection refused", "no such host", "dial tcp", "dial udp", "network is unreachable",
			"no route to host", "connect:", "server misbehaving", "host is down"):
			return Problem{Title: "Can't reach the model server",
				Advice:   "Nothing answered at " + where + ". Check that the server is running and that its address in Settings is right.",
				Settings: true}
		case contains(msg, "closed before", "eof", "connection reset", "broken pipe", "stream"):
			return Problem{Title: "The connection broke off in the middle of the answer",
				Advice: "The server closed the connection before the answer was complete."}
		}
		return Problem{Title: "A network problem interrupted the answer", Advice: "Check the connection to " + where + " and try again."}
	case errs.LLMStreamIncomplete:
		return Problem{Title: "The connection broke off in the middle of the answer",
			Advice: "The server stopped sending before the answer was complete; what had arrived is kept."}
	case errs.LLMAuth:
		return Problem{Title: "The server refused the API key", Advice: "Check the API key in Settings.", Settings: true}
	case errs.LLMRateLimit:
		if contains(msg, "quota", "billing", "credit") {
			return Problem{Title: "The API key's quota is used up", Advice: "Check the plan or the billing of the account, or use another key in Settings.", Settings: true}
		}
		advice := "The server asks to slow down: wait a little, then try again."
		if b.RetryAfter > 0 {
			advice = "The server asks to slow down: try again in " + humanDuration(b.RetryAfter) + "."
		}
		return Problem{Title: "Too many requests for now", Advice: advice}
	case errs.LLMTimeout:
		switch {
		case contains(msg, "stalled", "idle"):
			return Problem{Title: "The answer stalled", Advice: "No more text arrived for a while. Try again; if it keeps happening, raise the timeouts in Settings.", Settings: true}
		case contains(msg, "connecting"):
			return Problem{Title: "Can't reach the model server", Advice: "Connecting to " + where + " timed out. Check the address in Settings and that the server is running.", Settings: true}
		}
		return Problem{Title: "The model took too long to answer", Advice: "It may be loading or busy. Try again; if it keeps happening, raise the timeouts in Settings.", Settings: true}
	case errs.LLMServer:
		title := "The model server had an internal error"
		if b.Status != 0 {
			title += fmt.Sprintf(" (HTTP %d)", b.Status)
		}
		return Problem{Title: title, Advice: "This is on the server's side: try again in a moment."}
	case errs.LLMContextLength:
		return Problem{Title: "The conversation is too long for the model",
			Advice:   "Start a new conversation or fork an earlier point of this one, or set the context budget in Settings to what the model takes.",
			Settings: true}
	case errs.ContextTooLarge:
		return Problem{Title: "This step does not fit in the model's context",
			Advice:   "Even with the history compressed, the newest message and this step's tool results are over the limit, so nothing was sent. Ask for a smaller step, or raise the context budget in Settings if the model takes more.",
			Settings: true}
	case errs.MaxTurnsExceeded:
		return Problem{Title: "Stopped after too many tool steps", Advice: "The model kept calling tools without finishing its answer."}
	case errs.ConvBudget:
		return Problem{Title: "Stopped: this message's work reached its budget",
			Advice:   "The conversations it handed work to made as many model calls as one message may (engine.maxModelCallsPerMessage in Settings). Read what they wrote, then send a new message to go on.",
			Settings: true}
	case errs.LoopDetected:
		return Problem{Title: "Stopped a tool call that kept failing", Advice: "The model repeated the same failing call. The details say which; tell it what to do differently."}
	case errs.LLMBadResponse:
		switch {
		case modelMissing.MatchString(msg):
			return Problem{Title: "The server doesn't have this model", Advice: "Choose a model it serves in Settings (Test connection lists them).", Settings: true}
		case b.Status == 404:
			return Problem{Title: "Nothing answers at this address", Advice: "The server said “not found”: check the base URL in Settings (it usually ends in /v1).", Settings: true}
		case b.Status == 400 || b.Status == 422:
			return Problem{Title: "The server rejected the request", Advice: "The details below say why."}
		}
		return Problem{Title: "The server's answer could not be read", Advice: "It does not look like an OpenAI-compatible answer: check the base URL in Settings.", Settings: true}
	}
	return Problem{Title: "The answer failed", Advice: "The details below say why."}
}

// modelMissing matches what servers say of a model they do not serve
// (OpenAI, Ollama, vLLM, LM Studio, llama.cpp).
var modelMissing = regexp.MustCompile("(?i)model[^.;()]{0,80}?(not found|does not exist|doesn't exist|not available|not loaded)|unknown model|no such model|model_not_found")

// humanDuration says a short wait in words ("20 seconds", "2 minutes").
func humanDuration(d time.Duration) string {
	switch s := int(d.Round(time.Second) / time.Second); {
	case s <= 1:
		return "a second"
	case s < 90:
		return fmt.Sprintf("%d seconds", s)
	default:
		return fmt.Sprintf("%d minutes", (s+30)/60)
	}
}
