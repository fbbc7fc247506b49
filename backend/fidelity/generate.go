package fidelity

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
)

// Fact is one planted key fact: Needles must all appear in a request for
// the fact to count as kept.
type Fact struct {
	ID      int      `json:"id"`
	Kind    string   `json:"kind"` // one of Kinds
	Text    string   `json:"text"`
	Needles []string `json:"needles"`
	Turn    int      `json:"turn"`
	// Topic is how a later message refers to it ("the export deadline").
	Topic string `json:"topic"`
	// Where the needles are: user or assistant text, a tool's output, or
	// the arguments of a tool call (WhereUser, ...; empty: anywhere).
	Where string `json:"where,omitempty"`
	// Stale are the needles of the value an update corrects, first said at
	// StaleTurn (knowledge updates only).
	Stale     []string `json:"stale,omitempty"`
	StaleTurn int      `json:"staleTurn,omitempty"`
	// Depth is the position of the planting message in the history, from 0
	// (the first message) to 1 (the newest), set by Locate.
	Depth float64 `json:"depth"`
}

// Fact kinds.
const (
	KindRequirement = "requirement"
	KindPath        = "path"
	KindNumber      = "number"
	KindDecision    = "decision"
	KindName        = "name"
	// KindTool: a value only a tool's output shows (a config value, a
	// failing test, an error code, an owner).
	KindTool = "tool_output"
	// KindToolArgs: a path or content only in the arguments of a write or
	// patch the agent made.
	KindToolArgs = "tool_args"
	// KindFinding: the model's own conclusion (root cause, measurement,
	// rename), in assistant text.
	KindFinding = "finding"
	// KindUpdate: a value said early and corrected later.
	KindUpdate = "update"
)

// Kinds lists the fact kinds in report order.
var Kinds = []string{KindRequirement, KindPath, KindNumber, KindDecision, KindName, KindTool, KindToolArgs, KindFinding, KindUpdate}

// Where a fact's needles are.
const (
	WhereUser      = "user"
	WhereAssistant = "assistant"
	WhereTool      = "tool"
	WhereArgs      = "args"
)

// Depth buckets: the oldest, middle and newest third of the history.
const (
	DepthOldest = "oldest"
	DepthMiddle = "middle"
	DepthNewest = "newest"
)

// Depths lists the buckets in report order.
var Depths = []string{DepthOldest, DepthMiddle, DepthNewest}

// Bucket is the depth bucket of a fact.
func (f *Fact) Bucket() string {
	switch {
	case f.Depth < 1.0/3:
		return DepthOldest
	case f.Depth < 2.0/3:
		return DepthMiddle
	}
	return DepthNewest
}

// Call is a tool call of a scripted assistant step and the output the tool
// gives.
type Call struct {
	Name   string `json:"name"`
	Args   string `json:"args"`
	Output string `json:"output"`
}

// Step is one scripted model answer: tool calls (then their outputs feed the
// next step) or the final text of the turn.
type Step struct {
	Text  string `json:"text,omitempty"`
	Calls []Call `json:"calls,omitempty"`
}

// Turn is one user message and the model's steps that answer it.
type Turn struct {
	User  string `json:"user"`
	Steps []Step `json:"steps"`
}

// Conversation is a generated conversation. The last turn's user message
// names nothing (in the legacy styles it refers back to early facts);
// Named is the variant of it that names the topics of a few facts.
type Conversation struct {
	Name  string `json:"name"`
	Style string `json:"style"`
	Lang  string `json:"lang"` // en | zh
	Kind  string `json:"kind"` // chat | agent
	Turns []Turn `json:"turns"`
	Facts []Fact `json:"facts"`
	Named string `json:"named"`
}

// Final is the last user message.
func (c *Conversation) Final() string { return c.Turns[len(c.Turns)-1].User }

// FinalFor is the last user message of a variant: Named's names topics.
func (c *Conversation) FinalFor(variant string) string {
	if variant == Named && c.Named != "" {
		return c.Named
	}
	return c.Final()
}

// gen holds the state of one generation.
type gen struct {
	turns int
	r     *rand.Rand
	lang  string
	kind  string
	p     project
	facts []Fact
	used  map[string]bool
}

// project is the vocabulary of one conversation.
type project struct {
	name       string
	components []string
	dirs       []string
	people     []string
	company    string
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

var (
	enFirst = []string{"Ingrid", "Tomasz", "Amara", "Rafael", "Mei", "Lucas", "Hannah", "Priya", "Jonas", "Chiara", "Dmitri",
		"Aisha", "Sven", "Noor", "Mateo", "Keiko", "Oluwaseun", "Marguerite", "Björn", "Isabela", "Farid", "Greta", "Kwame", "Elif"}
	enLast = []string{"Solberg", "Wierzbicki", "Okafor", "Quintero", "Tanaka", "Ferreira", "Becker", "Raman", "Lindqvist",
		"Romano", "Volkov", "Karim", "Halvorsen", "Haddad", "Achterberg", "Nakashima", "Adeyemi", "Delacroix", "Østergaard",
		"Carvalho", "Rahimi", "Vogel", "Mensah", "Yıldız", "Kowalczyk", "Brennan"}
	zhNames   = []string{"张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊", "赵敏", "黄涛", "周杰", "吴霞", "徐强", "孙丽", "马骏", "朱琳", "胡斌", "郭婷", "何军", "高岚", "林峰", "罗晓"}
	projects  = []string{"billing", "checkout", "ledger", "search", "notifications", "onboarding", "reporting", "inventory", "identity", "telemetry"}
	zhProject = map[string]string{"billing": "计费", "checkout": "结算", "ledger": "账本", "search": "搜索", "notifications": "通知",
		"onboarding": "新手引导", "reporting": "报表", "inventory": "库存", "identity": "身份认证", "telemetry": "遥测"}
	components = []string{"worker", "api", "scheduler", "exporter", "gateway", "importer", "cache", "webhook", "cli", "dashboard", "reconciler", "indexer"}
	techs      = []string{"PostgreSQL 16", "Redis Streams", "NATS JetStream", "Kafka", "RabbitMQ", "ClickHouse", "SQLite", "Temporal",
		"DuckDB", "MinIO", "Envoy", "Traefik", "OpenSearch", "Valkey", "CockroachDB", "TimescaleDB"}
	exts     = []string{"go", "ts", "py", "yaml", "sql", "md", "tsx", "toml", "rs", "json"}
	words    = []string{"export", "invoice", "rounding", "retry", "backoff", "ledger", "session", "token", "schema", "migration", "audit", "quota", "cursor", "batch", "rollup", "webhook", "tenant", "currency", "refund", "payout"}
	zhWords  = []string{"导出", "发票", "重试", "账单", "会话", "迁移", "审计", "配额", "批处理", "租户", "币种", "退款", "对账", "索引", "缓存"}
	weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}
	zhDays   = []string{"周一", "周二", "周三", "周四", "周五"}
	currency = []string{"EUR", "USD", "CHF", "GBP"}
)

// Generate returns the conversation of a seed: lang "en" or "zh", kind
// "chat" or "agent", about turns user turns (the last one refers back to
// early facts).
func Generate(seed int64, lang, kind string, turns int) Conversation {
	r := rand.New(rand.NewSource(seed))
	g := &gen{r: r, lang: lang, kind: kind, used: map[string]bool{}, turns: turns}
	name := pick(r, projects)
	g.p = project{name: name, company: pick(r, []string{"northwind", "acmecorp", "helios", "bluefin", "kestrel", "tessera"})}
	for len(g.p.components) < 4 {
		c := pick(r, components)
		if !contains(g.p.components, c) {
			g.p.components = append(g.p.components, c)
		}
	}
	for _, c := range g.p.components {
		g.p.dirs = append(g.p.dirs, pick(r, []string{"services/", "cmd/", "internal/", "pkg/", "apps/"})+name+"-"+c)
	}
	for len(g.p.people) < 6 {
		var n string
		if lang == "zh" {
			n = pick(r, zhNames)
		} else {
			n = pick(r, enFirst) + " " + pick(r, enLast)
		}
		if !contains(g.p.people, n) {
			g.p.people = append(g.p.people, n)
		}
	}
	c := Conversation{Name: fmt.Sprintf("%s-%s-%s-%d", lang, kind, name, seed), Lang: lang, Kind: kind}
	nFacts := 18 + r.Intn(8)
	// Facts go anywhere but the last three turns, one turn each.
	factAt := map[int]bool{}
	for _, s := range r.Perm(turns - 4)[:nFacts] {
		factAt[s+1] = true
	}
	// the task: the first message states the goal and two requirements
	c.Turns = append(c.Turns, g.taskTurn())
	for t := 1; t < turns-1; t++ {
		if factAt[t] {
			c.Turns = append(c.Turns, g.factTurn(t))
		} else {
			c.Turns = append(c.Turns, g.fillerTurn(t))
		}
	}
	c.Facts = g.facts
	c.Turns = append(c.Turns, g.finalTurn())
	c.Style, c.Named = "a", c.Final()
	Locate(&c)
	return c
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// unique returns a value from mk that was not used yet in this conversation.
func (g *gen) unique(mk func() string) string {
	for {
		v := mk()
		if !g.used[v] {
			g.used[v] = true
			return v
		}
	}
}

func (g *gen) amount() string {
	return g.unique(func() string { return fmt.Sprint(1200 + g.r.Intn(88000)) })
}
func (g *gen) port() string {
	return g.unique(func() string { return fmt.Sprint(2000 + g.r.Intn(60000)) })
}
func (g *gen) version() string {
	return g.unique(func() string { return fmt.Sprintf("%d.%d.%d", 1+g.r.Intn(9), g.r.Intn(30), g.r.Intn(40)) })
}
func (g *gen) date() string {
	return g.unique(func() string { return fmt.Sprintf("2026-%02d-%02d", 1+g.r.Intn(12), 1+g.r.Intn(28)) })
}
func (g *gen) path() string {
	return g.unique(func() string {
		w := pick(g.r, words)
		if g.r.Intn(2) == 0 {
			w += "_" + pick(g.r, words)
		}
		return pick(g.r, g.p.dirs) + "/" + pick(g.r, []string{"", "internal/", "handlers/", "jobs/", "config/"}) + w + "." + pick(g.r, exts)
	})
}
func (g *gen) code() string {
	return g.unique(func() string {
		return fmt.Sprintf("%s-%s-%d%c", pick(g.r, []string{"eu", "us", "ap"}), pick(g.r, []string{"west", "east", "north", "central"}), 1+g.r.Intn(9), 'a'+rune(g.r.Intn(4)))
	})
}
func (g *gen) person() string {
	return g.unique(func() string {
		if g.lang == "zh" {
			return pick(g.r, zhNames)
		}
		return pick(g.r, enFirst) + " " + pick(g.r, enLast)
	})
}
func (g *gen) tech() string { return g.unique(func() string { return pick(g.r, techs) }) }

// surname is the needle of a person: a Chinese name whole, an English one's
// surname.
func surname(n string) string {
	if i := strings.LastIndexByte(n, ' '); i >= 0 {
		return n[i+1:]
	}
	return n
}

func (g *gen) add(f Fact) Fact {
	f.ID = len(g.facts) + 1
	g.facts = append(g.facts, f)
	return f
}

// taskTurn is the first message: the goal with two requirements.
func (g *gen) taskTurn() Turn {
	amt, cur, dl := g.amount(), pick(g.r, currency), g.date()
	comp := g.p.components[0]
	var user string
	if g.lang == "zh" {
		user = fmt.Sprintf("我们要在下个季度把%s服务的%s重写一遍。预算上限是 %s %s，不能超过。上线日期定在 %s，必须赶上。先帮我理清楚现在的代码结构。",
			zhProject[g.p.name], comp, amt, cur, dl)
		g.add(Fact{Kind: KindRequirement, Text: "预算上限 " + amt, Needles: []string{amt}, Topic: "预算上限"})
		g.add(Fact{Kind: KindNumber, Text: "上线日期 " + dl, Needles: []string{dl}, Topic: "上线日期"})
	} else {
		user = fmt.Sprintf("We are rewriting the %s %s next quarter. The budget is capped at %s %s and must not be exceeded, and the go-live date is %s — that one is fixed. First, help me get an overview of the current code.",
			g.p.name, comp, amt, cur, dl)
		g.add(Fact{Kind: KindRequirement, Text: "budget " + amt, Needles: []string{amt}, Topic: "the budget cap"})
		g.add(Fact{Kind: KindNumber, Text: "go-live " + dl, Needles: []string{dl}, Topic: "the go-live date"})
	}
	return Turn{User: user, Steps: g.answerSteps(0, "")}
}

// factTurn plants one fact in the user's message, the model's answer, or a
// tool's output only.
func (g *gen) factTurn(t int) Turn {
	kinds := []string{KindRequirement, KindPath, KindNumber, KindDecision, KindName}
	if g.kind == "agent" {
		kinds = append(kinds, KindTool, KindTool)
	}
	k := pick(g.r, kinds)
	if k == KindTool {
		return g.toolFactTurn(t)
	}
	sentence, f := g.factSentence(k)
	f.Turn = t
	g.add(f)
	lead, tail := g.chatter()
	// Most facts come from the user; some are stated by the model.
	if g.r.Intn(4) == 0 {
		user := g.question(t)
		steps := g.answerSteps(t, sentence)
		return Turn{User: user, Steps: steps}
	}
	user := strings.TrimSpace(lead + " " + sentence + " " + tail)
	return Turn{User: user, Steps: g.answerSteps(t, "")}
}

// factSentence writes one fact of kind k.
func (g *gen) factSentence(k string) (string, Fact) {
	r := g.r
	if g.lang == "zh" {
		switch k {
		case KindRequirement:
			switch r.Intn(4) {
			case 0:
				code := g.code()
				return fmt.Sprintf("注意：%s 集群绝对不要在%s发布。", code, pick(r, zhDays)), Fact{Kind: k, Needles: []string{code}, Topic: "不能发布的集群"}
			case 1:
				v := g.version()
				return fmt.Sprintf("所有接口必须兼容 v%s 的客户端。", v), Fact{Kind: k, Needles: []string{v}, Topic: "兼容的客户端版本"}
			case 2:
				n := fmt.Sprint(20 + r.Intn(880))
				g.used[n] = true
				return fmt.Sprintf("每次%s的响应时间需要控制在 %s 毫秒以内。", pick(r, zhWords), n), Fact{Kind: k, Needles: []string{n + " 毫秒"}, Topic: "响应时间要求"}
			default:
				amt := g.amount()
				return fmt.Sprintf("单笔退款不得超过 %s 元，超过的要人工审批。", amt), Fact{Kind: k, Needles: []string{amt}, Topic: "退款上限"}
			}
		case KindPath:
			p := g.path()
			return fmt.Sprintf(pick(r, []string{"配置文件在 %s，改之前先备份。", "对账逻辑都在 %s 里。", "新的迁移脚本我放在 %s 了。"}), p), Fact{Kind: k, Needles: []string{p}, Topic: "那个文件的位置"}
		case KindNumber:
			switch r.Intn(3) {
			case 0:
				p := g.port()
				return fmt.Sprintf("测试环境的%s监听在 %s 端口。", pick(r, g.p.components), p), Fact{Kind: k, Needles: []string{p}, Topic: "测试环境端口"}
			case 1:
				n := fmt.Sprint(3 + r.Intn(400))
				g.used[n+" 天"] = true
				return fmt.Sprintf("日志保留期是 %s 天。", n), Fact{Kind: k, Needles: []string{n + " 天"}, Topic: "日志保留期"}
			default:
				n := fmt.Sprint(100 + r.Intn(9000))
				return fmt.Sprintf("限流阈值定为每分钟 %s 次请求。", n), Fact{Kind: k, Needles: []string{n}, Topic: "限流阈值"}
			}
		case KindDecision:
			a, b := g.tech(), g.tech()
			return fmt.Sprintf(pick(r, []string{"我们决定用 %s 替代 %s 做消息队列。", "最后定下来了：存储改用 %s，不再用 %s。"}), a, b), Fact{Kind: k, Needles: []string{a}, Topic: "选型的决定"}
		default:
			n := g.person()
			return fmt.Sprintf(pick(r, []string{"这个模块的负责人是%s，有问题找他。", "代码评审由%s来做。", "%s负责和财务那边对接。"}), n), Fact{Kind: KindName, Needles: []string{n}, Topic: "负责人是谁"}
		}
	}
	switch k {
	case KindRequirement:
		switch r.Intn(5) {
		case 0:
			code := g.code()
			return fmt.Sprintf("Important: never deploy to the %s cluster on a %s.", code, pick(r, weekdays)), Fact{Kind: k, Needles: []string{code}, Topic: "the cluster we must not deploy to"}
		case 1:
			v := g.version()
			return fmt.Sprintf("The API has to stay backward compatible with clients on v%s.", v), Fact{Kind: k, Needles: []string{v}, Topic: "the client version we must stay compatible with"}
		case 2:
			n := fmt.Sprint(20 + r.Intn(880))
			g.used[n+" ms"] = true
			return fmt.Sprintf("Each %s call must answer within %s ms at p95, no exceptions.", pick(r, words), n), Fact{Kind: k, Needles: []string{n + " ms"}, Topic: "the latency requirement"}
		case 3:
			amt := g.amount()
			return fmt.Sprintf("Refunds above %s %s always need a manual approval.", amt, pick(r, currency)), Fact{Kind: k, Needles: []string{amt}, Topic: "the refund approval limit"}
		default:
			w := g.unique(func() string { return pick(r, words) + "_" + pick(r, words) + "_v" + fmt.Sprint(2+r.Intn(7)) })
			return fmt.Sprintf("Don't touch the %s table directly; only the migration tool may write to it.", w), Fact{Kind: k, Needles: []string{w}, Topic: "the table we must not touch"}
		}
	case KindPath:
		p := g.path()
		return fmt.Sprintf(pick(r, []string{"The config for this lives in %s.", "FYI the reconciliation logic is in %s.", "I put the new migration in %s."}), p), Fact{Kind: k, Needles: []string{p}, Topic: "where that file is"}
	case KindNumber:
		switch r.Intn(3) {
		case 0:
			p := g.port()
			return fmt.Sprintf("The staging %s listens on port %s.", pick(r, g.p.components), p), Fact{Kind: k, Needles: []string{p}, Topic: "the staging port"}
		case 1:
			n := fmt.Sprint(3 + r.Intn(400))
			g.used[n+" days"] = true
			return fmt.Sprintf("Audit logs are kept for %s days.", n), Fact{Kind: k, Needles: []string{n + " days"}, Topic: "the log retention"}
		default:
			n := fmt.Sprint(100 + r.Intn(9000))
			g.used[n] = true
			return fmt.Sprintf("The rate limit is %s requests per minute per tenant.", n), Fact{Kind: k, Needles: []string{n}, Topic: "the rate limit"}
		}
	case KindDecision:
		a, b := g.tech(), g.tech()
		return fmt.Sprintf(pick(r, []string{"Decision: we go with %s instead of %s for the queue.", "OK, we decided to switch storage to %s and drop %s."}), a, b), Fact{Kind: k, Needles: []string{a}, Topic: "what we decided for the queue"}
	default:
		n := g.person()
		return fmt.Sprintf(pick(r, []string{"%s owns this service; ask her before changing anything.", "The reviewer for these changes is %s.", "%s is our contact on the finance side."}), n), Fact{Kind: KindName, Needles: []string{surname(n)}, Topic: "who the contact is"}
	}
}

// toolFactTurn: the fact is only in a tool's output.
func (g *gen) toolFactTurn(t int) Turn {
	r := g.r
	var out, topic string
	var needles []string
	switch r.Intn(3) {
	case 0: // an error in a log
		host := g.unique(func() string {
			return pick(r, g.p.components) + "-" + fmt.Sprint(10+r.Intn(89)) + "." + g.p.company + ".internal"
		})
		d := g.date()
		lines := g.logLines(8 + r.Intn(10))
		at := r.Intn(len(lines))
		lines = append(lines[:at], append([]string{fmt.Sprintf("2026-03-02T0%d:1%d:07Z ERROR tls: certificate for %s expires on %s", r.Intn(9), r.Intn(9), host, d)}, lines[at:]...)...)
		out = toolJSON(map[string]any{"ok": true, "path": "@project/logs/" + g.p.name + ".log", "content": strings.Join(lines, "\n")})
		needles, topic = []string{host, d}, "the certificate problem in the logs"
	case 1: // a failing test
		name := g.unique(func() string { return "Test" + title(pick(r, words)) + title(pick(r, words)) })
		exp := fmt.Sprintf("%d.%02d", 100+r.Intn(9000), r.Intn(100))
		lines := []string{"=== RUN   TestParse", "--- PASS: TestParse (0.00s)", "=== RUN   " + name,
			fmt.Sprintf("    %s_test.go:%d: expected %s, got %s", strings.ToLower(pick(r, words)), 20+r.Intn(300), exp, exp[:len(exp)-1]+"9"),
			"--- FAIL: " + name + " (0.01s)", "=== RUN   TestEncode", "--- PASS: TestEncode (0.00s)", "FAIL", fmt.Sprintf("FAIL\t%s/%s\t0.%03ds", g.p.company, g.p.dirs[0], r.Intn(999))}
		out = toolJSON(map[string]any{"ok": true, "exitCode": 1, "stdout": strings.Join(lines, "\n")})
		needles, topic = []string{name}, "the failing test"
	default: // a value in a config file
		key := g.unique(func() string {
			return pick(r, words) + "_" + pick(r, []string{"timeout_s", "max_conns", "batch_size", "retention_h", "pool_size"})
		})
		val := g.unique(func() string { return fmt.Sprint(17 + r.Intn(9000)) })
		lines := g.configLines(10 + r.Intn(10))
		at := r.Intn(len(lines))
		lines = append(lines[:at], append([]string{fmt.Sprintf("%s: %s  # set after the incident, do not lower", key, val)}, lines[at:]...)...)
		out = toolJSON(map[string]any{"ok": true, "path": "@project/" + g.path(), "content": strings.Join(lines, "\n")})
		needles, topic = []string{key + ": " + val}, "the "+key+" setting"
	}
	f := g.add(Fact{Kind: KindTool, Text: "tool output", Needles: needles, Turn: t, Topic: topic})
	_ = f
	var user string
	if g.lang == "zh" {
		user = pick(r, []string{"帮我看一下最新的日志和配置，有没有什么问题？", "跑一下测试，看看结果。", "读一下配置文件。"})
	} else {
		user = pick(r, []string{"Can you check the latest logs and the config for anything odd?", "Run the tests and tell me what you see.", "Please read the service config."})
	}
	steps := []Step{{Calls: []Call{{Name: "fs.read", Args: fmt.Sprintf(`{"path":"@project/%s"}`, g.path()), Output: out}}}}
	steps = append(steps, Step{Text: g.genericAnswer(t)})
	return Turn{User: user, Steps: steps}
}

// title capitalises an ASCII word.
func title(w string) string {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return w
	}
	return string(w[0]-'a'+'A') + w[1:]
}

func toolJSON(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (g *gen) logLines(n int) []string {
	r := g.r
	var out []string
	for i := 0; i < n; i++ {
		lvl := pick(r, []string{"INFO", "INFO", "INFO", "DEBUG", "INFO"})
		out = append(out, fmt.Sprintf("2026-03-02T0%d:%02d:%02dZ %s %s: %s %d %s in %dms", r.Intn(9), r.Intn(60), r.Intn(60), lvl,
			pick(r, g.p.components), pick(r, []string{"processed", "flushed", "scheduled", "loaded", "synced"}), r.Intn(900),
			pick(r, words)+"s", r.Intn(400)))
	}
	return out
}

func (g *gen) configLines(n int) []string {
	r := g.r
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%s_%s: %s", pick(r, words), pick(r, []string{"enabled", "interval", "limit", "url", "level", "size"}),
			pick(r, []string{"true", "false", fmt.Sprint(r.Intn(500)), "info", "\"http://localhost:" + fmt.Sprint(3000+r.Intn(900)) + "\""})))
	}
	return out
}

// chatter returns a lead and a tail around a fact in a user message.
func (g *gen) chatter() (string, string) {
	r := g.r
	if g.lang == "zh" {
		return pick(r, []string{"", "顺便说一下，", "补充一点：", "刚和团队确认过，", "对了，"}),
			pick(r, []string{"", "继续看代码吧。", "然后帮我看看下一步。", "你先记一下。", "接着说刚才那个问题。"})
	}
	return pick(r, []string{"", "By the way,", "One more thing:", "Just confirmed with the team.", "Note for later:", "Quick update."}),
		pick(r, []string{"", "Let's continue with the code.", "What's next?", "Keep that in mind.", "Back to the previous question."})
}

// question is a filler user message.
func (g *gen) question(t int) string {
	r := g.r
	comp := pick(r, g.p.components)
	if g.lang == "zh" {
		return pick(r, []string{
			fmt.Sprintf("%s 这块的代码为什么这么慢？", comp),
			fmt.Sprintf("能解释一下 %s 是干什么的吗？", g.distractorPath()),
			fmt.Sprintf("%s 的%s逻辑能不能简化一下？", comp, pick(r, zhWords)),
			"这个报错你怎么看？帮我分析一下原因。",
			fmt.Sprintf("我们大概要处理 %d 个租户，现在的设计够用吗？", 10+r.Intn(5000)),
			"好的，继续。",
			fmt.Sprintf("把%s相关的测试补一下吧。", pick(r, zhWords)),
		})
	}
	return pick(r, []string{
		fmt.Sprintf("Why is the %s so slow when the %s batch grows?", comp, pick(r, words)),
		fmt.Sprintf("Can you explain what %s does?", g.distractorPath()),
		fmt.Sprintf("Could we simplify the %s handling in the %s?", pick(r, words), comp),
		"What do you make of this error? Walk me through the likely cause.",
		fmt.Sprintf("We will have around %d tenants. Does the current design hold up?", 10+r.Intn(5000)),
		"OK, go on.",
		fmt.Sprintf("Let's add tests around the %s code.", pick(r, words)),
		fmt.Sprintf("Hmm, %s mentioned something about the %s yesterday, not sure what.", pick(r, g.p.people), comp),
		"Thanks, that helps. Next step?",
	})
}

// distractorPath is a path that is not a planted fact.
func (g *gen) distractorPath() string {
	return pick(g.r, g.p.dirs) + "/" + pick(g.r, words) + "." + pick(g.r, exts)
}

// fillerTurn is a turn of ordinary work.
func (g *gen) fillerTurn(t int) Turn {
	return Turn{User: g.question(t), Steps: g.answerSteps(t, "")}
}

// answerSteps is the model's answer: in agent conversations often a tool
// round or two first; fact (when set) is stated in the final text.
func (g *gen) answerSteps(t int, fact string) []Step {
	r := g.r
	var steps []Step
	if g.kind == "agent" {
		for n := r.Intn(3); n > 0; n-- {
			var calls []Call
			for k := 1 + r.Intn(2); k > 0; k-- {
				calls = append(calls, g.fillerCall())
			}
			steps = append(steps, Step{Calls: calls})
		}
	}
	text := g.genericAnswer(t)
	if fact != "" {
		parts := strings.SplitN(text, "\n\n", 2)
		if len(parts) == 2 {
			text = parts[0] + "\n\n" + fact + "\n\n" + parts[1]
		} else {
			text = fact + " " + text
		}
	}
	return append(steps, Step{Text: text})
}

// fillerCall is a tool call of ordinary work with an ordinary result.
func (g *gen) fillerCall() Call {
	r := g.r
	p := g.distractorPath()
	switch r.Intn(3) {
	case 0:
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\n", strings.ReplaceAll(pick(r, g.p.components), "-", ""))
		for i := 0; i < 6+r.Intn(12); i++ {
			fn := title(pick(r, words)) + title(pick(r, words))
			fmt.Fprintf(&b, "// %s %s the %s.\nfunc %s(ctx context.Context, n int) error {\n\tif n > %d {\n\t\treturn fmt.Errorf(\"too many %s: %%d\", n)\n\t}\n\treturn nil\n}\n\n",
				fn, pick(r, []string{"loads", "stores", "checks", "retries"}), pick(r, words), fn, r.Intn(1000), pick(r, words))
		}
		return Call{Name: "fs.read", Args: fmt.Sprintf(`{"path":"@project/%s"}`, p), Output: toolJSON(map[string]any{"ok": true, "path": "@project/" + p, "content": b.String()})}
	case 1:
		var hits []string
		for i := 0; i < 3+r.Intn(8); i++ {
			hits = append(hits, fmt.Sprintf("@project/%s:%d: %s := %s(%d)", g.distractorPath(), 1+r.Intn(400), pick(r, words), pick(r, words), r.Intn(100)))
		}
		return Call{Name: "fs.search", Args: fmt.Sprintf(`{"path":"@project","pattern":"%s"}`, pick(r, words)), Output: toolJSON(map[string]any{"ok": true, "matches": hits})}
	default:
		var entries []map[string]any
		for i := 0; i < 4+r.Intn(10); i++ {
			entries = append(entries, map[string]any{"name": pick(r, words) + "." + pick(r, exts), "type": "file", "size": r.Intn(20000)})
		}
		return Call{Name: "fs.list", Args: fmt.Sprintf(`{"path":"@project/%s"}`, pick(r, g.p.dirs)), Output: toolJSON(map[string]any{"ok": true, "entries": entries})}
	}
}

// genericAnswer is an answer of ordinary work: explanations with numbers,
// paths and names that are not planted facts, sometimes code.
func (g *gen) genericAnswer(t int) string {
	r := g.r
	var paras []string
	n := 2 + r.Intn(3)
	if g.kind == "chat" {
		n = 3 + r.Intn(5)
	}
	for i := 0; i < n; i++ {
		if g.lang == "zh" {
			paras = append(paras, pick(r, []string{
				fmt.Sprintf("我看了 %s，主要的开销在%s这一步，每批大约 %d 毫秒。", g.distractorPath(), pick(r, zhWords), 5+r.Intn(900)),
				fmt.Sprintf("可以先把%s拆成两步：先校验，再写入。这样出错时更容易定位，重试也简单。", pick(r, zhWords)),
				fmt.Sprintf("现在的实现每次都会重新加载配置，建议缓存起来，大概能省 %d%% 的时间。", 5+r.Intn(60)),
				fmt.Sprintf("%s 里的函数 %s 可以复用，不用再写一遍。", g.distractorPath(), title(pick(r, words))),
				"下一步我建议先补测试，再动核心逻辑，这样改起来更安全。",
				fmt.Sprintf("如果租户数量到了 %d，单实例会比较吃力，可以考虑按租户分片。", 100+r.Intn(9000)),
				fmt.Sprintf("从提交记录看，%s 去年改过这里，注释里写的是临时方案，后来一直没有回头处理。", pick(r, g.p.people)),
				fmt.Sprintf("```python\ndef %s(rows):\n    total = 0\n    for row in rows:\n        total += row[\"amount\"]\n    return total\n```", pick(r, words)),
				fmt.Sprintf("%s 的错误处理不太一致：有的地方直接返回，有的地方记日志后继续。统一成一种方式会好很多，尤其是%s失败的时候。", pick(r, g.p.components), pick(r, zhWords)),
				fmt.Sprintf("我跑了一下基准测试，%d 条记录耗时 %d 毫秒，瓶颈在序列化上。换成流式写入应该能快一倍左右。", 1000+r.Intn(90000), 50+r.Intn(5000)),
				fmt.Sprintf("另外，%s 和 %s 之间的接口有点重复，可以合并成一个，减少维护成本。", pick(r, g.p.components), pick(r, g.p.components)),
				"这部分我先不改，等你确认方向之后再动，避免返工。",
			}))
			continue
		}
		paras = append(paras, pick(r, []string{
			fmt.Sprintf("I looked at %s. Most of the time goes into the %s step, roughly %d ms per batch of %d.", g.distractorPath(), pick(r, words), 5+r.Intn(900), 10+r.Intn(500)),
			fmt.Sprintf("We could split the %s into two phases: validate first, then write. That makes failures easier to pin down and retries idempotent.", pick(r, words)),
			fmt.Sprintf("The current code reloads its configuration on every call; caching it would save around %d%% of the time.", 5+r.Intn(60)),
			fmt.Sprintf("The helper %s in %s already does most of this, so we can reuse it instead of writing another one.", title(pick(r, words))+title(pick(r, words)), g.distractorPath()),
			"I would add tests before touching the core logic, so the refactor stays safe.",
			fmt.Sprintf("At %d tenants a single instance gets tight; sharding by tenant would spread the load.", 100+r.Intn(9000)),
			fmt.Sprintf("Looking at the history, %s changed this code in March; the comment says it was a stopgap.", pick(r, g.p.people)),
			fmt.Sprintf("```go\nfunc %s(items []Item) (int, error) {\n\ttotal := 0\n\tfor _, it := range items {\n\t\ttotal += it.Amount\n\t}\n\treturn total, nil\n}\n```", title(pick(r, words))),
			fmt.Sprintf("One caveat: the %s path does not handle %s yet, so expect a few edge cases in the %s.", pick(r, words), pick(r, words), pick(r, g.p.components)),
			fmt.Sprintf("Error handling in the %s is inconsistent: some paths return early, others log and carry on. Picking one style would make the %s failures much easier to reason about.", pick(r, g.p.components), pick(r, words)),
			fmt.Sprintf("I ran a quick benchmark: %d records take %d ms, and most of that is serialization. Streaming the writes should roughly halve it.", 1000+r.Intn(90000), 50+r.Intn(5000)),
			fmt.Sprintf("The %s and the %s expose nearly the same interface; merging them would cut the maintenance cost, though it touches %d call sites.", pick(r, g.p.components), pick(r, g.p.components), 3+r.Intn(60)),
			"I'll leave that part alone until you confirm the direction, to avoid rework.",
			fmt.Sprintf("If we want, the %s step can run in the background and report progress; the UI would then poll every %d seconds.", pick(r, words), 1+r.Intn(30)),
			fmt.Sprintf("For context: the %s was written when we had a single tenant, which explains the global state in %s.", pick(r, g.p.components), g.distractorPath()),
			fmt.Sprintf("There are two ways to do this. The quick one patches the %s in place; the clean one introduces a small interface and moves the %s logic behind it. I'd lean towards the second, since the tests get simpler.", pick(r, words), pick(r, words)),
		}))
	}
	return strings.Join(paras, "\n\n")
}

// finalTurn asks about three early facts.
func (g *gen) finalTurn() Turn {
	r := g.r
	// three of the facts from the first half, by topic
	var early []Fact
	for _, f := range g.facts {
		if f.Turn <= g.turns/2 {
			early = append(early, f)
		}
	}
	if len(early) < 3 {
		early = g.facts
	}
	r.Shuffle(len(early), func(i, j int) { early[i], early[j] = early[j], early[i] })
	a, b, c := early[0].Topic, early[1].Topic, early[2].Topic
	var user string
	if g.lang == "zh" {
		user = fmt.Sprintf("在我把总结发给%s之前，帮我确认几件事：%s是多少？%s呢？还有%s，我们最后怎么定的？", g.p.people[0], a, b, c)
	} else {
		user = fmt.Sprintf("Before I send the summary to %s, remind me: %s, %s, and %s — what did we settle on?", g.p.people[0], a, b, c)
	}
	return Turn{User: user, Steps: []Step{{Text: g.genericAnswer(0)}}}
}

// Corpus returns the benchmark's conversations: n of them (default 8),
// English and Chinese, chat and agent, about turns each.
func Corpus(n, turns int) []Conversation {
	if n <= 0 {
		n = 8
	}
	if turns <= 0 {
		turns = 90
	}
	var out []Conversation
	for i := 0; i < n; i++ {
		lang := []string{"en", "zh"}[i%2]
		kind := []string{"chat", "agent"}[(i/2)%2]
		t := turns
		if kind == "chat" {
			t = turns * 2 // chat turns are shorter: more of them
		}
		out = append(out, Generate(int64(1000+i*7919), lang, kind, t))
	}
	return out
}
