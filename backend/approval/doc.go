// Package approval decides whether a tool call may run, must wait for the
// user, or is refused.
//
// Every conversation has an approval mode:
//
//   - read-only: reads run; writes, commands and MCP tools are refused;
//   - ask (the default): reads run; every write, command and MCP tool call
//     waits for the user;
//   - auto-edit: reads and writes inside the project run; commands and MCP
//     tool calls wait for the user;
//   - full-auto: everything runs.
//
// Tools are classified by what they do (Classify): reads (fs.read, fs.list,
// fs.search), writes (fs.write, fs.apply_patch, deletes, renames), commands
// (shell.run), MCP tools (whose effects are unknown: they ask like commands)
// and tools that are not gated at all (conv.*, skill.*, ui.*). A run's own
// state files under @state never ask.
//
// Rules refine the mode: allow, ask or deny, by tool ("fs.write"), by path
// glob ("fs.write(@project/docs/**)") and by command prefix
// ("shell.run(go test)", "shell.run(npm run *)"). A deny rule wins over an
// ask rule, which wins over an allow rule; allow rules lift the mode's ask
// (never read-only's refusal). Rules come from the user's settings, from the
// user's grants for a project ("always allow in this project") and for a
// conversation, and from the project's own .crewagent/permissions.json —
// which only narrows (its allow rules are ignored) until the user approves
// the file as it is.
//
// A call that must wait is answered only by a user action (Broker.Answer,
// called by the window and the terminal), never by the model.
package approval
