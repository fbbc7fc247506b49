import type {
  AttachmentInput,
  AgentInfo,
  AgentList,
  ApprovalDecision,
  ApprovalMode,
  ApprovalModeName,
  ApprovalRequest,
  Bridge,
  BridgeError,
  ContextPreview,
  ContextStatus,
  ContextUsage,
  ConversationMeta,
  Entry,
  EntriesEvent,
  EventError,
  ExportFormat,
  Mode,
  SendRequest,
  ToolOutputEvent,
  ToolResultView,
  Unsubscribe,
  WaitingView,
} from '../bridge'
import { ErrorCodes, subscribeAll, toBridgeError } from '../bridge'
import { createStore, type Store } from './store'
import { t } from '../i18n'
import { backendText } from '../i18n/backend'

/** A tool call announced during the reply in progress. */
export interface LiveTool {
  toolCallId: string
  toolName: string
  index: number
  status: 'running' | 'ok' | 'error' | 'interrupted' | 'pending'
  durationMs?: number
  error?: EventError
}

/** One LLM call of the reply in progress, until its message is in `entries`. */
export interface LiveCall {
  messageId: string
  turn: number
  text: string
  tools: LiveTool[]
  ended: boolean
  error?: EventError
}

/** The output of a running tool call (shell.run), as it comes. */
export interface LiveOutput {
  /** The newest output, ANSI codes included (at most liveOutputLimit characters). */
  text: string
  /** How many characters of the beginning are no longer kept. */
  dropped: number
  /** The command has ended (its result follows). */
  done: boolean
}

/** The most live output kept per call (characters): the newest is kept. */
export const liveOutputLimit = 200 * 1024

/** Adds a tool:output event to what a call showed so far, keeping the newest
 * limit characters from the start of a line. */
export function appendOutput(prev: LiveOutput | undefined, ev: Pick<ToolOutputEvent, 'data' | 'skipped' | 'done'>, limit = liveOutputLimit): LiveOutput {
  // Output that came too fast to be sent is said where it was left out.
  const gap = ev.skipped ? `${prev?.text && !prev.text.endsWith('\n') ? '\n' : ''}… ${ev.skipped} bytes not shown …\n` : ''
  let text = (prev?.text ?? '') + gap + ev.data
  let dropped = prev?.dropped ?? 0
  if (text.length > limit) {
    let cut = text.length - limit
    // Start at a line when one starts soon (no half line, no half escape code).
    const nl = text.indexOf('\n', cut)
    if (nl >= 0 && nl - cut < 4096) cut = nl + 1
    dropped += cut
    text = text.slice(cut)
  }
  return { text, dropped, done: !!ev.done || !!prev?.done }
}

export interface ChatState {
  conversationId: string | null
  meta: ConversationMeta | null
  /** The loaded window of effective entries, oldest first (the newest end of the log). */
  entries: Entry[]
  hasMore: boolean
  loading: boolean
  loadingOlder: boolean
  /** A reply is being generated in this conversation. */
  streaming: boolean
  /** No reply runs and the entries end where the log ends (a send clears
   * it until the reply's end is published). */
  settled: boolean
  /** The last read says the conversation ends waiting for a reply that will
   * not come (meaningful while settled). */
  unfinished: boolean
  /** ... or with a message of the user no reply was started for (a fork cut
   * there). */
  awaiting: boolean
  /** The user stopped the work while another conversation answered for
   * this one (meaningful while settled). */
  stoppedEnd: boolean
  /** The unfinished reply left something to continue from. */
  canContinue: boolean
  /** The agents whose replies are loaded, by id (name and icon). */
  speakers: Record<string, AgentInfo>
  /** A tool call of this conversation waits for another conversation's
   * answer (conv.create, conv.send): the work goes on there. */
  waitingFor: WaitingView | null
  /** The user message being edited in place, and its draft. */
  editing: { id: string; text: string } | null
  /** A short confirmation to show (an export saved). */
  notice: string | null
  live: LiveCall[]
  usage: ContextUsage | null
  mode: Mode
  agentId: string
  agents: AgentList | null
  preview: ContextPreview | null
  previewLoading: boolean
  /** The conversation's approval mode (null until read). */
  approvalMode: ApprovalMode | null
  /** Tool calls whose approval answer is on its way. */
  answering: string[]
  /** The live output of the tool calls of the open conversation, by tool
   * call id, until their results are read. */
  toolOutput: Record<string, LiveOutput>
  /** Approval requests answered while the log still holds them as waiting
   * (an allowed call runs until its result replaces the request), by tool
   * call id. */
  resolved: Record<string, ApprovalRequest>
  error: BridgeError | null
}

export interface ChatActions {
  /** Follows the stream events; returns the unsubscribe. */
  start(): Unsubscribe
  open(id: string | null): Promise<void>
  loadOlder(): Promise<number>
  /** Sends a message (with files attached: text may then be empty). */
  send(text: string, attachments?: AttachmentInput[]): Promise<boolean>
  stop(): Promise<void>
  /** Sends "continue" after a failed reply. */
  continueReply(): Promise<boolean>
  /** Answers the last user message again (in run mode: sends it again). */
  retry(): Promise<boolean>
  /** Opens (or, with null, closes) the in-place editor of a user message. */
  startEdit(id: string | null, text?: string): void
  setEditDraft(text: string): void
  /** Sends the edited message as a new version of the conversation. */
  submitEdit(): Promise<boolean>
  /** Answers again the message that entry messageId belongs to, as a new version. */
  regenerate(messageId: string): Promise<boolean>
  /** Shows version index (from 0) of the branch point after the entry `after`. */
  switchBranch(after: string, index: number): Promise<boolean>
  /** Re-reads the whole loaded window (after a change of versions, or of
   * the log on disk by someone else). */
  reload(): Promise<void>
  /** Saves the conversation as Markdown or JSON where the user chooses;
   * the file, or null when cancelled or failed. */
  exportToFile(format: ExportFormat): Promise<string | null>
  dismissNotice(): void
  setMode(mode: Mode, agentId?: string): Promise<void>
  loadAgents(): Promise<void>
  loadPreview(): Promise<ContextPreview | null>
  readToolResult(messageId: string): Promise<ToolResultView | null>
  /** Answers the approval request of a tool call of the open conversation. */
  answerApproval(toolCallId: string, decision: ApprovalDecision, reason?: string): Promise<boolean>
  /** Sets the open conversation's approval mode. */
  setApprovalMode(mode: ApprovalModeName): Promise<void>
  dismissError(): void
}

export type ChatStore = Store<ChatState> & { actions: ChatActions }

/** Entries read per page. */
export const pageSize = 300
/** Entries read when a conversation opens: a few screens, so that a long
 * conversation shows its end as soon as a short one; older pages follow as
 * the view nears the top. */
export const firstPageSize = 100
/** The usage a context preview implies (before any reply was sent). */
export function usageFromPreview(conversationId: string, p: ContextPreview): ContextUsage {
  const u = p.usage
  return {
    conversationId,
    usedTokens: u.usedTokens,
    totalBudget: u.totalBudget,
    usagePercent: u.usagePercent,
    remaining: u.remaining,
    status: u.status as ContextStatus,
    reported: u.reported,
  }
}

const modeOf = (meta: ConversationMeta | null): Mode =>
  meta?.activeType === 'agent' ? 'agent' : meta?.activeType === 'workflow' ? 'run' : 'chat'

const initial = (): ChatState => ({
  conversationId: null,
  meta: null,
  entries: [],
  hasMore: false,
  loading: false,
  loadingOlder: false,
  streaming: false,
  settled: false,
  unfinished: false,
  stoppedEnd: false,
  awaiting: false,
  canContinue: false,
  speakers: {},
  waitingFor: null,
  editing: null,
  notice: null,
  live: [],
  usage: null,
  mode: 'chat',
  agentId: '',
  agents: null,
  preview: null,
  previewLoading: false,
  approvalMode: null,
  answering: [],
  toolOutput: {},
  resolved: {},
  error: null,
})

/** Applies published entries to the loaded window: an entry with a known id
 * is replaced (a new version), a new one appended. */
export function applyEntries(current: Entry[], published: Entry[]): Entry[] {
  if (published.length === 0) return current
  const at = new Map(current.map((e, i) => [e.id, i]))
  const out = current.slice()
  for (const e of published) {
    const i = at.get(e.id)
    if (i === undefined) {
      at.set(e.id, out.length)
      out.push(e)
    } else out[i] = e
  }
  return out
}

const userKinds = new Set(['user', 'run-input', 'answer'])

/** Whether an entry records a change of versions (a branch point). */
export const isBranchEvent = (e: Entry) => e.type === 'evt' && (e.event === 'branch' || e.event === 'branch_switch')

/** The text of the newest user message (what Retry sends again), without a
 * run's header. */
export function lastUserText(entries: Entry[]): string | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const v = entries[i].view
    if (v && !v.inactive && userKinds.has(v.kind) && (v.text ?? '').trim()) return v.text!
  }
  return null
}

type Schedule = (fn: () => void) => void
const nextFrame: Schedule =
  typeof requestAnimationFrame === 'function' ? (fn) => void requestAnimationFrame(() => fn()) : (fn) => void setTimeout(fn, 16)

/** The least time between two updates of the text being streamed (ms): a
 * few words at a time read as smoothly as one frame at a time, and every
 * update redraws the answer (its layout and the list around it), so a fast
 * stream draws at most 20 times a second instead of at every frame. */
export const streamTextInterval = 50

/** The open conversation: its entries (paged from the end), the reply in
 * progress (stream events, text deltas coalesced per frame and at most one
 * update per streamTextInterval), the context usage, the mode and the
 * agent. */
export function createChatStore(
  bridge: Pick<Bridge, 'conversations' | 'chat' | 'events'>,
  schedule: Schedule = nextFrame,
  textInterval = streamTextInterval,
): ChatStore {
  const store = createStore<ChatState>(initial())
  const usageByConversation = new Map<string, ContextUsage>()
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })
  const isCurrent = (id: string) => store.getState().conversationId === id

  // Text deltas wait here until the next frame.
  const pendingText = new Map<string, string>()
  let flushQueued = false
  let lastFlush = -Infinity
  let flushTimer: ReturnType<typeof setTimeout> | undefined
  const queueFlush = () => {
    if (flushQueued) return
    flushQueued = true
    const wait = lastFlush + textInterval - performance.now()
    if (wait > 0) flushTimer = setTimeout(() => schedule(flushText), wait)
    else schedule(flushText)
  }
  const flushText = () => {
    flushQueued = false
    clearTimeout(flushTimer)
    if (pendingText.size === 0) return
    lastFlush = performance.now()
    const deltas = new Map(pendingText)
    pendingText.clear()
    store.setState((s) => ({
      live: s.live.map((c) => (deltas.has(c.messageId) ? { ...c, text: c.text + deltas.get(c.messageId)! } : c)),
    }))
  }
  const updateCall = (messageId: string, fn: (c: LiveCall) => LiveCall) =>
    store.setState((s) => ({ live: s.live.map((c) => (c.messageId === messageId ? fn(c) : c)) }))

  /** Drops what is kept of calls (live output, answers) whose results are in. */
  const settleOutput = <T,>(entries: Entry[], out: Record<string, T>) => {
    const ids = Object.keys(out)
    if (ids.length === 0) return out
    const done = new Set(entries.filter((e) => e.role === 'tool' && e.tool_call_id && !(e.approval?.state === 'waiting')).map((e) => e.tool_call_id!))
    if (!ids.some((id) => done.has(id))) return out
    return Object.fromEntries(Object.entries(out).filter(([id]) => !done.has(id)))
  }

  /** The state a page read or a publication of entries gives: the live calls
   * whose messages are stored (or, once settled, that ended) are left. */
  const settle = (s: ChatState, entries: Entry[], settled: boolean): Partial<ChatState> => {
    const ids = new Set(entries.map((e) => e.id))
    return {
      entries,
      settled,
      live: s.live.filter((c) => !(c.ended && (ids.has(c.messageId) || settled))),
      toolOutput: settleOutput(entries, s.toolOutput),
      resolved: settleOutput(entries, s.resolved),
    }
  }

  /** Publications that come while pages are read, applied after them. */
  let held: EntriesEvent[] = []
  let reading = 0

  /** Reads the newest limit entries of conversation id and shows them (while
   * current() holds); the page, or null when the read failed. */
  const readPage = async (id: string, limit: number, current: () => boolean) => {
    reading++
    const streamingBefore = store.getState().streaming
    try {
      const page = await bridge.conversations.load(id, limit)
      if (!current()) return null
      store.setState((s) => {
        // A reply that started or ended during the read is as its events say.
        const streaming = s.streaming !== streamingBefore ? s.streaming : page.streaming || s.streaming
        return {
          ...settle(s, page.entries, !streaming),
          meta: page.conversation,
          hasMore: page.hasMore,
          streaming,
          unfinished: !!page.unfinished,
          stoppedEnd: !!page.stopped,
          awaiting: !!page.awaiting,
          canContinue: !!page.canContinue,
          speakers: page.agents ?? {},
          waitingFor: page.waitingFor ?? null,
        }
      })
      return page
    } catch (e) {
      if (current()) fail(e)
      return null
    } finally {
      if (--reading === 0) held.splice(0).forEach(published)
    }
  }

  /** Applies conversation:entries: what the store appended or updated. */
  const published = (ev: EntriesEvent) => {
    if (!isCurrent(ev.conversationId)) return
    if (reading > 0) return void held.push(ev)
    if (ev.reload) return void actions.reload()
    store.setState((s) => {
      // A reply started here waits for its own end.
      const settled = ev.settled && !s.streaming
      return {
        ...settle(s, applyEntries(s.entries, ev.entries), settled),
        meta: ev.conversation,
        unfinished: ev.unfinished,
        stoppedEnd: !!ev.stopped,
        awaiting: ev.awaiting,
        canContinue: ev.canContinue,
        speakers: { ...s.speakers, ...ev.agents },
        waitingFor: ev.waitingFor ?? null,
      }
    })
  }

  let openSeq = 0

  /** Starts a reply through the bridge; false (with the error shown) when it
   * was refused. */
  const startReply = async (req: SendRequest, start: () => Promise<void> = () => bridge.chat.send(req)) => {
    const { settled } = store.getState()
    store.setState({ streaming: true, settled: false, error: null, live: [] })
    try {
      await start()
      return true
    } catch (e) {
      // Refused: nothing was written, the log ends as it did.
      store.setState({ streaming: false, settled })
      fail(e)
      return false
    }
  }

  const loadApprovalMode = async (id: string) => {
    try {
      const m = await bridge.chat.approvalMode(id)
      if (isCurrent(id)) store.setState({ approvalMode: m })
    } catch {
      // The selector shows no mode; sending still works under the backend's.
    }
  }

  const actions: ChatActions = {
    start() {
      return subscribeAll(bridge.events, {
        'llm:stream-start': (p) => {
          if (!isCurrent(p.conversationId)) return
          store.setState((s) => ({
            streaming: true,
            live: s.live.some((c) => c.messageId === p.messageId)
              ? s.live
              : [...s.live, { messageId: p.messageId, turn: p.turn, text: '', tools: [], ended: false }],
          }))
        },
        'llm:stream-chunk': (p) => {
          if (!isCurrent(p.conversationId) || !p.delta) return
          pendingText.set(p.messageId, (pendingText.get(p.messageId) ?? '') + p.delta)
          queueFlush()
        },
        'llm:stream-tool-start': (p) => {
          if (!isCurrent(p.conversationId)) return
          flushText()
          updateCall(p.messageId, (c) => ({
            ...c,
            tools: [...c.tools.filter((t) => t.toolCallId !== p.toolCallId), { toolCallId: p.toolCallId, toolName: p.toolName, index: p.index, status: 'running' }],
          }))
        },
        'llm:stream-tool-end': (p) => {
          if (!isCurrent(p.conversationId)) return
          const status: LiveTool['status'] = p.interrupted ? 'interrupted' : p.pending ? 'pending' : p.ok ? 'ok' : 'error'
          updateCall(p.messageId, (c) => ({
            ...c,
            tools: c.tools.some((t) => t.toolCallId === p.toolCallId)
              ? c.tools.map((t) => (t.toolCallId === p.toolCallId ? { ...t, status, durationMs: p.durationMs, error: p.error } : t))
              : [...c.tools, { toolCallId: p.toolCallId, toolName: p.toolName, index: c.tools.length, status, durationMs: p.durationMs, error: p.error }],
          }))
        },
        'llm:stream-end': (p) => {
          if (!isCurrent(p.conversationId)) return
          flushText()
          // The call's message may be stored already: it then shows instead.
          store.setState((s) => ({
            live: s.entries.some((e) => e.id === p.messageId)
              ? s.live.filter((c) => c.messageId !== p.messageId)
              : s.live.map((c) => (c.messageId === p.messageId ? { ...c, ended: true, error: p.error } : c)),
          }))
        },
        'tool:output': (p) => {
          if (!isCurrent(p.conversationId)) return
          store.setState((s) => ({ toolOutput: { ...s.toolOutput, [p.toolCallId]: appendOutput(s.toolOutput[p.toolCallId], p) } }))
        },
        'context:usage': (u) => {
          usageByConversation.set(u.conversationId, u)
          if (isCurrent(u.conversationId)) store.setState({ usage: u })
        },
        // A tool call's approval was answered (the request itself comes in
        // its result entry, published as it is stored).
        'approval:resolved': (p) => {
          if (!isCurrent(p.conversationId)) return
          store.setState((s) => ({
            answering: s.answering.filter((id) => id !== p.toolCallId),
            resolved: p.approval ? { ...s.resolved, [p.toolCallId]: p.approval } : s.resolved,
          }))
        },
        'conversation:entries': published,
        'conversation:changed': (c) => {
          if (!isCurrent(c.conversationId)) return
          if (c.kind === 'deleted') return void actions.open(null)
          // Changed on disk by someone else: nothing was published.
          if (c.external) return void actions.reload()
          // A reply starts (here or elsewhere: a run turn, an answer handed
          // back): the log goes on past the entries until its end is published.
          if (c.streaming !== undefined) store.setState(c.streaming ? { streaming: true, settled: false } : { streaming: false })
          if (c.streaming === false && c.error) fail(c.error)
        },
      })
    },

    async open(id) {
      const seq = ++openSeq
      pendingText.clear()
      if (!id) {
        store.setState({ ...initial(), agents: store.getState().agents })
        return
      }
      store.setState({ ...initial(), agents: store.getState().agents, conversationId: id, loading: true, usage: usageByConversation.get(id) ?? null })
      const page = await readPage(id, firstPageSize, () => seq === openSeq)
      if (seq !== openSeq) return
      store.setState(page ? { loading: false, mode: modeOf(page.conversation), agentId: page.conversation.selectedAgentId ?? '' } : { loading: false })
      if (!page) return
      // The meter before the first reply: what the next request would use.
      if (!usageByConversation.has(id)) void actions.loadPreview()
      void loadApprovalMode(id)
    },

    async loadOlder() {
      const s = store.getState()
      if (!s.conversationId || !s.hasMore || s.loadingOlder || s.entries.length === 0) return 0
      const id = s.conversationId
      store.setState({ loadingOlder: true })
      try {
        const page = await bridge.conversations.loadOlder(id, s.entries[0].id, pageSize)
        if (!isCurrent(id)) return 0
        const known = new Set(store.getState().entries.map((e) => e.id))
        const older = page.entries.filter((e) => !known.has(e.id))
        store.setState((st) => ({ entries: [...older, ...st.entries], hasMore: page.hasMore, loadingOlder: false, speakers: { ...page.agents, ...st.speakers } }))
        return older.length
      } catch (e) {
        store.setState({ loadingOlder: false })
        fail(e)
        return 0
      }
    },

    async send(text, attachments) {
      const s = store.getState()
      const body = text.trim()
      const files = attachments ?? []
      if (!s.conversationId || (!body && files.length === 0) || s.streaming || s.waitingFor) return false
      const req = { conversationId: s.conversationId, text: body, mode: s.mode, agentId: s.mode === 'agent' ? s.agentId : '' }
      return startReply(files.length > 0 ? { ...req, attachments: files } : req)
    },

    async stop() {
      const id = store.getState().conversationId
      if (!id) return
      try {
        await bridge.chat.stop(id)
      } catch (e) {
        fail(e)
      }
    },

    async reload() {
      const id = store.getState().conversationId
      if (id) await readPage(id, Math.max(pageSize, store.getState().entries.length), () => isCurrent(id))
    },

    continueReply: () => actions.send('continue'),

    startEdit(id, text = '') {
      store.setState({ editing: id ? { id, text } : null })
    },

    setEditDraft(text) {
      const e = store.getState().editing
      if (e) store.setState({ editing: { ...e, text } })
    },

    async submitEdit() {
      const s = store.getState()
      const text = s.editing?.text.trim() ?? ''
      if (!s.conversationId || !s.editing || !text || s.streaming) return false
      const req = { conversationId: s.conversationId, messageId: s.editing.id, text, mode: s.mode, agentId: s.mode === 'agent' ? s.agentId : '' }
      const ok = await startReply({ ...req, text }, () => bridge.chat.edit(req))
      if (ok) store.setState({ editing: null })
      return ok
    },

    async regenerate(messageId) {
      const s = store.getState()
      if (!s.conversationId || s.streaming) return false
      const req = { conversationId: s.conversationId, messageId, mode: s.mode, agentId: s.mode === 'agent' ? s.agentId : '' }
      return startReply({ ...req, text: '' }, () => bridge.chat.regenerate(req))
    },

    async switchBranch(after, index) {
      const s = store.getState()
      if (!s.conversationId || s.streaming) return false
      try {
        await bridge.conversations.switchBranch(s.conversationId, after, index)
      } catch (e) {
        fail(e)
        return false
      }
      await actions.reload()
      return true
    },

    async exportToFile(format) {
      const id = store.getState().conversationId
      if (!id) return null
      try {
        const path = await bridge.conversations.exportToFile(id, format)
        if (!path) return null
        store.setState({ notice: t('chat.savedTo', { path }) })
        return path
      } catch (e) {
        fail(e)
        return null
      }
    },

    dismissNotice() {
      store.setState({ notice: null })
    },

    async retry() {
      const s = store.getState()
      // A run takes the input again as a new message; chat and agent mode
      // answer the newest message again without repeating it.
      if (s.mode === 'run') {
        const text = lastUserText(s.entries)
        return text ? actions.send(text) : false
      }
      if (!s.conversationId || s.streaming) return false
      return startReply({ conversationId: s.conversationId, text: '', mode: s.mode, agentId: s.mode === 'agent' ? s.agentId : '', retry: true })
    },

    async setMode(mode, agentId) {
      const s = store.getState()
      if (!s.conversationId) return
      const agent = mode === 'agent' ? (agentId ?? (s.agentId || s.agents?.agents[0]?.id || '')) : ''
      const before = { mode: s.mode, agentId: s.agentId }
      store.setState({ mode, agentId: agent || s.agentId })
      try {
        const meta = await bridge.chat.setMode(s.conversationId, mode, agent)
        if (isCurrent(meta.id)) store.setState({ meta })
        void actions.loadPreview()
      } catch (e) {
        store.setState(before)
        fail(e)
      }
    },

    async answerApproval(toolCallId, decision, reason = '') {
      const id = store.getState().conversationId
      if (!id || store.getState().answering.includes(toolCallId)) return false
      store.setState((s) => ({ answering: [...s.answering, toolCallId] }))
      try {
        await bridge.chat.answerApproval(id, toolCallId, decision, reason)
        return true
      } catch (e) {
        store.setState((s) => ({ answering: s.answering.filter((x) => x !== toolCallId) }))
        fail(e)
        return false
      }
    },

    async setApprovalMode(mode) {
      const id = store.getState().conversationId
      if (!id) return
      const before = store.getState().approvalMode
      store.setState({ approvalMode: { mode, source: 'conversation' } })
      try {
        const m = await bridge.chat.setApprovalMode(id, mode)
        if (isCurrent(id)) store.setState({ approvalMode: m })
      } catch (e) {
        if (isCurrent(id)) store.setState({ approvalMode: before })
        fail(e)
      }
    },

    async loadAgents() {
      try {
        store.setState({ agents: await bridge.chat.agents() })
      } catch (e) {
        store.setState({ agents: { packageId: '', agents: [], problem: backendText(toBridgeError(e)) } })
      }
    },

    async loadPreview() {
      const s = store.getState()
      if (!s.conversationId) return null
      const id = s.conversationId
      store.setState({ previewLoading: true })
      try {
        const preview = await bridge.chat.preview(id, s.mode, s.mode === 'agent' ? s.agentId : '')
        if (!isCurrent(id)) return null
        const usage = usageFromPreview(id, preview)
        usageByConversation.set(id, usage)
        store.setState({ preview, previewLoading: false, usage: store.getState().usage?.status === 'compressing' ? store.getState().usage : usage })
        return preview
      } catch (e) {
        // In Run mode without a run there is no next request to measure.
        if (isCurrent(id)) store.setState(toBridgeError(e).code === ErrorCodes.RunNotFound ? { previewLoading: false, preview: null, usage: null } : { previewLoading: false })
        return null
      }
    },

    async readToolResult(messageId) {
      const id = store.getState().conversationId
      if (!id) return null
      try {
        return await bridge.conversations.readToolResult(id, messageId)
      } catch (e) {
        fail(e)
        return null
      }
    },

    dismissError() {
      store.setState({ error: null })
    },
  }

  return Object.assign(store, { actions })
}
