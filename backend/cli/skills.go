package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/skills"
)

// maxListDescription is the width a description gets in the skills table.
const maxListDescription = 60

// cmdSkillsList lists every skill found for the project: the usable ones,
// those hidden by a skill of the same name found first (shadowed) and the
// folders that cannot be used (invalid), each with its problems. --json
// prints skills.Catalog.List: name, description, source, path, problems,
// status, ….
func cmdSkillsList(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	view := ws.ListSkills()
	if e.asJSON() {
		return e.printJSON(view.Skills)
	}
	if len(view.Skills) == 0 {
		fmt.Fprintln(e.stdout, "no skills found; a skill is a folder with a SKILL.md in one of:")
		for _, l := range view.Locations {
			fmt.Fprintf(e.stdout, "  %-15s %s\n", l.Source, l.Dir)
		}
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tSTATUS\tDESCRIPTION\tPATH")
	for _, it := range view.Skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", orDefault(it.Name, "-"), it.Source, skillStatus(it), clip(oneLine(it.Description), maxListDescription), it.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, it := range view.Skills {
		for _, p := range it.Problems {
			fmt.Fprintf(e.stdout, "%s (%s) %s: %s — %s\n", orDefault(it.Name, "-"), it.Source, p.Severity, oneLine(p.Message), p.File)
		}
	}
	return nil
}

// skillStatus is the status column: available, user-only, shadowed,
// invalid.
func skillStatus(it skills.ListItem) string {
	switch {
	case it.Status == skills.StatusShadowed:
		return "shadowed"
	case it.Status == skills.StatusInvalid:
		return "invalid"
	case it.UserOnly:
		return "user-only"
	}
	return it.Status
}

// clip cuts s to n characters with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// activateSkills activates the skills of --skill in the conversation before
// the message is sent (in a new conversation, which it creates, when convID
// is empty) and returns the conversation to send to.
func (e *env) activateSkills(ws *app.Workspace, convID, mode string, retry bool) (string, error) {
	names, err := e.skillNames()
	if err != nil || len(names) == 0 {
		return convID, err
	}
	if retry {
		return "", fmt.Errorf("--skill activates skills before a new message; a --retry sends none")
	}
	if convID == "" {
		convID, err = ws.StartWithSkills(mode, names)
	} else {
		err = ws.ActivateSkills(convID, names)
	}
	if err != nil {
		return "", fmt.Errorf("--skill: %s (see 'crewagent skills list')", errs.From(err).Message)
	}
	return convID, nil
}

// skillNames reads --skill: one name, or several separated by commas.
func (e *env) skillNames() ([]string, error) {
	if !e.args.has("skill") {
		return nil, nil
	}
	var out []string
	for _, n := range strings.Split(e.args.get("skill"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--skill needs the name of a skill (see 'crewagent skills list')")
	}
	return out, nil
}
