import { useSyncExternalStore } from 'react'

/** A minimal observable state container. Stores are plain objects built by
 * factories (createXStore(bridge)) so tests can build them with a fake bridge. */
export interface Store<S> {
  getState(): S
  setState(patch: Partial<S> | ((s: S) => Partial<S>)): void
  subscribe(listener: () => void): () => void
}

export function createStore<S extends object>(initial: S): Store<S> {
  let state = initial
  const listeners = new Set<() => void>()
  return {
    getState: () => state,
    setState(patch) {
      const next = typeof patch === 'function' ? patch(state) : patch
      state = { ...state, ...next }
      listeners.forEach((l) => l())
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}

/** Subscribes a component to the part of the state it selects. The selector
 * must return a value that stays identical (===) while its inputs do not change. */
export function useStore<S, T>(store: Store<S>, select: (s: S) => T): T {
  return useSyncExternalStore(
    store.subscribe,
    () => select(store.getState()),
    () => select(store.getState()),
  )
}
