package cli

import (
	"fmt"
	"strings"

	"crewagent/backend/app"
)

// permissionsView is the output of permissions show.
type permissionsView struct {
	Mode    app.ApprovalMode `json:"mode"`
	Project app.ProjectRules `json:"project"`
}

// permissions show: the approval mode new conversations get here and the
// project's rules file, with whether its allow rules count.
func cmdPermissionsShow(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	m, err := ws.ApprovalMode("")
	if err != nil {
		return err
	}
	v := permissionsView{Mode: m, Project: ws.ApprovalRules()}
	return e.print(v, func() {
		w := e.stdout
		fmt.Fprintf(w, "approval mode of new conversations: %s (from the %s)\n", m.Mode, m.Source)
		p := v.Project
		if !p.Exists && p.Error == "" {
			fmt.Fprintf(w, "%s: none\n", p.Path)
			return
		}
		state := "not approved: only its ask and deny rules apply (approve it with: crewagent permissions approve)"
		if p.Approved {
			state = "approved"
		}
		fmt.Fprintf(w, "%s: %s\n", p.Path, state)
		if p.Error != "" {
			fmt.Fprintf(w, "problem: %s\n", p.Error)
		}
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "problem: %s\n", pr)
		}
		for _, l := range []struct {
			name  string
			rules []string
		}{{"allow", p.Rules.Allow}, {"ask", p.Rules.Ask}, {"deny", p.Rules.Deny}} {
			if len(l.rules) > 0 {
				fmt.Fprintf(w, "  %s: %s\n", l.name, strings.Join(l.rules, ", "))
			}
		}
	})
}

// permissions approve: the project's rules file as it is now counts in full.
func cmdPermissionsApprove(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	if err := ws.ApproveProjectRules(); err != nil {
		return err
	}
	v := ws.ApprovalRules()
	return e.print(v, func() {
		fmt.Fprintf(e.stdout, "approved %s as it is now: its allow rules apply until it changes\n", v.Path)
	})
}

// permissions mode MODE: the default approval mode of the project's
// conversations ("default" goes back to the settings').
func cmdPermissionsMode(e *env, rest []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	mode := rest[0]
	if mode == "default" {
		mode = ""
	}
	if err := ws.SetProjectApprovalMode(mode); err != nil {
		return err
	}
	m, err := ws.ApprovalMode("")
	if err != nil {
		return err
	}
	return e.print(m, func() {
		fmt.Fprintf(e.stdout, "approval mode of new conversations: %s (from the %s)\n", m.Mode, m.Source)
	})
}
