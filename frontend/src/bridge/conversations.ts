import * as App from '../../wailsjs/go/main/App'
import type { convlog, main } from '../../wailsjs/go/models'
import { call } from './errors'

export type ConversationMeta = convlog.ConversationMeta
export type Checkpoint = convlog.Checkpoint
export type ToolCall = convlog.ToolCall
export type SearchHit = main.SearchHit
export type ToolResultView = main.ToolResultView

/** One effective log entry (contracts.md): a message ("msg") or an event
 * ("evt"). Event data is any JSON value. */
export interface Entry extends Omit<convlog.Entry, 'data' | 'widget'> {
  data?: unknown
  widget?: unknown
}

export interface ConversationPage {
  conversation: ConversationMeta
  entries: Entry[]
  /** Older entries exist before entries[0]. */
  hasMore: boolean
  /** A reply is being generated right now. */
  streaming: boolean
}

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
  /** The newest `limit` entries. */
  load(id: string, limit?: number): Promise<ConversationPage>
  /** Up to `limit` entries before the entry `beforeId`. */
  loadOlder(id: string, beforeId: string, limit?: number): Promise<ConversationPage>
  /** The full output of a tool result that the log keeps as a preview. */
  readToolResult(conversationId: string, messageId: string): Promise<ToolResultView>
}

const page = (p: main.ConversationPage): ConversationPage => ({ ...p, entries: (p.entries ?? []) as Entry[] })

export function createWailsConversations(): ConversationsApi {
  return {
    list: () => call(async () => (await App.ListConversations()) ?? []),
    get: (id) => call(() => App.GetConversation(id)),
    create: (title = '') => call(() => App.CreateConversation(title)),
    rename: (id, title) => call(() => App.RenameConversation(id, title)),
    remove: (id) => call(() => App.DeleteConversation(id)),
    search: (query) => call(async () => (await App.SearchConversations(query)) ?? []),
    fork: (id, at) => call(() => App.ForkConversation(id, at.messageId ?? '', at.checkpoint ?? '')),
    checkpoint: (id, name) => call(() => App.CreateCheckpoint(id, name)),
    load: (id, limit = 0) => call(async () => page(await App.LoadConversation(id, limit))),
    loadOlder: (id, beforeId, limit = 0) => call(async () => page(await App.LoadOlderEntries(id, beforeId, limit))),
    readToolResult: (conversationId, messageId) => call(() => App.ReadToolResult(conversationId, messageId)),
  }
}
