package compression

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// The artifact trail: what the agent did to the project's files, read from
// the arguments of its own tool calls (not from their results, which only
// say that something was written). Each change is one digest line in the
// "Files changed" section: the tool's verb, the path, the size, and the
// lines of the written text that carry values (settings, names, figures),
// so "the config now says port 6851" survives although only a write's
// arguments ever held it.

// trailScore is the score of a file-change line: above the lines of plain
// chatter, below the user's requirements.
const trailScore = 4.5

// maxTrailValues is how many value lines of a written text a trail line
// quotes.
const maxTrailValues = 4

// trailLines returns the file-change lines of an assistant message's tool
// calls.
func trailLines(e *conversation.Entry) []dline {
	var out []dline
	for _, tc := range e.ToolCalls {
		text := trailText(tc.Function.Name, tc.Function.Arguments)
		if text == "" {
			continue
		}
		score := trailScore
		if strings.Contains(text, "`") {
			score += 1.5 // it quotes values the write set
		}
		out = append(out, dline{cite: contextbuilder.Cite(e.ID), who: conversation.RoleAssistant, text: clipTrail(text), section: secFiles, score: score})
	}
	return out
}

// clipTrail shortens a trail line to twice a digest line's length (it
// carries a path and several values).
func clipTrail(s string) string {
	if utf8.RuneCountInString(s) <= 2*maxLineRunes {
		return s
	}
	return headRunes(s, 2*maxLineRunes-1) + "…"
}

// trailText describes one tool call that changes files ("" for one that
// does not).
func trailText(name, args string) string {
	var a map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &a) != nil {
		return ""
	}
	str := func(k string) string {
		var s string
		if raw, ok := a[k]; ok && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	path := str("path")
	base := name
	if i := strings.LastIndex(base, "__"); i >= 0 && conversation.IsMCPTool(base) {
		base = base[i+2:]
	}
	switch conversation.DottedToolName(name) {
	case conversation.ToolFSWrite:
		content := str("content")
		if path == "" {
			return ""
		}
		lines := strings.Count(content, "\n")
		if content != "" && !strings.HasSuffix(content, "\n") {
			lines++
		}
		s := fmt.Sprintf("wrote %s (%d lines)", path, lines)
		if v := valueLines(content); len(v) > 0 {
			s += ": " + strings.Join(v, "; ")
		}
		return s
	case conversation.ToolFSApplyPatch:
		if path == "" {
			return ""
		}
		s := "updated " + path
		if kv := flatUpdate(a["update"]); kv != "" {
			s += ": " + kv
		}
		return s
	case conversation.ToolShellRun:
		if c := strings.TrimSpace(str("command")); c != "" {
			return "ran `" + oneLineText(c) + "`"
		}
		return ""
	}
	low := strings.ToLower(base)
	verb := ""
	for _, v := range []string{"write", "create", "edit", "patch", "replace", "move", "rename", "delete", "remove", "mkdir"} {
		if strings.Contains(low, v) {
			verb = v
			break
		}
	}
	if verb == "" {
		return ""
	}
	target := path
	for _, k := range []string{"source", "file", "filePath", "file_path", "from"} {
		if target != "" {
			break
		}
		target = str(k)
	}
	for _, k := range []string{"destination", "target", "to", "newPath", "new_path"} {
		if d := str(k); d != "" {
			target = strings.TrimSpace(target + " → " + d)
			break
		}
	}
	if target == "" {
		return ""
	}
	s := name + " " + target
	for _, k := range []string{"content", "text", "newText", "new_string", "edits"} {
		if v := valueLines(str(k)); len(v) > 0 {
			s += ": " + strings.Join(v, "; ")
			break
		}
	}
	return s
}

// flatUpdate renders an fs.apply_patch update as key → value pairs.
func flatUpdate(raw json.RawMessage) string {
	var u map[string]map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil {
		return ""
	}
	keys := make([]string, 0, len(u))
	for k := range u {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		for op, v := range u[k] {
			val := oneLineText(string(v))
			if utf8.RuneCountInString(val) > 80 {
				val = headRunes(val, 79) + "…"
			}
			parts = append(parts, k+" "+op+" "+val)
		}
	}
	return strings.Join(parts, ", ")
}

// valueLines returns the lines of a written text that carry values, best
// first up to maxTrailValues, in their order: "key: value" and "key = value"
// lines, lines with figures, names or paths.
func valueLines(text string) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	type cand struct {
		text  string
		score float64
		order int
	}
	var cands []cand
	n := 0
	for _, line := range strings.Split(text, "\n") {
		n++
		if n > 2000 {
			break
		}
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*#>/ "))
		if t == "" || utf8.RuneCountInString(t) > 160 {
			continue
		}
		f := analyse(t, nil)
		s := 0.0
		if isValueLine(t) {
			s += 3
		}
		if f.numberCtx {
			s += 2
		}
		if f.name {
			s += 1
		}
		if f.path {
			s += 1
		}
		if f.requirement || f.decision || f.role {
			s += 2
		}
		if s < 2 {
			continue
		}
		cands = append(cands, cand{text: t, score: s, order: len(cands)})
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.score, a.score) })
	if len(cands) > maxTrailValues {
		cands = cands[:maxTrailValues]
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(a.order, b.order) })
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = "`" + c.text + "`"
	}
	return out
}

// isValueLine reports whether a line states a value: "key: value" or
// "key = value" with a short key, an error code, a failing test, a URL or a
// version.
func isValueLine(t string) bool {
	if jsonFragment(t) {
		return false // listings, search hits
	}
	if i := strings.IndexAny(t, ":="); i > 0 && i <= 48 {
		key := strings.TrimSpace(t[:i])
		val := strings.TrimSpace(strings.TrimLeft(t[i+1:], "= "))
		if key != "" && val != "" && !strings.HasPrefix(val, "//") && utf8.RuneCountInString(val) <= 120 && keyLike(key) &&
			(!strings.Contains(key, " ") || strings.ContainsAny(val, "0123456789")) {
			return true
		}
	}
	if strings.Contains(t, "://") || strings.Contains(t, "FAIL") || strings.Contains(t, "Error:") || strings.Contains(t, "error:") {
		return true
	}
	return hasErrorCode(t)
}

// valueKey returns the key of a "key: value" or "key = value" line that
// isValueLine accepts, in lower case without quotes ("" for other value
// lines: error codes, URLs, failing tests).
func valueKey(t string) string {
	i := strings.IndexAny(t, ":=")
	if i <= 0 || i > 48 {
		return ""
	}
	key := strings.Trim(strings.TrimSpace(t[:i]), `"' `)
	if key == "" || !keyLike(key) {
		return ""
	}
	return strings.ToLower(key)
}

// keyLike reports whether s looks like the key of a setting: words,
// dots, dashes and underscores, at most four words.
func keyLike(s string) bool {
	s = strings.Trim(s, `"' `)
	if s == "" || strings.Count(s, " ") > 2 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		switch {
		case r == '.' || r == '-' || r == '_' || r == ' ' || r == '"' || r == '\'' || r == '[' || r == ']':
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r >= utf8.RuneSelf && isCJK(r):
		default:
			return false
		}
	}
	return true
}

// hasErrorCode reports whether t holds an identifier shaped like an error
// code: upper-case words joined by underscores (E_NOT_FOUND,
// ERR_TIMEOUT_2) or a letter and three digits or more (E1042).
func hasErrorCode(t string) bool {
	for i := 0; i < len(t); {
		for i < len(t) && !isCodeByte(t[i]) {
			i++
		}
		s := i
		upper := true
		for i < len(t) && isCodeByte(t[i]) {
			upper = upper && !(t[i] >= 'a' && t[i] <= 'z')
			i++
		}
		w := t[s:i]
		if len(w) < 4 || !upper {
			continue
		}
		if strings.Contains(w, "_") && !strings.HasPrefix(w, "_") && !strings.HasSuffix(w, "_") && w[0] >= 'A' && w[0] <= 'Z' {
			return true
		}
		if w[0] >= 'A' && w[0] <= 'Z' && allDigits(w[1:]) {
			return true
		}
	}
	return false
}

// isCodeByte reports whether c may be part of an error code's word.
func isCodeByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 'a' && c <= 'z'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// markerFlags are the flags of words that mark a line as a requirement, a
// decision, a finding or a role.
const markerFlags = kwRequire | kwDecide | kwFind | kwRole | kwSoftNeed | kwSoftChoice

// topicWords returns the marker words that recur in so many of the entries
// and lines of earlier digests (at least a twelfth of them, and four) that they name what the
// conversation is about rather than mark one line: in a billing service
// "quota" or "limit" is a topic, and a line is no requirement for saying it.
func topicWords(entries []conversation.Entry, lines []string, skip func(*conversation.Entry) bool) map[string]bool {
	df := map[string]int{}
	n := 0
	var buf [64]byte
	docs := make([]string, 0, len(entries)+len(lines))
	for i := range entries {
		if !skip(&entries[i]) {
			docs = append(docs, messageText(&entries[i]))
		}
	}
	docs = append(docs, lines...)
	for _, text := range docs {
		n++
		seen := map[string]bool{}
		for j := 0; j < len(text); {
			for j < len(text) && !isWordByte(text[j]) {
				j++
			}
			s := j
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			if s == j || j-s > 32 {
				continue
			}
			eachWordPart(text[s:j], buf[:0], func(w []byte) {
				if words[string(w)]&markerFlags != 0 && !seen[string(w)] {
					seen[string(w)] = true
					df[string(w)]++
				}
			})
		}
	}
	min := max(4, n/12)
	var out map[string]bool
	for w, c := range df {
		if c >= min {
			if out == nil {
				out = map[string]bool{}
			}
			out[w] = true
		}
	}
	return out
}

// withoutTopics returns line with its topic words blanked (for scoring
// only), or line itself when it has none.
func withoutTopics(line string, topics map[string]bool) string {
	if len(topics) == 0 {
		return line
	}
	var b []byte
	var buf [64]byte
	for j := 0; j < len(line); {
		for j < len(line) && !isWordByte(line[j]) {
			j++
		}
		s := j
		for j < len(line) && isWordByte(line[j]) {
			j++
		}
		if s == j || j-s > 32 {
			continue
		}
		hit := false
		eachWordPart(line[s:j], buf[:0], func(w []byte) { hit = hit || topics[string(w)] })
		if !hit {
			continue
		}
		if b == nil {
			b = []byte(line)
		}
		// an identifier with a topic word in it (CursorQuotaWindow) still
		// names something: it loses the marker, not the name
		name := isCapitalised(line[s:j])
		for k := s; k < j; k++ {
			b[k] = 'x'
		}
		if name {
			b[s] = 'X'
		}
	}
	if b == nil {
		return line
	}
	return string(b)
}

// months and logLevels are how the records of common log formats start.
const months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec"

var logLevels = []string{"TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "CRITICAL"}

// isLogLine reports whether a line starts like a log record (a date or a
// time first): pasted logs are data, whoever pastes them.
func isLogLine(t string) bool {
	t = strings.TrimLeft(t, "[ \"'")
	if len(t) < 10 {
		return false
	}
	if !isDigit(t[0]) || !isDigit(t[1]) {
		// syslog's "Nov 29 11:37:16", or a record that starts with its level
		if len(t) >= 15 && t[3] == ' ' && isDigit(t[5]) && t[6] == ' ' && t[9] == ':' && strings.Contains(months, t[:3]) {
			return true
		}
		for _, l := range logLevels {
			if rest, ok := strings.CutPrefix(t, l); ok && rest != "" && (rest[0] == ' ' || rest[0] == ']' || rest[0] == ':') {
				return true
			}
		}
		return false
	}
	switch {
	case isDigit(t[2]) && isDigit(t[3]) && (t[4] == '-' || t[4] == '/'): // 2026-04-11, 2026/04/11
		return true
	case t[2] == ':': // 07:21:02
		return true
	case (t[2] == '-' || t[2] == '/') && isDigit(t[3]) && isDigit(t[4]) && t[5] == ' ' && isDigit(t[6]) && isDigit(t[7]) && t[8] == ':':
		return true // 11-15 16:55:01 (a date without its year, as Android's logcat writes it)
	}
	return false
}

// jsonFragment reports whether a line is a piece of JSON with several
// fields rather than text.
func jsonFragment(t string) bool {
	return strings.Count(t, `"`) > 4 && (strings.Contains(t, `":`) || strings.Contains(t, `","`))
}

// eachWordPart calls fn with a word in lower case and with each of its
// identifier parts (identParts) in lower case; the bytes are valid only
// during the call.
func eachWordPart(w string, buf []byte, fn func([]byte)) {
	fn(lower(w, buf[:0]))
	identParts(w, func(part string) { fn(lower(part, buf[:0])) })
}
