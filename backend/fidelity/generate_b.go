package fidelity

import (
	"fmt"
	"math/rand"
	"strings"
)

// Style B: a second generator written apart from the first, for a check on
// phrasings the digest was not tuned on. Facts sit inside longer, chattier
// user messages, often without the usual keywords (no "must", no "decided");
// numbers carry thousands separators or Chinese numerals; names come
// without a role; the model's answers are markdown with lists and tables;
// tool facts hide in command output and JSON configs.

var (
	bFirst  = []string{"Sanne", "Arvid", "Lucía", "Tobias", "Yara", "Kofi", "Ines", "Piotr", "Nadia", "Henrik", "Ayesha", "Luca"}
	bLast   = []string{"Verbeek", "Nyström", "Castellanos", "Brandt", "Haddadi", "Asante", "Moreau", "Zieliński", "Petrova", "Aalto", "Siddiqui", "Marchetti"}
	bZhName = []string{"欧阳娜", "司马磊", "上官静", "诸葛亮", "宋雨", "唐晓峰", "冯思远", "韩冰", "曹宁", "彭涛"}
	bTopics = []string{"event store", "billing export", "search indexer", "mobile release", "partner API", "data warehouse"}
	bZhTop  = []string{"事件存储", "账单导出", "搜索索引", "移动端发版", "合作方接口", "数据仓库"}
	bDirs   = []string{"infra/terraform/envs", "deploy/k8s/overlays", "src/server/routes", "packages/core/src", "jobs/nightly", "config/feature-flags"}
)

// GenerateB is the style-B generator (see above).
func GenerateB(seed int64, lang, kind string, turns int) Conversation {
	r := rand.New(rand.NewSource(seed))
	g := &gen{r: r, lang: lang, kind: kind, used: map[string]bool{}, turns: turns}
	g.p = project{name: pick(r, projects), company: "orbital"}
	g.p.components = []string{"api", "worker", "web"}
	g.p.dirs = bDirs
	for len(g.p.people) < 4 {
		g.p.people = append(g.p.people, g.bPerson())
	}
	topic := r.Intn(len(bTopics))
	c := Conversation{Name: fmt.Sprintf("b-%s-%s-%d", lang, kind, seed), Lang: lang, Kind: kind}
	var first string
	if lang == "zh" {
		first = fmt.Sprintf("接下来几周我们要把%s整体迁一遍。你先帮我梳理一下现状，有问题随时问我。", bZhTop[topic])
	} else {
		first = fmt.Sprintf("Over the next few weeks we're moving the whole %s over. Start by helping me map what's there today; ask whenever something is unclear.", bTopics[topic])
	}
	c.Turns = append(c.Turns, Turn{User: first, Steps: g.bAnswer()})
	nFacts := 18 + r.Intn(6)
	factAt := map[int]bool{}
	for _, s := range r.Perm(turns - 4)[:nFacts] {
		factAt[s+1] = true
	}
	for t := 1; t < turns-1; t++ {
		if factAt[t] {
			c.Turns = append(c.Turns, g.bFactTurn(t))
		} else {
			c.Turns = append(c.Turns, Turn{User: g.bQuestion(), Steps: g.bAnswer()})
		}
	}
	c.Facts = g.facts
	early := append([]Fact(nil), g.facts[:len(g.facts)/2]...)
	r.Shuffle(len(early), func(i, j int) { early[i], early[j] = early[j], early[i] })
	var final string
	if lang == "zh" {
		final = fmt.Sprintf("我要写周报了。帮我回忆一下：%s、%s，还有%s，之前都是怎么说的？", early[0].Topic, early[1].Topic, early[2].Topic)
	} else {
		final = fmt.Sprintf("Writing the weekly update now. Can you remind me what we had on %s, %s and %s?", early[0].Topic, early[1].Topic, early[2].Topic)
	}
	c.Turns = append(c.Turns, Turn{User: final, Steps: []Step{{Text: "Here is what we had."}}})
	c.Style, c.Named = "b", final
	Locate(&c)
	return c
}

func (g *gen) bPerson() string {
	return g.unique(func() string {
		if g.lang == "zh" {
			return pick(g.r, bZhName)
		}
		return pick(g.r, bFirst) + " " + pick(g.r, bLast)
	})
}

func (g *gen) bNumber() string {
	return g.unique(func() string {
		n := 1000 + g.r.Intn(90000)
		return fmt.Sprintf("%d,%03d", n/1000, n%1000)
	})
}

func (g *gen) bFactTurn(t int) Turn {
	r := g.r
	var sentence string
	var f Fact
	if g.lang == "zh" {
		switch r.Intn(6) {
		case 0:
			n := g.unique(func() string {
				return pick(r, []string{"三", "四", "五", "六", "七"}) + "万" + pick(r, []string{"二", "三", "五", "八"}) + "千元"
			})
			sentence, f = fmt.Sprintf("跟财务确认过了，这次的总预算是%s，他们说不会再加了。", n), Fact{Kind: KindRequirement, Needles: []string{n}, Topic: "总预算"}
		case 1:
			p := g.unique(func() string {
				return pick(r, bDirs) + "/" + pick(r, []string{"prod", "staging", "eu"}) + "/" + pick(r, words) + ".tf"
			})
			sentence, f = fmt.Sprintf("生产环境的配置其实放在 %s 下面，别的地方都是旧的。", p), Fact{Kind: KindPath, Needles: []string{p}, Topic: "生产配置在哪"}
		case 2:
			tm := g.unique(func() string { return fmt.Sprintf("%02d:%02d", r.Intn(6), 5*r.Intn(12)) })
			sentence, f = fmt.Sprintf("运维说夜间任务每天 %s 开始跑，跑完大概一个小时。", tm), Fact{Kind: KindNumber, Needles: []string{tm}, Topic: "夜间任务几点开始"}
		case 3:
			tech := g.tech()
			sentence, f = fmt.Sprintf("讨论了一下午，最后还是用%s，其他方案先放一放。", tech), Fact{Kind: KindDecision, Needles: []string{tech}, Topic: "最后用什么方案"}
		case 4:
			n := g.bPerson()
			sentence, f = fmt.Sprintf("昨天跟%s聊了，上线通知那块她来管。", n), Fact{Kind: KindName, Needles: []string{n}, Topic: "上线通知谁来管"}
		default:
			code := g.code()
			sentence, f = fmt.Sprintf("还有一点，%s 那个区域这季度千万别动，合同还没续。", code), Fact{Kind: KindRequirement, Needles: []string{code}, Topic: "哪个区域不能动"}
		}
	} else {
		switch r.Intn(7) {
		case 0:
			n := g.bNumber()
			sentence, f = fmt.Sprintf("So the thing is, finance told us the ceiling for the whole thing is %s EUR and they won't move on that.", n), Fact{Kind: KindRequirement, Needles: []string{n}, Topic: "the money ceiling"}
		case 1:
			p := g.unique(func() string {
				return pick(r, bDirs) + "/" + pick(r, []string{"prod", "staging", "eu"}) + "/" + pick(r, words) + ".tf"
			})
			sentence, f = fmt.Sprintf("btw the real prod config sits under %s, everything else is stale", p), Fact{Kind: KindPath, Needles: []string{p}, Topic: "where the prod config lives"}
		case 2:
			tm := g.unique(func() string { return fmt.Sprintf("%02d:%02d", r.Intn(6), 5*r.Intn(12)) })
			sentence, f = fmt.Sprintf("Ops says the nightly job kicks off at %s UTC and takes about an hour.", tm), Fact{Kind: KindNumber, Needles: []string{tm}, Topic: "when the nightly job starts"}
		case 3:
			tech := g.tech()
			sentence, f = fmt.Sprintf("after going back and forth all afternoon we're going with %s, final answer", tech), Fact{Kind: KindDecision, Needles: []string{tech}, Topic: "what we picked"}
		case 4:
			n := g.bPerson()
			sentence, f = fmt.Sprintf("Talked to %s yesterday, she'll handle the rollout comms.", n), Fact{Kind: KindName, Needles: []string{surname(n)}, Topic: "who handles the rollout comms"}
		case 5:
			code := g.code()
			sentence, f = fmt.Sprintf("Oh and please leave the %s region alone this quarter, the contract isn't renewed yet.", code), Fact{Kind: KindRequirement, Needles: []string{code}, Topic: "the region to leave alone"}
		default:
			n := fmt.Sprint(2 + r.Intn(60))
			key := g.unique(func() string { return "cap of " + n + " concurrent uploads" })
			sentence, f = fmt.Sprintf("Apparently there's a hard %s per customer on the storage side.", key), Fact{Kind: KindNumber, Needles: []string{key}, Topic: "the upload cap"}
		}
	}
	if g.kind == "agent" && r.Intn(3) == 0 {
		return g.bToolFact(t)
	}
	f.Turn = t
	g.add(f)
	// the fact sits between other sentences of the message
	user := strings.TrimSpace(g.bChat() + " " + sentence + " " + g.bQuestion())
	return Turn{User: user, Steps: g.bAnswer()}
}

func (g *gen) bToolFact(t int) Turn {
	r := g.r
	var out string
	var f Fact
	if r.Intn(2) == 0 {
		pct := g.unique(func() string { return fmt.Sprint(85+r.Intn(14)) + "%" })
		mount := g.unique(func() string {
			return "/var/lib/" + pick(r, []string{"postgres", "redis", "kafka", "minio"}) + fmt.Sprint(r.Intn(9))
		})
		lines := []string{"Filesystem      Size  Used Avail Use% Mounted on", "/dev/sda1        40G   12G   28G  30% /"}
		lines = append(lines, fmt.Sprintf("/dev/sdb1       500G  %dG   %dG  %s %s", 400+r.Intn(90), 10+r.Intn(50), pct, mount))
		lines = append(lines, "tmpfs           7.8G     0  7.8G   0% /dev/shm")
		out = toolJSON(map[string]any{"ok": true, "exitCode": 0, "stdout": strings.Join(lines, "\n")})
		f = Fact{Kind: KindTool, Needles: []string{pct, mount}, Topic: "the disk that was filling up"}
	} else {
		key := g.unique(func() string { return pick(r, words) + "RetryBudget" })
		val := fmt.Sprint(3 + r.Intn(40))
		cfg := map[string]any{"region": "eu", "replicas": 3, key: val, "logLevel": "info", "timeouts": map[string]any{"read": 30, "write": 30}}
		out = toolJSON(map[string]any{"ok": true, "path": "@project/config/app.json", "content": toolJSON(cfg)})
		f = Fact{Kind: KindTool, Needles: []string{key}, Topic: "the retry budget setting"}
	}
	f.Turn = t
	g.add(f)
	user := "can you check the box and the app config"
	if g.lang == "zh" {
		user = "帮我看一下机器的磁盘和应用配置"
	}
	return Turn{User: user, Steps: []Step{{Calls: []Call{{Name: "fs.read", Args: `{"path":"@project/config/app.json"}`, Output: out}}}, {Text: g.bParagraph()}}}
}

func (g *gen) bChat() string {
	if g.lang == "zh" {
		return pick(g.r, []string{"早上好。", "刚开完会。", "我看了你昨天的分析。", "", "嗯，", "有个事忘了说。"})
	}
	return pick(g.r, []string{"Morning.", "Just out of the standup.", "Read your notes from yesterday.", "", "Right,", "Forgot to mention something."})
}

func (g *gen) bQuestion() string {
	r := g.r
	if g.lang == "zh" {
		return pick(r, []string{"你觉得先做哪块比较好？", "这块有什么风险吗？", "能不能画个迁移顺序？", "测试怎么安排？", "继续吧。"})
	}
	return pick(r, []string{"What would you tackle first?", "Any risks you see here?", "Could you sketch the migration order?",
		fmt.Sprintf("How would you test the %s part?", pick(r, words)), "Carry on.", "Does that change anything in your plan?"})
}

func (g *gen) bParagraph() string {
	r := g.r
	if g.lang == "zh" {
		return pick(r, []string{
			fmt.Sprintf("整体看下来，迁移可以分三步：先双写，再切读，最后下线旧链路。每一步都要有回滚方案，%s那块尤其要小心。", pick(r, zhWords)),
			fmt.Sprintf("| 步骤 | 负载 | 预计耗时 |\n|---|---|---|\n| 双写 | %d%% | %d 天 |\n| 切读 | %d%% | %d 天 |", 10+r.Intn(40), 2+r.Intn(9), 40+r.Intn(50), 1+r.Intn(5)),
			"风险主要在数据一致性和回滚时间上。建议先在预发环境跑一遍完整演练，记录每一步的耗时。",
			fmt.Sprintf("我统计了一下，现在每天大概有 %d 次写入，峰值在晚上。", 10000+r.Intn(900000)),
		})
	}
	return pick(r, []string{
		fmt.Sprintf("Broadly, the move splits into three phases:\n\n1. dual-write for a while,\n2. flip reads once the numbers match,\n3. retire the old path.\n\nEach phase needs its own rollback, and the %s part deserves extra care.", pick(r, words)),
		fmt.Sprintf("| phase | load | estimate |\n|---|---|---|\n| dual-write | %d%% | %d days |\n| flip reads | %d%% | %d days |", 10+r.Intn(40), 2+r.Intn(9), 40+r.Intn(50), 1+r.Intn(5)),
		"The risks are mostly consistency and how long a rollback takes. I'd run a full rehearsal on staging first and time every step.",
		fmt.Sprintf("For scale: we currently see roughly %d writes a day, peaking in the evening, with %d distinct tenants.", 10000+r.Intn(900000), 10+r.Intn(3000)),
		fmt.Sprintf("Looking at %s/%s, the handler does three round trips where one would do; batching them is an easy win.", pick(r, bDirs), pick(r, words)),
		"I'd keep the public interface as it is and change only the internals, so clients notice nothing.",
	})
}

func (g *gen) bAnswer() []Step {
	r := g.r
	var steps []Step
	if g.kind == "agent" && r.Intn(2) == 0 {
		steps = append(steps, Step{Calls: []Call{g.fillerCall()}})
	}
	var paras []string
	for n := 2 + r.Intn(4); n > 0; n-- {
		paras = append(paras, g.bParagraph())
	}
	return append(steps, Step{Text: strings.Join(paras, "\n\n")})
}

// CorpusB returns n style-B conversations.
func CorpusB(n, turns int) []Conversation {
	var out []Conversation
	for i := 0; i < n; i++ {
		lang := []string{"en", "zh"}[i%2]
		kind := []string{"chat", "agent"}[(i/2)%2]
		t := turns
		if kind == "chat" {
			t = turns * 2
		}
		out = append(out, GenerateB(int64(5000+i*104729), lang, kind, t))
	}
	return out
}
