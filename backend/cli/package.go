package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"crewagent/backend/packages"
	"crewagent/backend/project"
)

const (
	packageImportUsage = "package import FILE"
	packageListUsage   = "package list"
	packageRemoveUsage = "package remove ID"
	// packageInstallDemoUsage puts the bundled demo package back after a removal.
	packageInstallDemoUsage = "package install-demo"
)

// packageManager opens the package registry of the runtime home (--home).
func (e *env) packageManager() (*packages.Manager, string, error) {
	home, err := project.ResolveHome(e.args.get("home"))
	if err != nil {
		return nil, "", err
	}
	return packages.NewManager(home), home, nil
}

func cmdPackageImport(e *env, rest []string) error {
	if err := e.checkArgs(rest, 1); err != nil {
		return err
	}
	mgr, _, err := e.packageManager()
	if err != nil {
		return err
	}
	file, err := filepath.Abs(rest[0])
	if err != nil {
		return err
	}
	inst, err := mgr.Import(file)
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(inst)
	}
	fmt.Fprintf(e.stdout, "installed %s\n", describePackage(inst))
	for _, w := range inst.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w.String())
	}
	return nil
}

func cmdPackageList(e *env, rest []string) error {
	if err := e.checkArgs(rest, 0); err != nil {
		return err
	}
	mgr, _, err := e.packageManager()
	if err != nil {
		return err
	}
	list, err := mgr.List()
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no packages installed (import one with 'crewagent package import FILE')")
		return nil
	}
	for i := range list {
		fmt.Fprintln(e.stdout, describePackage(&list[i]))
	}
	return nil
}

func cmdPackageRemove(e *env, rest []string) error {
	if err := e.checkArgs(rest, 1); err != nil {
		return err
	}
	mgr, _, err := e.packageManager()
	if err != nil {
		return err
	}
	if err := mgr.Remove(rest[0]); err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(map[string]string{"removed": rest[0]})
	}
	fmt.Fprintf(e.stdout, "removed %s\n", rest[0])
	return nil
}

func cmdPackageInstallDemo(e *env, rest []string) error {
	if err := e.checkArgs(rest, 0); err != nil {
		return err
	}
	mgr, _, err := e.packageManager()
	if err != nil {
		return err
	}
	inst, err := mgr.InstallDemo()
	if err != nil {
		return err
	}
	if e.args.has("json") {
		return e.printJSON(inst)
	}
	fmt.Fprintf(e.stdout, "installed %s\n", describePackage(inst))
	return nil
}

// describePackage renders an installed package on one line.
func describePackage(p *packages.Installed) string {
	wfs := make([]string, len(p.Workflows))
	for i, w := range p.Workflows {
		wfs[i] = w.ID
	}
	agents := make([]string, len(p.Agents))
	for i, a := range p.Agents {
		agents[i] = a.ID
	}
	return fmt.Sprintf("%s\t%s %s\tworkflows: %s\tagents: %s", p.ID, p.Name, p.Version,
		orNone(strings.Join(wfs, ", ")), orNone(strings.Join(agents, ", ")))
}

func orNone(s string) string { return orDefault(s, "none") }
