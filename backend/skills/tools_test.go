package skills

import (
	"reflect"
	"testing"
)

func TestParseAllowedTools(t *testing.T) {
	tests := []struct {
		name     string
		entries  []string
		declared bool
		want     AllowedTools
	}{
		{"absent", nil, false, AllowedTools{Tools: []string{}}},
		{"declared but empty does not narrow", []string{}, true, AllowedTools{Tools: []string{}}},
		{"claude read-only set", []string{"Read", "Grep", "Glob", "LS"}, true,
			AllowedTools{Declared: true, Tools: []string{"fs.read", "fs.search", "fs.list"}}},
		{"edit and write", []string{"Edit", "Write", "MultiEdit"}, true,
			AllowedTools{Declared: true, Tools: []string{"fs.apply_patch", "fs.write"}}},
		{"names ignore case", []string{"read", "GREP"}, true,
			AllowedTools{Declared: true, Tools: []string{"fs.read", "fs.search"}}},
		{"bash is the command tool", []string{"Bash(git diff:*)", "Bash", "WebFetch", "Read", "shell_run"}, true,
			AllowedTools{Declared: true, Tools: []string{"shell.run", "fs.read"}, Unavailable: []string{"WebFetch"}, Commands: []string{"shell.run(git diff)"},
				Notes: []string{"Bash(git diff:*): while the skill is active, commands matching shell.run(git diff) run without asking; shell.run may still run other commands, which ask as usual"}}},
		{"command prefixes are grants, each once", []string{"Bash(python:*)", "Bash(python)", "Bash(npm run *)"}, true,
			AllowedTools{Declared: true, Tools: []string{"shell.run"}, Commands: []string{"shell.run(python)", "shell.run(npm run *)"},
				Notes: []string{
					"Bash(python:*): while the skill is active, commands matching shell.run(python) run without asking; shell.run may still run other commands, which ask as usual",
					"Bash(python): while the skill is active, commands matching shell.run(python) run without asking; shell.run may still run other commands, which ask as usual",
					"Bash(npm run *): while the skill is active, commands matching shell.run(npm run *) run without asking; shell.run may still run other commands, which ask as usual",
				}}},
		{"a pattern for every command grants nothing", []string{"Bash(*)", "Bash(:*)"}, true,
			AllowedTools{Declared: true, Tools: []string{"shell.run"},
				Notes: []string{"Bash(*): a skill cannot allow every command; it grants nothing", "Bash(:*): a skill cannot allow every command; it grants nothing"}}},
		{"only unavailable tools narrow to nothing", []string{"BashOutput", "WebSearch"}, true,
			AllowedTools{Declared: true, Tools: []string{}, Unavailable: []string{"BashOutput", "WebSearch"}}},
		{"path patterns are noted", []string{"Read(./docs/**)"}, true,
			AllowedTools{Declared: true, Tools: []string{"fs.read"}, Notes: []string{"Read(./docs/**): the pattern is not enforced; fs.read may be used on any path the sandbox allows"}}},
		{"our own names and wire forms", []string{"fs.read", "fs_write", "ui.ask_user", "AskUserQuestion"}, true,
			AllowedTools{Declared: true, Tools: []string{"fs.read", "fs.write", "ui.ask_user"}}},
		{"mcp tools and servers", []string{"mcp__github__create_issue", "mcp__files"}, true,
			AllowedTools{Declared: true, Tools: []string{"mcp__github__create_issue", "mcp__files__*"}}},
		{"unknown names are kept and reported", []string{"web-search", "file-read"}, true,
			AllowedTools{Declared: true, Tools: []string{"web-search", "file-read"}, Unknown: []string{"web-search", "file-read"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseAllowedTools(tt.entries, tt.declared); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestNarrowTools(t *testing.T) {
	current := []string{"fs.list", "fs.read", "fs.search", "fs.write", "fs.apply_patch", "ui.ask_user",
		"skill.activate", "skill.deactivate", "mcp__github__create_issue", "mcp__github__list_issues", "mcp__files__convert"}
	tests := []struct {
		name  string
		lists [][]string
		want  []string
	}{
		{"no active skill", nil, current},
		{"skills without allowed-tools do not narrow", [][]string{nil, nil}, current},
		{"one narrowing skill", [][]string{{"fs.read", "fs.search"}},
			[]string{"fs.read", "fs.search", "ui.ask_user", "skill.activate", "skill.deactivate"}},
		{"a non-narrowing skill beside it does not widen", [][]string{nil, {"fs.read"}},
			[]string{"fs.read", "ui.ask_user", "skill.activate", "skill.deactivate"}},
		{"two narrowing skills: the union", [][]string{{"fs.read"}, {"fs.write"}},
			[]string{"fs.read", "fs.write", "ui.ask_user", "skill.activate", "skill.deactivate"}},
		{"declared with nothing available here", [][]string{{}},
			[]string{"ui.ask_user", "skill.activate", "skill.deactivate"}},
		{"never widens beyond current", [][]string{{"fs.read", "shell.exec", "fs.delete"}},
			[]string{"fs.read", "ui.ask_user", "skill.activate", "skill.deactivate"}},
		{"mcp prefix", [][]string{{"mcp__github__*"}},
			[]string{"ui.ask_user", "skill.activate", "skill.deactivate", "mcp__github__create_issue", "mcp__github__list_issues"}},
		{"wire forms match", [][]string{{"fs_read"}},
			[]string{"fs.read", "ui.ask_user", "skill.activate", "skill.deactivate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NarrowTools(current, tt.lists...)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			for _, g := range got {
				found := false
				for _, c := range current {
					found = found || c == g
				}
				if !found {
					t.Errorf("%s is not in the current tools", g)
				}
			}
		})
	}
	if got := NarrowTools([]string{"fs.read"}, []string{"fs.read", "fs.write"}); !reflect.DeepEqual(got, []string{"fs.read"}) {
		t.Errorf("got %q", got)
	}
}
