import * as Context from '../../wailsjs/go/desktop/Context'
import type { conversation, engine, memory } from '../../wailsjs/go/models'
import { call } from './errors'

/** What a compaction did: how many messages went into the summary, the
 * usage before and after, the summary written. */
export type CompactResult = engine.CompactResult
/** A compaction as the conversation shows it (entry.view.compaction). */
export type CompactionView = conversation.CompactionView
export type PinnedView = conversation.PinnedView
/** A step of a workflow run as one row (entry.view.step). */
export type StepView = conversation.StepView
/** The project's instruction file (AGENTS.md), which every request carries. */
export type InstructionsFile = memory.File

/** Compaction and pins of a conversation's context. */
export interface ContextApi {
  /** Compacts now: what comes before the newest user message becomes the
   * summary, which the focus steers. Resolves when it is done. */
  compact(conversationId: string, focus: string): Promise<CompactResult>
  /** Pins a message: every compaction keeps it word for word. */
  pin(conversationId: string, messageId: string): Promise<void>
  unpin(conversationId: string, messageId: string): Promise<void>
  /** The project's instruction file (AGENTS.md, or CLAUDE.md when the
   * project has only that; exists is false when it has none). */
  instructions(): Promise<InstructionsFile>
  /** Writes the project's instruction file; the next request carries it. */
  saveInstructions(text: string): Promise<InstructionsFile>
}

export function createWailsContext(): ContextApi {
  return {
    compact: (id, focus) => call(() => Context.Compact(id, focus)),
    pin: (id, messageId) => call(() => Context.Pin(id, messageId)),
    unpin: (id, messageId) => call(() => Context.Unpin(id, messageId)),
    instructions: () => call(() => Context.Instructions()),
    saveInstructions: (text) => call(() => Context.SaveInstructions(text)),
  }
}
