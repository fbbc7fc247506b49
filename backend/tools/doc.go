// Package tools owns the tool host: the @project/@pkg/@state path sandbox, the fs.* and
// ui.ask_user tools, the effective tool policy, and the per-run execution log of tool calls.
//
// # Paths
//
// Every path a tool receives starts with an alias: @project (the project folder, read/write),
// @pkg (the installed package of the active package, read-only) or @state (the run's state
// folder, read/write). @state/logs/tool-results/... resolves to the current conversation's
// folder of saved large tool outputs (@state/logs/tool-results/<conversationId>/...; other
// conversations' outputs are not found), in every mode; other @state paths resolve under the
// run's state dir. The sandbox (sandbox.go) rejects everything else with
// E_SANDBOX_VIOLATION, and no host path ever appears in a result or an error message.
//
// The runtime's own data is never reachable, whatever the project folder is (Roots.Deny: the
// runtime home, its settings, packages and every project's data — a project opened at ~
// contains the home): such paths are refused with details.reason "runtime_data" and left out
// of listings and searches. The project's .crewagent.json is read-only (Roots.ReadOnly,
// reason "protected").
//
// Every file operation opens its root with os.OpenRoot and works beneath it (fsroot.go): a
// folder swapped for a symbolic link between the check and the operation cannot lead it out
// of the root, and atomic writes create their temporary file in the target's folder through
// the same handle.
//
// Writes are refused with E_SANDBOX_VIOLATION (details.reason "read_only") under @pkg and under
// @state/logs/ (the execution log and the saved tool outputs are records, not workspace).
//
// # Results
//
// A call never returns a Go error for a tool failure: Call returns a Result whose Content is
// the JSON text for the tool message, {"ok":true,...} or {"ok":false,"error":{code,message,
// details?}}.
//
// # ui.ask_user
//
// ui.ask_user does not block. It validates the widget, registers it as pending on the host
// (PendingWidgets), hands it to the optional AskUser handler (which may persist it or push it to
// the UI) and returns {"ok":true,"pending":true,"widgetId":...} with Result.Pending set. The
// engine then ends the turn and puts the run in waiting-user; the user's answer arrives as the
// next user input, and the engine calls ResolveWidget to clear it (Widget.ValidateAnswer checks
// a structured answer from the UI).
package tools
