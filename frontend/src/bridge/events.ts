import { EventsOn } from '../../wailsjs/runtime/runtime'

/** Event names pushed by the Go side; mirrors backend/events/events.go
 * (events.test.ts checks that the two lists stay equal). */
export const EventNames = {
  ContextUsage: 'context:usage',
  StreamStart: 'llm:stream-start',
  StreamChunk: 'llm:stream-chunk',
  StreamEnd: 'llm:stream-end',
  StreamToolStart: 'llm:stream-tool-start',
  StreamToolEnd: 'llm:stream-tool-end',
  ConversationChanged: 'conversation:changed',
  RunsProgressUpdated: 'runs:progressUpdated',
} as const

export type EventName = (typeof EventNames)[keyof typeof EventNames]

export type ContextStatus = 'normal' | 'warning' | 'critical' | 'compressing'

export interface ContextUsage {
  conversationId: string
  usedTokens: number
  totalBudget: number
  usagePercent: number
  remaining: number
  status: ContextStatus
}

/** The failure carried by stream-end and tool-end events. */
export interface EventError {
  code: string
  message: string
}

/** Every llm:stream-* event names its conversation and the assistant message
 * the LLM call is persisted under. */
export interface StreamEvent {
  conversationId: string
  messageId: string
}

export interface StreamStart extends StreamEvent {
  mode: string
  agentId?: string
  /** 0-based LLM call of the send. */
  turn: number
}

/** Answer text; several deltas coalesced. */
export interface StreamChunk extends StreamEvent {
  delta: string
}

export interface StreamEnd extends StreamEvent {
  finishReason?: string
  usage?: { promptTokens?: number; completionTokens?: number; totalTokens?: number; [k: string]: unknown }
  toolCalls: number
  error?: EventError
  /** The call is sent again (after a forced compression) under a new message id. */
  retrying?: boolean
}

/** The model announced a tool call (its arguments are still streaming). */
export interface ToolStart extends StreamEvent {
  toolCallId: string
  toolName: string
  index: number
}

/** The tool has run (resultMessageId is its persisted tool message), or the
 * call was abandoned (interrupted). */
export interface ToolEnd extends StreamEvent {
  toolCallId: string
  toolName: string
  ok: boolean
  durationMs: number
  resultMessageId?: string
  pending?: boolean
  interrupted?: boolean
  error?: EventError
}

/** conversation:changed: the app's own changes and changes made on disk by
 * others (external). */
export interface ConversationChange {
  conversationId: string
  kind: 'created' | 'updated' | 'deleted' | (string & {})
  external?: boolean
  /** Sent by the app when a reply starts (true) and when it has ended (false). */
  streaming?: boolean
  /** With streaming=false: why the reply or run turn ended without an answer
   * the conversation shows (failures shown in the conversation are not repeated). */
  error?: EventError
}

/** runs:progressUpdated: a run's phase or state changed (backend/workflow Progress). */
export interface RunProgress {
  runId: string
  conversationId: string
  packageId: string
  workflowId: string
  activeAgentId: string
  phase: string
  currentNodeId: string
  effectiveAgentId?: string
  stepsCompleted: string[]
  artifacts: string[]
  complete: boolean
  nodes?: { id: string; title?: string; type: string; status: string }[]
  lastError?: EventError
  updatedAt: string
}

export interface EventMap {
  'context:usage': ContextUsage
  'llm:stream-start': StreamStart
  'llm:stream-chunk': StreamChunk
  'llm:stream-end': StreamEnd
  'llm:stream-tool-start': ToolStart
  'llm:stream-tool-end': ToolEnd
  'conversation:changed': ConversationChange
  'runs:progressUpdated': RunProgress
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
