package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Rule answers the requests it matches with Response (see the package documentation).
type Rule struct {
	// Match is a case-insensitive substring of the last user message; "*" or "" matches any.
	Match string `json:"match"`
	// OnToolResult restricts the rule to requests whose last message is a tool result
	// (true) or to those whose last message is not (false).
	OnToolResult bool `json:"on_tool_result,omitempty"`
	// Times limits how many requests the rule answers (0: no limit).
	Times    int      `json:"times,omitempty"`
	Response Response `json:"response"`
}

// Rules is a rule-based responder: the first matching rule answers, and a request that no
// rule matches is echoed (Response{Echo: true}). Use its Respond method as a Server default.
type Rules struct {
	mu    sync.Mutex
	rules []Rule
	used  []int
}

// NewRules returns a responder for rules, tried in order.
func NewRules(rules ...Rule) *Rules {
	return &Rules{rules: append([]Rule(nil), rules...), used: make([]int, len(rules))}
}

// Respond picks the Response for req.
func (rs *Rules) Respond(req RecordedRequest) Response {
	lastIsTool := req.LastMessage().Role == "tool"
	text := strings.ToLower(req.LastUserText())
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i, r := range rs.rules {
		if r.OnToolResult != lastIsTool {
			continue
		}
		if r.Times > 0 && rs.used[i] >= r.Times {
			continue
		}
		if r.Match != "" && r.Match != "*" && !strings.Contains(text, strings.ToLower(r.Match)) {
			continue
		}
		rs.used[i]++
		return r.Response
	}
	return Response{Echo: true}
}

// ParseScript decodes a script file: a JSON list of rules. Unknown fields are errors.
func ParseScript(data []byte) ([]Rule, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rules []Rule
	if err := dec.Decode(&rules); err != nil {
		return nil, fmt.Errorf("fakellm script: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("fakellm script: trailing data after the rule list")
	}
	for i, r := range rules {
		if r.Times < 0 {
			return nil, fmt.Errorf("fakellm script: rule %d: negative times", i)
		}
		for j, c := range r.Response.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("fakellm script: rule %d: tool call %d has no name", i, j)
			}
		}
	}
	return rules, nil
}
