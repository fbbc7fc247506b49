package mcp

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"crewagent/backend/errs"
)

// maxProjectFileBytes bounds what is read of a project's configuration file.
const maxProjectFileBytes = 1 << 20

// ProjectFiles are the project's own server tables, relative to the project root, in the
// order they take precedence: a server name defined in an earlier file hides the same name
// in a later one. Each file may have either shape (mcpServers or VS Code's servers). Their
// servers are SourceProject: they start only once approved for the project.
var ProjectFiles = []string{ProjectFileName, ".cursor/mcp.json", ".vscode/mcp.json"}

// ReadProjectFile reads and parses <root>/.mcp.json. A missing file has no servers and no
// problems; a file that cannot be read or parsed is reported as a problem.
func ReadProjectFile(root string) ([]ServerConfig, []Problem) {
	return readProjectFile(root, ProjectFileName)
}

func readProjectFile(root, rel string) ([]ServerConfig, []Problem) {
	path := filepath.Join(root, filepath.FromSlash(rel))
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []Problem{problem("", "", "mcp.cannotRead", errs.Params{"file": rel, "detail": err.Error()})}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProjectFileBytes+1))
	if err != nil {
		return nil, []Problem{problem("", "", "mcp.cannotRead", errs.Params{"file": rel, "detail": err.Error()})}
	}
	if len(data) > maxProjectFileBytes {
		return nil, []Problem{problem("", "", "mcp.fileTooLarge", errs.Params{"file": rel, "limit": maxProjectFileBytes})}
	}
	return ParseFile(data, SourceProject, rel)
}

// LoadConfig gives the servers of a project: those of the settings' mcpServers table
// (settingsTable, the raw JSON value; nil for none) and those of the project's files
// (ProjectFiles; none when projectRoot is ""). A project server with the name (or tool-name
// form) of a settings server, or of a server of a file read before, is left out and reported:
// the settings one wins, then the earlier file. The result is sorted by name; every problem
// is reported, none is fatal.
func LoadConfig(settingsTable []byte, projectRoot string) ([]ServerConfig, []Problem) {
	servers, problems := ParseServers(settingsTable, SourceSettings)
	if projectRoot == "" {
		return servers, problems
	}
	taken := map[string]ServerConfig{}
	for _, s := range servers {
		taken[ServerWireName(s.Name)] = s
	}
	for _, file := range ProjectFiles {
		proj, pp := readProjectFile(projectRoot, file)
		for i := range pp {
			if pp[i].Server == "" {
				if !strings.Contains(pp[i].Message, file) {
					pp[i].Message = pp[i].Message + " (" + file + ")"
					pp[i].In = file
				}
			} else {
				pp[i].Message = pp[i].Message + " (in " + file + ")"
				pp[i].In = file
			}
		}
		problems = append(problems, pp...)
		for _, p := range proj {
			if other, ok := taken[ServerWireName(p.Name)]; ok {
				if other.Source == SourceProject {
					problems = append(problems, problem(p.Name, "", "mcp.alsoInFile", errs.Params{"file": file, "other": other.Name, "otherFile": other.File}))
				} else {
					problems = append(problems, problem(p.Name, "", "mcp.alsoInSettings", errs.Params{"file": file, "other": other.Name}))
				}
				continue
			}
			if k := p.refusedEnv(); k != "" {
				problems = append(problems, problem(p.Name, "", "mcp.refusedEnv", errs.Params{"name": k, "file": file}))
				continue
			}
			p.envFileDigest = envFileDigest(p, projectRoot)
			p.projectRoot = canonicalRoot(projectRoot)
			taken[ServerWireName(p.Name)] = p
			servers = append(servers, p)
		}
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	return servers, problems
}

// envFileDigest hashes the content of a project server's envFile ("" without one, "missing"
// when it cannot be read): a project that changes the file changes the server's Hash, and
// so needs a new approval.
func envFileDigest(c ServerConfig, root string) string {
	if c.EnvFile == "" {
		return ""
	}
	path, err := (Vars{WorkspaceFolder: root}).Expand(c.EnvFile)
	if err != nil {
		return "unresolved"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	data, err := readEnvFile(path)
	if err != nil {
		return "missing"
	}
	return digestOf(data)
}

// canonicalRoot is the project folder's path with its links resolved (the path itself
// when that fails).
func canonicalRoot(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
