package packages

import (
	"encoding/json"
	"strings"
	"time"
)

// Manifest is bmad.json.
type Manifest struct {
	SchemaVersion string             `json:"schemaVersion"`
	Name          string             `json:"name"`
	Version       string             `json:"version"`
	Description   string             `json:"description,omitempty"`
	Author        string             `json:"author,omitempty"`
	CreatedAt     string             `json:"createdAt,omitempty"`
	Entry         ManifestEntry      `json:"entry"`
	Workflows     []ManifestWorkflow `json:"workflows,omitempty"`
	Runtime       *ManifestRuntime   `json:"runtime,omitempty"`
	Integrity     *ManifestIntegrity `json:"integrity,omitempty"`
}

// ManifestEntry names the default workflow, its graph and the agents file.
type ManifestEntry struct {
	Workflow  string `json:"workflow"`
	Graph     string `json:"graph"`
	Agents    string `json:"agents"`
	AssetsDir string `json:"assetsDir,omitempty"`
}

// ManifestWorkflow is one item of bmad.json workflows[].
type ManifestWorkflow struct {
	ID          string   `json:"id"`
	DisplayName string   `json:"displayName,omitempty"`
	Description string   `json:"description,omitempty"`
	Workflow    string   `json:"workflow"`
	Graph       string   `json:"graph"`
	Tags        []string `json:"tags,omitempty"`
}

// ManifestRuntime is bmad.json runtime.
type ManifestRuntime struct {
	MinRuntimeVersion string `json:"minRuntimeVersion,omitempty"`
	RequiresNetwork   bool   `json:"requiresNetwork,omitempty"`
}

// ManifestIntegrity is bmad.json integrity.
type ManifestIntegrity struct {
	SHA256 string `json:"sha256,omitempty"`
}

// Agent is one persona of agents.json.
type Agent struct {
	ID                      string           `json:"id"`
	Metadata                AgentMetadata    `json:"metadata"`
	Persona                 Persona          `json:"persona"`
	CriticalActions         []string         `json:"critical_actions,omitempty"`
	Prompts                 []AgentPrompt    `json:"prompts,omitempty"`
	Menu                    []map[string]any `json:"menu,omitempty"`
	SystemPrompt            string           `json:"systemPrompt,omitempty"`
	UserPromptTemplate      string           `json:"userPromptTemplate,omitempty"`
	Discussion              bool             `json:"discussion,omitempty"`
	WebSkip                 bool             `json:"webskip,omitempty"`
	ConversationalKnowledge []map[string]any `json:"conversational_knowledge,omitempty"`
	// Tools is the agent's tool policy with defaults applied (fs on, mcp off; zero limits
	// mean the agent sets none and the runtime settings decide).
	Tools ToolPolicy `json:"tools"`
}

// AgentMetadata is an agent's display information.
type AgentMetadata struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Icon        string `json:"icon"`
	Module      string `json:"module,omitempty"`
	Description string `json:"description,omitempty"`
	SourceID    string `json:"sourceId,omitempty"`
}

// Persona is how an agent behaves.
type Persona struct {
	Role               string     `json:"role"`
	Identity           string     `json:"identity"`
	CommunicationStyle string     `json:"communication_style"`
	Principles         Principles `json:"principles"`
}

// Principles is a persona's principles: a list in JSON, or a single (possibly multi-line)
// string, which becomes a one-element list.
type Principles []string

// UnmarshalJSON accepts a string or a list of strings.
func (p *Principles) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*p = Principles{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*p = l
	return nil
}

// String joins the principles one per line.
func (p Principles) String() string { return strings.Join(p, "\n") }

// AgentPrompt is one item of an agent's prompts[].
type AgentPrompt struct {
	ID          string `json:"id"`
	Content     string `json:"content"`
	Description string `json:"description,omitempty"`
}

// ToolPolicy is what an agent may use. An agent can only tighten the runtime's settings.
type ToolPolicy struct {
	FS    FSPolicy    `json:"fs"`
	MCP   MCPPolicy   `json:"mcp"`
	Shell ShellPolicy `json:"shell"`
}

// ShellPolicy controls the command tool (shell.run); on unless the agent turns it off.
type ShellPolicy struct {
	Enabled bool `json:"enabled"`
}

// FSPolicy controls the fs.* tools. Zero limits mean "not set by the agent".
type FSPolicy struct {
	Enabled       bool  `json:"enabled"`
	MaxReadBytes  int64 `json:"maxReadBytes,omitempty"`
	MaxWriteBytes int64 `json:"maxWriteBytes,omitempty"`
}

// MCPPolicy controls MCP tools.
type MCPPolicy struct {
	Enabled        bool     `json:"enabled"`
	AllowedServers []string `json:"allowedServers,omitempty"`
}

// rawToolPolicy distinguishes absent from false while decoding agents.json.
type rawToolPolicy struct {
	FS *struct {
		Enabled       *bool `json:"enabled"`
		MaxReadBytes  int64 `json:"maxReadBytes"`
		MaxWriteBytes int64 `json:"maxWriteBytes"`
	} `json:"fs"`
	MCP *struct {
		Enabled        *bool    `json:"enabled"`
		AllowedServers []string `json:"allowedServers"`
	} `json:"mcp"`
	Shell *struct {
		Enabled *bool `json:"enabled"`
	} `json:"shell"`
}

func (r *rawToolPolicy) policy() ToolPolicy {
	p := ToolPolicy{FS: FSPolicy{Enabled: true}, Shell: ShellPolicy{Enabled: true}}
	if r == nil {
		return p
	}
	if r.Shell != nil && r.Shell.Enabled != nil {
		p.Shell.Enabled = *r.Shell.Enabled
	}
	if r.FS != nil {
		if r.FS.Enabled != nil {
			p.FS.Enabled = *r.FS.Enabled
		}
		p.FS.MaxReadBytes = r.FS.MaxReadBytes
		p.FS.MaxWriteBytes = r.FS.MaxWriteBytes
	}
	if r.MCP != nil {
		if r.MCP.Enabled != nil {
			p.MCP.Enabled = *r.MCP.Enabled
		}
		p.MCP.AllowedServers = r.MCP.AllowedServers
	}
	return p
}

// UnmarshalJSON decodes an agent and applies the tool-policy defaults.
func (a *Agent) UnmarshalJSON(b []byte) error {
	type plain Agent
	var aux struct {
		plain
		Tools *rawToolPolicy `json:"tools"`
	}
	err := json.Unmarshal(b, &aux)
	*a = Agent(aux.plain)
	a.Tools = aux.Tools.policy()
	return err
}

// Node types of a workflow graph.
const (
	NodeStep        = "step"
	NodeDecision    = "decision"
	NodeMerge       = "merge"
	NodeEnd         = "end"
	NodeSubworkflow = "subworkflow"
)

// Graph is workflow.graph.json.
type Graph struct {
	SchemaVersion string         `json:"schemaVersion"`
	EntryNodeID   string         `json:"entryNodeId"`
	Nodes         []Node         `json:"nodes"`
	Edges         []Edge         `json:"edges"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// Node is one node of a graph. After Load, File is relative to the package root.
type Node struct {
	ID          string   `json:"id"`
	Type        string   `json:"type"`
	File        string   `json:"file"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	AgentID     string   `json:"agentId,omitempty"`
	Inputs      []string `json:"inputs,omitempty"`
	Outputs     []string `json:"outputs,omitempty"`
}

// Edge is one transition of a graph.
type Edge struct {
	ID            string         `json:"id,omitempty"`
	From          string         `json:"from"`
	To            string         `json:"to"`
	Label         string         `json:"label"`
	IsDefault     bool           `json:"isDefault,omitempty"`
	ConditionText string         `json:"conditionText,omitempty"`
	ConditionExpr map[string]any `json:"conditionExpr,omitempty"`
}

// Node returns the node with the given id, or nil.
func (g *Graph) Node(id string) *Node {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return &g.Nodes[i]
		}
	}
	return nil
}

// OutgoingEdges returns the edges leaving id, in graph order.
func (g *Graph) OutgoingEdges(id string) []Edge {
	var out []Edge
	for _, e := range g.Edges {
		if e.From == id {
			out = append(out, e)
		}
	}
	return out
}

// IsEnd reports whether id is a node of type "end".
func (g *Graph) IsEnd(id string) bool {
	n := g.Node(id)
	return n != nil && n.Type == NodeEnd
}

// Step is a parsed step file.
type Step struct {
	SchemaVersion string       `json:"schemaVersion"`
	NodeID        string       `json:"nodeId"`
	Type          string       `json:"type"`
	Title         string       `json:"title,omitempty"`
	AgentID       string       `json:"agentId,omitempty"`
	Inputs        []string     `json:"inputs,omitempty"`
	Outputs       []string     `json:"outputs,omitempty"`
	SetsVariables []string     `json:"setsVariables,omitempty"`
	Transitions   []Transition `json:"transitions,omitempty"`
	// Path is the step file, relative to the package root.
	Path string `json:"-"`
	// Body is the markdown after the frontmatter.
	Body string `json:"-"`
}

// Transition is one item of a step's transitions[].
type Transition struct {
	To            string `json:"to"`
	Label         string `json:"label"`
	IsDefault     bool   `json:"isDefault,omitempty"`
	ConditionText string `json:"conditionText,omitempty"`
}

// Workflow is one workflow of a loaded package.
type Workflow struct {
	ID          string
	DisplayName string
	Description string
	Tags        []string
	// WorkflowPath and GraphPath are relative to the package root.
	WorkflowPath string
	GraphPath    string
	// Default is true for the workflow bmad.json names as its entry.
	Default bool
	Graph   *Graph
	// State is the parsed frontmatter of workflow.md (the run-state template); StateBody is
	// the markdown after it.
	State     map[string]any
	StateBody string
	// Steps maps node ids to their parsed step files.
	Steps map[string]*Step
}

// Package is an installed package, parsed.
type Package struct {
	// ID is the packageId it is installed under; Root the absolute folder holding its files.
	ID        string
	Root      string
	Manifest  Manifest
	Agents    []Agent
	Workflows []Workflow
}

// Agent returns the agent with the given id, or nil.
func (p *Package) Agent(id string) *Agent {
	for i := range p.Agents {
		if p.Agents[i].ID == id {
			return &p.Agents[i]
		}
	}
	return nil
}

// Workflow returns the workflow with the given id, or nil.
func (p *Package) Workflow(id string) *Workflow {
	for i := range p.Workflows {
		if p.Workflows[i].ID == id {
			return &p.Workflows[i]
		}
	}
	return nil
}

// DefaultWorkflow returns the entry workflow (the first one if none is marked).
func (p *Package) DefaultWorkflow() *Workflow {
	for i := range p.Workflows {
		if p.Workflows[i].Default {
			return &p.Workflows[i]
		}
	}
	if len(p.Workflows) > 0 {
		return &p.Workflows[0]
	}
	return nil
}

// Installed is one record of packages.json.
type Installed struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Version     string         `json:"version"`
	Description string         `json:"description"`
	InstalledAt time.Time      `json:"installedAt"`
	Path        string         `json:"path"` // relative to the runtime home, slash-separated
	Workflows   []WorkflowInfo `json:"workflows"`
	Agents      []AgentInfo    `json:"agents"`
	Warnings    []Problem      `json:"warnings,omitempty"`
}

// WorkflowInfo is the summary of a workflow kept in packages.json.
type WorkflowInfo struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
}

// AgentInfo is the summary of an agent kept in packages.json.
type AgentInfo struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Title string `json:"title"`
	Icon  string `json:"icon"`
}
