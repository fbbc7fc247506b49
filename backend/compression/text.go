package compression

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reading a message for the digest: splitting it into candidate lines and
// finding what makes a line worth keeping. It works on English and Chinese
// (and mixed) text: English words are matched as words, Chinese keywords as
// substrings, and sentences end at . ! ? ; as well as 。！？；.

// maxLineRunes caps a digest line; longer sentences keep their start (and
// the part around their most telling word when it lies further in).
const maxLineRunes = 260

// splitLines calls fn for each candidate line of text: the sentences of
// every non-blank line (a question next to a fact does not drag the fact
// down with it). Lines inside ``` code blocks are passed whole with inCode
// set, and so is code (looksLikeCode) and table rows.
func splitLines(text string, fn func(line string, inCode bool)) {
	inCode := false
	for len(text) > 0 {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inCode = !inCode
			continue
		}
		if t == "" {
			continue
		}
		if inCode || looksLikeCode(t) || strings.HasPrefix(t, "|") || !hasSentenceEnd(t) {
			fn(t, inCode)
			continue
		}
		splitSentences(t, func(s string) { fn(s, inCode) })
	}
}

// hasSentenceEnd reports whether a sentence ends inside s (before its last
// few characters).
func hasSentenceEnd(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?', ';':
			if s[i+1] == ' ' {
				return true
			}
		case 0xE3: // 。！？；in UTF-8 start with E3 (。) or EF (full-width)
			return true
		case 0xEF:
			return true
		}
	}
	return false
}

// splitSentences splits a line at sentence ends: ". ", "! ", "? ", "; "
// (and at the end of the text), and after 。！？；.
func splitSentences(s string, fn func(string)) {
	start := 0
	emit := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			fn(t)
		}
		start = end
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c == '.' || c == '!' || c == '?' || c == ';') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
				// "e.g. " and "3. " are not sentence ends worth splitting at
				if c == '.' && i > 0 && (isDigit(s[i-1]) && !longNumberBefore(s, i) || (i >= 2 && s[i-2] == '.')) {
					i++
					continue
				}
				emit(i + 1)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '。', '！', '？', '；':
			emit(i)
		}
	}
	emit(len(s))
}

// longNumberBefore reports whether the three bytes before s[i] are digits:
// a figure ends the sentence ("on port 6305. next"), a list number does not
// ("3. ").
func longNumberBefore(s string, i int) bool {
	return i >= 3 && isDigit(s[i-1]) && isDigit(s[i-2]) && isDigit(s[i-3])
}

// looksLikeCode reports whether a line is source code rather than prose:
// it starts with a keyword of a programming language or a brace, ends with a
// brace or a semicolon, or is dense with brackets and operators. Code lines
// enter a digest only when they carry a TODO/FIXME or a requirement in a
// comment.
func looksLikeCode(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	for _, kw := range codeStartsBy[t[0]] {
		if strings.HasPrefix(t, kw) {
			return true
		}
	}
	last := t[len(t)-1]
	if last == '{' || last == '}' || last == ';' || (last == ')' && strings.Contains(t, "(")) && !strings.Contains(t, " ") {
		return true
	}
	if strings.Contains(t, " := ") || strings.Contains(t, " => ") || strings.Contains(t, ") {") || strings.Contains(t, "();") {
		return true
	}
	sym := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '(', ')', '{', '}', '[', ']', ';', '=', '<', '>', '&', '|':
			sym++
		}
	}
	return sym >= 6 && sym*12 > len(t)
}

var codeStarts = []string{"func ", "def ", "class ", "return ", "import ", "package ", "const ", "var ", "let ", "if (", "if ",
	"for (", "for ", "while ", "} ", "}", "{", "//", "/*", "* ", "#include", "public ", "private ", "fn ", "pub ", "impl ",
	"type ", "struct ", "export ", "function ", "async ", "await ", "try ", "catch", "else", "elif ", "switch ", "case ",
	"SELECT ", "INSERT ", "UPDATE ", "CREATE ", "@", "<", "#!"}

// codeMarkers keep a code line in a digest.
// codeStartsBy holds the codeStarts by their first byte.
var codeStartsBy = func() (m [256][]string) {
	for _, kw := range codeStarts {
		m[kw[0]] = append(m[kw[0]], kw)
	}
	return m
}()

var codeMarkers = []string{"TODO", "FIXME", "XXX", "HACK"}

// Feature flags of a line.
type features struct {
	requirement bool // must, never, 必须, 不要 …
	decision    bool // decided, we'll use, 决定, 采用 …
	// softNeed and softChoice are should / need / only, instead / prefer:
	// a requirement or a decision when the user says them, advice when the
	// model does.
	softNeed, softChoice bool
	finding              bool // error, failed, found, 错误, 发现 …
	path                 bool // a file path or alias path
	numberCtx            bool // a number with a unit, currency, version, date, or of 3+ digits
	number               bool // any digit
	name                 bool // a proper name, identifier, quoted string, e-mail or URL
	role                 bool // who is responsible: owner, reviewer, contact, 负责人 …
	question             bool // ends with a question mark
	chatter              bool // thanks / ok / sure …
	focus                int  // focus terms matched
	runes                int
	cjk                  int // Chinese (CJK) characters
}

type kwFlag uint16

const (
	kwRequire kwFlag = 1 << iota
	kwDecide
	kwFind
	kwUnit
	kwChatter
	kwStop
	kwRole
	kwSoftNeed
	kwSoftChoice
)

// English keywords (lower case, apostrophes as ').
var words = func() map[string]kwFlag {
	m := map[string]kwFlag{}
	add := func(f kwFlag, ws ...string) {
		for _, w := range ws {
			m[w] |= f
		}
	}
	add(kwRequire, "must", "mustn't", "never", "always", "required", "require", "requires",
		"requirement", "requirements", "mandatory", "cannot", "can't", "don't", "won't", "forbidden", "prohibited",
		"deadline", "maximum", "minimum", "limit", "budget", "constraint", "constraints", "policy", "strictly",
		"cap", "caps", "capped", "ceiling", "threshold", "quota", "won't")
	add(kwSoftNeed, "should", "shouldn't", "need", "needs", "ensure", "avoid", "only", "max", "min", "important",
		"critical", "essential", "exactly", "doesn't")
	add(kwDecide, "decided", "decide", "decision", "decisions", "chose", "chosen", "agreed", "settled", "opted",
		"approved", "switched", "adopted")
	add(kwSoftChoice, "choose", "agree", "picked", "selected", "confirmed", "final", "adopt", "prefer", "preferred", "instead")
	add(kwFind, "error", "errors", "failed", "fails", "failing", "failure", "exception", "panic", "fatal", "warning",
		"warn", "denied", "refused", "timeout", "crash", "crashed", "bug", "broken", "invalid", "unauthorized",
		"missing", "cause", "caused", "found", "discovered", "noticed", "note", "issue", "problem", "incorrect",
		"wrong", "deprecated", "expired", "expires", "leak", "conflict", "mismatch", "regression", "blocked", "blocker",
		"outage", "vulnerability", "cve", "fail", "expected", "unexpected", "rejected", "exceeded", "overflow")
	add(kwUnit, "eur", "euro", "euros", "usd", "dollars", "dollar", "gbp", "chf", "cny", "rmb", "yen", "percent",
		"ms", "sec", "secs", "second", "seconds", "minute", "minutes", "min", "hour", "hours", "day", "days", "week",
		"weeks", "month", "months", "year", "years", "gb", "mb", "kb", "tb", "gib", "mib", "kib", "tokens", "users",
		"requests", "rps", "qps", "port", "ports", "version", "release", "build", "rows", "lines", "bytes", "px", "pt",
		"cores", "cpus", "threads", "workers", "replicas", "instances", "connections", "times", "items", "people",
		"seats", "licenses", "units", "k", "m", "x", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
		"oct", "nov", "dec", "january", "february", "march", "april", "june", "july", "august", "september",
		"october", "november", "december", "q1", "q2", "q3", "q4", "am", "pm", "utc", "pages", "steps", "retries", "attempts")
	add(kwRole, "owner", "owns", "owned", "reviewer", "reviews", "contact", "lead", "manager", "responsible", "assigned",
		"assignee", "maintainer", "maintains", "approver", "approves", "approval", "stakeholder", "sponsor", "on-call", "oncall")
	add(kwChatter, "thanks", "thank", "ok", "okay", "sure", "great", "cool", "nice", "perfect", "awesome", "hi", "hello", "yes", "no", "yep", "alright")
	add(kwStop, "the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "is", "are", "was",
		"were", "be", "been", "it", "this", "that", "these", "those", "i", "you", "we", "they", "he", "she", "my",
		"your", "our", "their", "its", "as", "by", "from", "so", "if", "then", "than", "but", "not", "do", "does",
		"did", "have", "has", "had", "can", "could", "would", "will", "shall", "there", "here", "what", "which",
		"who", "how", "when", "where", "why", "me", "us", "them", "let", "let's", "also", "just", "please", "into")
	return m
}()

// Two-word phrases, by first word (see phraseIndex).
var phrases = map[[2]string]kwFlag{
	{"do", "not"}: kwRequire, {"must", "not"}: kwRequire, {"make", "sure"}: kwSoftNeed, {"has", "to"}: kwRequire,
	{"have", "to"}: kwRequire, {"at", "least"}: kwRequire, {"at", "most"}: kwRequire, {"no", "more"}: kwRequire,
	{"no", "later"}: kwRequire, {"need", "to"}: kwSoftNeed, {"needs", "to"}: kwSoftNeed, {"not", "allowed"}: kwRequire,
	{"no", "exceptions"}: kwRequire, {"hard", "requirement"}: kwRequire,
	{"go", "with"}: kwDecide, {"going", "with"}: kwDecide, {"we'll", "use"}: kwDecide, {"will", "use"}: kwDecide,
	{"let's", "use"}: kwDecide, {"switch", "to"}: kwDecide, {"stick", "with"}: kwDecide, {"we", "use"}: kwDecide,
	{"settle", "on"}: kwDecide, {"plan", "is"}: kwDecide,
	{"not", "found"}: kwFind, {"root", "cause"}: kwFind, {"turns", "out"}: kwFind, {"turned", "out"}: kwFind,
	{"timed", "out"}: kwFind, {"does", "not"}: kwFind, {"doesn't", "work"}: kwFind, {"no", "such"}: kwFind,
}

// phraseIndex maps the first word of each phrase to its second words.
var phraseIndex = func() map[string]map[string]kwFlag {
	m := map[string]map[string]kwFlag{}
	for k, f := range phrases {
		if m[k[0]] == nil {
			m[k[0]] = map[string]kwFlag{}
		}
		m[k[0]][k[1]] |= f
	}
	return m
}()

// Chinese keywords, matched as substrings.
var (
	zhRequire = []string{"必须", "务必", "一定要", "不要", "不能", "不得", "禁止", "要求", "只能", "至少", "最多",
		"不超过", "不少于", "截止", "上限", "下限", "切记", "千万", "预算", "限制", "绝对"}
	zhSoftNeed = []string{"需要", "应该", "建议", "重要", "最好"}
	zhDecide   = []string{"决定", "采用", "选择", "选用", "改用", "就用", "确定", "同意", "定为", "定下", "商定", "选定", "敲定", "方案是",
		"还是用", "最后用", "最终用", "最终选", "定了", "拍板", "就定", "就这么定", "按这个来"}
	zhFind = []string{"错误", "失败", "异常", "报错", "警告", "超时", "崩溃", "发现", "原因", "注意", "问题", "缺少", "找不到",
		"过期", "冲突", "拒绝", "漏洞", "故障"}
	zhUnits   = []string{"元", "万", "千", "百", "亿", "个", "天", "周", "月", "年", "日", "号", "小时", "分钟", "秒", "次", "人", "台", "版", "条", "行", "页", "块", "美元", "欧元", "点", "岁", "%"}
	zhChatter = []string{"好的", "谢谢", "收到", "明白", "可以", "嗯"}
	zhRole    = []string{"负责", "评审", "对接", "联系人", "审批", "维护", "交给", "找他", "找她", "签字", "把关", "跟进"}
	// common Chinese surnames: a name is one of them followed by one or two
	// characters, after a word that introduces a person (是, 由, 找, 给 …) or
	// at the start of a sentence before a verb of responsibility.
	zhSurnames = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段钱汤尹黎易常武乔贺赖龚文欧司诸"
	zhIntro    = "是由找给问请系和跟与让：:，,"
	zhAfter    = "负说来在会的已也要"
)

// File extensions that make a dotted word a file name.
var fileExts = map[string]bool{
	"go": true, "ts": true, "tsx": true, "js": true, "jsx": true, "mjs": true, "py": true, "md": true, "json": true,
	"jsonl": true, "yaml": true, "yml": true, "toml": true, "sql": true, "csv": true, "txt": true, "sh": true,
	"rs": true, "java": true, "kt": true, "swift": true, "c": true, "h": true, "cpp": true, "hpp": true,
	"cs": true, "rb": true, "php": true, "html": true, "css": true, "scss": true, "proto": true, "env": true,
	"ini": true, "conf": true, "cfg": true, "lock": true, "xml": true, "pdf": true, "docx": true, "xlsx": true,
	"pptx": true, "png": true, "jpg": true, "svg": true, "log": true, "tf": true, "dockerfile": true, "vue": true,
	"gradle": true, "mod": true, "sum": true, "bmad": true, "zip": true, "tar": true, "gz": true,
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '\''
}

// analyse finds the features of a line. first is false for the lines of a
// message after its first one (names are then also taken at line starts).
func analyse(line string, focus *termSet) features {
	var f features
	f.runes = utf8.RuneCountInString(line)
	if strings.Contains(line, "’") {
		line = strings.ReplaceAll(line, "’", "'")
	}
	nonASCII := false
	var next map[string]kwFlag // second words of phrases starting with the previous word
	prevDigit := false
	wordIdx := 0
	var lowerBuf [64]byte
	// raw tokens: maximal runs of non-space
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		start := i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		if start == i {
			break
		}
		raw := line[start:i]
		cjkBefore := nonASCII // Chinese text before this token: no sentence starts here
		for k := start; k < i; k++ {
			if line[k] >= utf8.RuneSelf {
				nonASCII = true
				break
			}
		}
		rawFeatures(raw, &f)
		// words inside the raw token
		for j := 0; j < len(raw); {
			for j < len(raw) && !isWordByte(raw[j]) {
				j++
			}
			ws := j
			for j < len(raw) && isWordByte(raw[j]) {
				j++
			}
			if ws == j {
				break
			}
			w := raw[ws:j]
			lw := lower(w, lowerBuf[:0])
			flags := words[string(lw)] | identifierFlags(w)
			if flags&kwRequire != 0 {
				f.requirement = true
			}
			if flags&kwDecide != 0 {
				f.decision = true
			}
			if flags&kwFind != 0 {
				f.finding = true
			}
			if flags&kwRole != 0 {
				f.role = true
			}
			if flags&kwSoftNeed != 0 {
				f.softNeed = true
			}
			if flags&kwSoftChoice != 0 {
				f.softChoice = true
			}
			if next != nil {
				pf := next[string(lw)]
				f.requirement = f.requirement || pf&kwRequire != 0
				f.decision = f.decision || pf&kwDecide != 0
				f.finding = f.finding || pf&kwFind != 0
				f.softNeed = f.softNeed || pf&kwSoftNeed != 0
			}
			if flags&kwUnit != 0 && prevDigit {
				f.numberCtx = true
			}
			digit := hasDigit(w)
			if digit {
				f.number = true
				if k := strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }); k < 0 && len(w) >= 3 {
					f.numberCtx = true
				}
			}
			// a capitalised word is a name unless it starts the sentence (a
			// word right after Chinese text does not)
			inZh := cjkBefore || ws > 0 && raw[ws-1] >= utf8.RuneSelf
			if (wordIdx > 0 || inZh) && isCapitalised(w) && flags&kwStop == 0 {
				f.name = true
			}
			if inZh && len(w) >= 3 && allUpper(w) {
				f.name = true // an acronym in Chinese text names something (SQS, NATS)
			}
			if wordIdx == 0 && flags&kwChatter != 0 && f.runes < 40 {
				f.chatter = true
			}
			next = phraseIndex[string(lw)]
			prevDigit = digit
			wordIdx++
		}
	}
	if nonASCII {
		for _, r := range line {
			if isCJK(r) {
				f.cjk++
			}
		}
		zhFeatures(line, &f)
	}
	f.question = strings.IndexByte(line, '?') >= 0 || strings.Contains(line, "？")
	if focus != nil && focus.n > 0 {
		f.focus = focus.matches(line)
	}
	return f
}

// identifierFlags returns the keyword flags of the parts of an identifier
// (retryBudget, max_conns): the words inside a name count.
func identifierFlags(w string) kwFlag {
	var f kwFlag
	var buf [64]byte
	identParts(w, func(part string) {
		f |= words[string(lower(part, buf[:0]))] &^ (kwStop | kwChatter)
	})
	return f
}

// identParts calls fn with each part of three letters or more of an
// identifier made of several (snake_case, camelCase); a plain word has none.
func identParts(w string, fn func(part string)) {
	start := 0
	for k := 1; k <= len(w); k++ {
		end := k == len(w) || w[k] == '_' || (w[k] >= 'A' && w[k] <= 'Z' && w[k-1] >= 'a' && w[k-1] <= 'z')
		if !end {
			continue
		}
		if (start > 0 || k < len(w)) && k-start > 2 {
			fn(w[start:k])
		}
		start = k
		if k < len(w) && w[k] == '_' {
			start = k + 1
		}
	}
}

// lower returns w in lower case (ASCII), normalising the typographic
// apostrophe, in buf when it fits.
func lower(w string, buf []byte) []byte {
	for k := 0; k < len(w); k++ {
		c := w[k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// allUpper reports whether w is made of capital letters only.
func allUpper(w string) bool {
	for k := 0; k < len(w); k++ {
		if c := w[k]; c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

func hasUpperASCII(s string) bool {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

func hasDigit(s string) bool {
	for k := 0; k < len(s); k++ {
		if isDigit(s[k]) {
			return true
		}
	}
	return false
}

// isCapitalised reports whether w looks like a proper name or identifier:
// capitalised (not all caps of 1-2 letters), or camelCase, or snake_case
// with letters.
func isCapitalised(w string) bool {
	if len(w) < 2 {
		return false
	}
	if w[0] >= 'A' && w[0] <= 'Z' && w[1] >= 'a' && w[1] <= 'z' {
		return true
	}
	upper, lowerSeen := false, false
	for k := 0; k < len(w); k++ {
		c := w[k]
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lowerSeen = true
		case c == '_' && k > 0 && k < len(w)-1:
			return true
		}
	}
	return upper && lowerSeen && w[0] >= 'a' && w[0] <= 'z' // camelCase
}

// trimPunct cuts the punctuation around a token (ASCII and CJK).
func trimPunct(s string) string {
	for len(s) > 0 {
		if c := s[0]; c < utf8.RuneSelf {
			if !isPunct(rune(c)) {
				break
			}
			s = s[1:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		if !isPunct(r) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		if c := s[len(s)-1]; c < utf8.RuneSelf {
			if !isPunct(rune(c)) {
				break
			}
			s = s[:len(s)-1]
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s)
		if !isPunct(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

func isPunct(r rune) bool {
	switch r {
	case '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '{', '}', '<', '>', '"', '\'', '`',
		'“', '”', '‘', '’', '，', '。', '；', '：', '！', '？', '（', '）', '【', '】', '「', '」':
		return true
	}
	return false
}

// rawFeatures looks at one whitespace-separated token for paths, numbers
// with units, versions, dates, quoted strings, e-mails and URLs.
func rawFeatures(raw string, f *features) {
	if plainWord(raw) {
		return // a word and its punctuation: no path, name or number
	}
	t := trimPunct(raw)
	if t == "" {
		return
	}
	if strings.HasPrefix(t, "@project/") || strings.HasPrefix(t, "@pkg/") || strings.HasPrefix(t, "@state/") ||
		strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || strings.HasPrefix(t, "~/") ||
		(strings.HasPrefix(t, "/") && strings.Count(t, "/") >= 2) {
		f.path = true
	} else if k := strings.LastIndexByte(t, '.'); k > 0 && k < len(t)-1 && fileExts[strings.ToLower(t[k+1:])] &&
		isWordByte(t[k-1]) && !isDigit(t[k+1]) {
		f.path = true
	} else if strings.Contains(t, "/") && strings.Count(t, "/") >= 1 && !strings.Contains(t, "://") && len(t) > 3 &&
		isWordByte(t[0]) && hasLetter(t) && !hasDigitOnlyParts(t) {
		f.path = true
	}
	if strings.Contains(t, "://") || (strings.Contains(t, "@") && strings.Contains(t, ".") && !strings.HasPrefix(t, "@")) {
		f.name = true
	}
	if len(t) > 2 && t[0] == '@' && (t[1] >= 'a' && t[1] <= 'z' || t[1] >= 'A' && t[1] <= 'Z') && !strings.Contains(t, "/") {
		f.name = true // a handle (@lvoss, @payments-core)
	}
	if len(raw) >= 2 && (raw[0] == '"' || raw[0] == '`' || strings.HasPrefix(raw, "“") || strings.HasPrefix(raw, "「")) {
		f.name = true
	}
	if !hasDigit(t) {
		return
	}
	f.number = true
	c0 := t[0]
	switch {
	case strings.ContainsAny(t, "%$€£¥"):
		f.numberCtx = true
	case c0 == 'v' || c0 == 'V':
		if len(t) > 1 && isDigit(t[1]) {
			f.numberCtx = true
		}
	case strings.Count(t, ".") >= 2 || strings.Count(t, "-") >= 2 || strings.Contains(t, ":"):
		f.numberCtx = true // versions, dates, times, host:port
	default:
		// 12px, 500ms, 3GB, 10k, 2x
		k := 0
		for k < len(t) && (isDigit(t[k]) || t[k] == '.' || t[k] == ',') {
			k++
		}
		if k > 0 && k < len(t) {
			if words[strings.ToLower(t[k:])]&kwUnit != 0 {
				f.numberCtx = true
			}
		}
	}
}

// plainWord reports ASCII letters, maybe followed by one of . , ; : ! ?
// (the commonest token of prose, in which rawFeatures finds nothing).
func plainWord(raw string) bool {
	n := len(raw)
	if n > 1 {
		switch raw[n-1] {
		case '.', ',', ';', ':', '!', '?':
			n--
		}
	}
	if n == 0 {
		return false
	}
	for k := 0; k < n; k++ {
		if c := raw[k]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func hasLetter(s string) bool {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// hasDigitOnlyParts reports a slash-separated token made of numbers (a date
// or a ratio such as 3/4), which is not a path.
func hasDigitOnlyParts(t string) bool {
	for _, p := range strings.Split(t, "/") {
		if p != "" && strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }) < 0 {
			return true
		}
	}
	return false
}

// zhFeatures adds the features of the Chinese (non-ASCII) part of a line.
func zhFeatures(line string, f *features) {
	for _, k := range zhRequire {
		if strings.Contains(line, k) {
			f.requirement = true
			break
		}
	}
	for _, k := range zhSoftNeed {
		if strings.Contains(line, k) {
			f.softNeed = true
			break
		}
	}
	for _, k := range zhDecide {
		if strings.Contains(line, k) {
			f.decision = true
			break
		}
	}
	for _, k := range zhFind {
		if strings.Contains(line, k) {
			f.finding = true
			break
		}
	}
	// a digit followed (possibly after a space) by a unit character
	for i := 0; i < len(line); i++ {
		if !isDigit(line[i]) {
			continue
		}
		j := i + 1
		for j < len(line) && (isDigit(line[j]) || line[j] == '.' || line[j] == ',') {
			j++
		}
		k := j
		if k < len(line) && line[k] == ' ' {
			k++
		}
		for _, u := range zhUnits {
			if strings.HasPrefix(line[k:], u) {
				f.numberCtx = true
				break
			}
		}
		i = j
	}
	if strings.Contains(line, "「") || strings.Contains(line, "“") || strings.Contains(line, "《") {
		f.name = true
	}
	for _, k := range zhRole {
		if strings.Contains(line, k) {
			f.role = true
			break
		}
	}
	if !f.name {
		f.name = hasZhName(line)
	}
	if f.runes < 12 {
		for _, c := range zhChatter {
			if strings.HasPrefix(line, c) {
				f.chatter = true
			}
		}
	}
}

// zhCompoundSurnames are the two-character Chinese surnames.
var zhCompoundSurnames = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields("万俟 司马 上官 欧阳 夏侯 诸葛 闻人 东方 赫连 皇甫 尉迟 公羊 澹台 公冶 宗政 濮阳 淳于 单于 太叔 申屠 " +
		"公孙 仲孙 轩辕 令狐 钟离 宇文 长孙 慕容 鲜于 闾丘 司徒 司空 亓官 司寇 子车 颛孙 端木 巫马 公西 漆雕 " +
		"乐正 壤驷 公良 拓跋 夹谷 宰父 谷梁 段干 百里 东郭 南门 呼延 归海 羊舌 微生 梁丘 左丘 东门 西门 南宫 第五") {
		m[s] = true
	}
	return m
}()

// zhNameAfter are characters that end a name: what commonly follows one
// (a verb of who does what, a particle).
var zhNameAfter = zhAfter + "写评签跟提处确审把做帮看回同认定了吧呢啊和与及、"

// hasZhName looks for a Chinese personal name (see zhNames).
func hasZhName(line string) bool {
	found := false
	zhNames(line, func(string) { found = true })
	return found
}

// zhNames calls fn with each Chinese personal name of line: a surname (one
// of the common ones, zhSurnames, or a two-character one) and one or two
// characters, after a word that introduces a person (是, 由, 找, 给 …) or at
// the start of a sentence before a verb of responsibility; a two-character
// surname also after anything that is not Chinese text, or before such a
// verb or the end of the sentence.
func zhNames(line string, fn func(name string)) {
	var rs []rune
	for i, r := range line {
		if r >= firstCJK {
			rs = []rune(line[i:])
			break
		}
	}
	for i := 0; i < len(rs); i++ {
		sl := 0
		switch {
		case i+1 < len(rs) && zhCompoundSurnames[string(rs[i:i+2])]:
			sl = 2
		case strings.ContainsRune(zhSurnames, rs[i]):
			sl = 1
		default:
			continue
		}
		g := 0
		for g < 2 && i+sl+g < len(rs) && isCJK(rs[i+sl+g]) && !(g > 0 && strings.ContainsRune(zhNameAfter, rs[i+sl+g])) {
			g++
		}
		if g == 0 {
			continue
		}
		end := i + sl + g
		intro := i > 0 && strings.ContainsRune(zhIntro, rs[i-1])
		start := i == 0 || rs[i-1] == '。' || rs[i-1] == ' ' || !isCJK(rs[i-1]) && !strings.ContainsRune(zhIntro, rs[i-1])
		verb := false
		for k := i + sl + 1; k <= end && k < len(rs); k++ {
			verb = verb || strings.ContainsRune(zhAfter, rs[k])
		}
		closed := end >= len(rs) || !isCJK(rs[end])
		ok := intro || start && verb
		if sl == 2 {
			ok = ok || start || verb || closed || strings.ContainsRune(zhNameAfter, rs[end])
		}
		if ok {
			fn(string(rs[i:end]))
			i = end - 1
		}
	}
}

// termSet is a small set of search terms (English words of 3+ letters that
// are not stop words, and Chinese character pairs), for the focus of a
// manual compaction.
type termSet struct {
	ascii map[string]bool
	cjk   []string
	n     int
}

func newTermSet(text string) *termSet {
	ts := &termSet{ascii: map[string]bool{}}
	Terms(text, func(t string) {
		if t[0] < utf8.RuneSelf {
			if len(t) >= 3 && !ts.ascii[t] {
				ts.ascii[t] = true
				ts.n++
			}
			return
		}
		ts.cjk = append(ts.cjk, t)
		ts.n++
	})
	return ts
}

// matches counts the distinct terms of ts found in s.
func (ts *termSet) matches(s string) int {
	n := 0
	seen := map[string]bool{}
	Terms(s, func(t string) {
		if t[0] < utf8.RuneSelf && ts.ascii[t] && !seen[t] {
			seen[t] = true
			n++
		}
	})
	for _, c := range ts.cjk {
		if strings.Contains(s, c) {
			n++
		}
	}
	return n
}

// Terms calls fn for each search term of s: lower-case English words and
// numbers (stop words left out) and, for Chinese (and other CJK) text, which
// has no spaces, each pair of adjacent characters (a lone character alone).
// The recall index uses the same terms. A term may share memory with s (a
// word already in lower case is passed as it is, without a copy).
func Terms(s string, fn func(string)) {
	var buf [64]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !isWordByte(c) || c == '\'' {
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && (isWordByte(s[j]) && s[j] != '\'') {
				j++
			}
			w := s[i:j]
			if hasUpperASCII(w) {
				w = string(lower(w, buf[:0]))
			}
			if len(w) > 1 || isDigit(w[0]) {
				if words[w]&kwStop == 0 {
					fn(w)
				}
			}
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isCJK(r) {
			i += size
			continue
		}
		// a run of CJK characters: its bigrams
		j := i
		var runes []int
		for j < len(s) {
			r2, sz := utf8.DecodeRuneInString(s[j:])
			if !isCJK(r2) {
				break
			}
			runes = append(runes, j)
			j += sz
		}
		runes = append(runes, j)
		if len(runes) == 2 {
			fn(s[runes[0]:runes[1]])
		}
		for k := 0; k+2 < len(runes); k++ {
			fn(s[runes[k]:runes[k+2]])
		}
		i = j
	}
}

func isCJK(r rune) bool {
	if r < firstCJK {
		return false // most text: no table lookups
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// firstCJK is the lowest rune of the scripts isCJK accepts (Hangul Jamo).
const firstCJK = 0x1100
