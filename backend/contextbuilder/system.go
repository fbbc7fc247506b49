package contextbuilder

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"crewagent/backend/conversation"
)

//go:embed templates/*.md
var templateFS embed.FS

// prompts holds the parsed prompt templates. It is built once at package
// initialisation and only read afterwards (template execution is safe for
// concurrent use).
var prompts = template.Must(template.New("prompts").
	Funcs(template.FuncMap{"join": strings.Join}).
	ParseFS(templateFS, "templates/*.md"))

// systemPart is one rendered section of the system prompt.
type systemPart struct {
	name string // row reason
	text string
}

// composeSystem renders the system prompt of mode: base rules, tool policy,
// persona (agent and run only), the instructions of a conversation created
// by another one, the skills registry (when there is one) and the mode
// banner, one system message each.
// The run directive protocol is deliberately absent: it travels in the
// RUN_DIRECTIVE user block of the run injector.
func composeSystem(mode string, persona *Persona, instructions string, memory []MemoryFile, policy ToolPolicy, toolNames []string, skills string) ([]systemPart, error) {
	base := "system-base-rules-chat.md"
	if mode == conversation.ModeRun {
		base = "system-base-rules-run.md"
	}
	var parts []systemPart
	add := func(name, tmpl string, data any) error {
		var b strings.Builder
		if err := prompts.ExecuteTemplate(&b, tmpl, data); err != nil {
			return &Error{Code: CodeTemplate, Message: fmt.Sprintf("rendering %s: %v", tmpl, err)}
		}
		parts = append(parts, systemPart{name: name, text: strings.TrimSpace(b.String())})
		return nil
	}
	if err := add("system prompt: base rules ("+strings.TrimSuffix(strings.TrimPrefix(base, "system-base-rules-"), ".md")+")", base, nil); err != nil {
		return nil, err
	}
	if err := add("system prompt: tool policy", "system-tool-policy.md", policyView(policy, toolNames)); err != nil {
		return nil, err
	}
	if mode != conversation.ModeChat && persona != nil {
		if err := add("system prompt: persona "+persona.ID, "persona.md", personaView(persona)); err != nil {
			return nil, err
		}
	}
	if in := strings.TrimSpace(instructions); in != "" {
		if err := add("system prompt: conversation instructions", "conversation-instructions.md", in); err != nil {
			return nil, err
		}
	}
	for _, m := range memory {
		if strings.TrimSpace(m.Text) == "" {
			continue
		}
		parts = append(parts, systemPart{name: "project instructions: " + m.Path, text: memoryText(m)})
	}
	if skills = strings.TrimSpace(skills); skills != "" {
		parts = append(parts, systemPart{name: "system prompt: skills", text: skills})
	}
	if err := add("system prompt: mode banner", "mode-banner.md", struct{ Mode string }{mode}); err != nil {
		return nil, err
	}
	return parts, nil
}

type policyData struct {
	Tools                            []string
	HasFS, HasRead, HasWrite, HasAsk bool
	HasConv                          bool
	ReadLimit, WriteLimit            string
	MCPServers                       []string
}

func policyView(p ToolPolicy, toolNames []string) policyData {
	tools := p.Enabled
	if len(tools) == 0 {
		tools = toolNames
	}
	d := policyData{Tools: tools, MCPServers: p.MCPServers}
	for _, t := range tools {
		if conversation.ToolFamily(t) == conversation.ToolFamilyFS {
			d.HasFS = true
		}
	}
	d.HasRead = slices.Contains(tools, conversation.ToolFSRead)
	d.HasWrite = slices.Contains(tools, conversation.ToolFSWrite)
	d.HasAsk = slices.Contains(tools, conversation.ToolUIAskUser)
	d.HasConv = slices.Contains(tools, conversation.ToolConvCreate) || slices.Contains(tools, conversation.ToolConvSend)
	r, w := p.MaxReadBytes, p.MaxWriteBytes
	if r <= 0 {
		r = DefaultMaxReadBytes
	}
	if w <= 0 {
		w = DefaultMaxWriteBytes
	}
	d.ReadLimit, d.WriteLimit = formatBytes(r), formatBytes(w)
	return d
}

// formatBytes renders a byte limit as "512 KiB (524288 bytes)".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// nonEmpty returns the trimmed, non-blank items of in.
func nonEmpty(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

type personaData struct {
	Persona
	DisplayName string
}

func personaView(p *Persona) personaData {
	d := personaData{Persona: *p, DisplayName: strings.TrimSpace(p.Name)}
	if d.DisplayName == "" {
		d.DisplayName = p.ID
	}
	d.Principles = nonEmpty(p.Principles)
	d.CriticalActions = nonEmpty(p.CriticalActions)
	d.SystemPrompt = strings.TrimSpace(p.SystemPrompt)
	return d
}

// memoryText is the system message of one project instruction file.
func memoryText(m MemoryFile) string {
	var b strings.Builder
	b.WriteString(MemoryPrefix + "\n")
	b.WriteString("The project's own instructions, from " + m.Path + ". Follow them in this project unless the user says otherwise.\n\n")
	b.WriteString(strings.TrimRight(m.Text, "\n"))
	if m.Truncated {
		fmt.Fprintf(&b, "\n\n(The file is %d bytes; only its beginning is above. Read the rest with fs.read.)", m.Size)
	}
	return b.String()
}
