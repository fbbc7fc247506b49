package cli

import "testing"

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
