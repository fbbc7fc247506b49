package mcp

import (
	"fmt"
	"sort"
	"strings"
)

// What a project's own files may not hide. A server from .mcp.json (or .cursor/mcp.json,
// .vscode/mcp.json) runs a command the project chose, with an environment the project
// chose: a benign-looking command can be made to run project code through its
// environment. The user approves such a server seeing its whole configuration
// (Redacted shows a project server's values as written), the variables that make a
// program load code are named in words (LoaderWarnings), and the variables that make
// every program load a library are refused outright (refusedPreload).

// refusedPreload reports whether a project file may not set the environment variable
// name: the dynamic loader's preload and search path (LD_PRELOAD, LD_LIBRARY_PATH,
// LD_AUDIT, DYLD_*) make every program the server starts load the project's code.
func refusedPreload(name string) bool {
	n := strings.ToUpper(strings.TrimSpace(name))
	switch n {
	case "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT":
		return true
	}
	return strings.HasPrefix(n, "DYLD_")
}

// loaderVars are the variables that make an interpreter or a shell load code, with what
// they do in words.
var loaderVars = map[string]string{
	"PYTHONPATH":        "makes python load modules (sitecustomize.py among them) from %s",
	"PYTHONSTARTUP":     "makes an interactive python run %s first",
	"PYTHONHOME":        "makes python use the standard library in %s",
	"NODE_OPTIONS":      "passes options to every node process (--require loads code): %s",
	"NODE_PATH":         "makes node look for modules in %s",
	"PERL5LIB":          "makes perl load modules from %s",
	"PERL5OPT":          "passes options to every perl process (-M loads code): %s",
	"RUBYOPT":           "passes options to every ruby process (-r loads code): %s",
	"RUBYLIB":           "makes ruby load libraries from %s",
	"JAVA_TOOL_OPTIONS": "passes options to every Java process (-javaagent loads code): %s",
	"_JAVA_OPTIONS":     "passes options to every Java process (-javaagent loads code): %s",
	"JDK_JAVA_OPTIONS":  "passes options to the java launcher (-javaagent loads code): %s",
	"CLASSPATH":         "makes Java load classes from %s",
	"BASH_ENV":          "makes every bash script run %s first",
	"ENV":               "makes every sh run %s first",
	"PATH":              "decides which programs run: %s",
	"GIT_SSH_COMMAND":   "runs %s whenever git connects",
}

// LoaderWarnings says, for a project server, which of its environment variables make a
// program load code, in words, sorted by name; none for a server from the user's settings.
func (c ServerConfig) LoaderWarnings() []string {
	if c.Source != SourceProject {
		return nil
	}
	var out []string
	for k, v := range c.Env {
		if what, ok := loaderVars[strings.ToUpper(k)]; ok {
			out = append(out, fmt.Sprintf("env %s %s", k, fmt.Sprintf(what, quoteValue(v))))
		}
	}
	sort.Strings(out)
	return out
}

// quoteValue shows a variable's value in a sentence.
func quoteValue(v string) string {
	if len(v) > 120 {
		v = v[:117] + "..."
	}
	return fmt.Sprintf("%q", v)
}

// refusedEnv returns the first variable of a project server's env that a project file may
// not set ("" when none).
func (c ServerConfig) refusedEnv() string {
	keys := make([]string, 0, len(c.Env))
	for k := range c.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if refusedPreload(k) {
			return k
		}
	}
	return ""
}
