package compression

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Names in Chinese text: Latin names and acronyms inside it, personal names
// with one- and two-character surnames, handles; and what is no name.
func TestNamesInChineseText(t *testing.T) {
	tests := []struct {
		line  string
		name  bool
		names []string // zhNames
	}{
		{"两个方案里 ScyllaDB 更适合这条链路，没意见的话我就按这个来。", true, nil},
		{"去重存储就定 SQS 了，不再讨论", true, nil},
		{"上线要签字的话找欧阳明轩", true, []string{"欧阳明轩"}},
		{"这次的代码是诸葛晓燕来评审。", true, []string{"诸葛晓燕"}},
		{"宇文思琪在跟进这个问题", true, []string{"宇文思琪"}},
		{"最早的代码基本是王磊写的", true, []string{"王磊"}},
		{"我们在东方向部署了新的集群", false, nil},
		{"这里的 worker 会读到同一页", false, nil},
		{"/cmd/reconciler/ @jnwachukwu-ledger", true, nil},
	}
	for _, tt := range tests {
		f := analyse(tt.line, nil)
		var got []string
		zhNames(tt.line, func(n string) { got = append(got, n) })
		if f.name != tt.name || !slices.Equal(got, tt.names) {
			t.Errorf("%q: name %v, names %q; want %v, %q", tt.line, f.name, got, tt.name, tt.names)
		}
	}
}

// The key tokens that make a line rare: the Latin words of Chinese text
// taken apart from it, Chinese personal names, handles.
func TestKeyTokensOfChineseText(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"找到了：RollupRefundGate 在加锁之前就算好了游标", "rolluprefundgate"},
		{"上线要签字的话找欧阳明轩", "欧阳明轩"},
		{"/cmd/reconciler/ @jnwachukwu-ledger", "@jnwachukwu-ledger"},
		{"修完之后回放集跑到每秒 43559 个请求", "43559"},
	}
	for _, tt := range tests {
		if got := keyTokens(tt.line); !slices.Contains(got, tt.want) {
			t.Errorf("%q: key tokens %q, want %q among them", tt.line, got, tt.want)
		}
	}
}

// A pasted log is data: its records require and decide nothing whatever
// their words ("quota", "limit"), a warning is no finding, an error is; the
// facts said around it are kept, a figure before ". " ends its sentence,
// and a sentence split off at "; " is prose, not code.
func TestPastedLogsAreData(t *testing.T) {
	var c convo
	c.user("Port the settlement job to the new queue.")
	var log strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&log, "2026-04-11T0%d:%02d:%02dZ WARN quota: settled %d ledgers in %dms\n", i%9, i%60, (i*7)%60, 100+i, 10+i)
	}
	for k := 0; k < 4; k++ {
		text := log.String()
		if k == 3 {
			text += "2026-04-11T02:14:09Z ERROR settle: bank rejected batch: code=PAY-E4471\n"
		}
		c.user("pasting the worker log from this morning:\n\n" + text)
		c.assistant("Noted.")
	}
	c.user("oh and fwiw the dev server sits on port 6305. what's next?")
	c.assistant("Given the ordering we need, I'd put the queue on NATS JetStream; it doesn't add a cluster and the consumers stay simple.")
	c.user("这次的代码是诸葛晓燕来评审。")
	c.filler(6)
	dg := digestOf(t, c.entries, nil, 600, "")
	for _, want := range []string{"6305", "NATS JetStream", "诸葛晓燕", "PAY-E4471"} {
		if !strings.Contains(dg.text, want) {
			t.Errorf("the digest lacks %q:\n%s", want, dg.text)
		}
	}
	req := dg.text
	if i := strings.Index(req, sectionTitles[secFindings]); i >= 0 {
		req = req[:i]
	}
	if strings.Contains(req, "WARN quota") {
		t.Errorf("a log record is a requirement:\n%s", dg.text)
	}
	for _, l := range dg.lines {
		if strings.Contains(l.text, "WARN") && l.section == secFindings {
			t.Errorf("a warning of a pasted log is a finding: %q", l.text)
		}
	}
}

// A value corrected later: the line that states the old value sinks below
// the correction, so a digest with room for one keeps the correction.
func TestCorrectionSupersedesTheValueItCorrects(t *testing.T) {
	var c convo
	c.user("Port the settlement job to the new queue.")
	c.user("the settlement job times out after 90434 ms")
	c.filler(4)
	c.user("ops bumped the settlement timeout, so forget 90434 ms, it's 23066 ms now")
	c.filler(4)
	for _, budget := range []int{150, 170, 400} {
		dg := digestOf(t, c.entries, nil, budget, "")
		if !strings.Contains(dg.text, "23066") {
			t.Errorf("budget %d: the correction is not kept:\n%s", budget, dg.text)
		}
		old := strings.Index(dg.text, "after 90434")
		if old >= 0 && old > strings.Index(dg.text, "23066") {
			t.Errorf("budget %d: the stale value comes after its correction:\n%s", budget, dg.text)
		}
	}
	dg := digestOf(t, c.entries, nil, 150, "")
	if strings.Contains(dg.text, "after 90434") {
		t.Errorf("a tight digest keeps the stale line before the correction:\n%s", dg.text)
	}
}
