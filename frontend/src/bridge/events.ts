import type { conversation, events } from '../../wailsjs/go/models'
import type { Entry } from './conversations'
import { EventsOn } from '../../wailsjs/runtime/runtime'
import { EventNames } from './events.gen'

/** Event names pushed by the Go side, generated from backend/events/events.go
 * (go generate ./backend/events; a Go test fails when the file is stale). */
export { EventNames }

export type EventName = (typeof EventNames)[keyof typeof EventNames]

export type ContextStatus = 'normal' | 'warning' | 'critical' | 'compressing'

// The payloads are generated from backend/events/payloads.go (the bound
// System.EventTypes returns them); here they only get narrower names.

export type ContextUsage = Omit<events.UsageEvent, 'status'> & { status: ContextStatus }

/** The usage a server reported for one LLM call (llm:stream-end), cached
 * prompt tokens included. */
export type CallUsage = conversation.Usage
/** What the servers reported for a conversation's LLM calls so far
 * (ContextUsage.reported). */
export type ReportedUsage = conversation.UsageTotals
/** What a conversation's reported usage cost at the prices of the settings
 * (ContextUsage.cost; absent when none of its models has a price). */
export type UsageCost = conversation.Cost

/** The failure carried by stream-end and tool-end events. */
export type EventError = events.Error

/** Every llm:stream-* event names its conversation and the assistant message
 * the LLM call is persisted under. */
export interface StreamEvent {
  conversationId: string
  messageId: string
}

export type StreamStart = events.StreamStartEvent
/** Answer text; several deltas coalesced. */
export type StreamChunk = events.StreamChunkEvent
export type StreamEnd = events.StreamEndEvent
/** The model announced a tool call (its arguments are still streaming). */
export type ToolStart = events.ToolStartEvent
/** The tool has run (resultMessageId is its persisted tool message), or the
 * call was abandoned (interrupted). */
export type ToolEnd = events.ToolEndEvent

/** conversation:changed: the app's own changes and changes made on disk by
 * others (external); streaming says a reply started (true) or ended (false),
 * error why it ended without an answer the conversation shows. */
export type ConversationChange = Omit<events.ChangeEvent, 'kind'> & { kind: 'created' | 'updated' | 'deleted' | (string & {}) }

/** conversation:entries: what the store appended or updated (each entry
 * with its view, and the entries whose view changed with them; a known id
 * is replaced, a new one appended), with how the conversation ends now;
 * reload asks for the page again (a new version, older entries changed). */
export type EntriesEvent = Omit<events.EntriesEvent, 'entries'> & { entries: Entry[] }

/** runs:progressUpdated: a run's phase or state changed. */
export type RunProgress = events.ProgressEvent

/** task:started, task:complete, task:aborted: a reply, a run turn, the
 * answer of a conversation a turn was handed to (tool: conv.create or
 * conv.send, parentId: the conversation that waits), or a continuation. */
export type TaskEvent = events.TaskEvent
/** mcp:status: an MCP server changed state, or (server "") the list of
 * servers changed. */
export type McpStatusEvent = events.MCPStatusEvent
/** approval:requested, approval:resolved: a tool call waits for the user's
 * approval (its result entry holds the request), or was answered. */
export type ApprovalEvent = events.ApprovalEvent
/** tool:output: the next piece of a running tool call's output (shell.run:
 * stdout and stderr interleaved, ANSI codes included); skipped bytes came
 * too fast to be sent; done marks the call's last piece. */
export type ToolOutputEvent = events.ToolOutputEvent

export interface EventMap extends Omit<events.Payloads, 'context:usage' | 'conversation:changed' | 'conversation:entries'> {
  'context:usage': ContextUsage
  'conversation:changed': ConversationChange
  'conversation:entries': EntriesEvent
}

export type Unsubscribe = () => void

export interface EventsApi {
  /** Calls handler for every event of that name until the returned function is called. */
  on<K extends EventName>(name: K, handler: (payload: EventMap[K]) => void): Unsubscribe
}

/** Subscribes to several events at once; the returned function removes them all. */
export function subscribeAll(events: EventsApi, subs: { [K in EventName]?: (payload: EventMap[K]) => void }): Unsubscribe {
  const offs: Unsubscribe[] = []
  for (const name of Object.keys(subs) as EventName[]) {
    const handler = subs[name] as ((payload: unknown) => void) | undefined
    if (handler) offs.push(events.on(name, handler as (payload: EventMap[typeof name]) => void))
  }
  return () => offs.splice(0).forEach((off) => off())
}

export function createWailsEvents(): EventsApi {
  return {
    on(name, handler) {
      return EventsOn(name, (payload: unknown) => handler(payload as EventMap[typeof name]))
    },
  }
}
