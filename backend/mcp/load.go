package mcp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// maxProjectFileBytes bounds what is read of a project's .mcp.json.
const maxProjectFileBytes = 1 << 20

// ReadProjectFile reads and parses <root>/.mcp.json. A missing file has no servers and no
// problems; a file that cannot be read or parsed is reported as a problem.
func ReadProjectFile(root string) ([]ServerConfig, []Problem) {
	path := filepath.Join(root, ProjectFileName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []Problem{{Message: fmt.Sprintf("cannot read %s: %v", ProjectFileName, err)}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProjectFileBytes+1))
	if err != nil {
		return nil, []Problem{{Message: fmt.Sprintf("cannot read %s: %v", ProjectFileName, err)}}
	}
	if len(data) > maxProjectFileBytes {
		return nil, []Problem{{Message: fmt.Sprintf("%s is larger than %d bytes; it is ignored", ProjectFileName, maxProjectFileBytes)}}
	}
	return ParseProjectFile(data)
}

// LoadConfig gives the servers of a project: those of the settings' mcpServers table
// (settingsTable, the raw JSON value; nil for none) and those of <projectRoot>/.mcp.json
// (none when projectRoot is ""). A project server with the name (or tool-name form) of a
// settings server is left out and reported: the settings one wins. The result is sorted by
// name; every problem is reported, none is fatal.
func LoadConfig(settingsTable []byte, projectRoot string) ([]ServerConfig, []Problem) {
	servers, problems := ParseServers(settingsTable, SourceSettings)
	if projectRoot == "" {
		return servers, problems
	}
	proj, pp := ReadProjectFile(projectRoot)
	for i := range pp {
		if pp[i].Server == "" {
			pp[i].Message = pp[i].Message + " (" + ProjectFileName + ")"
		}
	}
	problems = append(problems, pp...)
	taken := map[string]string{}
	for _, s := range servers {
		taken[ServerWireName(s.Name)] = s.Name
	}
	for _, p := range proj {
		if other, ok := taken[ServerWireName(p.Name)]; ok {
			problems = append(problems, Problem{Server: p.Name, Message: fmt.Sprintf("is defined in %s and also (as %q) in the settings; the settings server is used", ProjectFileName, other)})
			continue
		}
		servers = append(servers, p)
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	return servers, problems
}
