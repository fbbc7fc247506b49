import type { Bridge, BridgeError, ProjectInfo, RecentProject } from '../bridge'
import { ErrorCodes, toBridgeError } from '../bridge'
import { createStore, type Store } from './store'

/** What is in flight: at most one project action at a time. */
export type ProjectBusy = null | 'open' | 'create' | 'choose' | 'close'

export interface ProjectState {
  current: ProjectInfo | null
  recent: RecentProject[]
  recentLoaded: boolean
  busy: ProjectBusy
  error: BridgeError | null
  /** A folder that looks like a project moved from another path, with the
   * question to ask (the backend's words); answered by answerMoved. */
  moved: { root: string; question: string } | null
  /** What opening decided about the folder's identity (a copy became a new
   * project, a moved one kept its conversations), said once. */
  notice: string | null
}

export interface ProjectActions {
  /** Loads the current project (if the Go side has one) and the recent list. */
  init(): Promise<void>
  refreshRecent(): Promise<void>
  open(root: string): Promise<boolean>
  /** Native folder picker, then open; false when cancelled or failed. */
  chooseAndOpen(): Promise<boolean>
  /** Native folder picker; null when cancelled or failed. */
  chooseFolder(): Promise<string | null>
  create(parentDir: string, name: string): Promise<boolean>
  forget(root: string): Promise<void>
  close(): Promise<void>
  dismissError(): void
  /** Answers the question of a moved project: keep its conversations, or
   * make the folder a new project. */
  answerMoved(keep: boolean): Promise<boolean>
  /** Leaves the question of a moved project unanswered (nothing is opened). */
  cancelMoved(): void
  dismissNotice(): void
}

export type ProjectStore = Store<ProjectState> & { actions: ProjectActions }

export function createProjectStore(bridge: Pick<Bridge, 'projects'>): ProjectStore {
  const api = bridge.projects
  const store = createStore<ProjectState>({
    current: null,
    recent: [],
    recentLoaded: false,
    busy: null,
    error: null,
    moved: null,
    notice: null,
  })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })

  /** Runs one action unless another is in flight; returns undefined when skipped. */
  async function exclusive<T>(busy: Exclude<ProjectBusy, null>, fn: () => Promise<T>): Promise<T | undefined> {
    if (store.getState().busy) return undefined
    store.setState({ busy, error: null })
    try {
      return await fn()
    } finally {
      store.setState({ busy: null })
    }
  }

  const actions: ProjectActions = {
    async init() {
      try {
        const current = await api.current()
        store.setState({ current })
      } catch (e) {
        fail(e)
      }
      await actions.refreshRecent()
    },

    async refreshRecent() {
      try {
        store.setState({ recent: await api.recent(), recentLoaded: true })
      } catch (e) {
        store.setState({ recentLoaded: true })
        fail(e)
      }
    },

    async open(root) {
      const path = root.trim()
      if (!path) return false
      const ok = await exclusive('open', async () => {
        store.setState({ moved: null })
        try {
          const current = await api.open(path)
          store.setState({ current, notice: current.notice || null, moved: null })
          return true
        } catch (e) {
          const err = toBridgeError(e)
          if (err.code === ErrorCodes.ProjectMoved) store.setState({ moved: { root: path, question: err.message } })
          else fail(err)
          return false
        }
      })
      void actions.refreshRecent()
      return ok ?? false
    },

    async chooseFolder() {
      const dir = await exclusive('choose', async () => {
        try {
          return await api.chooseFolder()
        } catch (e) {
          fail(e)
          return null
        }
      })
      return dir ?? null
    },

    async chooseAndOpen() {
      const dir = await actions.chooseFolder()
      return dir ? actions.open(dir) : false
    },

    async create(parentDir, name) {
      const ok = await exclusive('create', async () => {
        try {
          store.setState({ current: await api.create(parentDir.trim(), name), notice: null })
          return true
        } catch (e) {
          fail(e)
          return false
        }
      })
      if (ok) void actions.refreshRecent()
      return ok ?? false
    },

    async forget(root) {
      try {
        await api.forgetRecent(root)
      } catch (e) {
        fail(e)
      }
      await actions.refreshRecent()
    },

    async close() {
      await exclusive('close', async () => {
        try {
          await api.close()
          store.setState({ current: null, notice: null })
        } catch (e) {
          fail(e)
        }
      })
      await actions.refreshRecent()
    },

    dismissError() {
      store.setState({ error: null })
    },

    async answerMoved(keep) {
      const moved = store.getState().moved
      if (!moved) return false
      const ok = await exclusive('open', async () => {
        try {
          const current = await api.openMoved(moved.root, keep)
          store.setState({ current, notice: current.notice || null, moved: null })
          return true
        } catch (e) {
          store.setState({ moved: null })
          fail(e)
          return false
        }
      })
      void actions.refreshRecent()
      return ok ?? false
    },

    cancelMoved() {
      store.setState({ moved: null })
    },

    dismissNotice() {
      store.setState({ notice: null })
    },
  }

  return Object.assign(store, { actions })
}
