import type { Bridge } from '../bridge'
import { createStore, type Store } from './store'

export interface AppInfoState {
  version: string
  home: string
}

export type AppInfoStore = Store<AppInfoState> & {
  actions: {
    load(): Promise<void>
    /** Opens an http, https or mailto link in the system browser; false when refused. */
    openExternal(url: string): boolean
  }
}

/** Version and runtime home, shown on the start screen. */
export function createAppInfoStore(bridge: Pick<Bridge, 'system'>): AppInfoStore {
  const store = createStore<AppInfoState>({ version: '', home: '' })
  return Object.assign(store, {
    actions: {
      async load() {
        const [version, home] = await Promise.all([
          bridge.system.version().catch(() => ''),
          bridge.system.homeDir().catch(() => ''),
        ])
        store.setState({ version, home })
      },
      openExternal: (url: string) => bridge.system.openExternal(url),
    },
  })
}
