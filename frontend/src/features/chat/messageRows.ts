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
 *  - a failed reply is an error row (partial text + the failure in words);
 *    a stopped one is the text that arrived and a quiet "Stopped" note;
 *  - an answer the server cut short (view.incomplete: "length" or
 *    "content_filter") is a bubble that says it is incomplete, with Retry
 *    while it is the latest reply, and Continue when there is something to
 *    continue from;
 *  - entries of versions of the conversation that are not shown (branches)
 *    are left out; the first message of a version shown carries its
 *    switcher (a row of its own before a tool card or reasoning);
 *  - the first reply of an agent after a message of the user says who
 *    answered (Agent and Run mode);
 *  - a skill's instructions (an is_meta message, view.kind "skill") are one
 *    compact "Skill activated" row that expands to them; a deactivation is
 *    a thin divider;
 *  - hidden entries (system, developer, other meta messages) are not shown;
 *  - a compaction is a card (how many messages, expanding to the summary and
 *    what was kept word for word); other events (checkpoint, mode switch,
 *    fork origin, run start) are thin dividers;
 *  - in a run, the tool calls of one step (view.step on its first entry,
 *    view.inStep on the others) are one row that says in words what the
 *    step did, with the calls one click away;
 *  - a question (ui.ask_user) is the widget itself (pending, answered with
 *    its answer, or left unanswered), and the user message that carries the
 *    answer is not repeated as a bubble;
 *  - a conversation that ends waiting for a reply that will not come (the
 *    page says so) ends in an "unfinished" row; one that ends with a
 *    message no reply was started for (a fork cut there) in an "awaiting"
 *    row.
 * The reply in progress (live calls) follows the log rows. */
import type { AgentInfo, BranchView, CompactionView, Entry, Problem, QuestionState, SkillView, StepView, ToolCall, Widget, WidgetAnswerRecord } from '../../bridge'
import type { LiveCall, LiveTool } from '../../stores'
import { t } from '../../i18n'

export type ToolStatus = 'running' | 'ok' | 'error' | 'interrupted' | 'pending' | 'no-result' | 'waiting'

export interface ErrorBlock {
  code: string
  message: string
  retryable: boolean
  fields: Record<string, string>
}

/** A widget is pending (the run waits for its answer), answered, or was
 * left behind when the conversation went on without answering it. */
export type WidgetState = QuestionState

/** Why the server cut an answer short (its tool calls were not run). */
export type IncompleteReason = 'length' | 'content_filter'

/** Who answered: the agent's name and icon, on the first reply after a
 * message of the user. */
export type Speaker = Pick<AgentInfo, 'id' | 'name' | 'icon' | 'title'>

/** One tool call of a step row. */
export interface StepCall {
  key: string
  call: ToolCall
  callEntry: Entry
  result?: Entry
  status: ToolStatus
}

export type Row =
  | { kind: 'user'; key: string; entry: Entry; text: string; forNode?: string; editable: boolean; branch?: BranchView; last?: boolean }
  | {
      kind: 'assistant'
      key: string
      entry: Entry
      text: string
      speaker?: Speaker
      regenerable: boolean
      branch?: BranchView
      incomplete?: IncompleteReason
      latest?: boolean
      canContinue?: boolean
      last?: boolean
    }
  | { kind: 'thinking'; key: string; entry: Entry; speaker?: Speaker }
  | { kind: 'tool'; key: string; call: ToolCall; callEntry?: Entry; result?: Entry; status: ToolStatus; speaker?: Speaker }
  | { kind: 'error'; key: string; entry: Entry; partial: string; error: ErrorBlock; problem: Problem; latest: boolean; canContinue: boolean; speaker?: Speaker; branch?: BranchView; last?: boolean }
  | { kind: 'stopped'; key: string; entry: Entry; partial: string; latest: boolean; canContinue: boolean; speaker?: Speaker; branch?: BranchView; last?: boolean }
  | { kind: 'switcher'; key: string; entry: Entry; branch: BranchView }
  | { kind: 'event'; key: string; entry: Entry; label: string; detail: string }
  | { kind: 'skill'; key: string; entry: Entry; skill: SkillView }
  | { kind: 'compaction'; key: string; entry: Entry; compaction: CompactionView }
  | { kind: 'steps'; key: string; entry: Entry; step: StepView; calls: StepCall[]; speaker?: Speaker }
  | { kind: 'live'; key: string; call: LiveCall }
  | { kind: 'live-tool'; key: string; call: LiveCall; tool: LiveTool }
  | { kind: 'widget'; key: string; entry: Entry; widget: Widget; runId: string; state: WidgetState; answer?: WidgetAnswerRecord }
  | { kind: 'unfinished'; key: string; canContinue: boolean }
  | { kind: 'stopped-end'; key: string; canContinue: boolean }
  | { kind: 'awaiting'; key: string }

/** How the loaded conversation ends, as the page says (only while no reply runs). */
export interface RowsEnd {
  unfinished?: boolean
  awaiting?: boolean
  /** The user stopped the work while another conversation answered for this one. */
  stopped?: boolean
  canContinue?: boolean
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''
}

/** The divider text of an event entry. agentName names an agent by its id. */
export function describeEvent(e: Entry, agentName: (id: string) => string = (id) => id): { label: string; detail: string } {
  const d = (e.data && typeof e.data === 'object' ? e.data : {}) as Record<string, unknown>
  switch (e.event) {
    case 'compaction': {
      const count = Number(d.count ?? NaN)
      return { label: Number.isFinite(count) ? t('compaction.title', { count }) : t('event.compactedOlder'), detail: '' }
    }
    case 'checkpoint':
      return { label: t('event.checkpoint', { name: str(d.name) }), detail: '' }
    case 'mode_switch': {
      const to = str(d.to ?? d.mode)
      const agent = str(d.agentId)
      const mode = to === 'workflow' ? 'run' : to
      const modeName = ['chat', 'agent', 'run'].includes(mode) ? t(`event.mode.${mode}`) : mode
      return { label: mode ? (agent ? t('event.switchedAgent', { mode: modeName, agent: agentName(agent) }) : t('event.switched', { mode: modeName })) : t('event.modeSwitched'), detail: '' }
    }
    case 'fork_origin': {
      const title = str(d.parentTitle)
      const at = str(d.checkpoint) ? t('event.atCheckpoint', { name: str(d.checkpoint) }) : ''
      return { label: title ? t('event.forkedFrom', { title }) : t('event.forked'), detail: at }
    }
    case 'run_started':
      return { label: t('event.runStarted'), detail: '' }
    case 'skill_deactivated': {
      const s = e.view?.skill
      return { label: t('event.skillOff', { name: s?.name ?? str(d.skill) }), detail: s?.by === 'model' ? t('event.byModel') : '' }
    }
    default:
      return { label: t('event.other'), detail: '' }
  }
}

/** Why the server cut an answer short, if it did (the backend's view says). */
export function incompleteReason(e: Entry): IncompleteReason | undefined {
  const r = e.view?.incomplete
  return r === 'length' || r === 'content_filter' ? r : undefined
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
  // A turn handed to another conversation: waiting for it, or stopped.
  const handover = result?.view?.handover?.status
  if (handover === 'waiting') return 'waiting'
  if (handover === 'stopped' || handover === 'interrupted') return 'interrupted'
  // A call waiting for the user's approval has a placeholder result.
  if (result?.approval?.state === 'waiting') return 'pending'
  if (result) return result.is_error ? 'error' : 'ok'
  return streaming ? 'running' : 'no-result'
}

const shownEvents = new Set(['checkpoint', 'compaction', 'mode_switch', 'fork_origin', 'run_started', 'skill_deactivated'])

/** A failure the view did not describe (an older backend): its message. */
const fallbackProblem = (b: ErrorBlock): Problem => ({ title: t('event.answerFailed'), advice: b.message })

/** Whether a message can be edited or answered again: not in a run (its
 * state cannot go back). */
const outsideRun = (e: Entry) => !e.runId && e.mode !== 'run'

/** Builds the rows of a conversation's log entries (without the reply in
 * progress). end: how it ends (as read while no reply was running);
 * speakers: the agents that answer, by id. */
export function buildEntryRows(entries: Entry[], streaming = false, end: RowsEnd = {}, speakers: Record<string, Speaker> = {}): Row[] {
  const results = new Map<string, Entry>()
  const calls = new Set<string>()
  const questions = new Set<string>()
  for (const e of entries) {
    if (e.type !== 'msg' || e.view?.inactive) continue
    if (e.role === 'tool' && e.tool_call_id) results.set(e.tool_call_id, e)
    if (e.role === 'assistant') for (const c of e.tool_calls ?? []) calls.add(c.id)
    if (e.view?.kind === 'question' && e.view.question) questions.add(e.view.question.widgetId)
  }

  const rows: Row[] = []
  // The agent who spoke last since the last message of the user: a reply
  // says who answered once.
  let lastSpeaker = ''
  const speakerOf = (e: Entry): Speaker | undefined => {
    if (!e.agentId || (e.mode !== 'agent' && e.mode !== 'run') || e.agentId === lastSpeaker) return undefined
    lastSpeaker = e.agentId
    return speakers[e.agentId] ?? { id: e.agentId, name: e.agentId, icon: '', title: '' }
  }
  // The step rows of runs, by the id of their first entry.
  const steps = new Map<string, Extract<Row, { kind: 'steps' }>>()
  for (const e of entries) {
    const v = e.view
    if (v?.inactive) continue
    const kind = v?.kind ?? (e.type === 'evt' ? 'event' : 'hidden')
    // A version's switcher sits on its first bubble; before anything else.
    const branch = v?.branch ?? undefined
    if (branch && !['user', 'run-input', 'answer', 'error', 'stopped'].includes(kind) && !(kind === 'assistant' && ((e.content ?? '').trim() || incompleteReason(e)))) {
      rows.push({ kind: 'switcher', key: `switcher:${e.id}`, entry: e, branch })
    }
    const rowBranch = (k: string) => (branch && k === kind ? branch : undefined)
    switch (kind) {
      case 'event':
        if (e.event === 'compaction' && v?.compaction) rows.push({ kind: 'compaction', key: e.id, entry: e, compaction: v.compaction })
        else if (shownEvents.has(e.event ?? '')) rows.push({ kind: 'event', key: e.id, entry: e, ...describeEvent(e, (id) => speakers[id]?.name || id) })
        break
      case 'error': {
        const b = v?.error
        const error = { code: b?.code ?? '', message: b?.message ?? '', retryable: !!b?.retryable, fields: b?.fields ?? {} }
        rows.push({
          kind: 'error',
          key: e.id,
          entry: e,
          partial: v?.text ?? '',
          error,
          problem: v?.problem ?? fallbackProblem(error),
          latest: !!v?.latest,
          canContinue: !!v?.continue,
          speaker: speakerOf(e),
          branch: rowBranch('error'),
        })
        break
      }
      case 'stopped':
        rows.push({ kind: 'stopped', key: e.id, entry: e, partial: v?.text ?? '', latest: !!v?.latest, canContinue: !!v?.continue, speaker: speakerOf(e), branch: rowBranch('stopped') })
        break
      case 'answer':
        lastSpeaker = ''
        if (v?.answerTo && questions.has(v.answerTo)) break // the question shows its answer
        rows.push({ kind: 'user', key: e.id, entry: e, text: v?.text ?? '', forNode: v?.forNode || undefined, editable: false, branch })
        break
      case 'user':
      case 'run-input':
        lastSpeaker = ''
        rows.push({ kind: 'user', key: e.id, entry: e, text: v?.text ?? '', forNode: v?.forNode || undefined, editable: kind === 'user' && outsideRun(e), branch })
        break
      case 'thinking':
        rows.push({ kind: 'thinking', key: e.id, entry: e, speaker: speakerOf(e) })
        break
      case 'skill':
        if (v?.skill) rows.push({ kind: 'skill', key: e.id, entry: e, skill: v.skill })
        break
      case 'assistant': {
        // A step of a run: its calls join the step's row.
        const group = v?.step ? undefined : v?.inStep ? steps.get(v.inStep) : undefined
        if (v?.step || group) {
          let row = group
          if (!row) {
            row = { kind: 'steps', key: `steps:${e.id}`, entry: e, step: v!.step!, calls: [], speaker: speakerOf(e) }
            steps.set(e.id, row)
            rows.push(row)
          }
          for (const c of e.tool_calls ?? []) {
            const result = results.get(c.id)
            row.calls.push({ key: `${e.id}:${c.id}`, call: c, callEntry: e, result, status: toolStatus(result, streaming) })
          }
          break
        }
        const text = e.content ?? ''
        const speaker = speakerOf(e)
        const incomplete = incompleteReason(e)
        if (incomplete) {
          rows.push({ kind: 'assistant', key: e.id, entry: e, text, speaker, regenerable: outsideRun(e), branch, incomplete, latest: !!v?.latest, canContinue: !!v?.continue })
        } else if (text.trim()) rows.push({ kind: 'assistant', key: e.id, entry: e, text, speaker, regenerable: outsideRun(e), branch })
        for (const c of e.tool_calls ?? []) {
          const result = results.get(c.id)
          const w = result?.view?.kind === 'question' ? widgetRow(`${e.id}:${c.id}`, result) : null
          rows.push(w ?? { kind: 'tool', key: `${e.id}:${c.id}`, call: c, callEntry: e, result, status: toolStatus(result, streaming), speaker: text.trim() || incomplete ? undefined : speaker })
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

  markLast(rows)
  if (!streaming && rows.length > 0) {
    const last = rows[rows.length - 1].key
    if (end.unfinished) rows.push({ kind: 'unfinished', key: `unfinished:${last}`, canContinue: !!end.canContinue })
    else if (end.stopped) rows.push({ kind: 'stopped-end', key: `stopped:${last}`, canContinue: !!end.canContinue })
    else if (end.awaiting) rows.push({ kind: 'awaiting', key: `awaiting:${last}` })
  }
  return rows
}

/** Marks the latest message of the user and the answer after it (when
 * there is one): their actions are always shown. */
function markLast(rows: Row[]) {
  let answered = false
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]
    if (r.kind === 'user') {
      rows[i] = { ...r, last: true }
      return
    }
    if (!answered && (r.kind === 'assistant' || r.kind === 'error' || r.kind === 'stopped')) {
      rows[i] = { ...r, last: true }
      answered = true
    }
  }
}

/** The rows of the reply in progress: the calls not yet in the log. */
export function buildLiveRows(entries: Entry[], live: LiveCall[]): Row[] {
  const rows: Row[] = []
  if (live.length === 0) return rows
  const persisted = new Set(entries.map((e) => e.id))
  for (const c of live) {
    if (persisted.has(c.messageId)) continue
    if (c.text || (!c.ended && c.tools.length === 0)) rows.push({ kind: 'live', key: `live:${c.messageId}`, call: c })
    for (const t of c.tools) rows.push({ kind: 'live-tool', key: `live:${c.messageId}:${t.toolCallId}`, call: c, tool: t })
  }
  return rows
}

/** Builds the rows of a conversation: its log, how it ends, then the reply
 * in progress. */
export function buildRows(entries: Entry[], live: LiveCall[] = [], streaming = false, end: RowsEnd = {}, speakers: Record<string, Speaker> = {}): Row[] {
  const rows = buildEntryRows(entries, streaming, end, speakers)
  if (live.length > 0 && (end.unfinished || end.awaiting || end.stopped)) {
    const i = rows.findIndex((r) => r.kind === 'unfinished' || r.kind === 'awaiting' || r.kind === 'stopped-end')
    if (i >= 0) rows.splice(i, 1)
  }
  return [...rows, ...buildLiveRows(entries, live)]
}
