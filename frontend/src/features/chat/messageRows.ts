/** Turns log entries into the rows the message list shows (the same rules in
 * chat, agent and run modes):
 *  - user and assistant text are bubbles;
 *  - an assistant message that carries tool_calls is never a bubble: each call
 *    is a tool card (its text, if any, is a bubble before the cards);
 *  - role=tool messages are never bubbles: they fill the card of their call
 *    (a result whose call is not loaded gets a card of its own);
 *  - partType "error" is an error row (partial text + the LLM_ERROR block);
 *  - an answer the server cut short (finishReason "length" or
 *    "content_filter") is a bubble that says it is incomplete, with Continue
 *    and Retry while it is the latest answer;
 *  - system, developer and meta messages are not shown;
 *  - events (compaction, checkpoint, mode switch, fork origin, run start) are
 *    thin dividers;
 *  - a ui.ask_user call whose result carries a widget is the widget itself
 *    (pending, answered with its answer, or left unanswered), and the user
 *    message that carries the answer is not repeated as a bubble;
 *  - a run's user messages show the user's text without the USER_INPUT header;
 *  - a log read while no reply runs that ends in a user message, a tool call or
 *    its result, reasoning or an answered widget ends in an "unfinished" row:
 *    its reply never completed (the app closed or was killed mid-reply, or
 *    the log could not be written), and nothing says so otherwise.
 * The reply in progress (live calls) follows the log rows. */
import type { Entry, ToolCall, Widget, WidgetAnswerRecord } from '../../bridge'
import type { LiveCall, LiveTool } from '../../stores'
import { count as countOf } from '../../lib/count'

export type ToolStatus = 'running' | 'ok' | 'error' | 'interrupted' | 'pending' | 'no-result'

export interface ErrorBlock {
  code: string
  message: string
  retryable: boolean
  fields: Record<string, string>
}

/** A widget is pending (the run waits for its answer), answered, or was
 * left behind when the conversation went on without answering it. */
export type WidgetState = 'pending' | 'answered' | 'unanswered'

export type Row =
  | { kind: 'user'; key: string; entry: Entry; text: string; forNode?: string }
  | { kind: 'assistant'; key: string; entry: Entry; text: string; incomplete?: 'length' | 'content_filter'; latest?: boolean }
  | { kind: 'thinking'; key: string; entry: Entry }
  | { kind: 'tool'; key: string; call: ToolCall; callEntry?: Entry; result?: Entry; status: ToolStatus }
  | { kind: 'error'; key: string; entry: Entry; partial: string; error: ErrorBlock; latest: boolean }
  | { kind: 'event'; key: string; entry: Entry; label: string; detail: string }
  | { kind: 'live'; key: string; call: LiveCall }
  | { kind: 'live-tool'; key: string; call: LiveCall; tool: LiveTool }
  | { kind: 'widget'; key: string; entry: Entry; widget: Widget; runId: string; state: WidgetState; answer?: WidgetAnswerRecord }
  | { kind: 'unfinished'; key: string }

export const errorHeader = 'LLM_ERROR'

/** Splits the content of an error message into the partial answer and the
 * parsed LLM_ERROR block. */
export function parseErrorContent(content: string): { partial: string; error: ErrorBlock } {
  const m = /(^|\n)LLM_ERROR[ \t]*(\n|$)/.exec(content)
  const partial = m ? content.slice(0, m.index).trimEnd() : ''
  const blockText = m ? content.slice(m.index + m[0].length) : content
  const fields: Record<string, string> = {}
  for (const line of blockText.split('\n')) {
    const f = /^\s*-\s*([a-z_]+):\s*(.*)$/i.exec(line)
    if (f) fields[f[1].toLowerCase()] = f[2].trim()
  }
  return {
    partial,
    error: {
      code: fields.code || 'LLM_ERROR',
      message: fields.message || (m ? '' : content.trim()) || 'The model call failed.',
      retryable: fields.retryable === 'true',
      fields,
    },
  }
}

const hiddenRoles = new Set(['system', 'developer'])

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''
}

/** The divider text of an event entry. */
export function describeEvent(e: Entry): { label: string; detail: string } {
  const d = (e.data && typeof e.data === 'object' ? e.data : {}) as Record<string, unknown>
  switch (e.event) {
    case 'compaction': {
      const before = Number(d.tokensBefore ?? d.beforeTokens ?? NaN)
      const after = Number(d.tokensAfter ?? d.afterTokens ?? NaN)
      const ids = d.compactedIds ?? d.messageIds
      const count = Array.isArray(ids) ? ids.length : Number(d.count ?? NaN)
      const parts: string[] = []
      if (Number.isFinite(count)) parts.push(countOf(count, 'message'))
      if (Number.isFinite(before) && Number.isFinite(after)) parts.push(`${before} → ${after} tokens`)
      if (str(d.strategy)) parts.push(str(d.strategy))
      return { label: 'Context compressed', detail: parts.join(' · ') }
    }
    case 'checkpoint':
      return { label: `Checkpoint “${str(d.name)}”`, detail: '' }
    case 'mode_switch': {
      const from = str(d.from)
      const to = str(d.to ?? d.mode)
      const agent = str(d.agentId)
      return { label: to ? `Switched to ${to} mode${agent ? ` (${agent})` : ''}` : 'Mode switched', detail: from ? `from ${from}` : '' }
    }
    case 'fork_origin': {
      const title = str(d.parentTitle)
      const at = str(d.checkpoint) ? `at checkpoint “${str(d.checkpoint)}”` : ''
      return { label: title ? `Forked from “${title}”` : 'Forked conversation', detail: at }
    }
    case 'run_started':
      return { label: 'Workflow run started', detail: str(d.workflowId) }
    default:
      return { label: e.event || 'Event', detail: '' }
  }
}

/** The JSON value of an entry's "widget" field (an object, or its text). */
function widgetValue(e: Entry): Record<string, unknown> | null {
  let v = e.widget
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v)
    } catch {
      return null
    }
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

/** The ui.ask_user widget a tool message carries, if any. */
export function widgetOf(e: Entry): Widget | null {
  if (e.type !== 'msg' || e.role !== 'tool') return null
  const v = widgetValue(e)
  return v && typeof v.widgetId === 'string' && v.widgetId && typeof v.type === 'string' ? (v as unknown as Widget) : null
}

/** The widget answer a user message carries, if any. */
export function answerOf(e: Entry): WidgetAnswerRecord | null {
  if (e.type !== 'msg' || e.role !== 'user') return null
  const v = widgetValue(e)
  return v && typeof v.widgetId === 'string' && v.widgetId && v.answer && typeof v.answer === 'object' ? (v as unknown as WidgetAnswerRecord) : null
}

const userInputHeader = /^USER_INPUT\n- forNodeId: ([^\n]*)\n?/

/** The user's text of a run message (without its USER_INPUT header) and the
 * node it was sent for. */
export function userInput(content: string): { text: string; forNode?: string } {
  const m = userInputHeader.exec(content)
  return m ? { text: content.slice(m[0].length), forNode: m[1] || undefined } : { text: content }
}

/** The ids of the widgets still waiting for an answer: per run, the latest
 * widget when no user or assistant message of that run follows it (the rule
 * of backend/workflow). */
export function pendingWidgetIds(entries: Entry[]): Set<string> {
  const out = new Set<string>()
  const decided = new Set<string>()
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type !== 'msg' || !e.runId || decided.has(e.runId)) continue
    if (e.role === 'tool') {
      const w = widgetOf(e)
      if (w) {
        out.add(w.widgetId)
        decided.add(e.runId)
      }
    } else if (e.role === 'user' || e.role === 'assistant') {
      decided.add(e.runId)
    }
  }
  return out
}

function widgetRow(key: string, e: Entry, w: Widget, answers: Map<string, WidgetAnswerRecord>, pending: Set<string>): Row {
  const answer = answers.get(w.widgetId)
  const state: WidgetState = answer ? 'answered' : pending.has(w.widgetId) ? 'pending' : 'unanswered'
  return { kind: 'widget', key, entry: e, widget: w, runId: e.runId ?? '', state, answer }
}

function toolStatus(result: Entry | undefined, streaming: boolean): ToolStatus {
  if (result) return result.is_error ? 'error' : 'ok'
  return streaming ? 'running' : 'no-result'
}

/** Whether a conversation whose rows end with this one is waiting for a
 * reply that will not come (see the unfinished row above). */
function endsUnfinished(rows: Row[]): boolean {
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]
    if (r.kind === 'event') continue
    return r.kind === 'user' || r.kind === 'tool' || r.kind === 'thinking' || (r.kind === 'widget' && r.state === 'answered')
  }
  return false
}

/** Builds the rows of a conversation. settled: the entries were read while
 * no reply was running, so they end where the conversation ends. */
export function buildRows(entries: Entry[], live: LiveCall[] = [], streaming = false, settled = false): Row[] {
  const results = new Map<string, Entry>()
  const calls = new Set<string>()
  const answers = new Map<string, WidgetAnswerRecord>()
  const widgets = new Set<string>()
  for (const e of entries) {
    if (e.type !== 'msg') continue
    if (e.role === 'tool' && e.tool_call_id) results.set(e.tool_call_id, e)
    if (e.role === 'assistant') for (const c of e.tool_calls ?? []) calls.add(c.id)
    const a = answerOf(e)
    if (a) answers.set(a.widgetId, a)
    const w = widgetOf(e)
    if (w) widgets.add(w.widgetId)
  }
  const pending = pendingWidgetIds(entries)
  // The newest error is actionable when no user message follows it.
  let latestError = ''
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type !== 'msg') continue
    if (e.role === 'user' && !e.is_meta) break
    if (e.partType === 'error' || incompleteReason(e)) {
      latestError = e.id
      break
    }
  }

  const rows: Row[] = []
  for (const e of entries) {
    if (e.type === 'evt') {
      if (e.event === 'checkpoint' || e.event === 'compaction' || e.event === 'mode_switch' || e.event === 'fork_origin' || e.event === 'run_started') {
        rows.push({ kind: 'event', key: e.id, entry: e, ...describeEvent(e) })
      }
      continue
    }
    if (e.type !== 'msg' || e.is_meta || hiddenRoles.has(e.role ?? '')) continue
    if (e.partType === 'error') {
      rows.push({ kind: 'error', key: e.id, entry: e, ...parseErrorContent(e.content ?? ''), latest: e.id === latestError })
      continue
    }
    switch (e.role) {
      case 'user': {
        const a = answerOf(e)
        if (a && widgets.has(a.widgetId)) break // the widget shows its answer
        rows.push({ kind: 'user', key: e.id, entry: e, ...userInput(e.content ?? '') })
        break
      }
      case 'assistant': {
        if (e.partType === 'thinking') {
          rows.push({ kind: 'thinking', key: e.id, entry: e })
          break
        }
        const text = e.content ?? ''
        const incomplete = incompleteReason(e)
        if (incomplete) rows.push({ kind: 'assistant', key: e.id, entry: e, text, incomplete, latest: e.id === latestError })
        else if (text.trim()) rows.push({ kind: 'assistant', key: e.id, entry: e, text })
        for (const c of e.tool_calls ?? []) {
          const result = results.get(c.id)
          const w = result && widgetOf(result)
          if (result && w) {
            rows.push(widgetRow(`${e.id}:${c.id}`, result, w, answers, pending))
            continue
          }
          rows.push({ kind: 'tool', key: `${e.id}:${c.id}`, call: c, callEntry: e, result, status: toolStatus(result, streaming) })
        }
        break
      }
      case 'tool':
        if (!e.tool_call_id || !calls.has(e.tool_call_id)) {
          const w = widgetOf(e)
          if (w) {
            rows.push(widgetRow(e.id, e, w, answers, pending))
            break
          }
          const call: ToolCall = { id: e.tool_call_id ?? e.id, type: 'function', function: { name: e.tool_name ?? 'tool', arguments: '' } }
          rows.push({ kind: 'tool', key: e.id, call, result: e, status: toolStatus(e, streaming) })
        }
        break
    }
  }

  if (settled && !streaming && live.length === 0 && endsUnfinished(rows)) {
    rows.push({ kind: 'unfinished', key: `unfinished:${rows[rows.length - 1].key}` })
  }

  const persisted = new Set(entries.map((e) => e.id))
  for (const c of live) {
    if (persisted.has(c.messageId)) continue
    if (c.text || (!c.ended && c.tools.length === 0)) rows.push({ kind: 'live', key: `live:${c.messageId}`, call: c })
    for (const t of c.tools) rows.push({ kind: 'live-tool', key: `live:${c.messageId}:${t.toolCallId}`, call: c, tool: t })
  }
  return rows
}

/** Why the server cut an answer short, if it did (its tool calls were not run). */
export function incompleteReason(e: Entry): 'length' | 'content_filter' | undefined {
  const r = (e as Entry & { finishReason?: string }).finishReason
  return r === 'length' || r === 'content_filter' ? r : undefined
}

/** A short one-line preview of tool-call arguments. */
export function argsPreview(args: string, max = 120): string {
  let s = args
  try {
    const v = JSON.parse(args)
    if (v && typeof v === 'object') {
      s = Object.entries(v as Record<string, unknown>)
        .map(([k, val]) => `${k}: ${typeof val === 'string' ? val : JSON.stringify(val)}`)
        .join(', ')
    }
  } catch {
    // partial or invalid JSON: shown as it is
  }
  s = s.replace(/\s+/g, ' ').trim()
  return s.length > max ? `${s.slice(0, max - 1)}…` : s
}

/** Pretty JSON for the expanded card (the raw text when it is not JSON). */
export function prettyArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2)
  } catch {
    return args
  }
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return ''
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`
}

/** Tool output for reading: a JSON object is pretty-printed, and a long text
 * field ("content", as fs.read returns) is shown as the text it is, after the
 * other fields. Anything else is returned unchanged. */
export function readableOutput(text: string): string {
  const t = text.trimStart()
  if (!t.startsWith('{')) return text
  try {
    const v = JSON.parse(t) as Record<string, unknown>
    if (!v || typeof v !== 'object' || Array.isArray(v)) return text
    const { content, ...rest } = v
    if (typeof content === 'string') return `${JSON.stringify(rest, null, 2)}\n\ncontent:\n${content}`
    return JSON.stringify(v, null, 2)
  } catch {
    return text
  }
}
