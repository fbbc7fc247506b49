// Package mcp runs Model Context Protocol servers for one open project and turns their
// tools into tools the runtime can offer to the model: configuration, approval of project
// servers, the server processes and connections, tool calls and their results.
//
// # Configuration
//
// Servers are configured in the shape Claude Desktop, Claude Code and Cursor use, an
// mcpServers table of name → {command, args, env, envFile, cwd} (a local server, spoken to
// over stdio) or {url, headers} (a streamable HTTP server, or with type "sse" one of the
// legacy SSE transport; a URL ending in /sse with no type tries SSE, then streamable HTTP),
// each with an optional disabled flag and type; VS Code's {"servers": {...}, "inputs": [...]} is read as the same table
// (ParseFile, ParseBlock):
//
//   - settings.json's mcpServers (SourceSettings) is written by the user and trusted.
//     settings.Store.MCPServers returns the raw table; SettingsServers parses it;
//     SaveServer and RemoveServer edit it (masked secrets are kept, see MergeSecrets).
//   - a project's ProjectFiles, <root>/.mcp.json, .cursor/mcp.json and .vscode/mcp.json
//     (SourceProject, ServerConfig.File names the file), came with the folder: their
//     servers never start until approved for that project.
//
// ParseServers, ParseFile and ParseBlock (text a user pasted: a whole config file, the
// table, or bare "name": {...} members) check each entry on its own and report Problems
// per server; a bad entry never hides the others. LoadConfig combines the sources (a
// settings server wins over a project server of the same name, then the earlier file).
//
// Values keep their variables (${env:NAME}, ${NAME}, ${NAME:-default}, ${workspaceFolder}
// and a few more; see Vars) as written; ServerConfig.Resolve expands them, and adds the
// variables of envFile, each time a server starts. A variable that is not set fails the
// start with a message naming it and the field; nothing is sent with the reference in it.
//
// Server names are 1–32 characters. Tools reach the model as mcp__<server>__<tool>, each
// part with every character outside [A-Za-z0-9_-] replaced by "_" (ServerWireName,
// WireName); a server name whose wire form contains "__" or ends in "_" is refused, and two
// servers with the same wire form collide (the second is refused). Tool names that would
// collide or exceed 64 characters get a short hash suffix (see Tool.WireName).
//
// # Secrets
//
// Env values, header values and a URL's password and query are treated like API keys.
// They stay in the configuration files and in the server process. Statuses, errors and
// stderr tails built here have them replaced by "••••"; Status.Config is the configuration
// with them masked (ServerConfig.Redacted). A local server inherits only a few variables
// of the app's environment (PATH, HOME, locale, temporary folders, proxies…), never the
// app's own secrets, plus its configured env. Only the server's log file may hold what the
// server itself printed.
//
// # Signing in
//
// A url server that answers 401 is signed in to with OAuth (package oauth: discovery,
// registration or the entry's "oauth" client, PKCE, the resource parameter, refresh
// tokens; client_credentials for a machine client), with the consent of
// Options.OAuthConsent (the system browser and a loopback redirect by default); the
// handshake's timeout is paused while the user decides (Options.SignInTimeout bounds it).
// The streamable HTTP transport does it through the SDK's OAuthHandler, the SSE one through
// authTransport. Tokens live in <home>/mcp-tokens.json (mode 0600) for the server's name and
// URL; SignOut revokes (RFC 7009) and forgets one. The entry's clientSecret and privateKey are secrets like header
// values.
//
// # Approvals
//
// Approvals (NewApprovals) live in <home>/projects/<projectId>/mcp-approvals.json, keyed by
// server name and ServerConfig.Hash (what runs: transport, command, args, env, envFile,
// cwd, url, headers as written, and the content of the envFile), so an edited entry or
// envFile is pending again (Status.ApprovalChanged). An
// unapproved project server has state pending-approval: it is not started, its tools are
// not listed and calls to it fail with E_MCP_NOT_APPROVED. Approve, Revoke and Pending
// manage them; Manager.Approve and Manager.Revoke do the same for a running manager.
//
// # Manager
//
// NewManager opens the servers of a project. A server starts when first needed
// (Manager.Tools or Manager.Call), or at once with Options.StartOnOpen. Starting means: the
// process (or HTTP session), the handshake and the tool list, all within
// Options.HandshakeTimeout. States: disabled, pending-approval, stopped, starting, ready
// (with its tools), failed (with the error and the tail of stderr). The tool list is
// refreshed when the server announces a change (notifications/tools/list_changed).
//
// Manager.Call runs one call with a timeout (Options.CallTimeout or CallOptions.Timeout)
// that each progress notification starts again (up to Options.MaxCallTime; they reach
// CallOptions.Progress) and that stops while the user answers the server (elicitation,
// through Options.Elicit: without it the capability is not announced), and the caller's context: on timeout or cancellation the server is told
// (notifications/cancelled) and the connection stays usable; a server that then does not
// answer a ping is killed and marked failed. A server that crashes is reported as failed
// and started again on its next use after a backoff (Options.RestartBackoff, doubling up to
// Options.MaxRestartBackoff); after Options.MaxRestarts failures in a row it stays failed
// until Manager.Restart. A failed server that will be restarted keeps offering its last
// tools, so that a call can bring it back.
//
// Local servers: each runs as the leader of its own process group; stopping a server (on
// Close, Stop, Reload or after a failure) closes its stdin, sends SIGTERM to the group after
// Options.StopGrace, SIGKILL a second later, and waits for the exit; when the leader exits
// whatever is left of its group is killed. On Linux the leader is a small supervisor — the
// app's own executable started again with an environment switch handled by this package's
// init — that runs the server and kills the group when the app dies, even by SIGKILL (the
// kernel's parent-death signal, and polling). What a server writes to stderr, and stdout
// lines that are not protocol messages, go to <home>/projects/<projectId>/logs/mcp/<server>.log,
// capped at Options.MaxLogBytes and rotated once to <server>.log.1 (Manager.LogTail reads
// it). A protocol message larger than Options.MaxMessageBytes ends the connection; nothing
// a server writes is buffered without bound.
//
// # Results and policy
//
// Every outcome of Manager.Call is a Result in the runtime's tool-result form (Content is
// {"ok":true,"text":…} or {"ok":false,"error":{"code","message","details"}}), never a Go
// error: text parts become the text (cut to Options.MaxResultBytes), isError becomes
// E_MCP_TOOL_ERROR with the server's text as the message, images, audio and embedded
// resources become Attachments (bytes and MIME type) saved through CallOptions.Save and
// referred to by the Ref it returns, structured content is kept as JSON.
//
// Which servers a conversation may use: Narrow(Manager.Runnable(), settings list, agent's
// tools.mcp.allowedServers, child's mcp_allowlist) — a nil list does not narrow, every
// other list can only take servers away. Tools and CallOptions.Servers take the result;
// FilterTools and ToolAllowed apply it to tool lists and names.
//
// Manager.Resources, ReadResource, Prompts and GetPrompt reach a server's resources and
// prompts. Logging notifications go to the server's log (the level is set to info for
// servers that offer logging).
//
// Manager.Provider turns the tools of the allowed servers into a tools.Provider for a tool
// host: listed under their wire names with their schemas (starting the servers not
// running yet), every call through Call and converted by ToolResult, and, when an allowed
// server offers resources, ReadResourceTool (mcp__read_resource) to read one. Manager.StartAll
// starts the runnable servers in the background (a window that opens a project with
// tools.mcp.startOnOpen). backend/app keeps one Manager per open project.
package mcp
