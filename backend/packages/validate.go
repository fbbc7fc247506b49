package packages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"crewagent/backend/errs"
)

// Importer validates package contents against the v1.1 schemas, compiled once per Importer,
// and against the rules that span files. It is safe for concurrent use.
type Importer struct {
	schemas *schemaSet
}

// NewImporter compiles the embedded schemas.
func NewImporter() (*Importer, error) {
	s, err := compileSchemas()
	if err != nil {
		return nil, err
	}
	return &Importer{schemas: s}, nil
}

// idPattern is the id pattern shared by the v1.1 schemas.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// Default paths of bmad.json entry (as in the schema).
const (
	defaultWorkflowFile = "workflow.md"
	defaultGraphFile    = "workflow.graph.json"
	defaultAgentsFile   = "agents.json"
	manifestFile        = "bmad.json"
)

// Validate checks the package whose root is fsys. It returns the parsed package and the
// warnings, or an error listing every problem (ProblemsOf) (warnings are returned either way).
// Node files in the returned graphs are relative to the package root.
func (im *Importer) Validate(fsys fs.FS) (*Package, []Problem, error) {
	c := &checker{s: im.schemas, fsys: fsys}
	pkg := c.run()
	if len(c.problems) > 0 {
		return nil, c.warnings, validationError(c.problems, c.warnings)
	}
	return pkg, c.warnings, nil
}

type checker struct {
	s        *schemaSet
	fsys     fs.FS
	problems problemList
	warnings problemList
	agentIDs map[string]bool // nil when agents.json is unusable (agent references are not checked)
	agentIDL []string
}

// wfSpec locates one workflow of the package.
type wfSpec struct {
	id, displayName, description string
	tags                         []string
	workflowPath, graphPath      string
	isDefault                    bool
	ptrBase                      string // where in bmad.json the paths come from
}

func (c *checker) run() *Package {
	pkg := &Package{}
	man, ok := c.manifest()
	if !ok {
		return nil
	}
	pkg.Manifest = man
	pkg.Agents = c.agentsFile(man.Entry.Agents)
	for _, spec := range c.workflowSpecs(man) {
		if wf := c.workflow(spec); wf != nil {
			pkg.Workflows = append(pkg.Workflows, *wf)
		}
	}
	seen := map[string]int{}
	for i, wf := range pkg.Workflows {
		if j, dup := seen[wf.ID]; dup {
			c.problems.say(manifestFile, "", "pkg.sameWorkflowID", errs.Params{"id": wf.ID, "first": pkg.Workflows[j].GraphPath, "second": wf.GraphPath})
			continue
		}
		seen[wf.ID] = i
	}
	return pkg
}

// readJSON reads file, reports JSON syntax errors and schema violations, and returns the
// bytes for decoding into structs (best effort when the schema failed).
func (c *checker) readJSON(file, schema, ownerFile, ownerPtr string) ([]byte, bool) {
	b, ok := c.read(file, ownerFile, ownerPtr)
	if !ok {
		return nil, false
	}
	if msg := jsonSyntax(b); msg != "" {
		c.problems.say(file, "", "pkg.notJSON", errs.Params{"detail": msg})
		return nil, false
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		c.problems.say(file, "", "pkg.notJSON", errs.Params{"detail": err.Error()})
		return nil, false
	}
	c.problems = append(c.problems, c.s.validate(schema, file, v)...)
	return b, true
}

// read reads a package file; a missing file is reported against the place that names it.
func (c *checker) read(file, ownerFile, ownerPtr string) ([]byte, bool) {
	b, err := fs.ReadFile(c.fsys, file)
	if err == nil {
		return b, true
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if ownerFile == "" {
			c.problems.say(file, "", "pkg.missingAtRoot", errs.Params{"file": file})
		} else {
			c.problems.say(ownerFile, ownerPtr, "pkg.missing", errs.Params{"file": file})
		}
	case isDirErr(c.fsys, file):
		if ownerFile == "" {
			ownerFile = file
		}
		c.problems.say(ownerFile, ownerPtr, "pkg.folderNotFile", errs.Params{"file": file})
	default:
		c.problems.add(file, "", "cannot read: %v", err)
	}
	return nil, false
}

func isDirErr(fsys fs.FS, file string) bool {
	st, err := fs.Stat(fsys, file)
	return err == nil && st.IsDir()
}

// jsonSyntax returns "" for valid JSON, else a message with line and column.
func jsonSyntax(b []byte) string {
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return ""
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(b, se.Offset)
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	}
	return err.Error()
}

func lineCol(b []byte, off int64) (int, int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	before := b[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// manifest reads bmad.json. Without a readable bmad.json nothing else can be located, so that
// is then the only problem reported.
func (c *checker) manifest() (Manifest, bool) {
	var man Manifest
	b, ok := c.readJSON(manifestFile, schemaBmad, "", "")
	if !ok {
		return man, false
	}
	_ = json.Unmarshal(b, &man) // type errors are already schema problems
	man.Entry.Workflow = c.relPath(man.Entry.Workflow, defaultWorkflowFile, manifestFile, "/entry/workflow")
	man.Entry.Graph = c.relPath(man.Entry.Graph, defaultGraphFile, manifestFile, "/entry/graph")
	man.Entry.Agents = c.relPath(man.Entry.Agents, defaultAgentsFile, manifestFile, "/entry/agents")
	if man.Entry.AssetsDir != "" {
		dir := c.relPath(man.Entry.AssetsDir, "", manifestFile, "/entry/assetsDir")
		if st, err := fs.Stat(c.fsys, dir); dir != "" && (err != nil || !st.IsDir()) {
			c.warnings.say(manifestFile, "/entry/assetsDir", "pkg.noAssets", errs.Params{"dir": man.Entry.AssetsDir})
		}
	}
	ids := map[string]int{}
	for i := range man.Workflows {
		w := &man.Workflows[i]
		w.Workflow = c.relPath(w.Workflow, "", manifestFile, ptr("workflows", i, "workflow"))
		w.Graph = c.relPath(w.Graph, "", manifestFile, ptr("workflows", i, "graph"))
		if w.ID == "" {
			continue
		}
		if j, dup := ids[w.ID]; dup {
			c.problems.say(manifestFile, ptr("workflows", i, "id"), "pkg.duplicateWorkflow", errs.Params{"id": w.ID, "at": fmt.Sprintf("/workflows/%d", j)})
			continue
		}
		ids[w.ID] = i
	}
	return man, true
}

// relPath cleans a package-relative path from a JSON file, reporting unsafe ones. Empty
// values take def (the schema reports missing required values).
func (c *checker) relPath(p, def, file, pointer string) string {
	if p == "" {
		return def
	}
	clean, msg := cleanRelPath(p)
	if msg != "" {
		c.problems.add(file, pointer, "%q %s", p, msg)
		return ""
	}
	return clean
}

func cleanRelPath(p string) (string, string) {
	s := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(s, "/") || (len(s) >= 2 && s[1] == ':') {
		return "", "must be a path relative to the package root"
	}
	c := path.Clean(s)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", "points outside the package"
	}
	if c == "." {
		return "", "names the package root, not a file"
	}
	return c, ""
}

// agentsFile reads agents.json and records the agent ids.
func (c *checker) agentsFile(file string) []Agent {
	if file == "" {
		return nil
	}
	b, ok := c.readJSON(file, schemaAgents, manifestFile, "/entry/agents")
	if !ok {
		return nil
	}
	var doc struct {
		Agents []json.RawMessage `json:"agents"`
	}
	_ = json.Unmarshal(b, &doc)
	c.agentIDs = map[string]bool{}
	first := map[string]int{}
	var agents []Agent
	for i, raw := range doc.Agents {
		var a Agent
		_ = json.Unmarshal(raw, &a) // schema problems already reported
		if a.ID == "" {
			continue
		}
		if j, dup := first[a.ID]; dup {
			c.problems.say(file, ptr("agents", i, "id"), "pkg.duplicateAgent", errs.Params{"id": a.ID, "at": fmt.Sprintf("/agents/%d", j)})
			continue
		}
		first[a.ID] = i
		c.agentIDs[a.ID] = true
		c.agentIDL = append(c.agentIDL, a.ID)
		agents = append(agents, a)
	}
	return agents
}

func (c *checker) unknownAgent(id string) bool {
	return c.agentIDs != nil && id != "" && !c.agentIDs[id]
}

func (c *checker) agentList() string {
	if len(c.agentIDL) == 0 {
		return "none"
	}
	return strings.Join(c.agentIDL, ", ")
}

// workflowSpecs lists the workflows bmad.json declares, the entry workflow first when it is
// not in workflows[].
func (c *checker) workflowSpecs(man Manifest) []wfSpec {
	var specs []wfSpec
	hasDefault := false
	for i, w := range man.Workflows {
		if w.Workflow == "" || w.Graph == "" {
			continue // schema or path problem already reported
		}
		s := wfSpec{
			id: w.ID, displayName: w.DisplayName, description: w.Description, tags: w.Tags,
			workflowPath: w.Workflow, graphPath: w.Graph, ptrBase: ptr("workflows", i),
		}
		if w.Graph == man.Entry.Graph && !hasDefault {
			s.isDefault, hasDefault = true, true
		}
		specs = append(specs, s)
	}
	if !hasDefault && man.Entry.Workflow != "" && man.Entry.Graph != "" {
		entry := wfSpec{
			description:  man.Description,
			workflowPath: man.Entry.Workflow,
			graphPath:    man.Entry.Graph,
			isDefault:    true,
			ptrBase:      "/entry",
		}
		specs = append([]wfSpec{entry}, specs...)
	}
	return specs
}

// workflow checks one workflow: its state template, its graph and every step file.
func (c *checker) workflow(spec wfSpec) *Workflow {
	wf := &Workflow{
		ID: spec.id, DisplayName: spec.displayName, Description: spec.description, Tags: spec.tags,
		WorkflowPath: spec.workflowPath, GraphPath: spec.graphPath, Default: spec.isDefault,
		Steps: map[string]*Step{},
	}
	// workflow.md
	if b, ok := c.read(spec.workflowPath, manifestFile, spec.ptrBase+"/workflow"); ok {
		fm, body, err := ParseFrontmatter(b)
		switch {
		case errors.Is(err, ErrNoFrontmatter):
			c.problems.say(spec.workflowPath, "", "pkg.noFrontmatter", nil)
		case err != nil:
			c.problems.add(spec.workflowPath, "", "%v", err)
		default:
			c.validateMap(schemaWorkflowMeta, spec.workflowPath, WithoutEmptyTimestamps(fm))
			wf.State, wf.StateBody = fm, string(body)
		}
	}
	if wf.ID == "" {
		wf.ID = entryWorkflowID(spec.workflowPath, wf.State)
	}
	if wf.DisplayName == "" {
		wf.DisplayName = firstHeading(wf.StateBody)
		if wf.DisplayName == "" {
			wf.DisplayName = wf.ID
		}
	}
	// graph
	b, ok := c.readJSON(spec.graphPath, schemaGraph, manifestFile, spec.ptrBase+"/graph")
	if !ok {
		return wf
	}
	g := &Graph{}
	_ = json.Unmarshal(b, g) // schema problems already reported
	wf.Graph = g
	nodes := c.graph(spec.graphPath, g)
	if wf.State != nil {
		c.stateRefs(spec.workflowPath, wf.State, nodes)
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if n.File == "" || n.ID == "" {
			continue
		}
		if st := c.step(spec.graphPath, i, n, g, nodes); st != nil {
			wf.Steps[n.ID] = st
		}
	}
	return wf
}

// entryWorkflowID names a workflow that bmad.json does not list: the <id> of a
// workflows/<id>/ folder, else the workflowType of its workflow.md, else "main".
func entryWorkflowID(workflowPath string, state map[string]any) string {
	dir := path.Dir(workflowPath)
	if parent, id := path.Split(dir); parent == "workflows/" && idPattern.MatchString(id) {
		return id
	}
	if t, ok := state["workflowType"].(string); ok && idPattern.MatchString(t) {
		return t
	}
	return "main"
}

// firstHeading returns the text of the first "# " heading of a markdown body.
func firstHeading(body string) string {
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if isFenceLine(t) {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(t, "# ") {
			return strings.TrimSpace(strings.TrimRight(t[2:], "#"))
		}
	}
	return ""
}

// graph checks references inside a graph and resolves node files; it returns the node index.
func (c *checker) graph(file string, g *Graph) map[string]int {
	nodes := map[string]int{}
	for i, n := range g.Nodes {
		if n.ID == "" {
			continue
		}
		if j, dup := nodes[n.ID]; dup {
			c.problems.say(file, ptr("nodes", i, "id"), "pkg.duplicateNode", errs.Params{"id": n.ID, "at": fmt.Sprintf("/nodes/%d", j)})
			continue
		}
		nodes[n.ID] = i
	}
	if g.EntryNodeID != "" {
		if _, ok := nodes[g.EntryNodeID]; !ok {
			c.problems.say(file, "/entryNodeId", "pkg.unknownEntry", errs.Params{"id": g.EntryNodeID})
		}
	}
	edgeIDs := map[string]int{}
	for i, e := range g.Edges {
		if e.ID != "" {
			if j, dup := edgeIDs[e.ID]; dup {
				c.problems.say(file, ptr("edges", i, "id"), "pkg.duplicateEdge", errs.Params{"id": e.ID, "at": fmt.Sprintf("/edges/%d", j)})
			} else {
				edgeIDs[e.ID] = i
			}
		}
		if _, ok := nodes[e.From]; !ok && e.From != "" {
			c.problems.say(file, ptr("edges", i, "from"), "pkg.unknownNode", errs.Params{"id": e.From})
		}
		if _, ok := nodes[e.To]; !ok && e.To != "" {
			c.problems.say(file, ptr("edges", i, "to"), "pkg.unknownNode", errs.Params{"id": e.To})
		}
	}
	hasEnd := false
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if c.unknownAgent(n.AgentID) {
			if len(c.agentIDL) == 0 {
				c.problems.say(file, ptr("nodes", i, "agentId"), "pkg.unknownAgentNone", errs.Params{"id": n.AgentID})
			} else {
				c.problems.say(file, ptr("nodes", i, "agentId"), "pkg.unknownAgent", errs.Params{"id": n.AgentID, "agents": c.agentList()})
			}
		}
		if n.Type == NodeEnd {
			hasEnd = true
		}
		if n.File != "" {
			n.File = c.nodeFile(file, i, n.File)
		}
	}
	c.graphShape(file, g, nodes, hasEnd)
	return nodes
}

// nodeFile resolves a node's file relative to the package root, or else relative to the
// graph's folder, and reports it when it exists in neither place.
func (c *checker) nodeFile(graphFile string, i int, file string) string {
	p := ptr("nodes", i, "file")
	clean, msg := cleanRelPath(file)
	if msg != "" {
		c.problems.add(graphFile, p, "%q %s", file, msg)
		return ""
	}
	candidates := []string{clean}
	if alt := path.Join(path.Dir(graphFile), clean); alt != clean && !strings.HasPrefix(alt, "../") {
		candidates = append(candidates, alt)
	}
	for _, cand := range candidates {
		st, err := fs.Stat(c.fsys, cand)
		if err != nil {
			continue
		}
		if st.IsDir() {
			c.problems.say(graphFile, p, "pkg.stepIsFolder", errs.Params{"file": file})
			return ""
		}
		return cand
	}
	c.problems.say(graphFile, p, "pkg.noStepFile", errs.Params{"file": file})
	return ""
}

// graphShape reports structural oddities as warnings: unreachable nodes, dead ends, end
// nodes with exits, several default edges, no end node.
func (c *checker) graphShape(file string, g *Graph, nodes map[string]int, hasEnd bool) {
	if !hasEnd && len(g.Nodes) > 0 {
		c.warnings.say(file, "/nodes", "pkg.noEnd", nil)
	}
	out := map[string][]Edge{}
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e)
	}
	reached := map[string]bool{}
	if _, ok := nodes[g.EntryNodeID]; ok {
		queue := []string{g.EntryNodeID}
		reached[g.EntryNodeID] = true
		for len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			for _, e := range out[id] {
				if _, known := nodes[e.To]; known && !reached[e.To] {
					reached[e.To] = true
					queue = append(queue, e.To)
				}
			}
		}
		for i, n := range g.Nodes {
			if n.ID != "" && !reached[n.ID] {
				c.warnings.say(file, ptr("nodes", i), "pkg.unreachable", errs.Params{"id": n.ID, "entry": g.EntryNodeID})
			}
		}
	}
	for i, n := range g.Nodes {
		if n.ID == "" {
			continue
		}
		edges := out[n.ID]
		switch {
		case n.Type == NodeEnd && len(edges) > 0:
			c.warnings.say(file, ptr("nodes", i), "pkg.endHasEdges", errs.Params{"id": n.ID})
		case n.Type != NodeEnd && len(edges) == 0:
			c.warnings.say(file, ptr("nodes", i), "pkg.deadEnd", errs.Params{"id": n.ID})
		}
		defaults := 0
		for _, e := range edges {
			if e.IsDefault {
				defaults++
			}
		}
		if defaults > 1 {
			c.warnings.add(file, ptr("nodes", i), "node %q has %d default edges; at most one is expected", n.ID, defaults)
		}
	}
}

// stateRefs checks that the state template only names nodes of the graph.
func (c *checker) stateRefs(file string, state map[string]any, nodes map[string]int) {
	if cur, ok := state["currentNodeId"].(string); ok && cur != "" {
		if _, known := nodes[cur]; !known {
			c.problems.add(file, "/currentNodeId", "unknown node %q (use \"\" for a run that has not started)", cur)
		}
	}
	if done, ok := state["stepsCompleted"].([]any); ok {
		for i, v := range done {
			if s, ok := v.(string); ok {
				if _, known := nodes[s]; !known {
					c.problems.add(file, ptr("stepsCompleted", i), "unknown node %q", s)
				}
			}
		}
	}
}

// step checks the step file of node i.
func (c *checker) step(graphFile string, i int, n *Node, g *Graph, nodes map[string]int) *Step {
	file := n.File
	b, ok := c.read(file, graphFile, ptr("nodes", i, "file"))
	if !ok {
		return nil
	}
	st := &Step{Path: file}
	fm, body, err := ParseFrontmatter(b)
	switch {
	case errors.Is(err, ErrNoFrontmatter):
		c.problems.add(file, "", "no YAML frontmatter: a step file must start with a --- block holding schemaVersion, nodeId and type")
		body = b
	case err != nil:
		c.problems.add(file, "", "%v", err)
		if _, rest, found, serr := SplitFrontmatter(b); found && serr == nil {
			body = rest
		}
	default:
		c.validateMap(schemaStep, file, fm)
		if raw, err := json.Marshal(fm); err == nil {
			_ = json.Unmarshal(raw, st) // schema problems already reported
		}
		st.Path = file
		c.stepRefs(file, st, n, g, nodes)
	}
	st.Body = string(body)
	if body != nil {
		c.sections(file, st.Body)
	}
	return st
}

// Step sections: the v1.1 schemas require none. The original planning documents describe a
// Goal, Instructions and Completion; the original Builder's editor writes a "# Title" and
// "## Instructions" only. So a step without Goal or Instructions, and a section of another
// name, are warnings: the model is given the step as written either way.
var (
	expectedSections = []string{"Goal", "Instructions"}
	knownSections    = []string{"Goal", "Instructions", "Completion"}
)

// sections warns about the expected level-2 sections a step lacks and the ones it has that
// the runtime does not know.
func (c *checker) sections(file, body string) {
	found := headings(body)
	for _, want := range expectedSections {
		if !slices.ContainsFunc(found, func(h string) bool { return strings.EqualFold(h, want) }) {
			c.warnings.add(file, "", "no \"## %s\" section (the step is given to the model as written)", want)
		}
	}
	for _, h := range found {
		if !slices.ContainsFunc(knownSections, func(k string) bool { return strings.EqualFold(h, k) }) {
			c.warnings.add(file, "", "unknown section \"## %s\" (known: %s; it is given to the model as written)", h, strings.Join(knownSections, ", "))
		}
	}
}

func (c *checker) stepRefs(file string, st *Step, n *Node, g *Graph, nodes map[string]int) {
	if st.NodeID != "" && st.NodeID != n.ID {
		c.problems.add(file, "/nodeId", "nodeId %q does not match the graph node %q that uses this file", st.NodeID, n.ID)
	}
	if st.Type != "" && n.Type != "" && st.Type != n.Type {
		c.problems.add(file, "/type", "type %q does not match the graph, where node %q is a %q node", st.Type, n.ID, n.Type)
	}
	if c.unknownAgent(st.AgentID) {
		c.problems.add(file, "/agentId", "unknown agent %q (agents.json defines: %s)", st.AgentID, c.agentList())
	} else if st.AgentID != "" && n.AgentID != "" && st.AgentID != n.AgentID {
		c.warnings.add(file, "/agentId", "agent %q differs from the graph node's agent %q (the graph's wins)", st.AgentID, n.AgentID)
	}
	for j, t := range st.Transitions {
		if t.To == "" {
			continue
		}
		if _, known := nodes[t.To]; !known {
			c.problems.add(file, ptr("transitions", j, "to"), "unknown node %q", t.To)
			continue
		}
		found := false
		for _, e := range g.OutgoingEdges(n.ID) {
			if e.To == t.To {
				found = true
				break
			}
		}
		if !found {
			c.warnings.add(file, ptr("transitions", j, "to"), "the graph has no edge from %q to %q (the graph's edges win)", n.ID, t.To)
		}
	}
}

// WithoutEmptyTimestamps returns the workflow state frontmatter fm with the timestamps that
// are empty ("" or null) left out: updatedAt, and decidedAt in decisionLog entries. Packages
// written for the original runtime ship an empty updatedAt in their workflow.md; an empty
// timestamp means "not set yet", not a malformed date. fm itself is not changed.
func WithoutEmptyTimestamps(fm map[string]any) map[string]any {
	empty := func(v any) bool { s, isStr := v.(string); return v == nil || (isStr && strings.TrimSpace(s) == "") }
	out := make(map[string]any, len(fm))
	for k, v := range fm {
		out[k] = v
	}
	if v, ok := out["updatedAt"]; ok && empty(v) {
		delete(out, "updatedAt")
	}
	if log, ok := out["decisionLog"].([]any); ok {
		items := make([]any, len(log))
		for i, it := range log {
			items[i] = it
			if m, ok := it.(map[string]any); ok {
				if v, has := m["decidedAt"]; has && empty(v) {
					c := make(map[string]any, len(m))
					for k, x := range m {
						c[k] = x
					}
					delete(c, "decidedAt")
					items[i] = c
				}
			}
		}
		out["decisionLog"] = items
	}
	return out
}

// validateMap validates decoded frontmatter against a schema.
func (c *checker) validateMap(schema, file string, m map[string]any) {
	v, err := schemaValue(m)
	if err != nil {
		c.problems.add(file, "", "frontmatter cannot be checked: %v", err)
		return
	}
	c.problems = append(c.problems, c.s.validate(schema, file, v)...)
}

// headings returns the texts of the level-2 headings of a markdown body, in order, outside
// fenced and indented code.
func headings(body string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimLeft(t, " ")
		if len(t)-len(trimmed) > 3 {
			continue // indented code
		}
		if isFenceLine(trimmed) {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(trimmed, "## ") {
			continue
		}
		if text := strings.TrimSpace(strings.TrimRight(trimmed[3:], "#")); text != "" {
			out = append(out, text)
		}
	}
	return out
}

func isFenceLine(t string) bool {
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}
