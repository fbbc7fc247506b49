import type { ActiveSkill, Bridge, BridgeError, SkillsView, Unsubscribe } from '../bridge'
import { subscribeAll, toBridgeError } from '../bridge'
import { createStore, type Store } from './store'

export interface SkillsState {
  /** Every skill found for the open project (null until loaded). */
  view: SkillsView | null
  loaded: boolean
  /** The conversation whose skills are followed. */
  conversationId: string | null
  /** The skills active in it, in activation order. */
  active: ActiveSkill[]
  /** The skill being activated or deactivated. */
  changing: string | null
  /** The composer's skill picker is open. */
  picker: boolean
  /** Why the listing failed. */
  error: BridgeError | null
  /** Why the last activation or deactivation (or skill command) was refused. */
  commandError: BridgeError | null
}

export interface SkillsActions {
  /** Follows skills:changed and the open conversation's changes; returns the unsubscribe. */
  start(): Unsubscribe
  /** Lists the project's skills again. */
  load(): Promise<void>
  /** Follows the skills of a conversation (null: none). */
  open(conversationId: string | null): Promise<void>
  refreshActive(): Promise<void>
  /** Activates a skill in the open conversation; false when refused (error says why). */
  activate(name: string): Promise<boolean>
  deactivate(name: string): Promise<boolean>
  setPicker(open: boolean): void
  /** Shows why a skill command cannot be run. */
  refuse(error: BridgeError): void
  dismissError(): void
  dismissCommandError(): void
}

export type SkillsStore = Store<SkillsState> & { actions: SkillsActions }

/** The open project's skills (Settings → Skills, the composer's picker)
 * and those active in the open conversation (the composer's chips). */
export function createSkillsStore(bridge: Pick<Bridge, 'skills' | 'events'>): SkillsStore {
  const api = bridge.skills
  const store = createStore<SkillsState>({ view: null, loaded: false, conversationId: null, active: [], changing: null, picker: false, error: null, commandError: null })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })
  const isCurrent = (id: string) => store.getState().conversationId === id
  let seq = 0

  const actions: SkillsActions = {
    start() {
      return subscribeAll(bridge.events, {
        'skills:changed': () => {
          void actions.load()
          void actions.refreshActive()
        },
        'conversation:changed': (c) => {
          if (!isCurrent(c.conversationId)) return
          if (c.kind === 'deleted') void actions.open(null)
          else if (c.streaming !== true) void actions.refreshActive()
        },
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

    async open(conversationId) {
      if (store.getState().conversationId === conversationId) return
      store.setState({ conversationId, active: [], changing: null, picker: false, commandError: null })
      await actions.refreshActive()
    },

    async refreshActive() {
      const id = store.getState().conversationId
      if (!id) return
      const mine = ++seq
      try {
        const active = await api.active(id)
        if (mine === seq && isCurrent(id)) store.setState({ active })
      } catch (e) {
        if (mine === seq && isCurrent(id)) fail(e)
      }
    },

    async activate(name) {
      return change(name, true)
    },

    async deactivate(name) {
      return change(name, false)
    },

    setPicker(open) {
      store.setState({ picker: open })
    },

    refuse(error) {
      store.setState({ commandError: error })
    },

    dismissError() {
      store.setState({ error: null })
    },

    dismissCommandError() {
      store.setState({ commandError: null })
    },
  }

  async function change(name: string, on: boolean): Promise<boolean> {
    const id = store.getState().conversationId
    if (!id || store.getState().changing) return false
    store.setState({ changing: name, commandError: null })
    try {
      const ch = on ? await api.activate(id, name) : await api.deactivate(id, name)
      if (isCurrent(id)) {
        seq++ // a refresh begun before is older than this answer
        store.setState({ active: ch.active ?? [], changing: null, picker: false })
      }
      return true
    } catch (e) {
      if (isCurrent(id)) store.setState({ changing: null, commandError: toBridgeError(e) })
      return false
    }
  }

  return { ...store, actions }
}
