/** Log entries for tests, with the view the backend attaches to each
 * (backend/conversation decodes it; tests state it). A plain message gets
 * the view of its role; run inputs, answers, questions and failures name
 * theirs in `view`. */
import type { Entry, EntryView } from '../bridge'

function roleView(role: string, content: string | undefined, extra: Partial<Entry>): EntryView {
  if (extra.is_meta || role === 'system' || role === 'developer') return { kind: 'hidden' }
  switch (role) {
    case 'user':
      return { kind: 'user', text: content ?? '' }
    case 'assistant':
      return { kind: extra.partType === 'thinking' ? 'thinking' : 'assistant' }
    case 'tool':
      return { kind: 'tool-result' }
  }
  return { kind: 'hidden' }
}

/** e with the view of its role when it has none. */
export function withView(e: Entry): Entry {
  if (e.view) return e
  if (e.type === 'evt') return { ...e, view: { kind: 'event' } }
  return { ...e, view: roleView(e.role ?? '', e.content, e) }
}

export function msg(id: string, role: string, content: string | undefined, extra: Partial<Entry> = {}): Entry {
  return { type: 'msg', id, createdAt: '', role, content, ...extra, view: extra.view ?? roleView(role, content, extra) }
}

export function evt(id: string, event: string, data: unknown = {}): Entry {
  return { type: 'evt', id, createdAt: '', event, data, view: { kind: 'event' } }
}

/** A user message sent to a run at a node. */
export function runInput(id: string, node: string, text: string, extra: Partial<Entry> = {}): Entry {
  return msg(id, 'user', `USER_INPUT\n- forNodeId: ${node}\n${text}`, { mode: 'run', ...extra, view: { kind: 'run-input', text, forNode: node } })
}

/** A failed reply. */
export function failure(id: string, partial: string, code: string, message: string, extra: Partial<Entry> & { latest?: boolean } = {}): Entry {
  const { latest, ...rest } = extra
  return msg(id, 'assistant', `${partial}\n\nLLM_ERROR\n- code: ${code}\n- message: ${message}`, {
    partType: 'error',
    ...rest,
    view: { kind: 'error', text: partial, error: { code, message, retryable: false, fields: { code, message } }, latest },
  })
}

/** A ui.ask_user question of a run and the tool message that carries it. */
export function question(id: string, callId: string, widget: Record<string, unknown>, state: 'pending' | 'answered' | 'unanswered', runId = 'r1', answer?: unknown): Entry[] {
  const w = { widgetId: id, createdAt: '', ...widget }
  return [
    msg(`a-${id}`, 'assistant', undefined, {
      runId,
      mode: 'run',
      tool_calls: [{ id: callId, type: 'function', function: { name: 'ui.ask_user', arguments: JSON.stringify({ type: widget.type, prompt: widget.prompt }) } }],
    }),
    msg(`t-${id}`, 'tool', '{"ok":true,"pending":true}', {
      runId,
      mode: 'run',
      tool_call_id: callId,
      tool_name: 'ui.ask_user',
      widget: w,
      view: { kind: 'question', question: { widgetId: id, state, widget: w, answer } },
    }),
  ]
}

/** The user message that answers a question shown with it. */
export function answer(id: string, widgetId: string, type: string, value: unknown, text: string, runId = 'r1'): Entry {
  return msg(id, 'user', `USER_INPUT\n- forNodeId: check-clarity\n${text}`, {
    runId,
    mode: 'run',
    widget: { widgetId, type, answer: value },
    view: { kind: 'answer', answerTo: widgetId, text, forNode: 'check-clarity' },
  })
}
