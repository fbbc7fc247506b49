package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"crewagent/backend/errs"
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

// package import installs a package. The report has one line per problem and per warning,
// each with its file and JSON pointer: problems (the package was refused) on stderr before the
// error line, warnings on stderr after the "installed" line. A package whose id and version
// are installed already is refused unless --replace.
func cmdPackageImport(e *env, rest []string) error {
	mgr, err := e.packages()
	if err != nil {
		return err
	}
	file, err := filepath.Abs(rest[0])
	if err != nil {
		return err
	}
	var opts []packages.ImportOption
	if e.args.has("replace") {
		opts = append(opts, packages.Replace())
	}
	inst, err := mgr.Import(file, opts...)
	if err != nil {
		return e.importFailed(rest[0], err)
	}
	return e.print(inst, func() {
		fmt.Fprintf(e.stdout, "installed %s\n", describePackage(inst))
		for _, w := range inst.Warnings {
			fmt.Fprintf(e.stderr, "warning: %s\n", w.String())
		}
	})
}

// importReport is the --json output of a package import refused as invalid.
type importReport struct {
	OK       bool               `json:"ok"`
	Problems []packages.Problem `json:"problems"`
	Warnings []packages.Problem `json:"warnings"`
}

func nonNilProblems(p []packages.Problem) []packages.Problem {
	if p == nil {
		return []packages.Problem{}
	}
	return p
}

// importFailed reports a refused import: an invalid package's problems and warnings one per
// line, or what to do about an installed package of the same id.
func (e *env) importFailed(arg string, err error) error {
	if _, ok := packages.ExistingOf(err); ok {
		return errs.Wrap(errs.PackageExists, err, fmt.Sprintf("%s; to replace it, run: crewagent package import %s --replace", err.Error(), shellQuote(arg)))
	}
	problems := packages.ProblemsOf(err)
	if problems == nil {
		return err
	}
	warnings := packages.WarningsOf(err)
	where := "listed above"
	if e.asJSON() {
		where = "listed on stdout"
		if werr := e.printJSON(importReport{OK: false, Problems: problems, Warnings: nonNilProblems(warnings)}); werr != nil {
			return werr
		}
	} else {
		for _, p := range problems {
			fmt.Fprintf(e.stderr, "error: %s\n", p.String())
		}
		for _, w := range warnings {
			fmt.Fprintf(e.stderr, "warning: %s\n", w.String())
		}
	}
	n := len(problems)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return errs.Wrap(packages.CodeInvalid, err, fmt.Sprintf("%s is not a valid package (%d problem%s, %s); nothing was installed", arg, n, plural, where))
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
