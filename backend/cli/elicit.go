package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"crewagent/backend/mcp"
)

// Elicitation on the command line: an MCP server that asks the user for input during a
// call (a form, or a page to open) is answered on the terminal, between the approvals.
// When stdin is not a terminal nobody can be asked: servers are not told they may ask,
// and those that ask anyway are refused.

// elicitField is one property of a requested form.
type elicitField struct {
	name     string
	typ      string
	title    string
	desc     string
	enum     []string
	def      any
	required bool
}

// elicitFields reads the flat object schema of a form (the only shape servers may ask
// for), required fields first, then by name.
func elicitFields(schema json.RawMessage) []elicitField {
	var s struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
			OneOf       []struct {
				Const string `json:"const"`
			} `json:"oneOf"`
			Default any `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	var out []elicitField
	for name, p := range s.Properties {
		f := elicitField{name: name, typ: p.Type, title: p.Title, desc: p.Description, enum: p.Enum, def: p.Default}
		for _, o := range p.OneOf {
			f.enum = append(f.enum, o.Const)
		}
		for _, r := range s.Required {
			f.required = f.required || r == name
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].required != out[j].required {
			return out[i].required
		}
		return out[i].name < out[j].name
	})
	return out
}

// parse turns what the user typed into the field's value.
func (f elicitField) parse(s string) (any, error) {
	if len(f.enum) > 0 {
		for _, e := range f.enum {
			if s == e {
				return s, nil
			}
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(f.enum) {
			return f.enum[n-1], nil
		}
		return nil, fmt.Errorf("choose one of %s", strings.Join(f.enum, ", "))
	}
	switch f.typ {
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("a whole number, please")
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("a number, please")
		}
		return n, nil
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("yes or no, please")
	}
	return s, nil
}

// elicit asks on the terminal what a server asks for.
func (p *prompter) elicit(_ context.Context, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reader()
	if p.e.printer != nil {
		p.e.printer.finish()
	}
	w := p.e.stderr
	fmt.Fprintf(w, "\n── the MCP server %q asks ──\n%s\n", r.Server, strings.TrimSpace(r.Message))
	if r.Mode == "url" {
		fmt.Fprintf(w, "Open: %s\n", r.URL)
	}
	readLine := func(prompt string) (string, bool) {
		fmt.Fprint(w, prompt)
		line, err := p.in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(w)
			return "", false
		}
		return strings.TrimSpace(line), true
	}
	for {
		q := "Answer? [y]es / [n]o (decline) / [c]ancel: "
		if r.Mode == "url" {
			q = "Done? [y]es / [n]o (decline) / [c]ancel: "
		}
		word, ok := readLine(q)
		if !ok {
			return mcp.ElicitResponse{Action: "cancel"}, nil
		}
		switch strings.ToLower(word) {
		case "y", "yes":
		case "n", "no":
			return mcp.ElicitResponse{Action: "decline"}, nil
		case "c", "cancel":
			return mcp.ElicitResponse{Action: "cancel"}, nil
		default:
			continue
		}
		break
	}
	if r.Mode == "url" {
		return mcp.ElicitResponse{Action: "accept"}, nil
	}
	content := map[string]any{}
	for _, f := range elicitFields(r.Schema) {
		label := f.name
		if f.title != "" {
			label = f.title + " (" + f.name + ")"
		}
		var hints []string
		if f.desc != "" {
			hints = append(hints, f.desc)
		}
		if len(f.enum) > 0 {
			hints = append(hints, "one of "+strings.Join(f.enum, ", "))
		} else if f.typ != "" && f.typ != "string" {
			hints = append(hints, f.typ)
		}
		if f.def != nil {
			hints = append(hints, fmt.Sprintf("Enter for %v", f.def))
		} else if !f.required {
			hints = append(hints, "Enter to leave it out")
		}
		prompt := label
		if len(hints) > 0 {
			prompt += " [" + strings.Join(hints, "; ") + "]"
		}
		for {
			s, ok := readLine(prompt + ": ")
			if !ok {
				return mcp.ElicitResponse{Action: "cancel"}, nil
			}
			if s == "" {
				if f.def != nil || !f.required {
					break // the default is applied by the client
				}
				fmt.Fprintln(w, "  this field is required")
				continue
			}
			v, err := f.parse(s)
			if err != nil {
				fmt.Fprintf(w, "  %v\n", err)
				continue
			}
			content[f.name] = v
			break
		}
	}
	return mcp.ElicitResponse{Action: "accept", Content: content}, nil
}
