// Package skills owns Agent Skills: finding them on disk, listing them to the
// model, and recording and reading back their activation in the
// conversation log. It does no I/O on the log itself and no tool calls.
//
// # Format
//
// A skill is a folder holding SKILL.md (YAML frontmatter, then a markdown
// body) and optional supporting files — the format Claude Code and Codex
// read, so skills written for them work unchanged. Frontmatter fields:
// name (lowercase letters, digits and single hyphens, at most 64, normally
// the folder name), description (what the skill does and when to use it,
// at most 1024 characters), and optionally license, compatibility,
// metadata, allowed-tools ("Read, Grep, Bash(git:*)", space-separated, or a
// YAML list), disable-model-invocation (only the user may activate it),
// user-invocable and when_to_use. Other fields (model, context, hooks, …)
// are ignored. Parse is lenient where skills in the wild are loose and says
// so with warnings (see Parse); a skill is skipped only when it has no
// usable name or description, or is not a readable UTF-8 text file of at
// most MaxFileBytes.
//
// # Discovery
//
// Discover scans Locations, highest precedence first; DefaultLocations
// builds them from Places:
//
//	project         <project>/.crewagent/skills/<name>/SKILL.md
//	package         <active package>/skills/<name>/SKILL.md
//	user            <crewagent home>/skills/<name>/SKILL.md
//	claude-project  <project>/.claude/skills/<name>/SKILL.md
//	agents-project  <project>/.agents/skills/<name>/SKILL.md
//	claude-user     ~/.claude/skills/<name>/SKILL.md
//	agents-user     ~/.agents/skills/<name>/SKILL.md
//	codex-user      $CODEX_HOME/skills/<name>/SKILL.md (~/.codex/skills)
//
// A skill whose name was already found is kept as shadowed (Catalog.
// Shadowed, "shadowed" in the listing), never lost silently; a folder that
// cannot be used is reported with its problems (Catalog.Invalid). Nothing is
// fatal. Hidden folders are skipped; skill folders may be symbolic links
// (as skill managers install them), but a SKILL.md or supporting file that
// links out of its skill folder is refused. At most MaxSkillsPerLocation
// skills per location and MaxFiles supporting files per skill are read.
// Catalog.List is the JSON of `crewagent skills list --json` and of
// Settings → Skills. A Watcher keeps a Catalog current as skills are added,
// edited or removed, including in locations created after it started.
//
// # The registry
//
// Catalog.Registry renders the SKILLS section of the system prompt of every
// mode: how to activate (skill.activate {"name"}) and deactivate, the active
// skills, and the name and description (never the body) of each skill the
// model may activate, within a token cap (RegistryTokens suggests 2 % of the
// context window). disable-model-invocation skills are not listed. When the
// skills do not all fit, descriptions are shortened first, then the skills
// most relevant to the newest user message are kept.
//
// # Activation and state
//
// Activation is recorded in the conversation log, so it survives turns,
// restarts, forks and compaction. Catalog.Activate (model or user) checks a
// request — unknown skills, disable-model-invocation skills for the model,
// the caller's policy, an unreadable SKILL.md are refused with an *Error
// whose code and message go into the tool result; an active skill is an
// idempotent success — and returns the entries to append, in order:
//
//	{"type":"evt","event":"skill_activated","data":{"skill","source","path",…},"ref_msg_id":<body id>}
//	{"type":"msg","role":"user","is_meta":true,"content":"<skill name=… base=\"@skill/<name>/\">…body…</skill>"}
//
// For a model activation they follow the assistant's tool call and its
// tool result (Activation.Result), which the caller appends first.
// Deactivate returns a skill_deactivated event. Derive (and Apply, for a
// state kept up to date as entries are appended) reads the active skills
// back from the log's entries; DeriveAsOf gives the state as of an entry,
// which is what a fork at that entry copies. The state is robust to unknown
// or malformed events, to logs whose event names no body message (the next
// is_meta user message is then the body), and to skills no longer on disk
// (the body comes from the log). State.PinnedIDs are the body messages
// requests and compaction must keep; State.StaleIDs those of skills that
// ended; State.NarrowTools applies the active skills' allowed-tools.
//
// # Supporting files and tools
//
// While a skill is active its folder is readable, read-only, as
// @skill/<name>/…, resolved by the tool host's sandbox (tools.Sandbox, the
// one owner of the path rules): symbolic links may not leave the skill
// folder, and files are read through an os.Root. ParseAllowedTools maps Claude Code tool
// names (Read, Write, Edit, Grep, Glob, LS, …) to fs.*; NarrowTools only
// ever narrows the tools offered to the model.
package skills
