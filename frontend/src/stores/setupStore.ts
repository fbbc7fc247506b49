import type { Bridge, BridgeError, LocalServer } from '../bridge'
import { toBridgeError } from '../bridge'
import type { SettingsStore } from './settingsStore'
import { createStore, type Store } from './store'

export interface SetupState {
  /** The local servers found (null until looked for). */
  servers: LocalServer[] | null
  detecting: boolean
  /** The server and model just chosen with use(), once saved. */
  applied: { name: string; model: string } | null
  /** The base URL being saved by use(). */
  applying: string | null
  /** Where a new project is proposed (null until known, "" when unknown). */
  defaultLocation: string | null
  error: BridgeError | null
}

export interface SetupActions {
  /** Looks for local servers (again); resolves with what was found. */
  detect(): Promise<LocalServer[]>
  /** Saves the settings with this server and model as the LLM. */
  use(server: LocalServer, model: string): Promise<boolean>
  loadDefaultLocation(): Promise<string>
  /** Forgets the server just chosen (its confirmation is dismissed). */
  clearApplied(): void
  dismissError(): void
}

export type SetupStore = Store<SetupState> & { actions: SetupActions }

/** The first run: local OpenAI-compatible servers to offer when no LLM is
 * configured, and where new projects go. */
export function createSetupStore(bridge: Pick<Bridge, 'setup'>, settings: SettingsStore): SetupStore {
  const store = createStore<SetupState>({ servers: null, detecting: false, applied: null, applying: null, defaultLocation: null, error: null })
  let detecting: Promise<LocalServer[]> | null = null

  const actions: SetupActions = {
    detect() {
      if (detecting) return detecting
      store.setState({ detecting: true })
      detecting = bridge.setup
        .localServers()
        .catch(() => [] as LocalServer[]) // looking is a convenience: nothing found
        .then((servers) => {
          store.setState({ servers, detecting: false })
          return servers
        })
        .finally(() => {
          detecting = null
        })
      return detecting
    },

    async use(server, model) {
      let view = settings.getState().view
      if (!view) {
        await settings.actions.load()
        view = settings.getState().view
      }
      if (!view) return false
      store.setState({ applying: server.baseUrl, error: null })
      const s = view.settings
      const ok = await settings.actions.save({ ...s, llm: { ...s.llm, baseUrl: server.baseUrl, model } })
      store.setState({ applying: null, applied: ok ? { name: server.name, model } : null, error: ok ? null : settings.getState().error })
      return ok
    },

    async loadDefaultLocation() {
      const known = store.getState().defaultLocation
      if (known !== null) return known
      let loc = ''
      try {
        loc = await bridge.setup.defaultProjectLocation()
      } catch (e) {
        store.setState({ error: toBridgeError(e) })
      }
      store.setState({ defaultLocation: loc })
      return loc
    },

    clearApplied() {
      store.setState({ applied: null })
    },

    dismissError() {
      store.setState({ error: null })
    },
  }
  return Object.assign(store, { actions })
}
