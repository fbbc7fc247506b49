/** Turns log entries into the rows the message list shows (the same rules in
 * chat, agent and run modes). What each entry is comes decoded from the
 * backend (entry.view: user input, run input, answer, question with its
 * state, failed reply with its block, hidden, ...); here entries only become
 * rows:
 *  - user and assistant text are bubbles (a run's input without its header);
 *  - an assistant message that carries tool_calls is never a bubble: each call
 *    is a tool card (its text, if any, is a bubble before the cards);
 *  - role=tool messages are never bubbles: they fill the card of their call
 *    (a result whose call is not loaded gets a card of its own);
 *  - a failed reply is an error row (partial text + the failure);
 *  - hidden entries (system, developer, meta) are not shown;
 *  - events (compaction, checkpoint, mode switch, fork origin, run start) are
 *    thin dividers;
 *  - a question (ui.ask_user) is the widget itself (pending, answered with
 *    its answer, or left unanswered), and the user message that carries the
 *    answer is not repeated as a bubble;
 *  - a conversation that ends waiting for a reply that will not come (the
 *    page says so) ends in an "unfinished" row.
 * The reply in progress (live calls) follows the log rows. */
import type { Entry, QuestionState, ToolCall, Widget, WidgetAnswerRecord } from '../../bridge'
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
export type WidgetState = QuestionState

export type Row =
  | { kind: 'user'; key: string; entry: Entry; text: string; forNode?: string }
  | { kind: 'assistant'; key: string; entry: Entry; text: string }
  | { kind: 'thinking'; key: string; entry: Entry }
  | { kind: 'tool'; key: string; call: ToolCall; callEntry?: Entry; result?: Entry; status: ToolStatus }
  | { kind: 'error'; key: string; entry: Entry; partial: string; error: ErrorBlock; latest: boolean }
  | { kind: 'event'; key: string; entry: Entry; label: string; detail: string }
  | { kind: 'live'; key: string; call: LiveCall }
  | { kind: 'live-tool'; key: string; call: LiveCall; tool: LiveTool }
  | { kind: 'widget'; key: string; entry: Entry; widget: Widget; runId: string; state: WidgetState; answer?: WidgetAnswerRecord }
  | { kind: 'unfinished'; key: string }

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

/** The widget row of a question entry. */
function widgetRow(key: string, e: Entry): Row | null {
  const q = e.view?.question
  if (!q) return null
  return {
    kind: 'widget',
    key,
    entry: e,
    widget: q.widget as Widget,
    runId: e.runId ?? '',
    state: q.state as WidgetState,
    answer: (q.answer ?? undefined) as WidgetAnswerRecord | undefined,
  }
}

function toolStatus(result: Entry | undefined, streaming: boolean): ToolStatus {
  if (result) return result.is_error ? 'error' : 'ok'
  return streaming ? 'running' : 'no-result'
}

const shownEvents = new Set(['checkpoint', 'compaction', 'mode_switch', 'fork_origin', 'run_started'])

/** Builds the rows of a conversation. unfinished: the log ends waiting for a
 * reply that will not come (as read while no reply was running). */
export function buildRows(entries: Entry[], live: LiveCall[] = [], streaming = false, unfinished = false): Row[] {
  const results = new Map<string, Entry>()
  const calls = new Set<string>()
  const questions = new Set<string>()
  for (const e of entries) {
    if (e.type !== 'msg') continue
    if (e.role === 'tool' && e.tool_call_id) results.set(e.tool_call_id, e)
    if (e.role === 'assistant') for (const c of e.tool_calls ?? []) calls.add(c.id)
    if (e.view?.kind === 'question' && e.view.question) questions.add(e.view.question.widgetId)
  }

  const rows: Row[] = []
  for (const e of entries) {
    const v = e.view
    switch (v?.kind ?? (e.type === 'evt' ? 'event' : 'hidden')) {
      case 'event':
        if (shownEvents.has(e.event ?? '')) rows.push({ kind: 'event', key: e.id, entry: e, ...describeEvent(e) })
        break
      case 'error': {
        const b = v?.error
        rows.push({
          kind: 'error',
          key: e.id,
          entry: e,
          partial: v?.text ?? '',
          error: { code: b?.code ?? '', message: b?.message ?? '', retryable: !!b?.retryable, fields: b?.fields ?? {} },
          latest: !!v?.latest,
        })
        break
      }
      case 'answer':
        if (v?.answerTo && questions.has(v.answerTo)) break // the question shows its answer
        rows.push({ kind: 'user', key: e.id, entry: e, text: v?.text ?? '', forNode: v?.forNode || undefined })
        break
      case 'user':
      case 'run-input':
        rows.push({ kind: 'user', key: e.id, entry: e, text: v?.text ?? '', forNode: v?.forNode || undefined })
        break
      case 'thinking':
        rows.push({ kind: 'thinking', key: e.id, entry: e })
        break
      case 'assistant': {
        const text = e.content ?? ''
        if (text.trim()) rows.push({ kind: 'assistant', key: e.id, entry: e, text })
        for (const c of e.tool_calls ?? []) {
          const result = results.get(c.id)
          const w = result?.view?.kind === 'question' ? widgetRow(`${e.id}:${c.id}`, result) : null
          rows.push(w ?? { kind: 'tool', key: `${e.id}:${c.id}`, call: c, callEntry: e, result, status: toolStatus(result, streaming) })
        }
        break
      }
      case 'tool-result':
      case 'question':
        if (!e.tool_call_id || !calls.has(e.tool_call_id)) {
          const w = v?.kind === 'question' ? widgetRow(e.id, e) : null
          if (w) {
            rows.push(w)
            break
          }
          const call: ToolCall = { id: e.tool_call_id ?? e.id, type: 'function', function: { name: e.tool_name ?? 'tool', arguments: '' } }
          rows.push({ kind: 'tool', key: e.id, call, result: e, status: toolStatus(e, streaming) })
        }
        break
    }
  }

  if (unfinished && !streaming && live.length === 0 && rows.length > 0) {
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
