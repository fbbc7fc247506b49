import type { Bridge, BridgeError, CompactResult, InstructionsFile } from '../bridge'
import { toBridgeError } from '../bridge'
import type { ChatStore } from './chatStore'
import { createStore, type Store } from './store'

/** The last compaction asked for in the window, and how it ended. */
export interface CompactionOutcome {
  conversationId: string
  focus: string
  result: CompactResult
}

export interface ContextState {
  /** The conversation being compacted now (null: none). */
  compacting: string | null
  /** The last compaction done from the window. */
  last: CompactionOutcome | null
  /** The message whose pin is being changed. */
  pinning: string | null
  error: BridgeError | null
  /** The project's instruction file (null until loaded). */
  instructions: InstructionsFile | null
  /** A save of it is in progress. */
  savingInstructions: boolean
  /** Why the last load or save of it failed. */
  instructionsError: BridgeError | null
}

export interface ContextActions {
  /** Compacts the open conversation now, steered by focus; the outcome, or
   * null when it was refused (the error is set). */
  compact(focus: string): Promise<CompactionOutcome | null>
  /** Pins (or unpins) a message of the open conversation. */
  setPinned(messageId: string, pinned: boolean): Promise<boolean>
  dismissLast(): void
  dismissError(): void
  /** Reads the project's instruction file (AGENTS.md). */
  loadInstructions(): Promise<InstructionsFile | null>
  /** Writes it; true when saved (the next request carries it). */
  saveInstructions(text: string): Promise<boolean>
}

export type ContextStore = Store<ContextState> & { actions: ContextActions }

/** Compaction and pins of the open conversation's context (the composer's
 * /compact, the pin control of messages). The log's new entries reach the
 * conversation as the store publishes them; the meter gets its number from
 * the usage the app sends after the compaction. */
export function createContextStore(bridge: Pick<Bridge, 'context'>, chat: ChatStore): ContextStore {
  const store = createStore<ContextState>({ compacting: null, last: null, pinning: null, error: null, instructions: null, savingInstructions: false, instructionsError: null })
  const actions: ContextActions = {
    async compact(focus) {
      const id = chat.getState().conversationId
      if (!id || store.getState().compacting || chat.getState().streaming) return null
      store.setState({ compacting: id, error: null, last: null })
      try {
        const result = await bridge.context.compact(id, focus.trim())
        const outcome = { conversationId: id, focus: focus.trim(), result }
        store.setState({ compacting: null, last: outcome })
        return outcome
      } catch (e) {
        store.setState({ compacting: null, error: toBridgeError(e) })
        return null
      }
    },

    async setPinned(messageId, pinned) {
      const id = chat.getState().conversationId
      if (!id || store.getState().pinning) return false
      store.setState({ pinning: messageId, error: null })
      try {
        await (pinned ? bridge.context.pin(id, messageId) : bridge.context.unpin(id, messageId))
        store.setState({ pinning: null })
        return true
      } catch (e) {
        store.setState({ pinning: null, error: toBridgeError(e) })
        return false
      }
    },

    dismissLast() {
      store.setState({ last: null })
    },

    dismissError() {
      store.setState({ error: null })
    },

    async loadInstructions() {
      try {
        const instructions = await bridge.context.instructions()
        store.setState({ instructions, instructionsError: null })
        return instructions
      } catch (e) {
        store.setState({ instructionsError: toBridgeError(e) })
        return null
      }
    },

    async saveInstructions(text) {
      if (store.getState().savingInstructions) return false
      store.setState({ savingInstructions: true, instructionsError: null })
      try {
        const instructions = await bridge.context.saveInstructions(text)
        store.setState({ instructions, savingInstructions: false })
        if (chat.getState().conversationId) void chat.actions.loadPreview()
        return true
      } catch (e) {
        store.setState({ savingInstructions: false, instructionsError: toBridgeError(e) })
        return false
      }
    },
  }
  return Object.assign(store, { actions })
}
