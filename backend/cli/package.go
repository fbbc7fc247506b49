package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"crewagent/backend/packages"
)

// packages returns the runtime home's installed packages (--home).
func (e *env) packages() (*packages.Manager, error) {
	rt, err := e.runtime()
	if err != nil {
		return nil, err
	}
	return rt.Packages(), nil
}

func cmdPackageImport(e *env, rest []string) error {
	mgr, err := e.packages()
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
	return e.print(inst, func() {
		fmt.Fprintf(e.stdout, "installed %s\n", describePackage(inst))
		for _, w := range inst.Warnings {
			fmt.Fprintf(e.stderr, "warning: %s\n", w.String())
		}
	})
}

func cmdPackageList(e *env, _ []string) error {
	mgr, err := e.packages()
	if err != nil {
		return err
	}
	list, err := mgr.List()
	if err != nil {
		return err
	}
	return e.print(list, func() {
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "no packages installed (import one with 'crewagent package import FILE')")
			return
		}
		for i := range list {
			fmt.Fprintln(e.stdout, describePackage(&list[i]))
		}
	})
}

func cmdPackageRemove(e *env, rest []string) error {
	mgr, err := e.packages()
	if err != nil {
		return err
	}
	if err := mgr.Remove(rest[0]); err != nil {
		return err
	}
	return e.print(map[string]string{"removed": rest[0]}, func() { fmt.Fprintf(e.stdout, "removed %s\n", rest[0]) })
}

func cmdPackageInstallDemo(e *env, _ []string) error {
	mgr, err := e.packages()
	if err != nil {
		return err
	}
	inst, err := mgr.InstallDemo()
	if err != nil {
		return err
	}
	return e.print(inst, func() { fmt.Fprintf(e.stdout, "installed %s\n", describePackage(inst)) })
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
