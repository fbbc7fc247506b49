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
// the JSON pointer inside it (for schema and reference errors) and a message. Problems that do not
// make the package unusable (unreachable nodes, dead ends, transitions that differ from the graph's
// edges) are warnings, returned with the installed package. bmad.json integrity.sha256 is
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
// <home>/packages.json atomically. The packageId is PackageID(name, version): the lower-cased
// name and version joined by "@", with anything outside [a-z0-9._-] replaced by "-", for
// example "crewagent-demo@1.0.0". Importing an id that is already installed
// replaces it: the old folder is kept aside until the registry is written and is put back if
// anything fails, so a failed import leaves the previous state untouched. Different versions of
// the same package live side by side. Imports are serialised within one Manager; readers
// (List, Get, Load) never see a half-written registry. Leftover temporary folders from a crash
// are removed by a later import once they are an hour old.
package packages
