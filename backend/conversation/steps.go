package conversation

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"crewagent/backend/errs"
)

// A run's bookkeeping, in words.
//
// In run mode the model reads the run's state and the step's instructions,
// writes the step's files and records its progress in the state file, each
// a tool call (the workflow protocol). The screen shows such calls, one step
// at a time, as one row that says what happened ("Step 2 · Draft the brief:
// read brief-template.md, wrote project-brief.md, moved to “Wrap up”") with
// the calls themselves one click away. The rules that read the protocol are
// here; the run's graph (titles of the nodes) and progress come from the
// caller (ViewOptions.Runs).

// stateFile is the alias of a run's state file.
const stateFile = "@state/workflow.md"

// RunInfo is what the screen knows of a workflow run: the nodes of its graph
// and its progress.
type RunInfo struct {
	// Nodes by id.
	Nodes map[string]RunNode
	// StepsCompleted are the nodes finished so far, in order (the state's
	// stepsCompleted).
	StepsCompleted []string
	// Current is the node being worked on.
	Current string
	// Complete is set once the run has finished.
	Complete bool
}

// RunNode is a node of a workflow graph.
type RunNode struct {
	Title string
	// Type is step, decision or end.
	Type string
	// File is the package-relative path of the node's step file.
	File string
}

// StepView is a step of a run as one row: its title ("Step 2 · Draft the
// brief"), what its tool calls did in words, how many calls it made and how
// many failed, and the node (its id, for a tooltip). TitleWords and
// SummaryWords are the title and the summary by their templates
// (errs.Messages), for the window to say them in the user's language.
type StepView struct {
	Title        string      `json:"title"`
	Summary      string      `json:"summary"`
	TitleWords   *errs.Words `json:"titleWords,omitempty"`
	SummaryWords *errs.Words `json:"summaryWords,omitempty"`
	Calls        int         `json:"calls"`
	Failed       int         `json:"failed,omitempty"`
	Node         string      `json:"node,omitempty"`
}

// CallSaid says what one tool call did, by the templates of errs.Messages
// (in English: "read the run's state", "wrote idea-notes.md", "moved to
// “Draft the brief”"), for a run whose graph info describes (nil: without
// node titles). failed adds that it failed.
func CallSaid(tool, args string, failed bool, info *RunInfo) errs.Words {
	return describeCall(tool, args, info).said(failed)
}

// callFacts is what a tool call did, read by the protocol's rules.
type callFacts struct {
	phrases []errs.Words
	// node is the node whose step file the call read.
	node string
	// completes are the nodes the call recorded as completed; moveTo the
	// node it moved the run to; decided the label of its decision.
	completes []string
	moveTo    string
}

// said is what the call did: its phrases, or that it tried them and failed.
func (f callFacts) said(failed bool) errs.Words {
	switch {
	case failed:
		return errs.Say("run.call.tried", errs.Params{"list": f.phrases})
	case len(f.phrases) == 1:
		return f.phrases[0]
	}
	return errs.Say("run.call.all", errs.Params{"list": f.phrases})
}

// phrase is the one phrase of a call.
func phrase(key string, params errs.Params) []errs.Words { return []errs.Words{errs.Say(key, params)} }

// describeCall reads one tool call of a run.
func describeCall(tool, args string, info *RunInfo) callFacts {
	var a struct {
		Path      string          `json:"path"`
		Pattern   string          `json:"pattern"`
		Operation string          `json:"operation"`
		Update    json.RawMessage `json:"update"`
		// conv.create, conv.send, skill.activate
		Title           string `json:"title"`
		UserInstruction string `json:"user_instruction"`
		Text            string `json:"text"`
		Name            string `json:"name"`
	}
	_ = json.Unmarshal([]byte(args), &a) // arguments cut or broken: words without them
	var f callFacts
	target, node := describePath(a.Path, info)
	f.node = node
	what := func(def string) errs.Params {
		if target == nil {
			return errs.Params{"what": errs.Say(def, nil)}
		}
		return errs.Params{"what": target}
	}
	// named is key, or keyNamed with the name when there is one.
	named := func(key, name string) []errs.Words {
		if name = strings.TrimSpace(name); name != "" {
			return phrase(key+"Named", errs.Params{"name": name})
		}
		return phrase(key, nil)
	}
	switch tool {
	case ToolFSRead:
		f.phrases = phrase("run.call.read", what("run.target.aFile"))
	case ToolFSList:
		f.phrases = phrase("run.call.list", what("run.target.project"))
	case ToolFSSearch:
		if p := strings.TrimSpace(a.Pattern); p != "" {
			f.phrases = phrase("run.call.search", errs.Params{"pattern": clipWords(p, 40)})
		} else {
			f.phrases = phrase("run.call.searchFiles", nil)
		}
	case ToolFSWrite:
		f.phrases = phrase("run.call.write", what("run.target.aFile"))
	case ToolFSApplyPatch:
		if a.Path == stateFile {
			f = describeStatePatch(a.Update, info)
		} else {
			f.phrases = phrase("run.call.edit", what("run.target.aFile"))
		}
	case ToolUIAskUser:
		f.phrases = phrase("run.call.ask", nil)
	case ToolConvCreate:
		f.phrases = named("run.call.handOff", orDefault(strings.TrimSpace(a.Title), clipWords(a.UserInstruction, 40)))
	case ToolConvSend:
		f.phrases = named("run.call.askOther", clipWords(a.Text, 40))
	case ToolConvList:
		f.phrases = phrase("run.call.listConversations", nil)
	case ToolConvHistory:
		f.phrases = phrase("run.call.readOther", nil)
	case ToolConvDestroy:
		f.phrases = phrase("run.call.deleteConversation", nil)
	case ToolSkillActivate:
		f.phrases = named("run.call.activateSkill", a.Name)
	case ToolSkillDeactivate:
		f.phrases = named("run.call.deactivateSkill", a.Name)
	default:
		if srv, name, ok := mcpName(tool); ok {
			f.phrases = phrase("run.call.usedMCP", errs.Params{"tool": name, "server": srv})
		} else {
			f.phrases = phrase("run.call.used", errs.Params{"tool": tool})
		}
	}
	return f
}

// describePath names a path of a tool call for a person: the run's state,
// the step's instructions (node is the step's node), a file by its name (a
// string; the others are errs.Words); nil when it names nothing.
func describePath(p string, info *RunInfo) (target any, node string) {
	if p == "" {
		return nil, ""
	}
	switch {
	case p == stateFile:
		return errs.Say("run.target.state", nil), ""
	case strings.HasPrefix(p, "@state/logs/tool-results"):
		return errs.Say("run.target.savedOutput", nil), ""
	case strings.HasPrefix(p, "@pkg/"):
		rel := strings.TrimPrefix(p, "@pkg/")
		if info != nil {
			for id, n := range info.Nodes {
				if n.File != "" && n.File == rel {
					return errs.Say("run.target.stepFile", nil), id
				}
			}
		}
		if strings.Contains(rel, "/steps/") {
			return errs.Say("run.target.stepFile", nil), strings.TrimSuffix(path.Base(rel), ".md")
		}
	case p == "@project" || p == "@project/":
		return errs.Say("run.target.project", nil), ""
	}
	base := path.Base(strings.TrimRight(p, "/"))
	if base == "." || base == "/" || strings.HasPrefix(base, "@") {
		return nil, ""
	}
	return base, ""
}

// describeStatePatch reads an updateFrontmatter patch of the state file:
// steps completed, the node moved to, a decision, the run finished.
func describeStatePatch(raw json.RawMessage, info *RunInfo) callFacts {
	var f callFacts
	var u map[string]struct {
		Set    json.RawMessage `json:"set"`
		Append json.RawMessage `json:"append"`
		Merge  json.RawMessage `json:"merge"`
	}
	if json.Unmarshal(raw, &u) != nil {
		f.phrases = phrase("run.call.updatedState", nil)
		return f
	}
	if op, ok := u["decisionLog"]; ok {
		var ds []struct {
			Label string `json:"label"`
			To    string `json:"to"`
		}
		if json.Unmarshal(op.Append, &ds) == nil && len(ds) > 0 {
			if l := strings.TrimSpace(ds[0].Label); l != "" {
				f.phrases = append(f.phrases, errs.Say("run.call.decided", errs.Params{"label": clipWords(l, 60)}))
			} else if ds[0].To != "" {
				f.phrases = append(f.phrases, errs.Say("run.call.decidedGoTo", errs.Params{"node": quoteNode(ds[0].To, info)}))
			}
		}
	}
	if op, ok := u["stepsCompleted"]; ok {
		var ids []string
		if json.Unmarshal(op.Append, &ids) == nil {
			f.completes = ids
		}
	}
	if op, ok := u["currentNodeId"]; ok {
		var to string
		if json.Unmarshal(op.Set, &to) == nil && to != "" {
			f.moveTo = to
			f.phrases = append(f.phrases, errs.Say("run.call.movedTo", errs.Params{"node": quoteNode(to, info)}))
		}
	}
	if f.moveTo == "" {
		for _, id := range f.completes {
			if n, ok := nodeOf(info, id); ok && n.Type == "end" {
				f.phrases = append(f.phrases, errs.Say("run.call.finishedRun", nil))
			} else {
				f.phrases = append(f.phrases, errs.Say("run.call.finished", errs.Params{"node": quoteNode(id, info)}))
			}
		}
	}
	if len(f.phrases) == 0 {
		f.phrases = phrase("run.call.updatedState", nil)
	}
	return f
}

func nodeOf(info *RunInfo, id string) (RunNode, bool) {
	if info == nil {
		return RunNode{}, false
	}
	n, ok := info.Nodes[id]
	return n, ok
}

// quoteNode names a node by its title; without one, "the next step" (its id
// is for tooltips, not for words).
func quoteNode(id string, info *RunInfo) any {
	if n, ok := nodeOf(info, id); ok && n.Title != "" {
		return "“" + n.Title + "”"
	}
	return errs.Say("run.target.nextStep", nil)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// clipWords cuts s to n runes on one line.
func clipWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// stepGroup is a run of bookkeeping calls shown as one row.
type stepGroup struct {
	first   int // index of its first entry in the views
	runID   string
	members []int
	calls   int
	failed  int
	phrases []errs.Words
	node    string // the node it worked on, when known
	done    string // the node it recorded as completed
	number  int    // its number in the run (0: unknown)
	after   bool   // work on a run after it finished
}

// groupSteps finds the steps of runs among views and marks their entries:
// View.Step on the first, View.InStep (the first's id) on the others.
func groupSteps(views []EntryView, runs map[string]*RunInfo) {
	results := map[string]int{}
	for i, v := range views {
		if v.IsMessage() && v.Role == RoleTool && v.ToolCallID != "" && !v.View.Inactive {
			results[v.ToolCallID] = i
		}
	}
	// A run's step work: an assistant message of a run with tool calls and
	// no text, none of them a question.
	isBookkeeping := func(v *EntryView) bool {
		if v.View.Kind != ViewAssistant || v.View.Incomplete != "" || len(v.ToolCalls) == 0 || strings.TrimSpace(v.Text()) != "" {
			return false
		}
		if v.RunID == "" && v.Mode != ModeRun {
			return false
		}
		for _, c := range v.ToolCalls {
			if r, ok := results[c.ID]; c.Function.Name == ToolUIAskUser || ok && views[r].View.Kind == ViewQuestion {
				return false
			}
		}
		return true
	}
	var groups []*stepGroup
	var cur *stepGroup
	moved := map[string]string{} // the node each run moved to last
	for i := range views {
		v := &views[i]
		if v.View.Inactive || v.View.Kind == ViewHidden || v.View.Kind == ViewEvent {
			continue
		}
		if v.View.Kind == ViewToolResult && cur != nil && slices.Contains(cur.members, i) {
			continue
		}
		if !isBookkeeping(v) || (cur != nil && cur.runID != v.RunID) {
			cur = nil
			if !isBookkeeping(v) {
				continue
			}
		}
		if cur == nil {
			cur = &stepGroup{first: i, runID: v.RunID, node: moved[v.RunID]}
			groups = append(groups, cur)
		}
		cur.members = append(cur.members, i)
		info := runs[v.RunID]
		ended := false
		for _, c := range v.ToolCalls {
			failed := false
			if r, ok := results[c.ID]; ok {
				cur.members = append(cur.members, r)
				failed = views[r].IsError
			}
			f := describeCall(c.Function.Name, c.Function.Arguments, info)
			cur.calls++
			if failed {
				cur.failed++
			}
			w := f.said(failed)
			if len(cur.phrases) == 0 || cur.phrases[len(cur.phrases)-1].String() != w.String() {
				cur.phrases = append(cur.phrases, w)
			}
			if failed {
				continue
			}
			if f.node != "" && cur.done == "" {
				cur.node = f.node
			}
			if len(f.completes) > 0 {
				cur.done = f.completes[len(f.completes)-1]
				if cur.node == "" || !slices.Contains(f.completes, cur.node) {
					cur.node = cur.done
				}
				ended = true
			}
			if f.moveTo != "" {
				moved[v.RunID] = f.moveTo
			}
		}
		if ended {
			cur = nil // a step ends where its completion is recorded
		}
	}
	numberSteps(groups, runs)
	for _, g := range groups {
		info := runs[g.runID]
		var title any = errs.Say("run.step.untitled", nil)
		if n, ok := nodeOf(info, g.node); ok && n.Title != "" {
			title = n.Title
		}
		titleWords := errs.Say("run.step.title", errs.Params{"title": title})
		if g.after {
			titleWords = errs.Say("run.step.after", nil)
		} else if g.number > 0 {
			titleWords = errs.Say("run.step.numbered", errs.Params{"n": g.number, "title": title})
		}
		summary := errs.Say("run.call.all", errs.Params{"list": g.phrases})
		views[g.first].View.Step = &StepView{Title: titleWords.String(), Summary: summary.String(), TitleWords: &titleWords, SummaryWords: &summary,
			Calls: g.calls, Failed: g.failed, Node: g.node}
		id := views[g.first].ID
		for _, m := range g.members[1:] {
			views[m].View.InStep = id
		}
	}
}

// numberSteps gives each step its number in its run: the position of the
// node it completed in the run's stepsCompleted (matched from the end, as
// the views reach the end of the log), and the next number to the last step
// of an unfinished run, still in progress on the current node. Work after
// the last completed step of a finished run is "after the run".
func numberSteps(groups []*stepGroup, runs map[string]*RunInfo) {
	next := map[string]int{}       // per run: how far back stepsCompleted is still unmatched
	seenLater := map[string]bool{} // per run: a later step was seen
	doneLater := map[string]bool{} // per run: a later step completed a node
	for k := len(groups) - 1; k >= 0; k-- {
		g := groups[k]
		info := runs[g.runID]
		if info == nil {
			continue
		}
		steps := info.StepsCompleted
		j, ok := next[g.runID]
		if !ok {
			j = len(steps) - 1
		}
		switch {
		case g.done != "":
			for i := j; i >= 0; i-- {
				if steps[i] == g.done {
					g.number, j = i+1, i-1
					break
				}
			}
			doneLater[g.runID] = true
		case info.Complete && !doneLater[g.runID]:
			g.after = true
		case !info.Complete && !seenLater[g.runID] && g.node != "" && g.node == info.Current:
			g.number = len(steps) + 1
		}
		next[g.runID] = j
		seenLater[g.runID] = true
	}
}

// describeCalls sets View.Calls on the assistant messages with tool calls.
func describeCalls(views []EntryView, runs map[string]*RunInfo) {
	failed := map[string]bool{}
	for _, v := range views {
		if v.IsMessage() && v.Role == RoleTool && v.ToolCallID != "" && v.IsError {
			failed[v.ToolCallID] = true
		}
	}
	for i := range views {
		v := &views[i]
		if v.View.Kind != ViewAssistant || len(v.ToolCalls) == 0 {
			continue
		}
		v.View.Calls = make(map[string]string, len(v.ToolCalls))
		v.View.CallWords = make(map[string]errs.Words, len(v.ToolCalls))
		for _, c := range v.ToolCalls {
			w := CallSaid(c.Function.Name, c.Function.Arguments, failed[c.ID], runs[v.RunID])
			v.View.Calls[c.ID], v.View.CallWords[c.ID] = w.String(), w
		}
	}
}

// mcpName splits an MCP tool's name (mcp__<server>__<tool>).
func mcpName(tool string) (server, name string, ok bool) {
	rest, ok := strings.CutPrefix(tool, ToolMCPPrefix)
	if !ok {
		return "", "", false
	}
	server, name, ok = strings.Cut(rest, "__")
	return server, name, ok && server != "" && name != ""
}
