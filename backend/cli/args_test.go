package cli

import (
	"strings"
	"testing"
)

// Each conversations command names itself in its flag and usage errors.
func TestConversationsArgumentErrors(t *testing.T) {
	home, root, id, _ := fixture(t)
	g := []string{"--home", home, "--project", root}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"list extra word", []string{"conversations", "list", id}, "usage: crewagent conversations list"},
		{"show no id", []string{"conversations", "show"}, "usage: crewagent conversations show ID"},
		{"delete two ids", []string{"conversations", "delete", id, id}, "usage: crewagent conversations delete ID"},
		{"fork no id", []string{"conversations", "fork", "--at", "x"}, "usage: crewagent conversations fork ID [--at MESSAGE_ID | --checkpoint NAME]"},
		{"checkpoint no name", []string{"conversations", "checkpoint", id}, "usage: crewagent conversations checkpoint ID NAME"},
		{"list foreign flag", []string{"conversations", "list", "--mode", "chat"}, "flag --mode does not apply to 'conversations list'"},
		{"show foreign flag", []string{"conversations", "show", id, "--at", "x"}, "flag --at does not apply to 'conversations show'"},
		{"delete foreign flag", []string{"conversations", "delete", id, "--checkpoint", "c"}, "flag --checkpoint does not apply to 'conversations delete'"},
		{"fork foreign flag", []string{"conversations", "fork", id, "--workflow", "w"}, "flag --workflow does not apply to 'conversations fork'"},
		{"rewind no id", []string{"conversations", "rewind", "--to", "x"}, "usage: crewagent conversations rewind ID --to MESSAGE_ID [--files|--conversation|--both] [--force]"},
		{"rewind foreign flag", []string{"conversations", "rewind", id, "--to", "x", "--at", "y"}, "flag --at does not apply to 'conversations rewind'"},
		{"rewind flag on another command", []string{"conversations", "fork", id, "--force"}, "flag --force does not apply to 'conversations fork'"},
		{"checkpoint foreign flag", []string{"conversations", "checkpoint", id, "c", "--at", "x"}, "flag --at does not apply to 'conversations checkpoint'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "", append(append([]string{}, c.args...), g...)...)
			if r.code != ExitError || r.stderr != "crewagent: "+c.want+"\n" || r.stdout != "" {
				t.Fatalf("got exit %d, stderr %q, stdout %q; want exit 1 and %q", r.code, r.stderr, r.stdout, c.want)
			}
		})
	}
}

// --conversation is a switch after the rewind words and takes a value
// everywhere else.
func TestRewindConversationSwitch(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		words string
		conv  string
	}{
		{[]string{"conversations", "rewind", "--conversation", "C1", "--to", "M"}, "conversations rewind C1", "true"},
		{[]string{"--conversation", "conversations", "rewind", "C1"}, "conversations rewind C1", "true"},
		{[]string{"--home", "conversations", "conversations", "rewind", "--conversation", "C1"}, "conversations rewind C1", "true"},
		{[]string{"chat", "--conversation", "C1", "hello"}, "chat hello", "C1"},
		{[]string{"chat", "--conversation", "C1", "conversations", "rewind"}, "chat conversations rewind", "C1"},
	} {
		p, err := parseArgs(tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := strings.Join(p.words, " "); got != tc.words || p.get("conversation") != tc.conv {
			t.Errorf("%v: words %q, --conversation %q; want %q, %q", tc.args, got, p.get("conversation"), tc.words, tc.conv)
		}
	}
}
