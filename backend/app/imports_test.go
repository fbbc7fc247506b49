package app_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "crewagent"

// deps returns, for every package of the module, the packages it depends on
// (the module's own and the Wails ones), without tests: transitively, or only
// those it imports itself (direct).
func deps(t *testing.T, direct bool) map[string][]string {
	t.Helper()
	field := "Deps"
	if direct {
		field = "Imports"
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .`+field+` " "}}`, module+"/...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var keep []string
		for _, d := range f[1:] {
			if strings.HasPrefix(d, module+"/") || strings.HasPrefix(d, "github.com/wailsapp/") {
				keep = append(keep, d)
			}
		}
		m[f[0]] = keep
	}
	if len(m) < 10 {
		t.Fatalf("go list found %d packages: the walk is broken", len(m))
	}
	return m
}

// The directions the architecture keeps (README, Repository layout).
func TestImportDirections(t *testing.T) {
	b := module + "/backend/"
	for p, ds := range deps(t, true) {
		for _, d := range ds {
			// The program (app.go) starts the window with wails.Run and its options.
			window := p == module && !strings.HasPrefix(d, "github.com/wailsapp/wails/v2/pkg/runtime")
			if strings.HasPrefix(d, "github.com/wailsapp/") && p != b+"desktop" && !window {
				t.Errorf("only backend/desktop imports the Wails runtime, and only the program the rest of Wails: %s imports %s", p, d)
			}
		}
	}
	all := deps(t, false)
	rules := []struct {
		name string
		// from reports whether the rule applies to a package; bad whether a dependency breaks it.
		from func(p string) bool
		bad  func(d string) bool
	}{
		{"below the window, nothing uses the Wails runtime",
			func(p string) bool { return strings.HasPrefix(p, b) && p != b+"desktop" },
			func(d string) bool { return strings.HasPrefix(d, "github.com/wailsapp/") }},
		{"the LLM client does not use the conversation store",
			func(p string) bool { return strings.HasPrefix(p, b+"llm") },
			func(d string) bool { return d == b+"convlog" }},
		{"the request builder, compaction, recall and token counting use the message model, not the store",
			func(p string) bool {
				return slices.Contains([]string{b + "contextbuilder", b + "compression", b + "recall", b + "tokens"}, p)
			},
			func(d string) bool { return d == b+"convlog" }},
		{"the hand-over of turns is built on the store, the engine and the scheduler, not on runs, packages or watchers",
			func(p string) bool { return p == b+"coordinator" },
			func(d string) bool {
				return slices.Contains([]string{b + "workflow", b + "packages", b + "watcher"}, d)
			}},
		{"the engine does not use the package format",
			func(p string) bool { return p == b+"engine" },
			func(d string) bool { return d == b+"packages" }},
		{"the message model, errors, events and the file and frontmatter helpers use nothing above them",
			func(p string) bool {
				return slices.Contains([]string{b + "conversation", b + "errs", b + "events", b + "fsx", b + "frontmatter"}, p)
			},
			func(d string) bool {
				return !slices.Contains([]string{b + "conversation", b + "errs", b + "events", b + "fsx", b + "frontmatter"}, d)
			}},
		{"nothing below the adapters uses them or the application layer",
			func(p string) bool {
				return strings.HasPrefix(p, b) && !slices.Contains([]string{b + "app", b + "desktop", b + "cli"}, p) && !strings.HasPrefix(p, b+"errs/gen")
			},
			func(d string) bool { return slices.Contains([]string{b + "app", b + "desktop", b + "cli"}, d) }},
		{"only tests use the helpers tests share",
			func(p string) bool { return true },
			func(d string) bool { return d == b+"internal/testkit" }},
		{"the window and the command line do not use each other",
			func(p string) bool { return p == b+"desktop" || p == b+"cli" },
			func(d string) bool { return d == b+"desktop" || d == b+"cli" }},
	}
	for _, r := range rules {
		for p, ds := range all {
			if !r.from(p) {
				continue
			}
			for _, d := range ds {
				if r.bad(d) {
					t.Errorf("%s: %s depends on %s", r.name, p, d)
				}
			}
		}
	}
}

// ioPackages are the standard packages that reach files, processes or the
// network.
var ioPackages = []string{"os", "os/exec", "os/signal", "os/user", "io/fs", "io/ioutil", "path/filepath",
	"net", "net/http", "net/url", "net/rpc", "syscall", "log/slog", "log", "embed", "plugin"}

// The message model is pure: neither it nor what it imports of the module
// reads or writes anything (no os, net, io/fs, file helpers).
func TestMessageModelHasNoIO(t *testing.T) {
	b := module + "/backend/"
	all := deps(t, false)
	pure := append([]string{b + "conversation"}, all[b+"conversation"]...)
	out, err := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}} {{join .Imports " "}}`}, pure...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		checked++
		for _, d := range f[1:] {
			if slices.Contains(ioPackages, d) || strings.HasPrefix(d, "net/") || d == b+"fsx" || d == b+"convlog" {
				t.Errorf("the message model does no I/O: %s imports %s", f[0], d)
			}
		}
	}
	if checked < 1 {
		t.Fatal("go list listed nothing: the check is broken")
	}
}
