// Package app is the one application layer of crewagent: the window
// (backend/desktop) and the command line (backend/cli) are two thin adapters
// over it.
//
// New(home, options) is the runtime of a home (settings, installed packages,
// the token counter, the bundled demo package); Runtime.Open is the one
// composition root of a project: it opens the conversation store, the
// engine, the coordinator of the conversation tools (backend/coordinator),
// the workflow runs, the task scheduler, the project's MCP servers
// (backend/mcp/projectmcp), skills (backend/skills/projectskills) and
// approvals (backend/approval/projectapproval) and, for the window, the file
// watchers, always wired the same way. The use cases (send, retry, stop,
// start or continue a run, answer a question, preview the context,
// conversations, packages, settings) are short methods of Runtime, Workspace
// and Session (the window's current project) over the packages below.
//
// Every event leaves through the Emitter given to New: the store announces
// its changes, the scheduler the start and end of each reply or run turn,
// the engine the stream, the runs their progress.
package app
