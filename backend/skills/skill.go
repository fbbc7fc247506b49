package skills

import (
	"path/filepath"
	"time"
)

// Source names where a skill was found. The listing and the skill_activated
// event carry it as a string.
type Source string

// Sources, in the order of DefaultLocations (which is the precedence order).
const (
	// SourceProject is <project>/.crewagent/skills.
	SourceProject Source = "project"
	// SourcePackage is the active package's skills folder.
	SourcePackage Source = "package"
	// SourceUser is <home>/skills (home is the crewagent home).
	SourceUser Source = "user"
	// SourceClaudeProject is <project>/.claude/skills (Claude Code).
	SourceClaudeProject Source = "claude-project"
	// SourceAgentsProject is <project>/.agents/skills (Codex and other agents).
	SourceAgentsProject Source = "agents-project"
	// SourceClaudeUser is ~/.claude/skills (Claude Code).
	SourceClaudeUser Source = "claude-user"
	// SourceAgentsUser is ~/.agents/skills (Codex and other agents).
	SourceAgentsUser Source = "agents-user"
	// SourceCodexUser is $CODEX_HOME/skills, by default ~/.codex/skills (older Codex releases).
	SourceCodexUser Source = "codex-user"
)

// Location is one folder scanned for skills: every sub-folder of Dir holding
// a SKILL.md is a skill.
type Location struct {
	Source Source `json:"source"`
	// Dir is the folder whose sub-folders are skills. It need not exist.
	Dir string `json:"dir"`
	// Root is the highest folder the watcher may watch while Dir does not
	// exist yet (the project folder, the crewagent home, the user's home, the
	// package folder). Empty means the parent of Dir.
	Root string `json:"root,omitempty"`
}

// Places are the folders DefaultLocations derives the locations from. An
// empty field leaves its locations out.
type Places struct {
	// Project is the project folder.
	Project string
	// Package is the installed folder of the project's active package.
	Package string
	// Home is the crewagent home (CREWAGENT_HOME).
	Home string
	// UserHome is the user's home folder (os.UserHomeDir), where other
	// agents keep their user skills.
	UserHome string
	// CodexHome is $CODEX_HOME; empty means <UserHome>/.codex.
	CodexHome string
	// NoOtherAgents leaves out the folders of other agents (.claude,
	// .agents, .codex).
	NoOtherAgents bool
}

// DefaultLocations returns the folders scanned for skills, highest
// precedence first:
//
//  1. project:        <Project>/.crewagent/skills
//  2. package:        <Package>/skills
//  3. user:           <Home>/skills
//  4. claude-project: <Project>/.claude/skills
//  5. agents-project: <Project>/.agents/skills
//  6. claude-user:    <UserHome>/.claude/skills
//  7. agents-user:    <UserHome>/.agents/skills
//  8. codex-user:     <CodexHome>/skills (default <UserHome>/.codex/skills)
//
// crewagent's own folders come first (the project's, then the package's, then
// the user's), then the folders other agents read, the project's before the
// user's. When two locations hold a skill of the same name, the one that
// comes first wins and the other is listed as shadowed.
func DefaultLocations(p Places) []Location {
	var locs []Location
	add := func(src Source, root string, parts ...string) {
		if root == "" {
			return
		}
		locs = append(locs, Location{Source: src, Dir: filepath.Join(append([]string{root}, parts...)...), Root: root})
	}
	add(SourceProject, p.Project, ".crewagent", "skills")
	add(SourcePackage, p.Package, "skills")
	add(SourceUser, p.Home, "skills")
	if p.NoOtherAgents {
		return locs
	}
	add(SourceClaudeProject, p.Project, ".claude", "skills")
	add(SourceAgentsProject, p.Project, ".agents", "skills")
	add(SourceClaudeUser, p.UserHome, ".claude", "skills")
	add(SourceAgentsUser, p.UserHome, ".agents", "skills")
	codex := p.CodexHome
	if codex == "" && p.UserHome != "" {
		codex = filepath.Join(p.UserHome, ".codex")
	}
	if codex != "" {
		root := codex
		if p.CodexHome == "" {
			root = p.UserHome
		}
		locs = append(locs, Location{Source: SourceCodexUser, Dir: filepath.Join(codex, "skills"), Root: root})
	}
	return locs
}

// Severity of a Problem.
type Severity string

// Severities: an error makes a skill unusable (it is skipped); a warning
// leaves it usable.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Problem is something wrong with a skill or a skills folder.
type Problem struct {
	// File is the host path of the file or folder concerned.
	File     string   `json:"file"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// Skill is one usable skill found on disk. Values are immutable once
// discovered.
type Skill struct {
	// Name is the skill's name: lowercase letters, digits and single
	// hyphens, at most 64 characters. It is the frontmatter name when that
	// is valid, else the folder name.
	Name string `json:"name"`
	// Description says what the skill does and when to use it (one line:
	// runs of white space are collapsed).
	Description string `json:"description"`
	// WhenToUse is the optional when_to_use field (Claude Code), shown after
	// the description in the registry.
	WhenToUse string `json:"whenToUse,omitempty"`
	// Source and Precedence tell where the skill was found: Precedence is
	// the index of its location (0 wins).
	Source     Source `json:"source"`
	Precedence int    `json:"-"`
	// Dir is the skill folder as found (it may be a symbolic link); Path is
	// its SKILL.md.
	Dir  string `json:"dir"`
	Path string `json:"path"`
	// License, Compatibility and Metadata are the optional fields of the
	// format, as written (Metadata holds JSON-compatible values).
	License       string         `json:"license,omitempty"`
	Compatibility string         `json:"compatibility,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	// AllowedTools is the allowed-tools field, one entry per tool as
	// written (see ParseAllowedTools). AllowedToolsSet is true when the
	// field is present.
	AllowedTools    []string `json:"allowedTools,omitempty"`
	AllowedToolsSet bool     `json:"-"`
	// DisableModelInvocation: only the user may activate the skill; it is
	// not listed to the model.
	DisableModelInvocation bool `json:"disableModelInvocation,omitempty"`
	// UserInvocable is false when the skill asks not to be offered to the
	// user (user-invocable: false); the model may still activate it.
	UserInvocable bool `json:"userInvocable"`
	// Files are the supporting files (slash-separated, relative to Dir),
	// at most MaxFiles; MoreFiles counts those left out.
	Files     []string `json:"files,omitempty"`
	MoreFiles int      `json:"moreFiles,omitempty"`
	// Size and ModTime are those of SKILL.md when it was read.
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
	// Problems are warnings: the skill is usable.
	Problems []Problem `json:"problems,omitempty"`
}

// Tools parses the skill's allowed-tools field.
func (s Skill) Tools() AllowedTools {
	return ParseAllowedTools(s.AllowedTools, s.AllowedToolsSet)
}

// AliasPrefix starts the paths under which the tool host's sandbox shows the
// folders of active skills, read-only ("@skill/<name>/<path>").
const AliasPrefix = "@skill/"

// Alias is the base alias of the skill's files, "@skill/<name>/".
func (s Skill) Alias() string { return AliasPrefix + s.Name + "/" }

// ModelInvocable reports whether the model may activate the skill (and sees
// it in the registry).
func (s Skill) ModelInvocable() bool { return !s.DisableModelInvocation }
