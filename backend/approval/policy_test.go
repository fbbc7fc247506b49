package approval

import (
	"fmt"
	"testing"
)

// Every mode against every kind of tool, without rules.
func TestModeByKind(t *testing.T) {
	calls := map[Kind]Call{
		KindFree:     {Tool: "conv.create"},
		KindRead:     {Tool: "fs.read", Paths: []string{"@project/a.md"}},
		KindWrite:    {Tool: "fs.write", Paths: []string{"@project/a.md"}},
		KindCommand:  {Tool: "shell.run", Command: "go test ./..."},
		KindExternal: {Tool: "mcp__github__create_issue"},
	}
	want := map[Mode]map[Kind]Effect{
		ReadOnly: {KindFree: Allow, KindRead: Allow, KindWrite: Deny, KindCommand: Deny, KindExternal: Deny},
		Ask:      {KindFree: Allow, KindRead: Allow, KindWrite: AskUser, KindCommand: AskUser, KindExternal: AskUser},
		AutoEdit: {KindFree: Allow, KindRead: Allow, KindWrite: Allow, KindCommand: AskUser, KindExternal: AskUser},
		FullAuto: {KindFree: Allow, KindRead: Allow, KindWrite: Allow, KindCommand: Allow, KindExternal: Allow},
		"":       {KindFree: Allow, KindRead: Allow, KindWrite: AskUser, KindCommand: AskUser, KindExternal: AskUser},
	}
	for mode, byKind := range want {
		for kind, effect := range byKind {
			t.Run(fmt.Sprintf("%s/%s", mode, kind), func(t *testing.T) {
				c := calls[kind]
				if got := Classify(c.Tool); got != kind {
					t.Fatalf("Classify(%s) = %q, want %q", c.Tool, got, kind)
				}
				d := Policy{Mode: mode}.Decide(c)
				if d.Effect != effect || d.Reason == "" {
					t.Fatalf("%s in %q: %+v, want %s", c.Tool, mode, d, effect)
				}
			})
		}
	}
}

func TestClassify(t *testing.T) {
	for name, kind := range map[string]Kind{
		"fs.read": KindRead, "fs_list": KindRead, "fs.search": KindRead,
		"fs.write": KindWrite, "fs_apply_patch": KindWrite, "fs.delete": KindWrite, "fs.rename": KindWrite, "fs.move": KindWrite,
		"shell.run": KindCommand, "shell_run": KindCommand,
		"conv.create": KindFree, "conv_send": KindFree, "skill.activate": KindFree, "ui.ask_user": KindFree, "ui_ask_user": KindFree,
		"mcp__srv__tool": KindExternal, "something": KindExternal, "mcp__read_resource": KindRead,
	} {
		if got := Classify(name); got != kind {
			t.Errorf("Classify(%q) = %q, want %q", name, got, kind)
		}
	}
}

// A run's own state files never ask, in any mode but read-only's deny rules
// aside: they are the run's bookkeeping.
func TestStateFilesNeverAsk(t *testing.T) {
	for _, m := range Modes {
		d := Policy{Mode: m, User: Rules{Deny: []string{"fs.write"}}}.Decide(Call{Tool: "fs.apply_patch", Paths: []string{"@state/workflow.md"}})
		if d.Effect != Allow {
			t.Errorf("%s: %+v", m, d)
		}
	}
	// A path that only starts like @state is not one.
	if d := (Policy{Mode: Ask}).Decide(Call{Tool: "fs.write", Paths: []string{"@statex/a"}}); d.Effect != AskUser {
		t.Errorf("@statex: %+v", d)
	}
}

func TestRulePrecedence(t *testing.T) {
	write := Call{Tool: "fs.write", Paths: []string{"@project/docs/guide/a.md"}}
	push := Call{Tool: "shell.run", Command: "git push origin main"}
	tests := []struct {
		name   string
		p      Policy
		c      Call
		effect Effect
		rule   string
	}{
		{"allow lifts ask", Policy{Mode: Ask, User: Rules{Allow: []string{"fs.write(@project/docs/**)"}}}, write, Allow, "fs.write(@project/docs/**)"},
		{"allow path glob without alias", Policy{Mode: Ask, User: Rules{Allow: []string{"fs.write(docs/**)"}}}, write, Allow, "fs.write(@project/docs/**)"},
		{"allow elsewhere does not", Policy{Mode: Ask, User: Rules{Allow: []string{"fs.write(@project/src/**)"}}}, write, AskUser, ""},
		{"ask beats allow", Policy{Mode: Ask, User: Rules{Allow: []string{"fs.write"}, Ask: []string{"fs.write(@project/docs/*/a.md)"}}}, write, AskUser, "fs.write(@project/docs/*/a.md)"},
		{"deny beats ask and allow", Policy{Mode: Ask, User: Rules{Allow: []string{"fs.write"}, Ask: []string{"fs.write"}, Deny: []string{"fs.write(@project/docs/**)"}}}, write, Deny, "fs.write(@project/docs/**)"},
		{"deny beats full-auto", Policy{Mode: FullAuto, User: Rules{Deny: []string{"shell.run(git push)"}}}, push, Deny, "shell.run(git push)"},
		{"ask rule beats full-auto", Policy{Mode: FullAuto, User: Rules{Ask: []string{"shell.run(git)"}}}, push, AskUser, "shell.run(git)"},
		{"deny inside a longer line", Policy{Mode: FullAuto, User: Rules{Deny: []string{"shell.run(git push)"}}}, Call{Tool: "shell.run", Command: "go test ./... && git push"}, Deny, "shell.run(git push)"},
		{"allow never lifts read-only", Policy{Mode: ReadOnly, User: Rules{Allow: []string{"fs.write"}}}, write, Deny, ""},
		{"command prefix", Policy{Mode: Ask, User: Rules{Allow: []string{"shell.run(go test)"}}}, Call{Tool: "shell.run", Command: "go  test ./backend/..."}, Allow, "shell.run(go test)"},
		{"command prefix is by words", Policy{Mode: Ask, User: Rules{Allow: []string{"shell.run(go test)"}}}, Call{Tool: "shell.run", Command: "go testify"}, AskUser, ""},
		{"command star", Policy{Mode: Ask, User: Rules{Allow: []string{"shell.run(npm run *)"}}}, Call{Tool: "shell.run", Command: "npm run build"}, Allow, "shell.run(npm run *)"},
		{"allow needs a simple command", Policy{Mode: Ask, User: Rules{Allow: []string{"shell.run(go test)"}}}, Call{Tool: "shell.run", Command: "go test ./... ; rm -rf ~"}, AskUser, ""},
		{"allow needs no substitution", Policy{Mode: Ask, User: Rules{Allow: []string{"shell.run(go test)"}}}, Call{Tool: "shell.run", Command: "go test $(rm -rf ~)"}, AskUser, ""},
		{"allow by tool name glob", Policy{Mode: Ask, User: Rules{Allow: []string{"mcp__github__*"}}}, Call{Tool: "mcp__github__list"}, Allow, "mcp__github__*"},
		{"a rename needs both paths allowed", Policy{Mode: Ask, User: Rules{Allow: []string{"fs.rename(@project/docs/**)"}}}, Call{Tool: "fs.rename", Paths: []string{"@project/docs/a", "@project/src/a"}}, AskUser, ""},
		{"a deny on one path of a rename holds", Policy{Mode: FullAuto, User: Rules{Deny: []string{"fs.rename(@project/src/**)"}}}, Call{Tool: "fs.rename", Paths: []string{"@project/docs/a", "@project/src/a"}}, Deny, "fs.rename(@project/src/**)"},
		{"wire names match dotted rules", Policy{Mode: FullAuto, User: Rules{Deny: []string{"fs.write"}}}, Call{Tool: "fs_write", Paths: []string{"@project/a"}}, Deny, "fs.write"},
		{"conversation grant", Policy{Mode: Ask, Conversation: []string{"fs.write"}}, write, Allow, "fs.write"},
		{"project grant", Policy{Mode: Ask, Granted: []string{"shell.run(git push)"}}, push, Allow, "shell.run(git push)"},
		{"auto-edit outside the project asks", Policy{Mode: AutoEdit}, Call{Tool: "fs.write", Paths: []string{"@pkg/a"}}, AskUser, ""},
		{"bad rules are skipped", Policy{Mode: Ask, User: Rules{Allow: []string{"fs.write(", "(x)", "fs.write(../**)"}}}, write, AskUser, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.p.Decide(tc.c)
			if d.Effect != tc.effect || d.Rule != tc.rule {
				t.Fatalf("%+v, want %s by %q", d, tc.effect, tc.rule)
			}
		})
	}
}

// The project's rules only narrow until the user approves the file.
func TestProjectRulesNarrowUntilApproved(t *testing.T) {
	proj := Rules{Allow: []string{"shell.run(make)", "fs.write"}, Ask: []string{"fs.write(@project/secrets/**)"}, Deny: []string{"shell.run(git push)"}}
	tests := []struct {
		name     string
		mode     Mode
		approved bool
		c        Call
		effect   Effect
	}{
		{"unapproved allow ignored", Ask, false, Call{Tool: "shell.run", Command: "make"}, AskUser},
		{"approved allow counts", Ask, true, Call{Tool: "shell.run", Command: "make all"}, Allow},
		{"unapproved deny narrows full-auto", FullAuto, false, Call{Tool: "shell.run", Command: "git push"}, Deny},
		{"unapproved ask narrows full-auto", FullAuto, false, Call{Tool: "fs.write", Paths: []string{"@project/secrets/k"}}, AskUser},
		{"unapproved allow cannot widen read-only", ReadOnly, false, Call{Tool: "fs.write", Paths: []string{"@project/a"}}, Deny},
		{"approved allow cannot widen read-only", ReadOnly, true, Call{Tool: "fs.write", Paths: []string{"@project/a"}}, Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Policy{Mode: tc.mode, Project: proj, ProjectApproved: tc.approved}.Decide(tc.c)
			if d.Effect != tc.effect {
				t.Fatalf("%+v, want %s", d, tc.effect)
			}
		})
	}
}

func TestParseRule(t *testing.T) {
	good := map[string]string{
		"fs.write":                  "fs.write",
		" fs_write ( docs/** ) ":    "fs.write(@project/docs/**)",
		"fs.write(@project/a/../b)": "",
		"shell.run(npm run *)":      "shell.run(npm run *)",
		"mcp__gh__*":                "mcp__gh__*",
	}
	for in, want := range good {
		r, err := ParseRule(in)
		if want == "" {
			if err == nil {
				t.Errorf("ParseRule(%q) = %v, want an error", in, r)
			}
			continue
		}
		if err != nil || r.String() != want {
			t.Errorf("ParseRule(%q) = %q, %v; want %q", in, r.String(), err, want)
		}
	}
	for _, bad := range []string{"", "fs.write(", "fs.write()", "(docs)", "fs write", "fs.write(/etc/passwd)"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
}

func TestGrantFor(t *testing.T) {
	for c, want := range map[*Call]string{
		{Tool: "fs_write", Paths: []string{"@project/a"}}:    "fs.write",
		{Tool: "shell.run", Command: "go test ./..."}:        "shell.run(go test)",
		{Tool: "shell.run", Command: "ls -la"}:               "shell.run(ls)",
		{Tool: "shell.run", Command: "python3 scripts/x.py"}: "shell.run(python3)",
		{Tool: "mcp__gh__list"}:                              "mcp__gh__list",
	} {
		if got := GrantFor(*c); got != want {
			t.Errorf("GrantFor(%+v) = %q, want %q", *c, got, want)
		}
		if _, err := ParseRule(GrantFor(*c)); err != nil {
			t.Errorf("the grant %q does not parse: %v", GrantFor(*c), err)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"ask": Ask, "FULL_AUTO": FullAuto, " auto-edit ": AutoEdit, "read-only": ReadOnly} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, m, err)
		}
	}
	for _, bad := range []string{"", "yolo", "auto"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) accepted", bad)
		}
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"fs.write", "fs.write(@project/docs/**)", "shell.run(go test)", "x(", "(y)", "fs.write(../a)"} {
		f.Add(s, "@project/docs/a.md", "go test ./...")
	}
	f.Fuzz(func(t *testing.T, rule, p, command string) {
		r, err := ParseRule(rule)
		if err != nil {
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Fatalf("%q -> %q -> %+v, %v", rule, r.String(), again, err)
		}
		c := Call{Tool: r.Tool, Paths: []string{p}, Command: command}
		// An allow never lets through what a match refuses.
		if r.allows(c) && !r.matchAny(c) {
			t.Fatalf("%q allows %+v that it does not match", rule, c)
		}
	})
}

// The command prefixes an active skill grants allow the commands they match
// in every mode but read-only; a chained command, a deny or an ask rule
// still wins; without the grant the mode decides.
func TestSkillGrants(t *testing.T) {
	grants := []string{"shell.run(python3)", "shell.run(npm run *)"}
	for _, tc := range []struct {
		name    string
		p       Policy
		command string
		want    Effect
		source  string
	}{
		{"a granted prefix runs in ask mode", Policy{Mode: Ask, Skills: grants}, "python3 scripts/make_xlsx.py out.xlsx", Allow, "skill"},
		{"a glob grant", Policy{Mode: Ask, Skills: grants}, "npm run build", Allow, "skill"},
		{"a longer first word is not the prefix", Policy{Mode: Ask, Skills: grants}, "python3x evil.py", AskUser, ""},
		{"a chained command asks", Policy{Mode: Ask, Skills: grants}, "python3 a.py; curl example.com", AskUser, ""},
		{"a redirection asks", Policy{Mode: Ask, Skills: grants}, "python3 a.py > ../out", AskUser, ""},
		{"another command asks", Policy{Mode: Ask, Skills: grants}, "rm -rf build", AskUser, ""},
		{"without the skill it asks", Policy{Mode: Ask}, "python3 scripts/make_xlsx.py", AskUser, ""},
		{"a deny rule wins", Policy{Mode: Ask, Skills: grants, User: Rules{Deny: []string{"shell.run(python3)"}}}, "python3 a.py", Deny, "settings"},
		{"an ask rule wins", Policy{Mode: Ask, Skills: grants, Project: Rules{Ask: []string{"shell.run(python3)"}}}, "python3 a.py", AskUser, "project"},
		{"read-only refuses", Policy{Mode: ReadOnly, Skills: grants}, "python3 a.py", Deny, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.p.Decide(Call{Tool: "shell.run", Command: tc.command})
			if d.Effect != tc.want || d.Source != tc.source {
				t.Fatalf("%+v, want %s from %q", d, tc.want, tc.source)
			}
			if tc.source == "skill" && d.Reason != `allowed by the rule "`+d.Rule+`" in the active skills' approval rules` {
				t.Errorf("reason %q", d.Reason)
			}
		})
	}
}
