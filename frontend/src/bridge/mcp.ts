import * as MCP from '../../wailsjs/go/desktop/MCP'
import type { attach, events, mcp, projectmcp } from '../../wailsjs/go/models'
import { call } from './errors'

/** Settings → MCP: every configured server with its status and tools. */
export type McpView = projectmcp.View
export type McpServer = projectmcp.ServerView
export type McpTool = projectmcp.ToolView
/** A server's configuration as the page edits it (secrets masked). */
export type McpServerSpec = projectmcp.ServerSpec
export type McpParsed = projectmcp.Parsed
export type McpImport = projectmcp.ImportResult
export type McpOptions = projectmcp.Switches
export type McpProblem = mcp.Problem
/** What the ready servers offer the composer: prompts (slash commands) and
 * resources ("@"). */
export type McpComposerOffer = projectmcp.ComposerOffer
export type McpPrompt = mcp.Prompt
export type McpPromptArgument = mcp.PromptArgument
export type McpResource = mcp.Resource
/** A prompt filled in: the message's text and its attachments. */
export type McpComposedPrompt = projectmcp.ComposedPrompt
/** A form a server asks the user to fill in during a call. */
export type McpElicitation = events.MCPElicitationEvent
export type McpElicitationAction = 'accept' | 'decline' | 'cancel'
export type McpSignOutResult = mcp.SignOutResult
export type McpState = 'disabled' | 'pending-approval' | 'stopped' | 'starting' | 'ready' | 'failed'

/** The MCP servers: the settings' servers (edited with or without a
 * project), the MCP switches, and for the open project the statuses,
 * approvals of its .mcp.json servers, restarts and logs. Every call that
 * changes something resolves with the page as it is afterwards. */
export interface McpApi {
  list(): Promise<McpView>
  /** Adds a server (previous "") or replaces the one named previous; masked
   * values keep what is stored. Problems reject with E_MCP_CONFIG_INVALID. */
  save(previous: string, spec: McpServerSpec): Promise<McpView>
  remove(name: string): Promise<McpView>
  setEnabled(name: string, enabled: boolean): Promise<McpView>
  /** Reads a pasted Claude Desktop / Cursor block without saving it. */
  parseBlock(text: string): Promise<McpParsed>
  /** Saves the servers of a pasted block (same names are replaced). */
  importBlock(text: string): Promise<McpImport>
  setOptions(o: McpOptions): Promise<McpView>
  approve(name: string): Promise<McpView>
  revoke(name: string): Promise<McpView>
  /** Starts a server again; resolves once it is ready or has failed. */
  restart(name: string): Promise<McpView>
  /** The end of a server's stderr log. */
  log(name: string): Promise<string>
  /** The prompts and resources of the open project's ready servers. */
  composer(): Promise<McpComposerOffer>
  /** Fills in a server's prompt with its arguments. */
  prompt(server: string, name: string, args: Record<string, string>): Promise<McpComposedPrompt>
  /** Reads a server's resource as a file to attach to the message. */
  attachResource(server: string, uri: string): Promise<attach.Input>
  /** The forms servers wait for (mcp:elicitation announces new ones). */
  elicitations(): Promise<McpElicitation[]>
  answerElicitation(id: string, action: McpElicitationAction, content: Record<string, unknown>): Promise<void>
  /** The remote servers a sign-in token is kept for. */
  signedIn(): Promise<string[]>
  /** Forgets a remote server's token (revoking it where the server offers that). */
  signOut(name: string): Promise<McpSignOutResult>
}

export function createWailsMcp(): McpApi {
  return {
    list: () => call(() => MCP.List()),
    save: (previous, spec) => call(() => MCP.Save(previous, spec)),
    remove: (name) => call(() => MCP.Remove(name)),
    setEnabled: (name, enabled) => call(() => MCP.SetEnabled(name, enabled)),
    parseBlock: (text) => call(() => MCP.ParseBlock(text)),
    importBlock: (text) => call(() => MCP.ImportBlock(text)),
    setOptions: (o) => call(() => MCP.SetOptions(o)),
    approve: (name) => call(() => MCP.Approve(name)),
    revoke: (name) => call(() => MCP.Revoke(name)),
    restart: (name) => call(() => MCP.Restart(name)),
    log: (name) => call(() => MCP.Log(name)),
    composer: () => call(() => MCP.Composer()),
    prompt: (server, name, args) => call(() => MCP.Prompt(server, name, args)),
    attachResource: (server, uri) => call(() => MCP.AttachResource(server, uri)),
    elicitations: () => call(() => MCP.Elicitations()),
    answerElicitation: (id, action, content) => call(() => MCP.AnswerElicitation(id, action, content)),
    signedIn: () => call(() => MCP.SignedIn()),
    signOut: (name) => call(() => MCP.SignOut(name)),
  }
}
