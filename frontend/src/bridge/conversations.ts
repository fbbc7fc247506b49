import * as Conversations from '../../wailsjs/go/desktop/Conversations'
import type { app, checkpoint, conversation, convlog, convpage, events, packages, tools } from '../../wailsjs/go/models'
import { call } from './errors'

export type ConversationMeta = conversation.ConversationMeta
export type Checkpoint = conversation.Checkpoint
export type ToolCall = conversation.ToolCall
export type SearchHit = convlog.SearchHit
export type ToolResultView = tools.ToolResultView
export type ErrorBlock = conversation.ErrorBlock
/** A failure in words: what went wrong, what to do, whether the fix is in Settings. */
export type Problem = conversation.Problem
/** The switcher of a branch point: version index (from 1) of count. */
export type BranchView = conversation.BranchView
/** A conversation rendered for outside the app. */
export type ConversationExport = app.Export
export type ExportFormat = 'md' | 'json'
/** The result of a conv.create or conv.send call: the conversation the turn
 * went to (status waiting, completed, failed, stopped or interrupted) and its answer. */
export type HandoverView = conversation.HandoverView
/** The conversation another one waits for. */
export type WaitingView = events.WaitingView

/** What an entry is for the conversation screen, decoded by the backend
 * (backend/conversation): the screen never parses the log's encodings. */
export type EntryKind = 'user' | 'run-input' | 'answer' | 'assistant' | 'thinking' | 'tool-result' | 'question' | 'error' | 'stopped' | 'event' | 'skill' | 'hidden'

/** A question's state: waiting for its answer, answered, or left behind. */
export type QuestionState = 'pending' | 'answered' | 'unanswered'

export interface EntryView extends Omit<conversation.View, 'kind' | 'question'> {
  kind: EntryKind | (string & {})
  /** A question: its widget (an object), its state and, once answered, the answer record. */
  question?: { widgetId: string; state: QuestionState | (string & {}); widget?: unknown; answer?: unknown }
}

/** One effective log entry (contracts.md): a message ("msg") or an event
 * ("evt"), with its view. Event data is any JSON value. */
export interface Entry extends Omit<conversation.EntryView, 'data' | 'widget' | 'view'> {
  data?: unknown
  widget?: unknown
  view?: EntryView
}

export interface ConversationPage {
  conversation: ConversationMeta
  entries: Entry[]
  /** Older entries exist before entries[0]. */
  hasMore: boolean
  /** A reply is being generated right now. */
  streaming: boolean
  /** The conversation ends waiting for a reply that will not come (only
   * when no reply runs). */
  unfinished?: boolean
  /** It ends with a message of the user that no reply was started for (a
   * fork cut there). */
  awaiting?: boolean
  /** The user stopped the work while another conversation was answering for
   * this one (conv.create, conv.send): its reply can be continued. */
  stopped?: boolean
  /** The unfinished reply left something to continue from. */
  canContinue?: boolean
  /** The agents whose replies are among the entries, by id. */
  agents?: Record<string, packages.AgentView>
  /** A tool call of the conversation waits for another conversation's answer. */
  waitingFor?: WaitingView
}

/** What a rewind or an undo restored (or, planned, would restore): the files
 * written back, those kept because they changed since the tools wrote them,
 * those whose earlier content was too big to keep; rewindId undoes it. */
export type RestoreResult = checkpoint.Result
/** What a rewind did: its files, the fork ending before the message. */
export type RewindResult = checkpoint.RewindResult
/** What a rewind goes back on: the files, the conversation, or both. */
export type RewindWhat = 'files' | 'conversation' | 'both'

/** The open project's conversations: the list, search, and the log itself. */
export interface ConversationsApi {
  list(): Promise<ConversationMeta[]>
  get(id: string): Promise<ConversationMeta>
  create(title?: string): Promise<ConversationMeta>
  rename(id: string, title: string): Promise<ConversationMeta>
  /** Full cleanup: tool-result files, the conversation folder, the index record. */
  remove(id: string): Promise<void>
  search(query: string): Promise<SearchHit[]>
  /** Fork at a message, at a named checkpoint, or (both empty) the whole log. */
  fork(id: string, at: { messageId?: string; checkpoint?: string }): Promise<ConversationMeta>
  checkpoint(id: string, name: string): Promise<Checkpoint>
  /** Goes back to before a user message: restores the project's files (those
   * changed since are kept unless in forcePaths) and/or forks the
   * conversation there. dryRun only says what would be restored and kept. */
  rewind(id: string, toMessageId: string, o: { what: RewindWhat; forcePaths?: string[]; dryRun?: boolean }): Promise<RewindResult>
  /** Puts back the files one tool call changed (same rules as rewind). */
  undoChange(id: string, toolCallId: string, o: { forcePaths?: string[]; dryRun?: boolean }): Promise<RestoreResult>
  /** The newest `limit` entries. */
  load(id: string, limit?: number): Promise<ConversationPage>
  /** Up to `limit` entries before the entry `beforeId`. */
  loadOlder(id: string, beforeId: string, limit?: number): Promise<ConversationPage>
  /** The full output of a tool result that the log keeps as a preview. */
  readToolResult(conversationId: string, messageId: string): Promise<ToolResultView>
  /** Shows version index (from 0) of the branch point that follows the entry
   * `after` ("" for the start of the conversation). */
  switchBranch(id: string, after: string, index: number): Promise<void>
  /** The conversation as Markdown or JSON. */
  exportText(id: string, format: ExportFormat): Promise<ConversationExport>
  /** Asks where to save an export (the native dialog) and writes it; the
   * file, or "" when the user cancelled. */
  exportToFile(id: string, format: ExportFormat): Promise<string>
}

const page = (p: convpage.Page): ConversationPage => ({ ...p, entries: (p.entries ?? []) as Entry[] })

export function createWailsConversations(): ConversationsApi {
  return {
    list: () => call(async () => (await Conversations.List()) ?? []),
    get: (id) => call(() => Conversations.Get(id)),
    create: (title = '') => call(() => Conversations.Create(title)),
    rename: (id, title) => call(() => Conversations.Rename(id, title)),
    remove: (id) => call(() => Conversations.Delete(id)),
    search: (query) => call(async () => (await Conversations.Search(query)) ?? []),
    fork: (id, at) => call(() => Conversations.Fork(id, at.messageId ?? '', at.checkpoint ?? '')),
    checkpoint: (id, name) => call(() => Conversations.Checkpoint(id, name)),
    rewind: (id, to, o) => call(() => Conversations.Rewind(id, to, o.what, o.forcePaths ?? [], !!o.dryRun)),
    undoChange: (id, callId, o) => call(() => Conversations.UndoChange(id, callId, o.forcePaths ?? [], !!o.dryRun)),
    load: (id, limit = 0) => call(async () => page(await Conversations.Load(id, limit))),
    loadOlder: (id, beforeId, limit = 0) => call(async () => page(await Conversations.LoadOlder(id, beforeId, limit))),
    readToolResult: (conversationId, messageId) => call(() => Conversations.ReadToolResult(conversationId, messageId)),
    switchBranch: (id, after, index) => call(() => Conversations.SwitchBranch(id, after, index)),
    exportText: (id, format) => call(() => Conversations.Export(id, format)),
    exportToFile: (id, format) => call(() => Conversations.ExportToFile(id, format)),
  }
}
