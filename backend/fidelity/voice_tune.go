package fidelity

import (
	"fmt"
	"strings"
)

// The tune voice: a payments backend in Go, YAML configs, go test output,
// log files; people from a payments team. Develop against this one.

var voices = map[string]*voice{}

func init() {
	voices[StyleTune] = tuneVoice()
	voices[StyleHeldOut] = heldOutVoice()
}

func tuneVoice() *voice {
	v := &voice{name: StyleTune, seed: 5000}
	v.words = []string{"ledger", "payout", "refund", "invoice", "settle", "cursor", "webhook", "tenant", "rollup", "batch", "quota", "audit", "retry", "fee", "dispute", "chargeback", "mandate", "sweep"}
	v.zhWords = []string{"对账", "退款", "结算", "发票", "回调", "租户", "批处理", "审计", "重试", "手续费", "拒付", "清分"}
	v.techs = []string{"PostgreSQL", "Redis Streams", "NATS JetStream", "Kafka", "RabbitMQ", "Temporal", "Valkey", "CockroachDB", "SQS", "Pulsar", "ScyllaDB", "FoundationDB"}
	v.dirs = []string{"services/payouts", "services/ledger", "internal/settlement", "pkg/webhooks", "cmd/reconciler", "internal/fees", "deploy/helm/payments"}
	v.people = map[string][]string{
		"en": {"Leocadia Voss", "Benedikt Aaltonen", "Oksana Pereira", "Thiago Lindholm", "Mirela Dragomir", "Kaveh Sorensen", "Ottilie Brandauer", "Jasper Nwachukwu", "Rosalind Ferreira", "Idris Kowalewski", "Fenna Castellano", "Lorcan Miyazaki"},
		"zh": {"欧阳明轩", "司徒雅琴", "上官文博", "诸葛晓燕", "慕容子健", "东方若曦", "端木思远", "皇甫嘉怡", "令狐志强", "夏侯雨桐"},
	}
	v.fillers = map[string][]string{
		"en": {"Sam", "the platform team", "Ana", "our PM", "the on-call", "Marco", "finance"},
		"zh": {"小王", "平台组", "产品经理", "值班同学", "老李", "财务那边"},
	}
	port := func(g *pgen) string { return g.num(2001, 9999) }
	big := func(g *pgen) string { return g.num(1001, 99999) }
	date := func(g *pgen) string { return g.date() }
	region := func(g *pgen) string { return g.code() }
	ver := func(g *pgen) string {
		return g.unique(func() string { return fmt.Sprintf("v%d.%d.%d", 2+g.r.Intn(7), 10+g.r.Intn(30), 10+g.r.Intn(40)) })
	}
	path := func(g *pgen) string { return g.fpath("go", "yaml", "sql") }
	person := func(g *pgen) string { return g.fname() }
	tech := func(g *pgen) string { return g.unique(func() string { return pick(g.r, v.techs) }) }
	ident := func(g *pgen) string { return g.ident("") }
	v.user = map[string]map[string][]tmpl{
		KindRequirement: {
			"en": {
				{"whatever we ship has to keep answering under %[1]s ms at p99, that's what the partner contract says", big, "the latency we promised partners"},
				{"legal was pretty clear that exports can't reach back before %[1]s", date, "how far back exports may go"},
				{"keep the %[2]s changes out of %[1]s until the audit wraps up", region, "the region we stay out of"},
				{"some merchants are still pinned to %[1]s of the SDK, so the old endpoints stay up", ver, "the SDK version we keep supporting"},
			},
			"zh": {
				{"合作方合同里写的是 p99 在 %[1]s 毫秒以内，这个我们得守住", big, "对合作方承诺的延迟"},
				{"法务说导出的数据最早只能到 %[1]s，再早的不行", date, "导出能追溯到哪天"},
				{"审计结束之前，%[2]s相关的改动先别碰 %[1]s", region, "先别动的区域"},
				{"还有商户卡在 SDK %[1]s 上，旧接口得留着", ver, "还要兼容的 SDK 版本"},
			},
		},
		KindPath: {
			"en": {
				{"the one you want is %[1]s, the other copy is dead code", path, "which copy of the file is live"},
				{"fwiw the real settings get loaded from %[1]s", path, "where the real settings are loaded from"},
				{"I keep the seed data for the %[2]s tests in %[1]s", path, "where the seed data lives"},
			},
			"zh": {
				{"真正在用的是 %[1]s，另一份是死代码", path, "哪份文件是真正在用的"},
				{"其实配置是从 %[1]s 读的", path, "配置从哪里读"},
				{"%[2]s测试的种子数据我放在 %[1]s", path, "种子数据放在哪"},
			},
		},
		KindNumber: {
			"en": {
				{"fwiw the dev server sits on port %[1]s", port, "the dev server port"},
				{"at peak we see roughly %[1]s webhooks an hour", big, "the webhook volume at peak"},
				{"the nightly %[2]s batch ends up around %[1]s rows most days", big, "the nightly batch size"},
			},
			"zh": {
				{"开发环境的服务跑在 %[1]s 端口", port, "开发环境端口"},
				{"高峰期每小时大概有 %[1]s 个回调", big, "高峰回调量"},
				{"每晚的%[2]s批处理一般是 %[1]s 行左右", big, "夜间批处理的规模"},
			},
		},
		KindDecision: {
			"en": {
				{"let's just go with %[1]s for the outbox, the rest is too much ops for us", tech, "what the outbox runs on"},
				{"ok, %[1]s for the dedupe store then, I don't want another debate about it", tech, "the dedupe store"},
			},
			"zh": {
				{"outbox 就用 %[1]s 吧，别的方案运维成本太高", tech, "outbox 用什么"},
				{"去重存储就定 %[1]s 了，不再讨论", tech, "去重存储的选型"},
			},
		},
		KindName: {
			"en": {
				{"%[1]s from payments is reviewing this one", person, "who reviews this"},
				{"if the rollout needs a sign-off, %[1]s is the person", person, "who signs off the rollout"},
				{"%[1]s wrote most of the original %[2]s code, ping them if something looks odd", person, "who wrote the original code"},
			},
			"zh": {
				{"这次的代码是%[1]s来评审", person, "谁来评审"},
				{"上线要签字的话找%[1]s", person, "上线找谁签字"},
				{"最早的%[2]s代码基本是%[1]s写的，看不懂可以问", person, "原来的代码是谁写的"},
			},
		},
	}
	v.decide = map[string][]tmpl{
		"en": {
			{"Given the ordering we need, I'd put the queue on %[1]s; it doesn't add a cluster and the consumers stay simple.", tech, "what the queue runs on"},
			{"Between the two, %[1]s fits better for the %[2]s path, so I'll build on that unless you object.", tech, "what we build the path on"},
		},
		"zh": {
			{"考虑到顺序要求，队列我建议放在 %[1]s 上，不用多维护一个集群。", tech, "队列用什么"},
			{"两个方案里 %[1]s 更适合%[2]s这条链路，没意见的话我就按这个来。", tech, "链路基于什么"},
		},
	}
	v.finding = map[string][]tmpl{
		"en": {
			{"Found it: %[1]s computes the cursor before it takes the lock, so two workers can read the same page.", ident, "the root cause"},
			{"With the fix the replay set runs at %[1]s req/s, up from about a third of that.", big, "the throughput after the fix"},
			{"I renamed the helper to %[1]s everywhere so the name says what it does.", ident, "the helper's new name"},
			{"So the duplicates come from %[1]s retrying after the commit, not from the webhook sender.", ident, "where the duplicates come from"},
		},
		"zh": {
			{"找到了：%[1]s 在加锁之前就算好了游标，两个 worker 会读到同一页。", ident, "根因"},
			{"修完之后回放集跑到每秒 %[1]s 个请求，之前只有三分之一左右。", big, "修复后的吞吐"},
			{"我把那个辅助函数统一改名成 %[1]s 了，名字和功能对得上。", ident, "辅助函数的新名字"},
			{"重复数据其实是 %[1]s 在提交之后又重试了一次，不是回调方的问题。", ident, "重复数据的来源"},
		},
	}
	v.updates = map[string][]update{
		"en": {
			{"the cutover is planned for %[1]s", "cutover moved, it's not %[2]s anymore, we go on %[1]s", date, "the cutover date"},
			{"we're allowed %[1]s requests a minute against the bank API", "the bank came back: the %[2]s a minute was wrong, it's %[1]s", big, "the bank API rate limit"},
			{"the settlement job times out after %[1]s ms", "ops bumped the settlement timeout, so forget %[2]s ms, it's %[1]s ms now", big, "the settlement timeout"},
		},
		"zh": {
			{"切换计划在 %[1]s", "切换改期了，不是 %[2]s 了，改到 %[1]s", date, "切换日期"},
			{"银行接口每分钟只允许 %[1]s 次请求", "银行回复了：每分钟 %[2]s 次是错的，实际是 %[1]s 次", big, "银行接口限流"},
			{"结算任务的超时是 %[1]s 毫秒", "运维调了结算超时，%[2]s 毫秒作废，现在是 %[1]s 毫秒", big, "结算超时"},
		},
	}
	v.toolOut = []func(g *pgen) (Call, []string, string){
		func(g *pgen) (Call, []string, string) { // a config value
			key := g.unique(func() string {
				return pick(g.r, v.words) + "_" + pick(g.r, []string{"timeout_ms", "max_inflight", "window_s", "pool_size"})
			})
			val := g.num(1001, 99999)
			lines := tuneYAML(g, 10+g.r.Intn(14))
			at := g.r.Intn(len(lines))
			lines = append(lines[:at], append([]string{"  " + key + ": " + val}, lines[at:]...)...)
			p := g.dpath("yaml")
			return Call{Name: "fs.read", Args: fmt.Sprintf(`{"path":"@project/%s"}`, p), Output: toolJSON(map[string]any{"ok": true, "path": "@project/" + p, "content": strings.Join(lines, "\n")})}, []string{key, val}, g.t("the limit in the payments config", "支付配置里的那个上限")
		},
		func(g *pgen) (Call, []string, string) { // a failing test
			name := g.ident("Test")
			lines := []string{"=== RUN   TestLedgerOpen", "--- PASS: TestLedgerOpen (0.00s)", "=== RUN   " + name,
				fmt.Sprintf("    %s_test.go:%d: got %d entries, want %d", pick(g.r, v.words), g.small(), g.small(), g.small()),
				"--- FAIL: " + name + " (0.02s)", "=== RUN   TestFeeRounding", "--- PASS: TestFeeRounding (0.00s)", "FAIL", "FAIL\tpayments/" + pick(g.r, v.dirs) + "\t0.412s"}
			return Call{Name: "fs.read", Args: `{"path":"@project/.cache/test-output.txt"}`, Output: toolJSON(map[string]any{"ok": true, "path": "@project/.cache/test-output.txt", "content": strings.Join(lines, "\n")})}, []string{name}, g.t("the failing test", "挂掉的测试")
		},
		func(g *pgen) (Call, []string, string) { // an error code in a log
			code := g.unique(func() string { return fmt.Sprintf("PAY-E%d", 1001+g.r.Intn(8998)) })
			lines := tuneLog(g, 14+g.r.Intn(20))
			at := g.r.Intn(len(lines))
			lines = append(lines[:at], append([]string{fmt.Sprintf("2026-04-11T02:%02d:%02dZ ERROR settle: bank rejected batch: code=%s", g.r.Intn(60), g.r.Intn(60), code)}, lines[at:]...)...)
			return Call{Name: "fs.search", Args: `{"path":"@project/logs","pattern":"settle"}`, Output: toolJSON(map[string]any{"ok": true, "matches": lines})}, []string{code}, g.t("the error code the bank returns", "银行返回的错误码")
		},
		func(g *pgen) (Call, []string, string) { // an owner
			owner := g.unique(func() string {
				return "@" + strings.ToLower(pick(g.r, []string{"lvoss", "baaltonen", "opereira", "tlindholm", "mdragomir", "ksorensen", "obrandauer", "jnwachukwu"})) + "-" + pick(g.r, v.words)
			})
			var lines []string
			for _, d := range v.dirs {
				o := "@payments-core"
				if g.r.Intn(3) == 0 {
					o = "@platform"
				}
				lines = append(lines, "/"+d+"/ "+o)
			}
			at := g.r.Intn(len(lines))
			lines[at] = strings.Fields(lines[at])[0] + " " + owner
			return Call{Name: "fs.read", Args: `{"path":"@project/.github/CODEOWNERS"}`, Output: toolJSON(map[string]any{"ok": true, "path": "@project/.github/CODEOWNERS", "content": "# owners\n" + strings.Join(lines, "\n")})}, []string{owner}, g.t("who owns that directory", "那个目录归谁")
		},
	}
	v.toolArgs = []func(g *pgen) (Call, []string, string){
		func(g *pgen) (Call, []string, string) { // a new file
			p := g.fpath("go")
			fn := title(pick(g.r, v.words)) + title(pick(g.r, v.words))
			content := fmt.Sprintf("package %s\n\n// %s reports whether the batch may settle now.\nfunc %s(n int) bool {\n\treturn n > 0\n}\n", pick(g.r, v.words), fn, fn)
			return writeCall(p, content), []string{p}, g.t("the file you created", "你新建的文件")
		},
		func(g *pgen) (Call, []string, string) { // a value written into a config
			key := g.unique(func() string {
				return pick(g.r, v.words) + "_" + pick(g.r, []string{"retry_budget", "max_batch", "grace_ms", "burst"})
			})
			val := g.num(1001, 99999)
			lines := tuneYAML(g, 6+g.r.Intn(6))
			lines = append(lines, "  "+key+": "+val)
			return writeCall(g.dpath("yaml"), strings.Join(lines, "\n")+"\n"), []string{key, val}, g.t("the value you wrote into the config", "你写进配置的值")
		},
		func(g *pgen) (Call, []string, string) { // a frontmatter patch
			adr := g.unique(func() string {
				return fmt.Sprintf("docs/adr/%04d-%s-%s.md", 10+g.r.Intn(89), pick(g.r, v.words), pick(g.r, v.words))
			})
			val := g.unique(func() string { return fmt.Sprintf("ADR-%d", 1001+g.r.Intn(8998)) })
			args := fmt.Sprintf(`{"path":"@project/%s","operation":"updateFrontmatter","update":{"status":{"set":"accepted"},"supersedes":{"set":"%s"}}}`, adr, val)
			return Call{Name: "fs.apply_patch", Args: args, Output: `{"ok":true,"changed":["status","supersedes"]}`}, []string{val}, g.t("which record the new one supersedes", "新记录取代了哪条")
		},
	}
	v.task = map[string][]string{
		"en": {"we're moving the payout pipeline onto %s over the next weeks. start by getting familiar with the repo, I'll feed you context as we go",
			"new project: the reconciler gets rebuilt around %s. have a look around first"},
		"zh": {"接下来几周要把出款链路迁到 %s 上。你先熟悉一下仓库，背景我边做边补充",
			"新活：对账服务要围绕 %s 重写。先看看代码"},
	}
	v.asks = map[string][]string{
		"en": {"why does the %s path take so long when the %s grows?", "is the %s handling in the %s worth cleaning up now or later?", "what would break if we dropped the %s cache for the %s?", "can you sketch how the %s and the %s should talk to each other?"},
		"zh": {"%s这条路径为什么在%s变多时这么慢？", "%s的处理现在整理还是以后再说？和%s有关系吗？", "如果把%s缓存去掉，%s会不会出问题？", "你画一下%s和%s之间应该怎么交互？"},
	}
	v.toolAsks = map[string][]string{
		"en": {"look at the %s code and tell me what's going on", "can you dig into the %s tests?", "check what the %s job is doing", "go ahead with the %s part"},
		"zh": {"看一下%s的代码，说说怎么回事", "查一下%s的测试", "看看%s任务在干什么", "%s那部分你接着做"},
	}
	v.tiny = map[string][]string{
		"en": {"ok", "go on", "yes", "sure", "makes sense", "hm", "do it", "next", "right", "fine by me"},
		"zh": {"好", "行", "继续", "可以", "嗯", "对", "就这样", "下一个"},
	}
	v.pasteLeads = map[string][]string{
		"en": {"here's what the nightly run printed:", "pasting the worker log from this morning:"},
		"zh": {"这是昨晚任务的输出：", "把今早 worker 的日志贴给你："},
	}
	v.pastedLog = func(g *pgen) string { return strings.Join(tuneLog(g, 20+g.r.Intn(50)), "\n") }
	v.leads = map[string][]string{
		"en": {"", "", "oh and ", "fwiw ", "btw ", "also, ", "side note: "},
		"zh": {"", "", "对了，", "顺便说下，", "另外，", "补一句，"},
	}
	v.tails = map[string][]string{
		"en": {"", "", ". anyway, carry on", ". what's next?", " — back to it", ". ok continue"},
		"zh": {"", "", "。继续吧", "。接下来呢？", "。先这样"},
	}
	v.answer = func(g *pgen) string {
		if g.zh {
			return pick(g.r, []string{
				fmt.Sprintf("我看了 %s，主要时间花在%s上，每批大约 %d 毫秒。", g.dpath("go"), g.word(), g.small()),
				fmt.Sprintf("可以把%s拆成两步：先校验再落库，出错好定位，重试也是幂等的。", g.word()),
				fmt.Sprintf("%s那次改动之后，这里一直是临时方案。", g.filler()),
				fmt.Sprintf("```go\nfunc %s(items []Entry) (int, error) {\n\ttotal := 0\n\tfor _, it := range items {\n\t\ttotal += it.Amount\n\t}\n\treturn total, nil\n}\n```", title(pick(g.r, v.words))),
				"我建议先补测试，再动核心逻辑。",
				fmt.Sprintf("%s和%s的错误处理不一致，统一一下会好很多。", g.word(), g.word()),
			})
		}
		return pick(g.r, []string{
			fmt.Sprintf("I read %s. Most of the time goes into the %s step, about %d ms per batch.", g.dpath("go"), pick(g.r, v.words), g.small()),
			fmt.Sprintf("We could split the %s into validate-then-write; failures get easier to pin down and retries stay idempotent.", pick(g.r, v.words)),
			fmt.Sprintf("Looking at the history, %s touched this last; the comment calls it a stopgap.", g.filler()),
			fmt.Sprintf("```go\nfunc %s(items []Entry) (int, error) {\n\ttotal := 0\n\tfor _, it := range items {\n\t\ttotal += it.Amount\n\t}\n\treturn total, nil\n}\n```", title(pick(g.r, v.words))),
			"I'd add tests before touching the core, so the refactor stays safe.",
			fmt.Sprintf("Error handling around the %s is inconsistent: some paths return early, others log and continue.", pick(g.r, v.words)),
			fmt.Sprintf("There are two ways: patch the %s in place, or put a small interface in front of it. The second keeps the tests simpler.", pick(g.r, v.words)),
		})
	}
	v.fillerCall = func(g *pgen) Call {
		switch g.r.Intn(4) {
		case 0:
			p := g.dpath("go")
			var b strings.Builder
			fmt.Fprintf(&b, "package %s\n\n", pick(g.r, v.words))
			for i := 0; i < 5+g.r.Intn(14); i++ {
				fn := title(pick(g.r, v.words)) + title(pick(g.r, v.words))
				fmt.Fprintf(&b, "// %s checks the %s.\nfunc %s(ctx context.Context, n int) error {\n\tif n > %d {\n\t\treturn fmt.Errorf(\"too many %s: %%d\", n)\n\t}\n\treturn nil\n}\n\n", fn, pick(g.r, v.words), fn, g.small(), pick(g.r, v.words))
			}
			return Call{Name: "fs.read", Args: fmt.Sprintf(`{"path":"@project/%s"}`, p), Output: toolJSON(map[string]any{"ok": true, "path": "@project/" + p, "content": b.String()})}
		case 1:
			var hits []string
			for i := 0; i < 3+g.r.Intn(9); i++ {
				hits = append(hits, fmt.Sprintf("@project/%s:%d: %s := %s(%d)", g.dpath("go"), g.small(), pick(g.r, v.words), pick(g.r, v.words), g.small()))
			}
			return Call{Name: "fs.search", Args: fmt.Sprintf(`{"path":"@project","pattern":"%s"}`, pick(g.r, v.words)), Output: toolJSON(map[string]any{"ok": true, "matches": hits})}
		case 2:
			p := g.dpath("go")
			content := fmt.Sprintf("package %s\n\nfunc %s() {}\n", pick(g.r, v.words), title(pick(g.r, v.words)))
			return Call{Name: "fs.write", Args: toolJSON(map[string]any{"path": "@project/" + p, "content": content}), Output: fmt.Sprintf(`{"ok":true,"bytesWritten":%d}`, len(content))}
		default:
			var entries []map[string]any
			for i := 0; i < 4+g.r.Intn(10); i++ {
				entries = append(entries, map[string]any{"name": pick(g.r, v.words) + ".go", "type": "file", "size": g.small()})
			}
			return Call{Name: "fs.list", Args: fmt.Sprintf(`{"path":"@project/%s"}`, pick(g.r, v.dirs)), Output: toolJSON(map[string]any{"ok": true, "entries": entries})}
		}
	}
	v.finals = map[string][]string{
		"en": {"let's pick this up again: recap what we established that still matters, then finish", "continue"},
		"zh": {"继续", "接着上次的来：先回顾一下还有效的结论，然后做完"},
	}
	v.named = map[string]string{
		"en": "before I write the handover: remind me of %s, %s and %s, then finish",
		"zh": "交接之前帮我确认：%s、%s，还有%s，然后做完",
	}
	return v
}

func writeCall(p, content string) Call {
	return Call{Name: "fs.write", Args: toolJSON(map[string]any{"path": "@project/" + p, "content": content}), Output: fmt.Sprintf(`{"ok":true,"bytesWritten":%d,"created":true}`, len(content))}
}

func tuneYAML(g *pgen, n int) []string {
	out := []string{"payments:"}
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("  %s_%s: %s", pick(g.r, g.v.words), pick(g.r, []string{"enabled", "interval", "level", "url"}),
			pick(g.r, []string{"true", "false", fmt.Sprint(g.small()), "info", "\"http://localhost\""})))
	}
	return out
}

func tuneLog(g *pgen, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("2026-04-11T0%d:%02d:%02dZ %s %s: %s %d %ss in %dms", g.r.Intn(9), g.r.Intn(60), g.r.Intn(60),
			pick(g.r, []string{"INFO", "INFO", "DEBUG", "WARN"}), pick(g.r, g.v.words), pick(g.r, []string{"settled", "flushed", "scheduled", "loaded", "retried"}),
			g.small(), pick(g.r, g.v.words), g.small()))
	}
	return out
}
