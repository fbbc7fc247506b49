package compression

import "testing"

func TestIsLogLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"2026-04-11T00:05:44Z DEBUG mandate: settled 352 invoices in 114ms", true},
		{`"2026-04-11T02:13:52Z ERROR settle: bank rejected batch",`, true},
		{"[2026/04/11 10:00:00] worker started", true},
		{"07:21:02.344 GET /health 200", true},
		{"11-15 16:55:01.070  224  716 D ReactNativeJS: [crash] retrying ingest (744 ms)", true},
		{"Nov 29 11:37:16 host sshd[812]: Accepted publickey for deploy", true},
		{"ERROR: connection refused to db:5432", true},
		{"[WARN] retry budget exhausted", true},
		{"INFORMATION about the rollout is in the doc", false},
		{"12 workers are enough for the nightly batch", false},
		{"10-15 people will use it on launch day", false},
		{"Nov 29 is the cutover date, not Dec 3", false},
		{"we must keep the port at 6851", false},
		{"short", false},
	} {
		if got := isLogLine(c.line); got != c.want {
			t.Errorf("isLogLine(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}
