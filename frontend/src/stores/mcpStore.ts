import type { Bridge, BridgeError, McpImport, McpOptions, McpParsed, McpServerSpec, McpView, Unsubscribe } from '../bridge'
import { toBridgeError } from '../bridge'
import { createStore, type Store } from './store'

export interface McpPageState {
  view: McpView | null
  loaded: boolean
  /** What is being done to a server, by name ("restarting", "approving"…). */
  busy: Record<string, string>
  /** The MCP switches are being saved. */
  savingOptions: boolean
  /** A pasted block as read (not saved yet), and the outcome of adding it. */
  parsed: McpParsed | null
  parsing: boolean
  importing: boolean
  imported: McpImport | null
  /** The end of a server's stderr log, by name, once asked for. */
  logs: Record<string, string>
  error: BridgeError | null
  /** Servers of the open project that failed to start and so offer the model
   * no tools, with the reason (from mcp:status, while watchFailures runs);
   * the composer shows them until they recover or are dismissed. */
  failed: Record<string, string>
  /** How many configured servers offer no tools because MCP tools are off in
   * the settings (0 when they are on; while watchFailures runs). */
  offCount: number
  /** The user hid the notice about MCP tools being off. */
  offDismissed: boolean
}

export interface McpActions {
  /** Follows mcp:status events while the page is shown; returns the unsubscribe. */
  start(): Unsubscribe
  /** Follows mcp:status events to keep `failed`; returns the unsubscribe. */
  watchFailures(): Unsubscribe
  /** Hides a failure until the server fails again; "" hides the notice that
   * MCP tools are off. */
  dismissFailure(name: string): void
  load(): Promise<void>
  /** Adds (previous "") or replaces a settings server; false when it failed (see error). */
  save(previous: string, spec: McpServerSpec): Promise<boolean>
  remove(name: string): Promise<boolean>
  setEnabled(name: string, enabled: boolean): Promise<boolean>
  setOptions(o: McpOptions): Promise<boolean>
  approve(name: string): Promise<boolean>
  revoke(name: string): Promise<boolean>
  restart(name: string): Promise<boolean>
  loadLog(name: string): Promise<void>
  hideLog(name: string): void
  /** Reads a pasted block (nothing is saved). */
  parse(text: string): Promise<void>
  /** Saves the servers of a pasted block. */
  importBlock(text: string): Promise<boolean>
  clearPaste(): void
  dismissError(): void
}

export type McpStore = Store<McpPageState> & { actions: McpActions }

/** Quiet time before a burst of status events becomes one re-read. */
export const mcpRefreshDelayMs = 100

/** Settings → MCP: the servers with their live status, and what the page
 * changes. onSettingsChanged runs after the MCP switches were saved (the
 * general settings form must read them again). */
export function createMcpStore(bridge: Pick<Bridge, 'mcp' | 'events'>, onSettingsChanged: () => void = () => {}): McpStore {
  const api = bridge.mcp
  const store = createStore<McpPageState>({
    view: null,
    loaded: false,
    busy: {},
    savingOptions: false,
    parsed: null,
    parsing: false,
    importing: false,
    imported: null,
    logs: {},
    error: null,
    failed: {},
    offCount: 0,
    offDismissed: false,
  })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })
  const setBusy = (name: string, what: string | null) =>
    store.setState((s) => {
      const busy = { ...s.busy }
      if (what) busy[name] = what
      else delete busy[name]
      return { busy }
    })
  /** Runs a change of one server: the page that comes back replaces the shown one. */
  const change = async (name: string, what: string, fn: () => Promise<McpView>): Promise<boolean> => {
    setBusy(name, what)
    store.setState({ error: null })
    try {
      store.setState({ view: await fn(), loaded: true })
      return true
    } catch (e) {
      fail(e)
      return false
    } finally {
      setBusy(name, null)
    }
  }

  const actions: McpActions = {
    start() {
      let timer: ReturnType<typeof setTimeout> | undefined
      const off = bridge.events.on('mcp:status', () => {
        clearTimeout(timer)
        timer = setTimeout(() => void actions.load(), mcpRefreshDelayMs)
      })
      return () => {
        clearTimeout(timer)
        off()
      }
    },

    watchFailures() {
      // Servers that failed before the watch began come from the page (which
      // starts nothing); an event that arrives first wins over it. The page
      // is read again when the configuration changes (event server "").
      const seen = new Set<string>()
      let live = true
      const read = (seed: boolean) =>
        void api
          .list()
          .then((v) => {
            if (!live) return
            const offCount = v.enabled ? 0 : v.servers.filter((x) => x.state !== 'disabled').length
            const before = seed ? v.servers.filter((x) => x.state === 'failed' && !seen.has(x.name)) : []
            store.setState((s) => ({
              offCount,
              failed: before.length ? { ...Object.fromEntries(before.map((x) => [x.name, x.error || 'it failed to start'])), ...s.failed } : s.failed,
            }))
          })
          .catch(() => {})
      read(true)
      const off = bridge.events.on('mcp:status', (ev) => {
        seen.add(ev.server)
        if (!ev.server) read(false)
        store.setState((s) => {
          // "" : the configuration changed; its servers report again as they start.
          if (!ev.server) return Object.keys(s.failed).length ? { failed: {} } : {}
          if (ev.state !== 'failed' && s.failed[ev.server] === undefined) return {}
          const failed = { ...s.failed }
          if (ev.state === 'failed') failed[ev.server] = ev.error || 'it failed to start'
          else delete failed[ev.server]
          return { failed }
        })
      })
      return () => {
        live = false
        off()
      }
    },

    dismissFailure(name) {
      if (!name) {
        store.setState({ offDismissed: true })
        return
      }
      store.setState((s) => {
        const failed = { ...s.failed }
        delete failed[name]
        return { failed }
      })
    },

    async load() {
      try {
        store.setState({ view: await api.list(), loaded: true })
      } catch (e) {
        store.setState({ loaded: true })
        fail(e)
      }
    },

    save: (previous, spec) => change(previous || spec.name, 'saving', () => api.save(previous, spec)),
    remove: (name) => change(name, 'removing', () => api.remove(name)),
    setEnabled: (name, enabled) => change(name, enabled ? 'enabling' : 'disabling', () => api.setEnabled(name, enabled)),
    approve: (name) => change(name, 'approving', () => api.approve(name)),
    revoke: (name) => change(name, 'revoking', () => api.revoke(name)),
    restart: async (name) => {
      const ok = await change(name, 'starting', () => api.restart(name))
      if (ok && store.getState().logs[name] !== undefined) await actions.loadLog(name)
      return ok
    },

    async setOptions(o) {
      store.setState({ savingOptions: true, error: null })
      try {
        store.setState({ view: await api.setOptions(o), savingOptions: false })
        onSettingsChanged()
        return true
      } catch (e) {
        store.setState({ savingOptions: false })
        fail(e)
        return false
      }
    },

    async loadLog(name) {
      try {
        const text = await api.log(name)
        store.setState((s) => ({ logs: { ...s.logs, [name]: text } }))
      } catch (e) {
        fail(e)
      }
    },

    hideLog(name) {
      store.setState((s) => {
        const logs = { ...s.logs }
        delete logs[name]
        return { logs }
      })
    },

    async parse(text) {
      if (!text.trim()) {
        store.setState({ parsed: null, imported: null })
        return
      }
      store.setState({ parsing: true, imported: null, error: null })
      try {
        store.setState({ parsed: await api.parseBlock(text), parsing: false })
      } catch (e) {
        store.setState({ parsing: false })
        fail(e)
      }
    },

    async importBlock(text) {
      store.setState({ importing: true, error: null })
      try {
        const imported = await api.importBlock(text)
        store.setState({ importing: false, imported, parsed: null })
        await actions.load()
        return true
      } catch (e) {
        store.setState({ importing: false })
        fail(e)
        return false
      }
    },

    clearPaste() {
      store.setState({ parsed: null, imported: null })
    },

    dismissError() {
      store.setState({ error: null })
    },
  }
  return Object.assign(store, { actions })
}
