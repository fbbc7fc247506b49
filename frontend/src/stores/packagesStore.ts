import type { ActivePackageView, Bridge, BridgeError, PackageImport, PackagesView, ProjectInfo } from '../bridge'
import { toBridgeError } from '../bridge'
import { createStore, type Store } from './store'

export interface PackagesState {
  view: PackagesView | null
  loaded: boolean
  /** The open project's package with its workflows and agents (null until loaded). */
  active: ActivePackageView | null
  importing: boolean
  /** The outcome of the last import: the installed package or the problems. */
  lastImport: PackageImport | null
  /** The package being made active. */
  activating: string | null
  /** The package being removed. */
  removing: string | null
  /** The bundled demo package is being installed again. */
  installingDemo: boolean
  error: BridgeError | null
}

export interface PackagesActions {
  load(): Promise<void>
  loadActive(): Promise<void>
  /** Imports the file or folder at path; the outcome is in lastImport. A
   * package whose id and version are installed already comes back with
   * `exists` and is installed only by importPackage(path, true), once the
   * user confirmed the replacement. */
  importPackage(path: string, replace?: boolean): Promise<PackageImport | null>
  /** The native file dialog, then the import; null when cancelled or failed. */
  chooseAndImport(): Promise<PackageImport | null>
  setActive(packageId: string): Promise<boolean>
  /** Uninstalls a package; the list, the project and its active package follow. */
  remove(packageId: string): Promise<boolean>
  /** Installs the bundled demo package again. */
  installDemo(): Promise<boolean>
  clearImport(): void
  dismissError(): void
}

export type PackagesStore = Store<PackagesState> & { actions: PackagesActions }

/** Installed packages, the import and its validation report, and the open
 * project's active package. onProjectChanged receives the project after its
 * active package changed. */
export function createPackagesStore(bridge: Pick<Bridge, 'packages'>, onProjectChanged: (p: ProjectInfo) => void = () => {}): PackagesStore {
  const api = bridge.packages
  const store = createStore<PackagesState>({
    view: null,
    loaded: false,
    active: null,
    importing: false,
    lastImport: null,
    activating: null,
    removing: null,
    installingDemo: false,
    error: null,
  })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })

  const actions: PackagesActions = {
    async load() {
      try {
        store.setState({ view: await api.list(), loaded: true })
      } catch (e) {
        store.setState({ loaded: true })
        fail(e)
      }
    },

    async loadActive() {
      try {
        store.setState({ active: await api.active() })
      } catch (e) {
        store.setState({ active: null })
        fail(e)
      }
    },

    async importPackage(path, replace = false) {
      const p = path.trim()
      if (!p || store.getState().importing) return null
      store.setState({ importing: true, lastImport: null, error: null })
      try {
        const res = replace ? await api.importReplacing(p) : await api.importPackage(p)
        store.setState({ importing: false, lastImport: res })
        if (res.ok) await actions.load()
        return res
      } catch (e) {
        store.setState({ importing: false })
        fail(e)
        return null
      }
    },

    async chooseAndImport() {
      let path: string | null
      try {
        path = await api.chooseFile()
      } catch (e) {
        fail(e)
        return null
      }
      return path ? actions.importPackage(path) : null
    },

    async setActive(packageId) {
      store.setState({ activating: packageId, error: null })
      try {
        const info = await api.setActive(packageId)
        store.setState((s) => ({ activating: null, view: s.view ? { ...s.view, activePackageId: info.activePackageId } : s.view }))
        onProjectChanged(info)
        await actions.loadActive()
        return true
      } catch (e) {
        store.setState({ activating: null })
        fail(e)
        return false
      }
    },

    async remove(packageId) {
      if (store.getState().removing) return false
      store.setState({ removing: packageId, error: null })
      try {
        const info = await api.remove(packageId)
        store.setState((s) => ({ removing: null, lastImport: s.lastImport?.package?.id === packageId ? null : s.lastImport }))
        if (info) onProjectChanged(info)
        await actions.load()
        if (info) await actions.loadActive()
        return true
      } catch (e) {
        store.setState({ removing: null })
        fail(e)
        return false
      }
    },

    async installDemo() {
      if (store.getState().installingDemo) return false
      store.setState({ installingDemo: true, error: null })
      try {
        await api.installDemo()
        store.setState({ installingDemo: false })
        await actions.load()
        return true
      } catch (e) {
        store.setState({ installingDemo: false })
        fail(e)
        return false
      }
    },

    clearImport() {
      store.setState({ lastImport: null })
    },

    dismissError() {
      store.setState({ error: null })
    },
  }
  return Object.assign(store, { actions })
}
