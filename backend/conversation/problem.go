package conversation

import (
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
	// TitleKey and AdviceKey name the templates of errs.Messages the title
	// and the advice were made from, and Params the values they name: the
	// window says them in the user's language.
	TitleKey  string      `json:"titleKey,omitempty"`
	AdviceKey string      `json:"adviceKey,omitempty"`
	Params    errs.Params `json:"params,omitempty"`
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
// sentences; each is a template of errs.Messages (problem.<what>.title and
// .advice), which the window says in the user's language.
func Describe(b ErrorBlock) Problem {
	where := errs.Params{"where": b.Provider}
	addr := "atProvider"
	if b.Provider == "" {
		addr = "atAddress"
	}
	msg := b.Message
	switch b.Code {
	case errs.LLMAborted, errs.Aborted:
		return problem("stopped", "stopped", false, nil)
	case errs.LLMNotConfigured, "LLM_NOT_CONFIGURED":
		return problem("notConfigured", "notConfigured", true, nil)
	case errs.LLMNetwork:
		switch {
		case contains(msg, "connection refused", "no such host", "dial tcp", "dial udp", "network is unreachable",
			"no route to host", "connect:", "server misbehaving", "host is down"):
			return problem("unreachable", addr+"Refused", true, where)
		case contains(msg, "closed before", "eof", "connection reset", "broken pipe", "stream"):
			return problem("brokeOff", "brokeOffClosed", false, nil)
		}
		return problem("network", addr+"Network", false, where)
	case errs.LLMStreamIncomplete:
		return problem("brokeOff", "brokeOffKept", false, nil)
	case errs.LLMAuth:
		return problem("auth", "auth", true, nil)
	case errs.LLMRateLimit:
		if contains(msg, "quota", "billing", "credit") {
			return problem("quota", "quota", true, nil)
		}
		switch s := int(b.RetryAfter.Round(time.Second) / time.Second); {
		case b.RetryAfter <= 0:
			return problem("rateLimit", "rateLimit", false, nil)
		case s <= 1:
			return problem("rateLimit", "rateLimitSecond", false, nil)
		case s < 90:
			return problem("rateLimit", "rateLimitSeconds", false, errs.Params{"n": s})
		default:
			return problem("rateLimit", "rateLimitMinutes", false, errs.Params{"n": (s + 30) / 60})
		}
	case errs.LLMTimeout:
		switch {
		case contains(msg, "stalled", "idle"):
			return problem("stalled", "stalled", true, nil)
		case contains(msg, "connecting"):
			return problem("unreachable", addr+"Timeout", true, where)
		}
		return problem("slow", "slow", true, nil)
	case errs.LLMServer:
		if b.Status != 0 {
			return problem("serverStatus", "server", false, errs.Params{"status": b.Status})
		}
		return problem("server", "server", false, nil)
	case errs.LLMContextLength:
		return problem("contextLength", "contextLength", true, nil)
	case errs.ContextTooLarge:
		return problem("contextTooLarge", "contextTooLarge", true, nil)
	case errs.MaxTurnsExceeded:
		return problem("maxTurns", "maxTurns", false, nil)
	case errs.ConvBudget:
		return problem("budget", "budget", true, nil)
	case errs.LoopDetected:
		return problem("loop", "loop", false, nil)
	case errs.LLMBadResponse:
		switch {
		case modelMissing.MatchString(msg):
			return problem("noModel", "noModel", true, nil)
		case b.Status == 404:
			return problem("notFound", "notFound", true, nil)
		case b.Status == 400 || b.Status == 422:
			return problem("rejected", "seeDetails", false, nil)
		}
		return problem("unreadable", "unreadable", true, nil)
	}
	return problem("failed", "seeDetails", false, nil)
}

// problem is the Problem of the templates problem.<title>.title and
// problem.<advice>.advice filled with params.
func problem(title, advice string, settings bool, params errs.Params) Problem {
	tk, ak := "problem."+title+".title", "problem."+advice+".advice"
	return Problem{Title: errs.Text(tk, params), Advice: errs.Text(ak, params), Settings: settings,
		TitleKey: tk, AdviceKey: ak, Params: params}
}

// modelMissing matches what servers say of a model they do not serve
// (OpenAI, Ollama, vLLM, LM Studio, llama.cpp).
var modelMissing = regexp.MustCompile("(?i)model[^.;()]{0,80}?(not found|does not exist|doesn't exist|not available|not loaded)|unknown model|no such model|model_not_found")
