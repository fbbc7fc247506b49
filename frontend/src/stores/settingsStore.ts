import type { Bridge, BridgeError, ConnectionResult, Settings, SettingsView } from '../bridge'
import { toBridgeError } from '../bridge'
import { createStore, type Store } from './store'

/** The theme chosen in Settings: light, dark, or whatever the system
 * prefers (followed live; see lib/systemTheme). */
export type Theme = 'light' | 'dark' | 'system'
/** A page of the settings screen, by id ("general", "packages", …: the
 * screen lists them). */
export type SettingsTab = string

export interface SettingsState {
  view: SettingsView | null
  loaded: boolean
  open: boolean
  tab: SettingsTab
  saving: boolean
  testing: boolean
  test: ConnectionResult | null
  /** The theme chosen: the saved one, or the one being tried in the form
   * ("system" until settings are read). */
  theme: Theme
  /** Set after a successful save, until the form changes again. */
  saved: boolean
  error: BridgeError | null
}

export interface SettingsActions {
  load(): Promise<void>
  /** Opens the settings screen (on the given page). */
  show(tab?: SettingsTab): void
  setTab(tab: SettingsTab): void
  hide(): void
  save(s: Settings): Promise<boolean>
  testConnection(s: Settings): Promise<ConnectionResult | null>
  /** Applies a theme at once (saved with the form). */
  previewTheme(t: Theme): void
  markDirty(): void
  dismissError(): void
}

export type SettingsStore = Store<SettingsState> & { actions: SettingsActions }

const themes: readonly string[] = ['light', 'dark', 'system'] satisfies Theme[]
const themeOf = (v: SettingsView | null): Theme => {
  const t = v?.settings.theme ?? 'system'
  return themes.includes(t) ? (t as Theme) : 'system'
}

/** settings.json as the settings screen edits it, and the theme in use. */
export function createSettingsStore(bridge: Pick<Bridge, 'settings'>): SettingsStore {
  const store = createStore<SettingsState>({
    view: null,
    loaded: false,
    open: false,
    tab: 'general',
    saving: false,
    testing: false,
    test: null,
    theme: 'system',
    saved: false,
    error: null,
  })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })

  const actions: SettingsActions = {
    async load() {
      try {
        const view = await bridge.settings.get()
        store.setState({ view, loaded: true, theme: themeOf(view) })
      } catch (e) {
        store.setState({ loaded: true })
        fail(e)
      }
    },
    show(tab = 'general') {
      store.setState({ open: true, tab, test: null, saved: false, error: null })
      void actions.load()
    },
    setTab(tab) {
      store.setState({ tab })
    },
    hide() {
      // An unsaved theme is put back.
      store.setState((s) => ({ open: false, theme: themeOf(s.view), test: null, error: null }))
    },
    async save(s) {
      store.setState({ saving: true, error: null, saved: false })
      try {
        const view = await bridge.settings.save(s)
        store.setState({ view, saving: false, saved: true, theme: themeOf(view) })
        return true
      } catch (e) {
        store.setState({ saving: false })
        fail(e)
        return false
      }
    },
    async testConnection(s) {
      store.setState({ testing: true, test: null })
      try {
        const test = await bridge.settings.testConnection(s)
        store.setState({ testing: false, test })
        return test
      } catch (e) {
        store.setState({ testing: false })
        fail(e)
        return null
      }
    },
    previewTheme(t) {
      store.setState({ theme: t })
    },
    markDirty() {
      if (store.getState().saved) store.setState({ saved: false })
    },
    dismissError() {
      store.setState({ error: null })
    },
  }
  return Object.assign(store, { actions })
}
