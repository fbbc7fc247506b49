import type { ArtifactView, Bridge, BridgeError, RunLogView, RunProgress, RunStatus, Unsubscribe, WidgetAnswer } from '../bridge'
import { ErrorCodes, subscribeAll, toBridgeError } from '../bridge'
import type { ChatStore } from './chatStore'
import { createStore, type Store } from './store'
import { t } from '../i18n'

export interface RunState {
  conversationId: string | null
  /** The conversation's latest run (null: it has none). */
  run: RunStatus | null
  loaded: boolean
  /** The end of the run's execution log. */
  log: RunLogView | null
  panelOpen: boolean
  /** The form to start another run is shown while a run exists. */
  newRun: boolean
  /** The workflow and the active agent ("" = each node's agent) a new run starts with. */
  workflowId: string
  agentId: string
  starting: boolean
  /** The widget whose answer is being sent. */
  answering: string | null
  /** The artifact shown read-only, and the one being read. */
  artifact: ArtifactView | null
  artifactLoading: string | null
  error: BridgeError | null
}

export interface RunActions {
  /** Follows progress, stream and change events; returns the unsubscribe. */
  start(): Unsubscribe
  open(conversationId: string | null): Promise<void>
  /** Re-reads the run status and its log now. */
  refresh(): Promise<void>
  choose(pick: { workflowId?: string; agentId?: string }): void
  setNewRun(on: boolean): void
  /** Starts a run of the chosen workflow in the open conversation. */
  startRun(message: string): Promise<boolean>
  answerWidget(runId: string, widgetId: string, answer: WidgetAnswer): Promise<boolean>
  setPanelOpen(open: boolean): void
  openArtifact(path: string): Promise<void>
  closeArtifact(): void
  dismissError(): void
}

export type RunStore = Store<RunState> & { actions: RunActions }

/** Lines of the execution log the panel keeps. */
export const runLogLines = 300
/** Quiet time before a burst of events becomes one re-read. */
export const runRefreshDelayMs = 120

/** A progress event applied to the run the panel shows. */
export function applyProgress(run: RunStatus | null, p: RunProgress): RunStatus {
  const same = run?.runId === p.runId
  return {
    ...(same ? run : {}),
    ...p,
    nodes: p.nodes ?? (same ? run?.nodes : undefined),
    lastError: p.lastError,
    pendingWidget: same && p.phase !== 'running' ? run?.pendingWidget : undefined,
    active: p.phase === 'running' || (same ? !!run?.active : false),
  } as RunStatus
}

/** The workflow run of the open conversation: its progress (nodes, phase,
 * artifacts, pending question), its execution log, starting runs and
 * answering ui.ask_user widgets. Run turns stream into the chat store like
 * replies; this store marks the conversation as streaming when it starts one. */
export function createRunStore(bridge: Pick<Bridge, 'runs' | 'events'>, chat?: Pick<ChatStore, 'getState' | 'setState'>): RunStore {
  const api = bridge.runs
  const store = createStore<RunState>({
    conversationId: null,
    run: null,
    loaded: false,
    log: null,
    panelOpen: true,
    newRun: false,
    workflowId: '',
    agentId: '',
    starting: false,
    answering: null,
    artifact: null,
    artifactLoading: null,
    error: null,
  })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })
  const isCurrent = (id: string) => store.getState().conversationId === id
  const markStreaming = (on: boolean) => chat?.setState(on ? { streaming: true, error: null, live: [] } : { streaming: false })

  let timer: ReturnType<typeof setTimeout> | undefined
  const scheduleRefresh = () => {
    clearTimeout(timer)
    timer = setTimeout(() => void actions.refresh(), runRefreshDelayMs)
  }
  let seq = 0

  const actions: RunActions = {
    start() {
      const off = subscribeAll(bridge.events, {
        'runs:progressUpdated': (p) => {
          if (!isCurrent(p.conversationId)) return
          store.setState((s) => ({ run: applyProgress(s.run, p) }))
          scheduleRefresh()
        },
        'llm:stream-tool-end': (p) => {
          if (isCurrent(p.conversationId) && store.getState().run) scheduleRefresh()
        },
        'conversation:changed': (c) => {
          if (!isCurrent(c.conversationId) || c.kind === 'deleted') return
          if (c.streaming === false) void actions.refresh()
          else if (c.streaming === true) store.setState((s) => ({ run: s.run ? { ...s.run, active: true } : s.run }))
        },
      })
      return () => {
        clearTimeout(timer)
        off()
      }
    },

    async open(id) {
      clearTimeout(timer)
      seq++
      store.setState({ conversationId: id, run: null, loaded: !id, log: null, newRun: false, starting: false, answering: null, artifact: null, artifactLoading: null, error: null })
      if (id) await actions.refresh()
    },

    async refresh() {
      const id = store.getState().conversationId
      if (!id) return
      const mine = ++seq
      try {
        const run = await api.conversationRun(id)
        if (mine !== seq || !isCurrent(id)) return
        store.setState({ run, loaded: true })
        if (!run) {
          store.setState({ log: null })
          return
        }
        const log = await api.log(run.runId, runLogLines)
        if (mine !== seq || !isCurrent(id)) return
        store.setState({ log })
      } catch (e) {
        if (mine !== seq || !isCurrent(id)) return
        store.setState({ loaded: true })
        fail(e)
      }
    },

    choose(pick) {
      store.setState((s) => ({ workflowId: pick.workflowId ?? s.workflowId, agentId: pick.agentId ?? s.agentId }))
    },

    setNewRun(on) {
      store.setState({ newRun: on, error: null })
    },

    async startRun(message) {
      const s = store.getState()
      if (!s.conversationId || s.starting || chat?.getState().streaming) return false
      if (!s.workflowId) {
        store.setState({ error: toBridgeError({ code: ErrorCodes.InvalidRequest, message: t('run.chooseWorkflow') }) })
        return false
      }
      const id = s.conversationId
      store.setState({ starting: true, error: null })
      markStreaming(true)
      try {
        const run = await api.start({ conversationId: id, workflowId: s.workflowId, agentId: s.agentId, message: message.trim() })
        if (!isCurrent(id)) return true
        store.setState((st) => ({
          starting: false,
          newRun: false,
          panelOpen: true,
          run: { ...run, complete: false, nodes: st.run?.runId === run.runId ? st.run.nodes : undefined, active: true } as RunStatus,
          log: null,
        }))
        scheduleRefresh()
        return true
      } catch (e) {
        store.setState({ starting: false })
        markStreaming(false)
        fail(e)
        return false
      }
    },

    async answerWidget(runId, widgetId, answer) {
      if (store.getState().answering || chat?.getState().streaming) return false
      store.setState({ answering: widgetId, error: null })
      markStreaming(true)
      try {
        await api.answerWidget(runId, widgetId, answer)
        store.setState((s) => ({ answering: null, run: s.run?.runId === runId ? { ...s.run, pendingWidget: undefined, active: true } : s.run }))
        return true
      } catch (e) {
        store.setState({ answering: null })
        markStreaming(false)
        fail(e)
        void actions.refresh()
        return false
      }
    },

    setPanelOpen(open) {
      store.setState({ panelOpen: open })
    },

    async openArtifact(path) {
      store.setState({ artifactLoading: path, error: null })
      try {
        const artifact = await api.readArtifact(path)
        store.setState({ artifact, artifactLoading: null })
      } catch (e) {
        store.setState({ artifactLoading: null })
        fail(e)
      }
    },

    closeArtifact() {
      store.setState({ artifact: null })
    },

    dismissError() {
      store.setState({ error: null })
    },
  }
  return Object.assign(store, { actions })
}
