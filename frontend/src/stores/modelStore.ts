import type { Bridge, BridgeError, ConversationMeta, EndpointModels } from '../bridge'
import { toBridgeError } from '../bridge'
import { createStore, type Store } from './store'

export interface ModelState {
  /** The endpoints and their models (null until listed). */
  endpoints: EndpointModels[] | null
  loading: boolean
  /** The choice being recorded ("endpoint/model"). */
  choosing: string | null
  /** The open conversation's choice: endpoint ("" the default) and model
   * ("" the endpoint's default). */
  conversationId: string | null
  endpoint: string
  model: string
  error: BridgeError | null
}

export interface ModelActions {
  /** Follows a conversation's choice (its record, when known). */
  open(meta: Pick<ConversationMeta, 'id' | 'endpoint' | 'model'> | null): void
  /** Lists the endpoints and their models (asks the servers). */
  load(): Promise<void>
  /** Chooses where the open conversation's answers come from; false when refused. */
  select(endpoint: string, model: string): Promise<boolean>
  dismissError(): void
}

export type ModelStore = Store<ModelState> & { actions: ModelActions }

/** The composer's model chip: the endpoints of the settings with their
 * models, and the open conversation's choice. */
export function createModelStore(bridge: Pick<Bridge, 'chat'>): ModelStore {
  const store = createStore<ModelState>({ endpoints: null, loading: false, choosing: null, conversationId: null, endpoint: '', model: '', error: null })
  let seq = 0
  const actions: ModelActions = {
    open(meta) {
      if (!meta) {
        store.setState({ conversationId: null, endpoint: '', model: '', error: null })
        return
      }
      store.setState({ conversationId: meta.id, endpoint: meta.endpoint ?? '', model: meta.model ?? '' })
    },
    async load() {
      const n = ++seq
      store.setState({ loading: true, error: null })
      try {
        const endpoints = await bridge.chat.models()
        if (n === seq) store.setState({ endpoints, loading: false })
      } catch (e) {
        if (n === seq) store.setState({ loading: false, error: toBridgeError(e) })
      }
    },
    async select(endpoint, model) {
      const id = store.getState().conversationId
      if (!id) return false
      store.setState({ choosing: `${endpoint}/${model}`, error: null })
      try {
        const meta = await bridge.chat.selectModel(id, endpoint, model)
        if (store.getState().conversationId === id) store.setState({ endpoint: meta.endpoint ?? '', model: meta.model ?? '' })
        return true
      } catch (e) {
        store.setState({ error: toBridgeError(e) })
        return false
      } finally {
        store.setState({ choosing: null })
      }
    },
    dismissError() {
      store.setState({ error: null })
    },
  }
  return Object.assign(store, { actions })
}
