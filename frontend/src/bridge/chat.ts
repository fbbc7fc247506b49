import * as Chat from '../../wailsjs/go/desktop/Chat'
import type { app, contextbuilder, conversation, engine, llm, packages } from '../../wailsjs/go/models'
import type { ConversationMeta } from './conversations'
import { call } from './errors'

export type Mode = 'chat' | 'agent' | 'run'
export type AgentInfo = packages.AgentView
export type AgentList = packages.AgentList

/** Approval modes, most restrictive first: read-only (nothing is written,
 * no command runs), ask (every write and command waits for you), auto-edit
 * (writes in the project run, commands wait), full-auto (everything runs). */
export const ApprovalModes = ['read-only', 'ask', 'auto-edit', 'full-auto'] as const
export type ApprovalModeName = (typeof ApprovalModes)[number]
/** A conversation's approval mode and where it comes from (conversation,
 * environment, project, settings, default). */
export type ApprovalMode = app.ApprovalMode
/** An approval request, as the call's result entry keeps it. */
export type ApprovalRequest = conversation.Approval
/** Allow once, allow for this conversation, always allow in this project, deny. */
export type ApprovalDecision = 'allow' | 'allow-conversation' | 'allow-project' | 'deny'

export interface SendRequest {
  conversationId: string
  text: string
  mode: Mode
  agentId?: string
  /** Answer the newest user message again instead of sending text (chat and
   * agent mode): its failed answers leave the context, nothing is repeated. */
  retry?: boolean
  /** Files attached to the message (chat and agent mode): name and bytes in
   * base64. Text files go inside the message, images as image parts. */
  attachments?: AttachmentInput[]
}

/** A file attached in the composer. */
export interface AttachmentInput {
  name: string
  /** The file's bytes, base64. */
  data: string
}

/** Replaces a sent message by new text and answers it, as a new version of
 * the conversation (the old one stays, switchable). */
export interface EditRequest {
  conversationId: string
  messageId: string
  text: string
  mode: Mode
  agentId?: string
}

/** Answers a message again, as a new version (messageId: any message of the
 * answer, or the user message). */
export interface RegenerateRequest {
  conversationId: string
  messageId: string
  mode: Mode
  agentId?: string
}

/** Exactly what the next LLM request would contain, and why (the same data
 * as the `context` command): messages with tokens and reasons, tool names,
 * usage, the builder's kept/dropped/compressed decisions and, when the
 * request is over the threshold, what compression would do. */
export type ContextPreview = engine.Preview
export type PreviewMessage = engine.PreviewMessage
export type PreviewDecision = contextbuilder.Decision

/** An endpoint of the settings with the models a conversation may choose
 * (those the settings name, then those the server lists; error says in
 * words why the server's list could not be read). */
export type EndpointModels = llm.EndpointModels

/** The conversation engine: send, stop, switch mode, preview the context. */
export interface ChatApi {
  /** Starts a reply in the background; results arrive as events. */
  send(req: SendRequest): Promise<void>
  /** Starts the answer to an edited message in the background. */
  edit(req: EditRequest): Promise<void>
  /** Starts a new answer to a message in the background. */
  regenerate(req: RegenerateRequest): Promise<void>
  /** Cancels the reply being generated; false when none was running. */
  stop(conversationId: string): Promise<boolean>
  setMode(conversationId: string, mode: Mode, agentId?: string): Promise<ConversationMeta>
  preview(conversationId: string, mode: Mode, agentId?: string): Promise<ContextPreview>
  agents(): Promise<AgentList>
  /** Conversations with a reply in progress. */
  streaming(): Promise<string[]>
  /** Answers the approval request of a tool call (only the user does). */
  answerApproval(conversationId: string, toolCallId: string, decision: ApprovalDecision, reason?: string): Promise<void>
  approvalMode(conversationId: string): Promise<ApprovalMode>
  setApprovalMode(conversationId: string, mode: ApprovalModeName): Promise<ApprovalMode>
  /** The endpoints with their models (asks each server; a few seconds at most). */
  models(): Promise<EndpointModels[]>
  /** Chooses the endpoint ("default" for the settings' own) and model of a
   * conversation's answers; returns its record. */
  selectModel(conversationId: string, endpoint: string, model: string): Promise<ConversationMeta>
}

export function createWailsChat(): ChatApi {
  return {
    send: (req) =>
      call(() =>
        Chat.Send({ conversationId: req.conversationId, text: req.text, mode: req.mode, agentId: req.agentId ?? '', retry: req.retry ?? false, attachments: req.attachments ?? [] }),
      ),
    edit: (req) => call(() => Chat.Edit({ ...req, agentId: req.agentId ?? '' })),
    regenerate: (req) => call(() => Chat.Regenerate({ ...req, agentId: req.agentId ?? '' })),
    stop: (id) => call(() => Chat.Stop(id)),
    setMode: (id, mode, agentId = '') => call(() => Chat.SetMode(id, mode, agentId)),
    preview: (id, mode, agentId = '') => call(() => Chat.Preview(id, mode, agentId)),
    agents: () => call(() => Chat.Agents()),
    streaming: () => call(async () => (await Chat.Streaming()) ?? []),
    answerApproval: (id, callId, decision, reason = '') => call(() => Chat.AnswerApproval(id, callId, decision, reason)),
    approvalMode: (id) => call(() => Chat.ApprovalMode(id)),
    setApprovalMode: (id, mode) => call(() => Chat.SetApprovalMode(id, mode)),
    models: () => call(async () => (await Chat.Models()) ?? []),
    selectModel: (id, endpoint, model) => call(() => Chat.SelectModel(id, endpoint, model)),
  }
}
