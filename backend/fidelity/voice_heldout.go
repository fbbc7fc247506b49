package fidelity

import (
	"fmt"
	"strings"
)

// The held-out voice: a mobile app with its sync API and analytics pipeline
// in TypeScript and Python, TOML and .env configs, pytest and jest output,
// Kubernetes events; other people, other phrasings. Report this one; do not
// tune against it.

func heldOutVoice() *voice {
	v := &voice{name: StyleHeldOut, seed: 9100}
	v.words = []string{"sync", "upload", "thumbnail", "session", "cohort", "funnel", "consent", "device", "offline", "push", "badge", "locale", "crash", "streak", "snapshot", "manifest", "shard", "ingest"}
	v.zhWords = []string{"同步", "上传", "缩略图", "会话", "漏斗", "授权", "设备", "离线", "推送", "埋点", "快照", "分片", "灰度"}
	v.techs = []string{"SQLite", "DuckDB", "ClickHouse", "BigQuery", "Firestore", "Supabase", "Realm", "Couchbase Lite", "Snowflake", "Dagster", "Airflow", "Prefect"}
	v.dirs = []string{"apps/mobile/src/sync", "apps/web/app/routes", "pipeline/dags", "pipeline/transforms", "packages/api-client/src", "infra/k8s/base", "services/ingest/app"}
	v.people = map[string][]string{
		"en": {"Wilhelmina Okonkwo", "Casimir Delahaye", "Ngozi Halvorsen", "Radomir Esposito", "Theodora Akintola", "Evander Kurosawa", "Philippa Mbeki", "Anselm Rautenberg", "Zofia Leclercq", "Bartholomew Ibarra", "Soraya Vandenberg", "Ignatius Moreau"},
		"zh": {"闻人嘉禾", "宇文思琪", "长孙浩然", "尉迟晓彤", "公孙一鸣", "呼延静怡", "赫连子墨", "钟离雪松", "澹台若兰", "南宫景行"},
	}
	v.fillers = map[string][]string{
		"en": {"Jess", "design", "the data team", "Tom", "QA", "our iOS folks", "support"},
		"zh": {"小陈", "设计那边", "数据组", "测试同学", "客服", "安卓组"},
	}
	port := func(g *pgen) string { return g.num(3001, 9999) }
	big := func(g *pgen) string { return g.num(1001, 99999) }
	date := func(g *pgen) string { return g.date() }
	ver := func(g *pgen) string {
		return g.unique(func() string { return fmt.Sprintf("%d.%d.%d", 11+g.r.Intn(6), 10+g.r.Intn(9), 10+g.r.Intn(9)) })
	}
	path := func(g *pgen) string { return g.fpath("ts", "py", "toml") }
	person := func(g *pgen) string { return g.fname() }
	tech := func(g *pgen) string { return g.unique(func() string { return pick(g.r, v.techs) }) }
	ident := func(g *pgen) string { return g.ident("") }
	snake := func(g *pgen) string {
		return g.unique(func() string {
			return pick(g.r, v.words) + "_" + pick(g.r, v.words) + "_" + pick(g.r, []string{"guard", "drain", "gate", "latch", "window"})
		})
	}
	bucket := func(g *pgen) string {
		return g.unique(func() string {
			return fmt.Sprintf("gs://%s-%s-%d", pick(g.r, v.words), pick(g.r, v.words), 11+g.r.Intn(88))
		})
	}
	v.user = map[string]map[string][]tmpl{
		KindRequirement: {
			"en": {
				{"we still have enterprise folks on iOS %[1]s so nothing fancy on the client side", ver, "the oldest iOS we support"},
				{"the raw events go to %[1]s and nowhere else, that came from the DPO", bucket, "where raw events may go"},
				{"support asked that %[2]s retries stop after %[1]s seconds total, they get tickets otherwise", big, "when retries have to give up"},
			},
			"zh": {
				{"还有企业用户停在 iOS %[1]s，客户端别用太新的东西", ver, "最低支持的 iOS 版本"},
				{"原始事件只能进 %[1]s，这是数据保护官定的", bucket, "原始事件能存哪"},
				{"客服那边要求%[2]s重试总共 %[1]s 秒之后就别再试了", big, "重试多久放弃"},
			},
		},
		KindPath: {
			"en": {
				{"the schema that actually ships is %[1]s, ignore the one in docs", path, "which schema actually ships"},
				{"I stashed the fixture generator in %[1]s", path, "where the fixture generator is"},
				{"heads up the feature flags get read from %[1]s on boot", path, "where flags are read on boot"},
			},
			"zh": {
				{"实际发出去的 schema 在 %[1]s，文档里那份别管", path, "实际用的 schema 在哪"},
				{"造测试数据的脚本我放到 %[1]s 了", path, "测试数据脚本在哪"},
				{"开关配置启动时从 %[1]s 读", path, "启动读哪个开关文件"},
			},
		},
		KindNumber: {
			"en": {
				{"metro bundler runs on %[1]s on my machine in case you need it", port, "the bundler port"},
				{"we're at roughly %[1]s daily actives right now", big, "the daily actives"},
				{"a typical %[2]s upload is like %[1]s KB", big, "the typical upload size"},
			},
			"zh": {
				{"我本地 metro 跑在 %[1]s，需要的话用", port, "metro 端口"},
				{"现在日活大概 %[1]s", big, "日活"},
				{"一般一次%[2]s上传是 %[1]s KB 左右", big, "上传大小"},
			},
		},
		KindDecision: {
			"en": {
				{"alright, local cache goes on %[1]s, I'm done going back and forth", tech, "the local cache choice"},
				{"fine, %[1]s for the warehouse side then", tech, "the warehouse choice"},
			},
			"zh": {
				{"行，本地缓存就用 %[1]s，不来回折腾了", tech, "本地缓存选型"},
				{"数仓那边就 %[1]s 吧", tech, "数仓选型"},
			},
		},
		KindName: {
			"en": {
				{"%[1]s said she'd look at the PR tomorrow", person, "who looks at the PR"},
				{"talk to %[1]s before touching anything in %[2]s, they'll know", person, "who to talk to first"},
				{"release notes go through %[1]s this time", person, "who handles release notes"},
			},
			"zh": {
				{"%[1]s说明天看这个 PR", person, "谁看 PR"},
				{"动%[2]s之前先问问%[1]s", person, "先问谁"},
				{"这次的发版说明由%[1]s过一遍", person, "谁过发版说明"},
			},
		},
	}
	v.decide = map[string][]tmpl{
		"en": {
			{"I'll keep the offline queue in %[1]s; it's already in the bundle and handles the write volume.", tech, "where the offline queue lives"},
			{"Going with %[1]s for the %[2]s transforms, it's the one the team already runs.", tech, "what the transforms run on"},
		},
		"zh": {
			{"离线队列我放在 %[1]s 里，包里已经有了，写入量也够。", tech, "离线队列放哪"},
			{"%[2]s转换就用 %[1]s，团队已经在用。", tech, "转换用什么"},
		},
	}
	v.finding = map[string][]tmpl{
		"en": {
			{"Got it — %[1]s fires twice when the app resumes from background, that's where the double uploads come from.", snake, "why uploads double"},
			{"Cold start is down to %[1]s ms on the Pixel 6 after lazy-loading the charts.", big, "the cold start now"},
			{"Renamed %[2]s helpers: everything now goes through %[1]s, old name is gone.", ident, "what the helper is called now"},
			{"The crash is %[1]s reading the locale before the bridge is ready.", snake, "the crash cause"},
		},
		"zh": {
			{"明白了——应用从后台回来时 %[1]s 会触发两次，重复上传就是这么来的。", snake, "重复上传的原因"},
			{"图表改成懒加载后，Pixel 6 冷启动降到 %[1]s 毫秒。", big, "现在的冷启动"},
			{"%[2]s相关的函数统一改叫 %[1]s 了，旧名字删掉了。", ident, "函数现在叫什么"},
			{"崩溃是 %[1]s 在 bridge 就绪前读了语言设置。", snake, "崩溃原因"},
		},
	}
	v.updates = map[string][]update{
		"en": {
			{"store submission is %[1]s", "submission slipped to %[1]s (was %[2]s)", date, "the store submission date"},
			{"the sync batch is capped at %[1]s records", "turns out the cap is %[1]s, not %[2]s, I misread the ticket", big, "the sync batch cap"},
			{"we budget %[1]s ms for the first paint", "design wants %[1]s ms for first paint now, drop the %[2]s figure", big, "the first paint budget"},
		},
		"zh": {
			{"提交商店审核定在 %[1]s", "审核提交推迟到 %[1]s 了（原来是 %[2]s）", date, "提交审核的日期"},
			{"同步每批最多 %[1]s 条", "看错了，每批上限是 %[1]s 条，不是 %[2]s", big, "同步批上限"},
			{"首屏预算 %[1]s 毫秒", "设计改了，首屏现在要 %[1]s 毫秒，%[2]s 那个数不算了", big, "首屏预算"},
		},
	}
	v.toolOut = []func(g *pgen) (Call, []string, string){
		func(g *pgen) (Call, []string, string) { // a TOML value
			key := g.unique(func() string {
				return pick(g.r, v.words) + "_" + pick(g.r, []string{"ttl_secs", "max_pending", "chunk_kb", "poll_ms"})
			})
			val := g.num(1001, 99999)
			lines := heldOutTOML(g, 8+g.r.Intn(14))
			at := 1 + g.r.Intn(len(lines)-1)
			lines = append(lines[:at], append([]string{key + " = " + val}, lines[at:]...)...)
			p := g.dpath("toml")
			return Call{Name: "fs.read", Args: fmt.Sprintf(`{"path":"@project/%s"}`, p), Output: toolJSON(map[string]any{"ok": true, "path": "@project/" + p, "content": strings.Join(lines, "\n")})}, []string{key, val}, g.t("the value in that toml", "toml 里那个值")
		},
		func(g *pgen) (Call, []string, string) { // a failing pytest
			name := "test_" + g.unique(func() string {
				return pick(g.r, v.words) + "_" + pick(g.r, v.words) + "_" + pick(g.r, []string{"roundtrip", "backfill", "dedupe", "expiry"})
			})
			mod := pick(g.r, v.words)
			out := fmt.Sprintf("============================= test session starts ==============================\ncollected %d items\n\npipeline/tests/test_%s.py ....F...                                        [100%%]\n\n=================================== FAILURES ===================================\n___________________________ %s ___________________________\n\n    def %s():\n>       assert rows == expected\nE       AssertionError: assert %d == %d\n\n=========================== short test summary info ============================\nFAILED pipeline/tests/test_%s.py::%s - AssertionError\n========================= 1 failed, %d passed in 3.1s =========================",
				g.small(), mod, name, name, g.small(), g.small(), mod, name, g.small())
			return Call{Name: "fs.read", Args: `{"path":"@project/.ci/pytest.log"}`, Output: toolJSON(map[string]any{"ok": true, "path": "@project/.ci/pytest.log", "content": out})}, []string{name}, g.t("which test was red", "哪个测试红了")
		},
		func(g *pgen) (Call, []string, string) { // an error code in k8s events
			code := g.unique(func() string { return fmt.Sprintf("SYNC_%d", 1001+g.r.Intn(8998)) })
			lines := heldOutEvents(g, 12+g.r.Intn(20))
			at := g.r.Intn(len(lines))
			lines = append(lines[:at], append([]string{fmt.Sprintf("Warning  BackOff  pod/ingest-%d  upstream returned %s, restarting", g.small(), code)}, lines[at:]...)...)
			return Call{Name: "fs.search", Args: `{"path":"@project/.ci/events","pattern":"ingest"}`, Output: toolJSON(map[string]any{"ok": true, "matches": lines})}, []string{code}, g.t("the upstream error code", "上游的错误码")
		},
		func(g *pgen) (Call, []string, string) { // an owner in package.json
			owner := g.unique(func() string {
				return strings.ToLower(pick(g.r, []string{"wokonkwo", "cdelahaye", "nhalvorsen", "resposito", "takintola", "ekurosawa"})) + "@" + pick(g.r, v.words) + ".dev"
			})
			pkg := fmt.Sprintf("{\n  \"name\": \"@app/%s\",\n  \"version\": \"0.%d.0\",\n  \"maintainers\": [\"%s\"],\n  \"scripts\": {\"test\": \"jest\", \"build\": \"tsc -p .\"}\n}", pick(g.r, v.words), g.small(), owner)
			return Call{Name: "fs.read", Args: `{"path":"@project/packages/api-client/package.json"}`, Output: toolJSON(map[string]any{"ok": true, "path": "@project/packages/api-client/package.json", "content": pkg})}, []string{owner}, g.t("who maintains the api client", "api client 的维护人")
		},
	}
	v.toolArgs = []func(g *pgen) (Call, []string, string){
		func(g *pgen) (Call, []string, string) { // a new module
			p := g.fpath("ts", "py")
			content := fmt.Sprintf("export function %s(input: string): string {\n  return input.trim();\n}\n", pick(g.r, v.words))
			return writeCall(p, content), []string{p}, g.t("the module you added", "你加的模块")
		},
		func(g *pgen) (Call, []string, string) { // an env value
			key := g.unique(func() string {
				return strings.ToUpper(pick(g.r, v.words) + "_" + pick(g.r, []string{"MAX_RETRIES_MS", "QUEUE_LIMIT", "FLUSH_EVERY", "SAMPLE_PER_MILLE"}))
			})
			val := g.num(1001, 99999)
			var lines []string
			for i := 0; i < 4+g.r.Intn(6); i++ {
				lines = append(lines, fmt.Sprintf("%s_%s=%d", strings.ToUpper(pick(g.r, v.words)), pick(g.r, []string{"ENABLED", "LEVEL", "PORT_OFFSET"}), g.small()))
			}
			lines = append(lines, key+"="+val)
			return writeCall(pick(g.r, []string{"apps/mobile/.env.staging", "services/ingest/.env.production", "apps/web/.env.local"}), strings.Join(lines, "\n")+"\n"), []string{key, val}, g.t("the env value you set", "你设置的环境变量")
		},
		func(g *pgen) (Call, []string, string) { // a frontmatter patch of a runbook
			doc := g.unique(func() string { return fmt.Sprintf("docs/runbooks/%s-%s.md", pick(g.r, v.words), pick(g.r, v.words)) })
			val := g.unique(func() string { return fmt.Sprintf("INC-%d", 1001+g.r.Intn(8998)) })
			args := fmt.Sprintf(`{"path":"@project/%s","operation":"updateFrontmatter","update":{"incidents":{"append":["%s"]},"reviewed":{"set":true}}}`, doc, val)
			return Call{Name: "fs.apply_patch", Args: args, Output: `{"ok":true,"changed":["incidents","reviewed"]}`}, []string{val}, g.t("the incident the runbook now lists", "runbook 里新加的事故")
		},
	}
	v.task = map[string][]string{
		"en": {"so the plan is to move offline sync to %s before summer. poke around the repo first, I'll fill in details",
			"picking up the analytics rework (%s underneath). get your bearings in the code"},
		"zh": {"计划是夏天前把离线同步换成 %s。先翻翻仓库，细节我后面补",
			"开始做埋点分析的重构（底层用 %s）。先熟悉下代码"},
	}
	v.asks = map[string][]string{
		"en": {"thoughts on how %s should behave when %s is flaky?", "is it worth unifying the %s and %s code paths?", "what's your take on the %s screen, too much going on with %s?", "would caching %s per %s help at all?"},
		"zh": {"%s在%s不稳定的时候应该怎么处理？", "%s和%s两条路径值得合并吗？", "%s页面是不是做了太多%s的事？", "按%s缓存%s有用吗？"},
	}
	v.toolAsks = map[string][]string{
		"en": {"take a look at the %s stuff", "poke at the %s module, something's off", "run through the %s bits for me", "keep going on %s"},
		"zh": {"看看%s那块", "%s模块好像有问题，你查一下", "把%s过一遍", "%s接着弄"},
	}
	v.tiny = map[string][]string{
		"en": {"k", "yep", "cool", "go", "👍", "sounds good", "and?", "hmm ok", "ship it", "wait, go on"},
		"zh": {"嗯嗯", "好的", "👍", "然后呢", "可以的", "行吧", "没问题"},
	}
	v.pasteLeads = map[string][]string{
		"en": {"CI blew up again, full output:", "dumping the device log here:"},
		"zh": {"CI 又挂了，完整输出：", "设备日志贴这了："},
	}
	v.pastedLog = func(g *pgen) string { return strings.Join(heldOutDeviceLog(g, 20+g.r.Intn(50)), "\n") }
	v.leads = map[string][]string{
		"en": {"", "", "random thing: ", "oh, ", "unrelated but ", "quick one: ", "before I forget, "},
		"zh": {"", "", "插一句，", "哦对，", "说个不相关的，", "先记一下，"},
	}
	v.tails = map[string][]string{
		"en": {"", "", ". ok where were we", " — anyway", ". keep going", ". thoughts?"},
		"zh": {"", "", "。好了接着来", "。你继续", "。怎么看？"},
	}
	v.answer = func(g *pgen) string {
		if g.zh {
			return pick(g.r, []string{
				fmt.Sprintf("%s 里每次渲染都会重新算%s，大概 %d 毫秒，可以 memo 一下。", g.dpath("ts"), g.word(), g.small()),
				fmt.Sprintf("离线的时候%s会堆在队列里，恢复网络后按顺序补发。", g.word()),
				fmt.Sprintf("%s之前提过这里的兼容问题，还没人处理。", g.filler()),
				fmt.Sprintf("```ts\nexport async function %s(items: Item[]): Promise<number> {\n  let n = 0;\n  for (const it of items) n += it.size;\n  return n;\n}\n```", pick(g.r, v.words)),
				"这块我先不动，等方向定了再改。",
				fmt.Sprintf("%s和%s的状态管理有重复，可以抽一个 hook。", g.word(), g.word()),
			})
		}
		return pick(g.r, []string{
			fmt.Sprintf("In %s the %s gets recomputed on every render, about %d ms; memoizing it is cheap.", g.dpath("ts"), pick(g.r, v.words), g.small()),
			fmt.Sprintf("While offline the %s events queue up and replay in order once the network is back.", pick(g.r, v.words)),
			fmt.Sprintf("%s flagged a compat issue here a while ago; nobody picked it up.", g.filler()),
			fmt.Sprintf("```ts\nexport async function %s(items: Item[]): Promise<number> {\n  let n = 0;\n  for (const it of items) n += it.size;\n  return n;\n}\n```", pick(g.r, v.words)),
			"I'll hold off on that until we agree on the direction.",
			fmt.Sprintf("The %s and %s screens duplicate their state handling; a shared hook would remove most of it.", pick(g.r, v.words), pick(g.r, v.words)),
			fmt.Sprintf("Option one keeps the %s logic in the component; option two moves it into the sync layer. Two is more work but testable.", pick(g.r, v.words)),
		})
	}
	v.fillerCall = func(g *pgen) Call {
		switch g.r.Intn(4) {
		case 0:
			p := g.dpath("ts")
			var b strings.Builder
			fmt.Fprintf(&b, "import { api } from \"../client\";\n\n")
			for i := 0; i < 4+g.r.Intn(12); i++ {
				fn := pick(g.r, v.words) + title(pick(g.r, v.words))
				fmt.Fprintf(&b, "export async function %s(id: string): Promise<void> {\n  const res = await api.get(`/%s/${id}`);\n  if (res.status > %d) throw new Error(\"%s failed\");\n}\n\n", fn, pick(g.r, v.words), g.small(), pick(g.r, v.words))
			}
			return Call{Name: "fs.read", Args: fmt.Sprintf(`{"path":"@project/%s"}`, p), Output: toolJSON(map[string]any{"ok": true, "path": "@project/" + p, "content": b.String()})}
		case 1:
			var hits []string
			for i := 0; i < 3+g.r.Intn(9); i++ {
				hits = append(hits, fmt.Sprintf("@project/%s:%d:  const %s = use%s();", g.dpath("tsx"), g.small(), pick(g.r, v.words), title(pick(g.r, v.words))))
			}
			return Call{Name: "fs.search", Args: fmt.Sprintf(`{"path":"@project/apps","pattern":"use%s"}`, title(pick(g.r, v.words))), Output: toolJSON(map[string]any{"ok": true, "matches": hits})}
		case 2:
			p := g.dpath("py")
			content := fmt.Sprintf("def %s(rows):\n    return [r for r in rows if r.get(\"%s\")]\n", pick(g.r, v.words), pick(g.r, v.words))
			return Call{Name: "fs.write", Args: toolJSON(map[string]any{"path": "@project/" + p, "content": content}), Output: fmt.Sprintf(`{"ok":true,"bytesWritten":%d}`, len(content))}
		default:
			p := g.dpath("toml")
			return Call{Name: "fs.read", Args: fmt.Sprintf(`{"path":"@project/%s"}`, p), Output: toolJSON(map[string]any{"ok": true, "path": "@project/" + p, "content": strings.Join(heldOutTOML(g, 5+g.r.Intn(8)), "\n")})}
		}
	}
	v.finals = map[string][]string{
		"en": {"let's pick this up again: recap what we established that still matters, then finish", "continue", "ok back at it. where were we? wrap it up"},
		"zh": {"接着上次的来：先回顾一下还有效的结论，然后做完", "继续", "回来了，之前做到哪了？收个尾"},
	}
	v.named = map[string]string{
		"en": "writing the weekly update now: what did we have on %s, %s and %s? then wrap up",
		"zh": "写周报呢：%s、%s和%s之前是怎么说的？然后收尾",
	}
	return v
}

func heldOutTOML(g *pgen, n int) []string {
	out := []string{"[" + pick(g.r, g.v.words) + "]"}
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%s_%s = %s", pick(g.r, g.v.words), pick(g.r, []string{"enabled", "region", "mode", "retries"}),
			pick(g.r, []string{"true", "false", fmt.Sprint(g.small()), "\"eu\"", "\"lazy\""})))
	}
	return out
}

func heldOutEvents(g *pgen, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("Normal   %s  pod/%s-%d  %s", pick(g.r, []string{"Pulled", "Created", "Started", "Scheduled"}), pick(g.r, g.v.words), g.small(),
			pick(g.r, []string{"container image already present", "created container", "started container", "assigned to node"})))
	}
	return out
}

func heldOutDeviceLog(g *pgen, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%02d-%02d %02d:%02d:%02d.%03d  %d  %d %s ReactNativeJS: [%s] %s %s (%d ms)", 1+g.r.Intn(12), 1+g.r.Intn(28), g.r.Intn(24), g.r.Intn(60), g.r.Intn(60), g.r.Intn(1000),
			g.small(), g.small(), pick(g.r, []string{"I", "D", "W"}), pick(g.r, g.v.words), pick(g.r, []string{"resolved", "queued", "retrying", "cached"}), pick(g.r, g.v.words), g.small()))
	}
	return out
}
