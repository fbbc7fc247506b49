package settings

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"crewagent/backend/errs"
)

// Validate checks every value and returns an *Error with code CodeInvalid that
// lists each bad field by its JSON path, or nil. An empty llm.baseUrl is valid
// here (not configured yet); RequireLLM checks that the endpoint is set.
func (s Settings) Validate() error {
	var ps []Problem
	add := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	outOfRange := func(field, key string, got any) {
		params := errs.Params{"got": got}
		ps = append(ps, Problem{Field: field, Message: errs.Text(key, params), Key: key, Params: params})
	}
	positive := func(field string, v int) {
		if v <= 0 {
			outOfRange(field, "settings.positive", v)
		}
	}

	if s.LLM.BaseURL != "" {
		if err := checkBaseURL(s.LLM.BaseURL); err != nil {
			add("llm.baseUrl", "%v", err)
		}
	}
	positive("llm.timeoutSeconds", s.LLM.TimeoutSeconds)
	positive("llm.connectTimeoutSeconds", s.LLM.ConnectTimeoutSeconds)
	positive("llm.firstTokenTimeoutSeconds", s.LLM.FirstTokenTimeoutSeconds)
	positive("llm.idleTimeoutSeconds", s.LLM.IdleTimeoutSeconds)
	if s.LLM.EmbeddingsBaseURL != "" {
		if err := checkBaseURL(s.LLM.EmbeddingsBaseURL); err != nil {
			add("llm.embeddingsBaseUrl", "%v", err)
		}
	}
	if r := s.LLM.RequestShape; r != "" && !slices.Contains(RequestShapes, r) {
		add("llm.requestShape", "must be one of %s, got %q", strings.Join(RequestShapes, ", "), r)
	}
	s.LLM.validateEndpoints(add)
	s.LLM.validatePrices(add)
	if r := s.LLM.ReasoningEffort; r != "" && !slices.Contains(ReasoningEfforts, r) {
		add("llm.reasoningEffort", "must be one of %s (or empty for the server's default), got %q", strings.Join(ReasoningEfforts, ", "), r)
	}
	if s.LLM.MaxRetries < 0 {
		outOfRange("llm.maxRetries", "settings.nonNegative", s.LLM.MaxRetries)
	}

	c := s.Context
	if c.MaxMessages < 0 {
		outOfRange("context.maxMessages", "settings.nonNegativeOff", c.MaxMessages)
	}
	if c.MaxChars < 0 {
		outOfRange("context.maxChars", "settings.nonNegativeOff", c.MaxChars)
	}
	if c.SummaryShare <= 0 || c.SummaryShare > 0.6 {
		add("context.summaryShare", "must be above 0 and at most 0.6, got %v", c.SummaryShare)
	}
	if c.RecallShare < 0 || c.RecallShare > 0.5 {
		add("context.recallShare", "must be between 0 (off) and 0.5, got %v", c.RecallShare)
	}
	positive("context.tokenBudget", c.TokenBudget)
	if c.ReserveForResponse < 0 {
		outOfRange("context.reserveForResponse", "settings.nonNegative", c.ReserveForResponse)
	} else if c.TokenBudget > 0 && c.ReserveForResponse >= c.TokenBudget {
		add("context.reserveForResponse", "must be below context.tokenBudget (%d), got %d", c.TokenBudget, c.ReserveForResponse)
	}
	triggerOK := inOpenUnit(c.TriggerThreshold)
	targetOK := inOpenUnit(c.TargetAfterCompression)
	if !triggerOK {
		add("context.triggerThreshold", "must be between 0 and 1 (exclusive), got %v", c.TriggerThreshold)
	}
	if !targetOK {
		add("context.targetAfterCompression", "must be between 0 and 1 (exclusive), got %v", c.TargetAfterCompression)
	}
	if triggerOK && targetOK && c.TargetAfterCompression >= c.TriggerThreshold {
		add("context.targetAfterCompression", "must be below context.triggerThreshold (%v), got %v", c.TriggerThreshold, c.TargetAfterCompression)
	}
	switch c.CompressionStrategy {
	case StrategyKeyMessages, StrategyLLMSummary:
	default:
		add("context.compressionStrategy", "must be %q or %q, got %q", StrategyKeyMessages, StrategyLLMSummary, c.CompressionStrategy)
	}

	positive("tools.fs.maxReadBytes", s.Tools.FS.MaxReadBytes)
	positive("tools.fs.maxWriteBytes", s.Tools.FS.MaxWriteBytes)
	for i, name := range s.Tools.MCP.AllowedServers {
		if name == "" {
			add(fmt.Sprintf("tools.mcp.allowedServers[%d]", i), "must not be empty")
		}
	}
	positive("tools.mcp.callTimeoutSeconds", s.Tools.MCP.CallTimeoutSeconds)
	positive("tools.mcp.maxToolsPerServer", s.Tools.MCP.MaxToolsPerServer)
	positive("tools.mcp.maxToolTokensPerServer", s.Tools.MCP.MaxToolTokensPerServer)
	if a := s.Approvals; a != nil && a.Mode != "" && !slices.Contains(ApprovalModes, a.Mode) {
		add("approvals.mode", "must be one of %s, got %q", strings.Join(ApprovalModes, ", "), a.Mode)
	}
	positive("tools.shell.timeoutSeconds", s.Tools.Shell.TimeoutSeconds)
	positive("engine.maxTurns", s.Engine.MaxTurns)
	positive("engine.maxToolCallsPerMessage", s.Engine.MaxToolCallsPerMessage)
	if s.Engine.MaxInterruptChainDepth < 0 {
		outOfRange("engine.maxInterruptChainDepth", "settings.nonNegative", s.Engine.MaxInterruptChainDepth)
	}
	positive("engine.maxConversationsPerMessage", s.Engine.MaxConversationsPerMessage)
	positive("engine.maxModelCallsPerMessage", s.Engine.MaxModelCallsPerMessage)
	switch s.Theme {
	case ThemeLight, ThemeDark, ThemeSystem:
	default:
		add("theme", "must be %q, %q or %q, got %q", ThemeSystem, ThemeLight, ThemeDark, s.Theme)
	}
	return problemsError(CodeInvalid, "invalid settings: ", ps)
}

// RequireLLM returns an *Error with code CodeLLMNotConfigured when the base URL
// or the model is not set; call it before talking to the LLM.
func (s Settings) RequireLLM() error {
	var ps []Problem
	if s.LLM.BaseURL == "" {
		ps = append(ps, Problem{Field: "llm.baseUrl", Message: "not set (set it in Settings or with CREWAGENT_LLM_BASE_URL, e.g. http://127.0.0.1:11434/v1)"})
	}
	if s.LLM.Model == "" {
		ps = append(ps, Problem{Field: "llm.model", Message: "not set (set it in Settings or with CREWAGENT_LLM_MODEL)"})
	}
	return problemsError(CodeLLMNotConfigured, "LLM not configured: ", ps)
}

func inOpenUnit(v float64) bool { return v > 0 && v < 1 }

func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL (e.g. http://127.0.0.1:11434/v1)", raw)
	}
	return nil
}

// Warnings lists the values of settings read from settings.json that are
// out of range (those Validate refuses), each saying what is used instead.
// They are not errors: the runtime goes on with its fallback, and the
// command line and Settings show these so that nothing is used silently.
func (s Settings) Warnings() []Problem {
	ps := ProblemsOf(s.Validate())
	// A reply reserve not below the token budget is capped at a quarter of it
	// by design (a small budget with the default reserve): only a negative one
	// is out of range.
	ps = slices.DeleteFunc(ps, func(p Problem) bool {
		return p.Field == "context.reserveForResponse" && s.Context.ReserveForResponse >= 0
	})
	d := Defaults()
	n := func(key string, v int) errs.Words { return errs.Say(key, errs.Params{"n": v}) }
	instead := map[string]errs.Words{
		"context.tokenBudget":               n("settings.instead.defaultTokens", d.Context.TokenBudget),
		"context.reserveForResponse":        errs.Say("settings.instead.zero", nil),
		"context.maxMessages":               errs.Say("settings.instead.zeroOff", nil),
		"context.maxChars":                  errs.Say("settings.instead.zeroOff", nil),
		"llm.timeoutSeconds":                errs.Say("settings.instead.clientDefault", nil),
		"llm.connectTimeoutSeconds":         errs.Say("settings.instead.clientDefault", nil),
		"llm.firstTokenTimeoutSeconds":      errs.Say("settings.instead.clientDefault", nil),
		"llm.idleTimeoutSeconds":            errs.Say("settings.instead.clientDefault", nil),
		"llm.requestShape":                  errs.Say("settings.instead.auto", nil),
		"llm.reasoningEffort":               errs.Say("settings.instead.serverDefault", nil),
		"tools.fs.maxReadBytes":             n("settings.instead.defaultBytes", d.Tools.FS.MaxReadBytes),
		"tools.fs.maxWriteBytes":            n("settings.instead.defaultBytes", d.Tools.FS.MaxWriteBytes),
		"tools.mcp.maxToolsPerServer":       n("settings.instead.default", DefaultMaxToolsPerServer),
		"tools.mcp.maxToolTokensPerServer":  n("settings.instead.defaultTokens", DefaultMaxToolTokensPerServer),
		"engine.maxTurns":                   n("settings.instead.default", d.Engine.MaxTurns),
		"engine.maxToolCallsPerMessage":     n("settings.instead.default", d.Engine.MaxToolCallsPerMessage),
		"engine.maxInterruptChainDepth":     errs.Say("settings.instead.noHandover", nil),
		"engine.maxConversationsPerMessage": n("settings.instead.default", DefaultMaxConversationsPerMessage),
		"engine.maxModelCallsPerMessage":    n("settings.instead.default", DefaultMaxModelCallsPerMessage),
	}
	for i := range ps {
		what, ok := instead[ps[i].Field]
		switch {
		case ps[i].Key == "" && ok:
			ps[i].Message += ": " + what.String() + " until it is corrected"
		case ps[i].Key == "":
			ps[i].Message += ": correct it in Settings or in settings.json"
		default:
			// Said from templates: the problem, then what is used meanwhile.
			p := errs.Params{"problem": errs.Say(ps[i].Key, ps[i].Params)}
			key := "settings.warnCorrect"
			if ok {
				key, p["instead"] = "settings.warnInstead", what
			}
			ps[i].Key, ps[i].Params, ps[i].Message = key, p, errs.Text(key, p)
		}
	}
	return ps
}
