// Package packages owns .bmad workflow packages: safe unpacking of archives and folders,
// validation against the v1.1 schemas, installation, the packages.json registry and loading.
//
// # Package files
//
// A package holds bmad.json, agents.json and one or more workflows. Two layouts are accepted:
// a single workflow at the package root (workflow.md, workflow.graph.json, steps/) or several
// workflows under workflows/<id>/. An archive whose entries all sit inside one top-level folder
// is treated as if that folder were the root; __MACOSX/ entries and .DS_Store files are ignored.
// Paths in bmad.json and node "file" fields are relative to the package root; a node file that
// only exists relative to its graph's folder is accepted too, and Load reports every node file
// relative to the package root.
//
// Workflows: when bmad.json lists workflows[], those are the package's workflows; the entry
// workflow is added when it is not among them. With no workflows[] the entry workflow is the only
// one; its id is the <id> of a workflows/<id>/ folder, else the workflowType of its workflow.md,
// else "main".
//
// # Validation
//
// Every problem is collected (never only the first) into one CodeInvalid error (ProblemsOf), each with the file,
// the JSON pointer inside it (for schema and reference errors) and a message. Only the v1.1
// schemas and real inconsistencies refuse a package: a graph naming a missing file, an edge or
// a transition to an unknown node, an unknown agent, a step whose nodeId or type contradicts
// its graph. Problems that do not make the package unusable are warnings, returned with the
// installed package (and with the problems, WarningsOf, when it is refused): unreachable nodes,
// dead ends, transitions that differ from the graph's edges, and a step without a "## Goal"
// or "## Instructions" section or with a section other than Goal, Instructions and Completion
// (the original Builder writes a "# Title" and "## Instructions" only). bmad.json integrity.sha256 is
// checked for form only: it hashes the archive that contains it, so it cannot be verified from
// inside. Archives are checked before anything is unpacked: entries with absolute paths, ".."
// or backslash escapes, symbolic links or special files, duplicate names (also by letter case),
// encrypted or unknown compression, and files, sizes or compression ratios over Limits are all
// reported; unpacking counts the real bytes too, so a lying size header is caught.
//
// # Installation
//
// Import unpacks into a temporary folder <home>/packages/.import-*, validates it, makes it
// read-only (files 0444, folders 0555) and renames it to <home>/packages/<packageId>, then writes
// <home>/packages.json atomically. The packageId is PackageID(name, version): the name and
// version in normal form C, lower-cased, with letters of any script, digits, ".", "_" and
// "-" kept and anything else replaced by "-", joined by "@" ("crewagent-demo@1.0.0",
// "需求分析-demo@0.1.0"); a name cut at 64 bytes, or one that keeps nothing, ends with 8 hex
// digits of its SHA-256. Ids already in packages.json are never recomputed, so an
// installation made when ids kept only ASCII letters keeps its id. Importing an id that is
// installed already is refused (CodeExists, ExistingOf) unless the Replace option is given;
// then the old folder is kept aside until the registry is written and is put back if
// anything fails, so a failed import leaves the previous state untouched. Different versions of
// the same package live side by side. Imports are serialised within one Manager; readers
// (List, Get, Load) never see a half-written registry. Leftover temporary folders from a crash
// are removed by a later import once they are an hour old.
package packages
