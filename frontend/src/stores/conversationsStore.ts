import type { Bridge, BridgeError, ConversationMeta, RestoreResult, RewindResult, RewindWhat, SearchHit } from '../bridge'
import { toBridgeError } from '../bridge'
import { ancestors } from '../lib/conversationTree'
import { createStore, type Store } from './store'

export interface ConversationsState {
  list: ConversationMeta[]
  loaded: boolean
  /** The conversation shown in the main area. */
  selectedId: string | null
  query: string
  /** Results for query (null while there is no query or no answer yet). */
  hits: SearchHit[] | null
  searching: boolean
  /** Conversations whose created conversations are hidden in the tree. */
  collapsed: string[]
  /** Conversations answering right now (a task runs in them), by id. */
  answering: Record<string, true>
  error: BridgeError | null
}

export interface ConversationsActions {
  /** Loads the list and starts following conversation:changed. Returns the unsubscribe. */
  start(): () => void
  refresh(): Promise<void>
  select(id: string | null): void
  create(): Promise<ConversationMeta | null>
  rename(id: string, title: string): Promise<boolean>
  remove(id: string): Promise<boolean>
  fork(id: string, at: { messageId?: string; checkpoint?: string }): Promise<ConversationMeta | null>
  checkpoint(id: string, name: string): Promise<boolean>
  /** What going back to before a user message would restore and keep (null on error). */
  planRewind(id: string, toMessageId: string): Promise<RestoreResult | null>
  /** Goes back to before a user message; a fork it makes is opened. */
  rewind(id: string, toMessageId: string, what: RewindWhat, forcePaths: string[]): Promise<RewindResult | null>
  /** What undoing one tool call's change would restore and keep (null on error). */
  planUndo(id: string, toolCallId: string): Promise<RestoreResult | null>
  /** Puts back the files one tool call changed. */
  undoChange(id: string, toolCallId: string, forcePaths: string[]): Promise<RestoreResult | null>
  /** Sets the search text; the search runs after a short pause. */
  setQuery(q: string): void
  /** Hides or shows the conversations one created. */
  toggle(id: string): void
  dismissError(): void
}

export type ConversationsStore = Store<ConversationsState> & { actions: ConversationsActions }

/** Delay before a typed search runs, and before a burst of change events
 * turns into one reload. */
export const searchDelayMs = 200
export const refreshDelayMs = 60

const byActivity = (a: ConversationMeta, b: ConversationMeta) =>
  a.lastActiveAt < b.lastActiveAt ? 1 : a.lastActiveAt > b.lastActiveAt ? -1 : a.id < b.id ? -1 : 1

/** The conversation sidebar: the list sorted by last activity, selection,
 * search, and the changes that touch the list. */
export function createConversationsStore(bridge: Pick<Bridge, 'conversations' | 'events'>): ConversationsStore {
  const api = bridge.conversations
  const store = createStore<ConversationsState>({
    list: [],
    loaded: false,
    selectedId: null,
    query: '',
    hits: null,
    searching: false,
    collapsed: [],
    answering: {},
    error: null,
  })
  const setAnswering = (id: string, on: boolean) =>
    store.setState((s) => {
      if (!!s.answering[id] === on) return {}
      const answering = { ...s.answering }
      if (on) answering[id] = true
      else delete answering[id]
      return { answering }
    })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })
  let searchTimer: ReturnType<typeof setTimeout> | undefined
  let refreshTimer: ReturnType<typeof setTimeout> | undefined
  let searchSeq = 0
  let refreshSeq = 0

  async function runSearch() {
    const q = store.getState().query.trim()
    const seq = ++searchSeq
    if (!q) {
      store.setState({ hits: null, searching: false })
      return
    }
    store.setState({ searching: true })
    try {
      const hits = await api.search(q)
      if (seq === searchSeq) store.setState({ hits, searching: false })
    } catch (e) {
      if (seq === searchSeq) store.setState({ searching: false })
      fail(e)
    }
  }

  const scheduleRefresh = () => {
    clearTimeout(refreshTimer)
    refreshTimer = setTimeout(() => void actions.refresh(), refreshDelayMs)
  }

  const actions: ConversationsActions = {
    start() {
      void actions.refresh()
      const off = bridge.events.on('conversation:changed', (c) => {
        if (c.kind === 'deleted' && store.getState().selectedId === c.conversationId) store.setState({ selectedId: null })
        if (c.streaming !== undefined) setAnswering(c.conversationId, c.streaming)
        scheduleRefresh()
      })
      const offStart = bridge.events.on('task:started', (t) => {
        setAnswering(t.conversationId, true)
        // A conversation that hands a turn over shows where it went.
        if (t.parentId) store.setState((s) => ({ collapsed: s.collapsed.filter((id) => id !== t.parentId) }))
      })
      const offEnd = [bridge.events.on('task:complete', (t) => setAnswering(t.conversationId, false)), bridge.events.on('task:aborted', (t) => setAnswering(t.conversationId, false))]
      return () => {
        off()
        offStart()
        offEnd.forEach((f) => f())
        clearTimeout(refreshTimer)
        clearTimeout(searchTimer)
      }
    },

    async refresh() {
      const seq = ++refreshSeq
      try {
        const list = [...(await api.list())].sort(byActivity)
        if (seq !== refreshSeq) return
        store.setState({ list, loaded: true })
        if (store.getState().query.trim()) void runSearch()
      } catch (e) {
        store.setState({ loaded: true })
        fail(e)
      }
    },

    select(id) {
      store.setState((s) => {
        // Opening a created conversation shows the branch it sits in.
        if (!id) return { selectedId: id }
        const up = new Set(ancestors(s.list, id))
        return { selectedId: id, collapsed: s.collapsed.filter((c) => !up.has(c)) }
      })
    },

    toggle(id) {
      store.setState((s) => ({ collapsed: s.collapsed.includes(id) ? s.collapsed.filter((c) => c !== id) : [...s.collapsed, id] }))
    },

    async create() {
      try {
        const meta = await api.create('')
        store.setState((s) => ({ list: [meta, ...s.list.filter((c) => c.id !== meta.id)], selectedId: meta.id, query: '', hits: null }))
        return meta
      } catch (e) {
        fail(e)
        return null
      }
    },

    async rename(id, title) {
      const t = title.trim()
      if (!t) return false
      try {
        const meta = await api.rename(id, t)
        store.setState((s) => ({ list: s.list.map((c) => (c.id === id ? meta : c)) }))
        return true
      } catch (e) {
        fail(e)
        return false
      }
    },

    async remove(id) {
      try {
        await api.remove(id)
        store.setState((s) => ({
          list: s.list.filter((c) => c.id !== id),
          hits: s.hits?.filter((h) => h.conversationId !== id) ?? null,
          selectedId: s.selectedId === id ? null : s.selectedId,
        }))
        return true
      } catch (e) {
        fail(e)
        return false
      }
    },

    async fork(id, at) {
      try {
        const meta = await api.fork(id, at)
        store.setState((s) => ({ list: [meta, ...s.list.filter((c) => c.id !== meta.id)].sort(byActivity), selectedId: meta.id }))
        return meta
      } catch (e) {
        fail(e)
        return null
      }
    },

    async planRewind(id, to) {
      try {
        const r = await api.rewind(id, to, { what: 'files', dryRun: true })
        return r.files ?? { restored: [], kept: [], unrestorable: [] }
      } catch (e) {
        fail(e)
        return null
      }
    },

    async rewind(id, to, what, forcePaths) {
      try {
        const r = await api.rewind(id, to, { what, forcePaths })
        const forkId = r.newConversationId
        if (forkId) {
          const meta = await api.get(forkId)
          store.setState((s) => ({ list: [meta, ...s.list.filter((c) => c.id !== meta.id)].sort(byActivity), selectedId: meta.id }))
        }
        return r
      } catch (e) {
        fail(e)
        return null
      }
    },

    async planUndo(id, callId) {
      try {
        return await api.undoChange(id, callId, { dryRun: true })
      } catch (e) {
        // Nothing left to undo is an answer, not a failure.
        if (toBridgeError(e).code === 'E_NOT_FOUND') return { restored: [], kept: [], unrestorable: [] }
        fail(e)
        return null
      }
    },

    async undoChange(id, callId, forcePaths) {
      try {
        return await api.undoChange(id, callId, { forcePaths })
      } catch (e) {
        fail(e)
        return null
      }
    },

    async checkpoint(id, name) {
      const n = name.trim()
      if (!n) return false
      try {
        await api.checkpoint(id, n)
        const meta = await api.get(id)
        store.setState((s) => ({ list: s.list.map((c) => (c.id === id ? meta : c)) }))
        return true
      } catch (e) {
        fail(e)
        return false
      }
    },

    setQuery(q) {
      store.setState({ query: q })
      clearTimeout(searchTimer)
      if (!q.trim()) {
        searchSeq++
        store.setState({ hits: null, searching: false })
        return
      }
      searchTimer = setTimeout(() => void runSearch(), searchDelayMs)
    },

    dismissError() {
      store.setState({ error: null })
    },
  }

  return Object.assign(store, { actions })
}
