import { act, renderHook } from '@testing-library/react'
import { createStore, useStore } from './store'

describe('createStore', () => {
  it('merges patches and notifies subscribers until they unsubscribe', () => {
    const store = createStore({ a: 1, b: 'x' })
    const seen: number[] = []
    const off = store.subscribe(() => seen.push(store.getState().a))
    store.setState({ a: 2 })
    store.setState((s) => ({ a: s.a + 1 }))
    off()
    store.setState({ a: 10 })
    expect(seen).toEqual([2, 3])
    expect(store.getState()).toEqual({ a: 10, b: 'x' })
  })

  it('useStore re-renders with the selected value', () => {
    const store = createStore({ count: 0, other: 'o' })
    const { result } = renderHook(() => useStore(store, (s) => s.count))
    expect(result.current).toBe(0)
    act(() => store.setState({ count: 5 }))
    expect(result.current).toBe(5)
  })
})
