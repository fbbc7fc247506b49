import type { AttachmentInput, Bridge, BridgeError, McpComposedPrompt, McpComposerOffer, McpElicitation, McpElicitationAction, McpSignOutResult, Unsubscribe } from '../bridge'
import { subscribeAll, toBridgeError } from '../bridge'
import { createStore, type Store } from './store'

export interface McpComposerState {
  /** The ready servers' prompts and resources (null until listed, and
   * again after a server changed state). */
  offer: McpComposerOffer | null
  loading: boolean
  /** Why the last listing, prompt or resource failed. */
  error: BridgeError | null
  /** The forms servers wait for, oldest first. */
  elicitations: McpElicitation[]
  /** The form whose answer is being sent. */
  answering: string | null
  /** The remote servers a sign-in token is kept for (null until listed). */
  signedIn: string[] | null
  /** The server being signed out of, and what signing out did, by server. */
  signingOut: string | null
  signedOut: Record<string, McpSignOutResult>
}

export interface McpComposerActions {
  /** Follows the forms servers ask for and the servers' changes; returns the unsubscribe. */
  start(): Unsubscribe
  /** Lists the prompts and resources unless listed already (force: again). */
  load(force?: boolean): Promise<void>
  /** Fills in a prompt; null when it failed (error says why). */
  prompt(server: string, name: string, args: Record<string, string>): Promise<McpComposedPrompt | null>
  /** Reads a resource as an attachment; null when it failed. */
  attach(server: string, uri: string): Promise<AttachmentInput | null>
  /** Answers a form; false when refused (error says why). */
  answer(id: string, action: McpElicitationAction, content: Record<string, unknown>): Promise<boolean>
  dismissError(): void
  /** Lists the servers signed in to. */
  loadSignedIn(): Promise<void>
  /** Signs out of a remote server; false when it failed (error says why). */
  signOut(name: string): Promise<boolean>
}

export type McpComposerStore = Store<McpComposerState> & { actions: McpComposerActions }

/** The composer's MCP side: the servers' prompts (slash commands) and
 * resources (the "@" picker), and the forms servers ask the user to fill in
 * during a call (cards in the conversation). */
export function createMcpComposerStore(bridge: Pick<Bridge, 'mcp' | 'events'>): McpComposerStore {
  const api = bridge.mcp
  const store = createStore<McpComposerState>({ offer: null, loading: false, error: null, elicitations: [], answering: null, signedIn: null, signingOut: null, signedOut: {} })
  const fail = (e: unknown) => store.setState({ error: toBridgeError(e) })
  let seq = 0

  const actions: McpComposerActions = {
    start() {
      void api
        .elicitations()
        .then((list) => store.setState((s) => ({ elicitations: [...list, ...s.elicitations.filter((e) => !list.some((l) => l.id === e.id))] })))
        .catch(() => undefined)
      return subscribeAll(bridge.events, {
        'mcp:elicitation': (e) => store.setState((s) => ({ elicitations: [...s.elicitations.filter((x) => x.id !== e.id), e] })),
        'mcp:elicitation-done': (e) => store.setState((s) => ({ elicitations: s.elicitations.filter((x) => x.id !== e.id), answering: s.answering === e.id ? null : s.answering })),
        'mcp:status': () => {
          seq++
          store.setState({ offer: null, loading: false })
        },
      })
    },

    async load(force) {
      if (!force && (store.getState().offer || store.getState().loading)) return
      const mine = ++seq
      store.setState({ loading: true })
      try {
        const offer = await api.composer()
        if (mine === seq) store.setState({ offer, loading: false })
      } catch (e) {
        if (mine === seq) store.setState({ loading: false })
        fail(e)
      }
    },

    async prompt(server, name, args) {
      try {
        store.setState({ error: null })
        return await api.prompt(server, name, args)
      } catch (e) {
        fail(e)
        return null
      }
    },

    async attach(server, uri) {
      try {
        store.setState({ error: null })
        return await api.attachResource(server, uri)
      } catch (e) {
        fail(e)
        return null
      }
    },

    async answer(id, action, content) {
      store.setState({ answering: id, error: null })
      try {
        await api.answerElicitation(id, action, content)
        store.setState((s) => ({ elicitations: s.elicitations.filter((x) => x.id !== id), answering: null }))
        return true
      } catch (e) {
        store.setState((s) => ({ answering: null, elicitations: s.elicitations.filter((x) => x.id !== id || toBridgeError(e).code !== 'E_NOT_FOUND') }))
        fail(e)
        return false
      }
    },

    dismissError: () => store.setState({ error: null }),

    async loadSignedIn() {
      try {
        store.setState({ signedIn: await api.signedIn() })
      } catch (e) {
        fail(e)
      }
    },

    async signOut(name) {
      store.setState({ signingOut: name, error: null })
      try {
        const r = await api.signOut(name)
        store.setState((s) => ({ signingOut: null, signedOut: { ...s.signedOut, [name]: r }, signedIn: (s.signedIn ?? []).filter((n) => n !== name) }))
        return true
      } catch (e) {
        store.setState({ signingOut: null })
        fail(e)
        return false
      }
    },
  }
  return Object.assign(store, { actions })
}
