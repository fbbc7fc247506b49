package compression

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// The extractive digest (strategy key-messages, no LLM).
//
// From the messages being compacted it keeps the lines that carry what a
// conversation must not forget — requirements (must, never, always, 必须,
// 不要 …), decisions (we decided, we'll use, 决定, 采用 …), errors and
// findings (including those only a tool's output holds), file paths,
// numbers with their context (amounts, dates, versions, ports, limits) and
// names — each quoting the message it comes from (#id). Lines are scored
// (Score); the user's words count more than the model's; chatter, questions
// and very short lines count less. The first user message (the task) is
// quoted whole when it fits a third of the digest's budget, else its best
// lines. The digest merges with the one it replaces: the earlier lines are
// read back and compete with the new ones, the same line is kept once, and
// the best lines that fit the budget stay, in the order they were said.

// Digest sections, in the order they are written.
var sectionTitles = [...]string{
	secRequire:  "Requirements and decisions:",
	secFindings: "Errors and findings:",
	secFiles:    "Files changed:",
	secFacts:    "Facts, files and numbers:",
}

const (
	secRequire = iota
	secFindings
	secFiles
	secFacts
)

// minLineScore is the score a line needs to enter the digest at all.
const minLineScore = 3.0

// keptBonus is added to the lines of an earlier digest (they were selected
// once, with the bonus rarity gave them then); rarityBonus is what a line
// gains for naming something said in one message only, or loses for naming
// only what recurs in three or more.
const (
	keptBonus   = 1.0
	rarityBonus = 2.0
)

// valueBonus is what a line stating a value gains in a tool's output or the
// model's answer (isValueLine); concludingBonus what a line of the model's
// text without tool calls gains (its answers and findings).
const (
	valueBonus      = 2.5
	concludingBonus = 1.0
)

// commonKeyLines is in how many lines the key of a value line must recur
// for the line to count as data rather than a value (see valueKey).
const commonKeyLines = 3

// supersededPenalty is what a line loses whose figures are all said again
// in a later message.
const supersededPenalty = 3.0

// jsonPenalty is what a line of a tool's output that is a fragment of JSON
// (a listing, search hits) loses.
const jsonPenalty = 2.0

// shapePenalty is what each newer line of the same shape costs a line.
// A shape of templateLines lines or more is a template (narration such as
// "I read <path>", a progress line): its lines lose a point for each newer
// one whatever they name.
const (
	shapePenalty  = 1.0
	templateLines = 4
)

// shapeKey is the skeleton of a line: its first four and last three units
// (words; each character of Chinese text), with figures, paths, identifiers
// and capitalised words (after the first) masked. Lines written from one
// template (progress logs, repeated boilerplate whose middle words vary)
// share it; a line of fewer than three unmasked units has none, unless it
// has two and something masked ("I read <path>").
func shapeKey(s string) string {
	// Only the first four and the last three units are kept (the last three
	// in a ring), so a long line costs no more than its scan.
	var head [4]string
	var tail [3]string
	n, words, masked := 0, 0, 0
	add := func(u string) {
		if n < len(head) {
			head[n] = u
		} else {
			tail[(n-len(head))%len(tail)] = u
		}
		n++
	}
	flush := func(tok string) {
		t := trimPunct(tok)
		if t == "" {
			return
		}
		if strings.ContainsAny(t, "0123456789/_.@") || (n > 0 && t[0] >= 'A' && t[0] <= 'Z') {
			add("*")
			masked++
			return
		}
		add(lowerASCII(t))
		words++
	}
	start := -1
	for i, r := range s {
		switch {
		case isCJK(r):
			if start >= 0 {
				flush(s[start:i])
				start = -1
			}
			add(s[i : i+utf8.RuneLen(r)])
			words++
		case r == ' ' || r == '\t' || isPunct(r) && r >= utf8.RuneSelf:
			if start >= 0 {
				flush(s[start:i])
				start = -1
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		flush(s[start:])
	}
	if words < 2 || words == 2 && masked == 0 {
		return ""
	}
	var b strings.Builder
	if n <= len(head)+len(tail) {
		// All units are in order: the head, then the tail from its start.
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			if i < len(head) {
				b.WriteString(head[i])
			} else {
				b.WriteString(tail[i-len(head)])
			}
		}
		return b.String()
	}
	b.WriteString(strings.Join(head[:], " "))
	b.WriteString(" …")
	for k := n - len(tail); k < n; k++ {
		b.WriteByte(' ')
		b.WriteString(tail[(k-len(head))%len(tail)])
	}
	return b.String()
}

// shapeVariants returns a shape itself and, when it has four words or
// more, the shape with each of its words in turn made a slot ("?").
func shapeVariants(shape string) []string {
	units := strings.Split(shape, " ")
	out := []string{shape}
	words := 0
	for _, u := range units {
		if u != "*" && u != "…" {
			words++
		}
	}
	if words < 4 {
		return out
	}
	for i, u := range units {
		if u == "*" || u == "…" {
			continue
		}
		units[i] = "?"
		out = append(out, strings.Join(units, " "))
		units[i] = u
	}
	return out
}

// lowerASCII is strings.ToLower without an allocation for a word that is
// already in lower case.
func lowerASCII(t string) string {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(t)
		}
	}
	return t
}

// keyTokens returns the names and figures of a line: numbers of three or
// more digits, paths, capitalised words, identifiers and handles (lower
// case), the Latin words of Chinese text taken apart from it, and Chinese
// personal names.
func keyTokens(s string) []string {
	var out []string
	each := func(t string) {
		t = trimPunct(t)
		if len(t) < 3 {
			return
		}
		digits := 0
		for k := 0; k < len(t); k++ {
			if isDigit(t[k]) {
				digits++
			}
		}
		switch {
		case digits >= 3, strings.Contains(t, "/"), strings.Contains(t, "_"):
		case t[0] == '@' && len(t) > 3 && hasLetter(t):
		case t[0] >= 'A' && t[0] <= 'Z' && words[strings.ToLower(t)]&kwStop == 0 && hasLetter(t[1:]):
		default:
			return
		}
		out = append(out, strings.ToLower(t))
	}
	cjk := false
	for _, raw := range strings.Fields(s) {
		if !hasNonASCII(raw) {
			each(raw)
			continue
		}
		cjk = true
		// the Latin runs of a token that mixes them with Chinese
		start := -1
		for i, r := range raw {
			latin := r < utf8.RuneSelf && !isPunct(r)
			switch {
			case latin && start < 0:
				start = i
			case !latin && start >= 0:
				each(raw[start:i])
				start = -1
			}
		}
		if start >= 0 {
			each(raw[start:])
		}
	}
	if cjk {
		zhNames(s, func(name string) { out = append(out, name) })
	}
	return out
}

func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// sentenceOf is a sentence as code detection reads it: a sentence of prose
// split off at "; " keeps its semicolon, which does not make it code.
func sentenceOf(line string) string {
	if strings.HasSuffix(line, ";") && strings.Count(line, " ") >= 5 {
		return strings.TrimSuffix(line, ";")
	}
	return line
}

// Per message, at most this many lines are candidates (the user's: more).
const (
	maxLinesPerMessage     = 10
	maxLinesPerUserMessage = 20
)

// whoSummary marks a line read back from a summary that did not say where
// it came from (an LLM summary).
const whoSummary = "summary"

// dline is one line of a digest.
type dline struct {
	cite    string // "#xxxxxxxx", "" when unknown
	who     string // user | assistant | tool <name> | summary
	text    string
	section int
	score   float64
	order   int // position in time: earlier lines first
	key     string
	tokens  int      // exact, 0 until counted
	keys    []string // keyTokens, for rarity
	vkey    string   // the key of a "key: value" line of data, lower case
	call    bool     // a "calls <tool> <path>" line: which file a read or a search took
	shape   string   // shapeKey
}

func scoreOf(f features, who string) float64 {
	hard := f.requirement // a requirement said in so many words
	if who == conversation.RoleUser || who == whoSummary {
		f.requirement = f.requirement || f.softNeed
		f.decision = f.decision || f.softChoice
	}
	s := 0.0
	if f.requirement {
		s += 4
	}
	if f.decision {
		s += 4
	}
	if f.finding {
		s += 3
	}
	if f.path {
		s += 2
	}
	if f.numberCtx {
		s += 2
	} else if f.number {
		s += 0.5
	}
	if f.name {
		s += 1.5
	}
	if f.role {
		s += 2
	}
	switch {
	case who == conversation.RoleUser:
		s += 2.5
	case who == whoSummary:
		s += 1
	case strings.HasPrefix(who, conversation.RoleTool) && f.finding:
		s += 1
	case strings.HasPrefix(who, conversation.RoleTool) && !f.requirement && !f.decision:
		s -= 1.5 // plain data of a tool's output: listings, search hits
	}
	if f.question && !hard {
		s -= 3 // a question asks; "should" in it requires nothing
	}
	if f.chatter {
		s -= 3
	}
	if f.runes+f.cjk < 15 {
		s -= 2 // short (a Chinese character counts for two: it is about a word)
	}
	s += 3 * float64(min(f.focus, 2))
	return s
}

// hasContent reports whether a line carries something a digest keeps (a
// line whose only merit is who said it is not kept).
func hasContent(f features) bool {
	return f.requirement || f.decision || f.finding || f.path || f.numberCtx || f.name || f.role || f.focus > 0 || f.softNeed || f.softChoice
}

func sectionOf(f features, who string) int {
	if who == conversation.RoleUser || who == whoSummary {
		f.requirement = f.requirement || f.softNeed
		f.decision = f.decision || f.softChoice
	}
	switch {
	case f.requirement || f.decision:
		return secRequire
	case f.finding:
		return secFindings
	}
	return secFacts
}

// digestKey normalises a line for finding repeats: lower case, letters,
// digits and CJK only.
func digestKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r >= utf8.RuneSelf && isCJK(r):
			b.WriteRune(r)
		case r >= utf8.RuneSelf && (r > 0x2FFF):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxDataRunes is the length a line of data (a tool's output, a pasted
// log) is shortened to.
const maxDataRunes = 140

// clipData shortens a line of data to maxDataRunes, keeping its start.
func clipData(s string) string {
	if utf8.RuneCountInString(s) <= maxDataRunes {
		return s
	}
	return headRunes(s, maxDataRunes-1) + "…"
}

// clipLine shortens a line to maxLineRunes, keeping its start.
func clipLine(s string) string {
	if utf8.RuneCountInString(s) <= maxLineRunes {
		return s
	}
	return headRunes(s, maxLineRunes-1) + "…"
}

// estimateTokens guesses a text's tokens without the tokenizer: a quarter of
// its ASCII bytes plus one per other character.
func estimateTokens(s string) int {
	n, other := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			n++
		} else if s[i]&0xC0 != 0x80 {
			other++
		}
	}
	return (n+3)/4 + other
}

// callPrefix starts the line messageText writes for a tool call that
// changes no file.
const callPrefix = "calls "

// messageText returns what the digest reads of an entry: its content (a tool
// result's JSON unwrapped) and, for a tool call, one line per call naming the
// tool and its path, then the long string arguments.
func messageText(e *conversation.Entry) string {
	text := e.Text()
	if e.Role == conversation.RoleTool {
		text = unwrapJSON(text)
	}
	if len(e.ToolCalls) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, tc := range e.ToolCalls {
		args := tc.Function.Arguments
		if trailText(tc.Function.Name, args) != "" {
			continue // the artifact trail describes it (trailLines)
		}
		b.WriteString("\n" + callPrefix + tc.Function.Name)
		if p := jsonStringField(args, "path"); p != "" {
			b.WriteString(" " + p)
		}
		if strings.Contains(args, `\n`) || len(args) > 200 {
			b.WriteString("\n" + unwrapJSON(args))
		}
	}
	return b.String()
}

// unwrapJSON makes the text inside a JSON document readable line by line:
// the escapes of newlines, tabs and quotes are undone, and a leading
// {"ok":true,"content":" wrapper is cut. Text that is not JSON is returned
// as it is.
func unwrapJSON(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	if strings.HasPrefix(t, contextbuilder.ToolPreviewPrefix) || strings.HasPrefix(t, conversation.PreviewPrefix) {
		// a preview: its header line, then the JSON head it kept
		if i := strings.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		}
	}
	if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
		return s
	}
	head := t
	if len(head) > 200 {
		head = head[:200]
	}
	for _, k := range []string{`"content":"`, `"output":"`, `"stdout":"`, `"text":"`, `"result":"`} {
		if i := strings.Index(head, k); i >= 0 {
			t = t[i+len(k):]
			break
		}
	}
	if !strings.Contains(t, `\`) {
		return splitJSONLine(t)
	}
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '\\' || i+1 >= len(t) {
			b.WriteByte(c)
			continue
		}
		i++
		switch t[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
		case '"', '\\', '/':
			b.WriteByte(t[i])
		case 'u':
			if i+4 < len(t) {
				if v, err := strconv.ParseUint(t[i+1:i+5], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += 4
					continue
				}
			}
			b.WriteString(`\u`)
		default:
			b.WriteByte('\\')
			b.WriteByte(t[i])
		}
	}
	return splitJSONLine(b.String())
}

// splitJSONLine puts each field of a one-line JSON object on its own line,
// so a configuration value is a line of its own.
func splitJSONLine(s string) string {
	if strings.Contains(s, "\n") {
		out := make([]string, 0, 8)
		for _, l := range strings.Split(s, "\n") {
			out = append(out, splitJSONLine(l))
		}
		return strings.Join(out, "\n")
	}
	t := strings.TrimSpace(s)
	if len(t) < 80 || (!strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[")) || !strings.Contains(t, `","`) && !strings.Contains(t, `,"`) {
		return s
	}
	return strings.ReplaceAll(t, `,"`, ",\n\"")
}

// jsonStringField finds "key":"value" in a JSON text and returns the value.
func jsonStringField(s, key string) string {
	k := `"` + key + `":"`
	i := strings.Index(s, k)
	if i < 0 {
		k = `"` + key + `": "`
		if i = strings.Index(s, k); i < 0 {
			return ""
		}
	}
	rest := s[i+len(k):]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return ""
}

// whoOf is how a digest line names the speaker of an entry.
func whoOf(e *conversation.Entry) string {
	switch e.Role {
	case conversation.RoleTool:
		if e.ToolName != "" {
			return conversation.RoleTool + " " + e.ToolName
		}
		return conversation.RoleTool
	case conversation.RoleUser, conversation.RoleAssistant:
		return e.Role
	}
	return conversation.RoleAssistant
}

// candidates returns the digest lines of one entry worth keeping (at most
// maxLinesPerMessage, the best), with order base.
func candidates(e *conversation.Entry, focus *termSet, order int, topics map[string]bool) []dline {
	who := whoOf(e)
	out := trailLines(e)
	isTool := e.Role == conversation.RoleTool
	// the model's own text without calls: its answers, findings and
	// conclusions after a tool loop
	concluding := e.Role == conversation.RoleAssistant && len(e.ToolCalls) == 0
	// a sentence a message repeats (boilerplate, a pasted block twice) is
	// read once: the digest keeps a line once anyway
	var seen map[string]bool
	splitLines(messageText(e), func(line string, inCode bool) {
		if seen == nil {
			seen = map[string]bool{}
		} else if seen[line] {
			return
		}
		seen[line] = true
		value := (isTool || concluding) && isValueLine(strings.TrimSpace(line))
		if (inCode || looksLikeCode(sentenceOf(line))) && !value {
			keep := false
			for _, m := range codeMarkers {
				keep = keep || strings.Contains(line, m)
			}
			if !keep {
				return
			}
		}
		lineWho := who
		logLine := isLogLine(strings.TrimSpace(line))
		if lineWho == conversation.RoleUser && logLine {
			lineWho = conversation.RoleTool // a pasted log is data
		}
		f := analyse(withoutTopics(line, topics), focus)
		if logLine {
			// a record of a log requires and decides nothing, whatever its
			// words; it is a finding when it reports an error
			f.requirement, f.softNeed, f.decision, f.softChoice = false, false, false, false
			f.finding = f.finding && logError(line)
		}
		s := scoreOf(f, lineWho)
		if isTool && jsonFragment(line) {
			s -= jsonPenalty // listings and search hits as JSON
		}
		if value {
			// a setting, an error code, a failing test, a URL: what a tool's
			// output or the model's answer establishes
			s += valueBonus
		}
		if concluding && hasContent(f) {
			s += concludingBonus
		}
		if s < minLineScore-rarityBonus || !(hasContent(f) || value) {
			return // (rarity may still lift it to minLineScore)
		}
		text := clipLine(line)
		if lineWho == conversation.RoleTool {
			text = clipData(line) // data: its start says what it is
		}
		d := dline{cite: contextbuilder.Cite(e.ID), who: who, text: text, section: sectionOf(f, lineWho), score: s}
		d.call = len(e.ToolCalls) > 0 && strings.HasPrefix(line, callPrefix)
		if value {
			d.vkey = valueKey(strings.TrimSpace(line))
		}
		out = append(out, d)
	})
	limit := maxLinesPerMessage
	if e.Role == conversation.RoleUser {
		limit = maxLinesPerUserMessage
	}
	if len(out) > limit {
		idx := make([]int, len(out))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(out[b].score, out[a].score) })
		keep := make([]bool, len(out))
		for _, i := range idx[:limit] {
			keep[i] = true
		}
		k := 0
		for i := range out {
			if keep[i] {
				out[k] = out[i]
				k++
			}
		}
		out = out[:k]
	}
	for i := range out {
		out[i].order = order + i
	}
	return out
}

// task is the first user message as a digest keeps it.
type task struct {
	cite     string
	text     string
	keyLines bool // only its best lines
}

// parsedDigest is a summary read back.
type parsedDigest struct {
	task  *task
	lines []dline
	total int // messages compacted so far, as the header says
}

const (
	digestIntro    = "Digest of the earlier messages compacted out of this request"
	taskTitle      = "Task (first user message"
	taskKeyMark    = ", key lines"
	focusTitle     = "Focus of the last compaction:"
	llmBodyTitle   = "Summary:"
	truncatedTitle = "(lines that did not fit were left out)"
)

// parseDigest reads a summary this package wrote (or any other summary-class
// text: its lines become lines of unknown origin).
func parseDigest(text string) parsedDigest {
	var p parsedDigest
	inTask := false
	var taskLines []string
	order := 0
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimRight(line, " \t\r")
		trim := strings.TrimSpace(t)
		switch {
		case trim == "" && !inTask:
			continue
		case strings.HasPrefix(trim, contextbuilder.ConversationSummaryPrefix) || (order == 0 && strings.HasPrefix(trim, contextbuilder.SummaryPrefix) && len(trim) < 40):
			continue
		case strings.HasPrefix(trim, digestIntro):
			if i := strings.Index(trim, "("); i >= 0 {
				n, _ := strconv.Atoi(strings.Fields(trim[i+1:] + " x")[0])
				p.total = n
			}
			continue
		case strings.HasPrefix(trim, taskTitle):
			inTask = true
			p.task = &task{keyLines: strings.Contains(trim, taskKeyMark)}
			if i := strings.Index(trim, "#"); i >= 0 {
				c := trim[i:]
				if j := strings.IndexAny(c, ",) "); j >= 0 {
					c = c[:j]
				}
				p.task.cite = c
			}
			continue
		case inTask && strings.HasPrefix(t, "> "):
			taskLines = append(taskLines, t[2:])
			continue
		case inTask && t == ">":
			taskLines = append(taskLines, "")
			continue
		}
		if inTask {
			inTask = false
		}
		if trim == "" || trim == llmBodyTitle || trim == truncatedTitle || strings.HasPrefix(trim, focusTitle) || strings.HasPrefix(trim, blockTitle) || isSectionTitle(trim) {
			continue
		}
		d := dline{who: whoSummary, text: trim}
		if rest, ok := strings.CutPrefix(trim, "- #"); ok {
			if sp := strings.IndexByte(rest, ' '); sp > 0 {
				if colon := strings.Index(rest[sp+1:], ": "); colon >= 0 {
					d.cite = "#" + rest[:sp]
					d.who = rest[sp+1 : sp+1+colon]
					d.text = rest[sp+1+colon+2:]
				}
			}
		} else {
			d.text = strings.TrimPrefix(strings.TrimPrefix(trim, "- "), "* ")
		}
		if strings.TrimSpace(d.text) == "" {
			continue
		}
		f := analyse(d.text, nil)
		d.section = sectionOf(f, d.who)
		d.score = scoreOf(f, d.who)
		d.order = order
		order++
		p.lines = append(p.lines, d)
	}
	if p.task != nil {
		p.task.text = strings.TrimRight(strings.Join(taskLines, "\n"), "\n")
		if p.task.text == "" {
			p.task = nil
		}
	}
	return p
}

func isSectionTitle(s string) bool {
	for _, t := range sectionTitles {
		if s == t {
			return true
		}
	}
	return false
}

// digestInput is what a digest is made from.
type digestInput struct {
	entries  []conversation.Entry // the messages compacted now, in log order
	skip     map[string]bool      // carried word for word: not digested
	previous []string             // the summaries they replace, oldest first
	total    int                  // messages compacted so far, these included
	budget   int                  // tokens for the whole summary message
	focus    string
	counter  contextbuilder.Counter
	model    string
	// block: the digest is a block appended to the summary in the request
	// (previous is empty): a block header instead of the summary's, and no
	// task (the first block has it).
	block bool
}

// digest is a written digest.
type digest struct {
	text    string
	task    *task
	lines   []dline // kept, in written order
	dropped int     // candidate lines that did not fit
	tokens  int
}

// buildDigest writes the digest (see the comment at the top of this file).
func buildDigest(in digestInput) digest {
	var focus *termSet
	if strings.TrimSpace(in.focus) != "" {
		focus = newTermSet(in.focus)
	}
	var prevTask *task
	var all []dline
	order := 0
	parsed := make([]parsedDigest, len(in.previous))
	var prevLines []string
	for i, text := range in.previous {
		parsed[i] = parseDigest(text)
		for _, d := range parsed[i].lines {
			prevLines = append(prevLines, d.text)
		}
	}
	// Topic words are counted over the messages and the lines read back, so
	// that a line an earlier digest kept for a word that has since become
	// the conversation's topic competes without it.
	topics := topicWords(in.entries, prevLines, func(*conversation.Entry) bool { return false })
	for _, p := range parsed {
		if p.task != nil && prevTask == nil {
			prevTask = p.task
		}
		for _, d := range p.lines {
			d.order = order
			order++
			who := d.who
			if who == conversation.RoleUser && isLogLine(d.text) {
				who = conversation.RoleTool
			}
			d.score = scoreOf(analyse(withoutTopics(d.text, topics), focus), who)
			d.score += keptBonus
			d.shape = shapeKey(d.text)
			all = append(all, d)
		}
	}
	c, model := in.counter, in.model
	count := func(s string) int { return c.Count(model, s) }

	// The task: the first user message, when no earlier digest has it.
	tk := prevTask
	taskID := ""
	if tk == nil && !in.block {
		for i := range in.entries {
			e := &in.entries[i]
			if e.Role == conversation.RoleUser && !e.IsMeta && strings.TrimSpace(e.Text()) != "" {
				tk = &task{cite: contextbuilder.Cite(e.ID), text: strings.TrimSpace(e.Text())}
				taskID = e.ID
				break
			}
		}
	}
	taskCap := min(in.budget/3, 2000)
	if tk != nil && taskID != "" && count(tk.text) > taskCap {
		// too long: its best lines, in order
		var lines []dline
		splitLines(tk.text, func(line string, inCode bool) {
			f := analyse(line, focus)
			lines = append(lines, dline{text: clipLine(line), score: scoreOf(f, conversation.RoleUser), order: len(lines)})
		})
		byScore := slices.Clone(lines)
		slices.SortStableFunc(byScore, func(a, b dline) int { return cmp.Compare(b.score, a.score) })
		keep := map[int]bool{}
		used := 0
		for _, l := range byScore {
			t := count(l.text) + 1
			if used+t > taskCap {
				continue
			}
			used += t
			keep[l.order] = true
		}
		var kept []string
		for _, l := range lines {
			if keep[l.order] {
				kept = append(kept, l.text)
			}
		}
		tk = &task{cite: tk.cite, text: strings.Join(kept, "\n"), keyLines: true}
	}

	fresh := len(all)
	skipped := func(e *conversation.Entry) bool {
		return (e.ID == taskID && tk != nil && !tk.keyLines) || in.skip[e.ID] // quoted whole, or carried word for word
	}
	// Each message's lines are found on their own (on every core); the
	// order, the rarity counts and everything after are worked out in
	// message order, so the digest does not depend on how they were shared.
	found := make([][]dline, len(in.entries))
	eachParallel(len(in.entries), func(i int) {
		e := &in.entries[i]
		if skipped(e) {
			return
		}
		lines := candidates(e, focus, 0, topics)
		for j := range lines {
			lines[j].keys = keyTokens(lines[j].text)
			lines[j].shape = shapeKey(lines[j].text)
		}
		found[i] = lines
	})
	n := len(all)
	for _, lines := range found {
		n += len(lines)
	}
	all = slices.Grow(all, n-len(all))
	freq := map[string]int{} // key token -> messages naming it
	for i := range in.entries {
		if skipped(&in.entries[i]) {
			continue
		}
		lines := found[i]
		for j := range lines {
			lines[j].order = order + j
		}
		order += len(lines) + 1
		seen := map[string]bool{}
		for j := range lines {
			for _, k := range lines[j].keys {
				if !seen[k] {
					seen[k] = true
					freq[k]++
				}
			}
		}
		all = append(all, lines...)
	}
	// A line naming something said only once is likely a specific fact; one
	// whose names and figures recur everywhere is common context.
	named := make([]bool, len(all)) // names something said only once
	for i := fresh; i < len(all); i++ {
		keys := all[i].keys
		if len(keys) == 0 {
			continue
		}
		rare, rareName, common := false, false, true
		for _, k := range keys {
			rare = rare || freq[k] == 1
			rareName = rareName || freq[k] == 1 && !numeric(k)
			common = common && freq[k] >= 3
		}
		named[i] = rareName
		switch {
		case rareName:
			all[i].score += rarityBonus
		case rare:
			// a figure said once: any log line has those
			all[i].score += rarityBonus / 2
		case common:
			all[i].score -= rarityBonus
		}
	}
	// A figure said again later (a value corrected, "forget 90434 ms, it's
	// 23066 ms now", or confirmed) makes the earlier line that states it
	// superseded: the later line carries it with what changed. The earlier
	// line sinks, so that a tight digest keeps the correction rather than
	// the stale value.
	lastFig := map[string]int{}
	for i := range all {
		if all[i].keys == nil && i < fresh {
			all[i].keys = keyTokens(all[i].text)
		}
		for _, k := range all[i].keys {
			if len(k) >= 4 && numeric(k) {
				lastFig[k] = i
			}
		}
	}
	for i := range all {
		figs, later := 0, 0
		for _, k := range all[i].keys {
			if len(k) >= 4 && numeric(k) {
				figs++
				if j := lastFig[k]; j > i && all[j].cite != all[i].cite {
					later++
				}
			}
		}
		if figs > 0 && later == figs {
			all[i].score -= supersededPenalty
		}
	}
	// A setting whose key recurs in many lines (the size and name fields of
	// listings, a log's level) is data like any other; a key said once is
	// the specific value a tool's output established.
	vfreq := map[string]int{}
	for i := range all {
		if all[i].vkey == "" && i < fresh && strings.HasPrefix(all[i].who, conversation.RoleTool) {
			all[i].vkey = valueKey(all[i].text) // a line read back
		}
		if all[i].vkey != "" {
			vfreq[all[i].vkey]++
		}
	}
	for i := range all {
		if k := all[i].vkey; k != "" && vfreq[k] >= commonKeyLines {
			all[i].score -= valueBonus
		}
	}
	// Lines of the same shape (the same words around different figures and
	// names: progress logs, repeated boilerplate) lose a point for each newer
	// one, so the newest stays and the repeats sink.
	// A line naming something said only once loses at most one point: the
	// same sentence about different things (a proposal made twice, for two
	// parts) says different things.
	// A template's slots may hold words as well ("In <path> the <part>
	// gets recomputed …"): lines whose shapes differ in one word only are of
	// one template when there are templateLines of them.
	shapes := map[string]int{}
	variants := make([][]string, len(all))
	for i := range all {
		if k := all[i].shape; k != "" {
			variants[i] = shapeVariants(k)
			for _, v := range variants[i] {
				shapes[v]++
			}
		}
	}
	for i := range all {
		best := 0
		for _, v := range variants[i] {
			if n := shapes[v]; n > best && n >= templateLines {
				all[i].shape, best = v, n
			}
		}
	}
	byShape := map[string]int{}
	for i := len(all) - 1; i >= 0; i-- {
		if k := all[i].shape; k != "" {
			n := byShape[k]
			if named[i] && shapes[k] < templateLines {
				n = min(n, 1)
			}
			all[i].score -= float64(n) * shapePenalty
			byShape[k]++
		}
	}
	// Which files a read or a search took is kept only when there is room
	// for everything else.
	for i := range all {
		if all[i].call || i < fresh && all[i].who == conversation.RoleAssistant && strings.HasPrefix(all[i].text, callPrefix) {
			all[i].score, all[i].call = minLineScore, true
		}
	}
	all = slices.DeleteFunc(all, func(d dline) bool { return d.score < minLineScore })

	// Repeats: the same line (normalised) is kept once, with its best score.
	byKey := make(map[string]int, len(all))
	uniq := all[:0]
	for _, d := range all {
		d.key = digestKey(d.text)
		if len(d.key) < 4 {
			continue
		}
		if j, ok := byKey[d.key]; ok {
			if d.score > uniq[j].score {
				uniq[j].score = d.score
			}
			continue
		}
		byKey[d.key] = len(uniq)
		uniq = append(uniq, d)
	}
	all = uniq

	header := renderHeader(in.total, in.focus, tk)
	if in.block {
		header = renderBlockHeader(in.entries, in.focus)
	}
	room := in.budget - count(header) - 4
	ranked := make([]int, len(all))
	for i := range ranked {
		ranked[i] = i
	}
	// Best value per token first: a short line with a fact beats a long one
	// with the same score.
	value := make([]float64, len(all))
	for i := range all {
		value[i] = all[i].score / math.Sqrt(float64(estimateTokens(all[i].text)+8))
	}
	slices.SortStableFunc(ranked, func(a, b int) int {
		x, y := &all[a], &all[b]
		if x.call != y.call {
			// which files a read took: after every other line
			if y.call {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(value[b], value[a]); c != 0 {
			return c
		}
		if xu, yu := x.who == conversation.RoleUser, y.who == conversation.RoleUser; xu != yu {
			if xu {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.order, y.order)
	})
	var chosen []int
	var chosenKeys []string
	used := 0
	dropped := 0
	for _, i := range ranked {
		d := &all[i]
		est := estimateTokens(d.text) + 8
		if used+est > room+room/8 {
			dropped++
			continue
		}
		if containedIn(d.key, chosenKeys) {
			continue
		}
		d.tokens = count(renderLine(d)) + 1
		if used+d.tokens > room {
			dropped++
			continue
		}
		used += d.tokens
		chosen = append(chosen, i)
		chosenKeys = append(chosenKeys, d.key)
	}
	kept := make([]dline, len(chosen))
	for k, i := range chosen {
		kept[k] = all[i]
	}
	slices.SortStableFunc(kept, func(a, b dline) int { return cmp.Compare(a.order, b.order) })
	besideCorrections(kept)
	dg := digest{task: tk, lines: kept, dropped: dropped}
	for {
		dg.text = renderDigest(header, kept, dropped > 0)
		dg.tokens = count(dg.text) + contextbuilder.MessageOverhead
		if dg.tokens <= in.budget || len(kept) == 0 {
			break
		}
		// the sum of the lines' counts missed: leave out the weakest line
		worst := 0
		for k := range kept {
			if kept[k].score < kept[worst].score || (kept[k].score == kept[worst].score && kept[k].order > kept[worst].order) {
				worst = k
			}
		}
		kept = slices.Delete(kept, worst, worst+1)
		dropped++
	}
	dg.lines, dg.dropped = kept, dropped
	return dg
}

// besideCorrections moves a kept line whose figures a later kept line of
// another message says again (a value corrected: "the 27168 a minute was
// wrong, it's 27579") into that line's section, so that it is read right
// before its correction and not after it. lines are in written order.
func besideCorrections(lines []dline) {
	figs := make([][]string, len(lines))
	for i := range lines {
		for _, k := range keyTokens(lines[i].text) {
			if len(k) >= 4 && numeric(k) {
				figs[i] = append(figs[i], k)
			}
		}
	}
	for i := range lines {
		if len(figs[i]) == 0 {
			continue
		}
		for j := len(lines) - 1; j > i; j-- {
			if lines[j].cite == lines[i].cite || lines[j].section == lines[i].section {
				continue
			}
			all := true
			for _, f := range figs[i] {
				all = all && slices.Contains(figs[j], f)
			}
			if all {
				lines[i].section = lines[j].section
				break
			}
		}
	}
}

// logError reports whether a record of a log reports an error (its level,
// or a word of failure).
func logError(line string) bool {
	for _, w := range []string{"ERROR", "FATAL", "PANIC", "CRIT", "FAIL", "error", "fail", "panic", "exception", "Exception", "refused", "denied", "rejected"} {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

// numeric reports whether a key token is a figure (digits and the
// punctuation of numbers, dates and times).
func numeric(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == ',' || c == ':' || c == '-' || c == '%') {
			return false
		}
	}
	return true
}

// containedIn reports whether key repeats (is part of) one of keys.
func containedIn(key string, keys []string) bool {
	if len(key) < 16 {
		return false
	}
	for _, k := range keys {
		if len(k) >= len(key) && strings.Contains(k, key) {
			return true
		}
	}
	return false
}

func renderHeader(total int, focus string, tk *task) string {
	var b strings.Builder
	b.WriteString(contextbuilder.ConversationSummaryPrefix + "\n")
	fmt.Fprintf(&b, "%s (%d messages so far). Each line quotes the message it comes from (#id).", digestIntro, total)
	if f := strings.TrimSpace(focus); f != "" {
		b.WriteString("\n" + focusTitle + " " + oneLineText(f))
	}
	if tk != nil {
		b.WriteString("\n\n" + taskTitle + " " + tk.cite)
		if tk.keyLines {
			b.WriteString(taskKeyMark)
		}
		b.WriteString("):")
		for _, l := range strings.Split(tk.text, "\n") {
			if l == "" {
				b.WriteString("\n>")
			} else {
				b.WriteString("\n> " + l)
			}
		}
	}
	return b.String()
}

// blockTitle starts the header of a block appended to a summary.
const blockTitle = "Compacted after that:"

// renderBlockHeader is the header of a block appended to a summary: the
// messages it covers.
func renderBlockHeader(entries []conversation.Entry, focus string) string {
	var b strings.Builder
	b.WriteString(blockTitle)
	if len(entries) > 0 {
		fmt.Fprintf(&b, " %d messages, %s to %s.", len(entries), contextbuilder.Cite(entries[0].ID), contextbuilder.Cite(entries[len(entries)-1].ID))
	}
	if f := strings.TrimSpace(focus); f != "" {
		b.WriteString("\n" + focusTitle + " " + oneLineText(f))
	}
	return b.String()
}

func renderLine(d *dline) string {
	if d.cite == "" {
		return "- " + d.text
	}
	return "- " + d.cite + " " + d.who + ": " + d.text
}

func renderDigest(header string, lines []dline, dropped bool) string {
	var b strings.Builder
	b.WriteString(header)
	for sec := range sectionTitles {
		first := true
		prev := -1
		for k := range lines {
			if lines[k].section != sec {
				continue
			}
			if first {
				b.WriteString("\n\n" + sectionTitles[sec])
				first = false
			}
			// sentences of one message that follow each other share a line
			if prev >= 0 && lines[prev].cite != "" && lines[prev].cite == lines[k].cite && lines[prev].who == lines[k].who {
				b.WriteString(" … " + lines[k].text)
			} else {
				b.WriteString("\n" + renderLine(&lines[k]))
			}
			prev = k
		}
	}
	if dropped {
		b.WriteString("\n" + truncatedTitle)
	}
	return b.String()
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// headRunes returns the first n runes of s.
func headRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// parallelChunk is how many messages a worker of eachParallel takes at a
// time; below two chunks the work stays on the calling goroutine.
const parallelChunk = 64

// eachParallel calls fn for every index in [0, n), on up to GOMAXPROCS
// goroutines; fn must only write what belongs to its index.
func eachParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/parallelChunk)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(parallelChunk)) - parallelChunk
				if start >= n {
					return
				}
				for i := start; i < min(start+parallelChunk, n); i++ {
					fn(i)
				}
			}
		}()
	}
	wg.Wait()
}
