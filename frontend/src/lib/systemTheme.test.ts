import { act, renderHook } from '@testing-library/react'
import { resolveTheme, useSystemPrefersDark } from './systemTheme'

/** A matchMedia whose answer the test changes, telling its listeners. */
function fakeMedia(dark: boolean) {
  const listeners = new Set<() => void>()
  const mq = {
    get matches() {
      return dark
    },
    addEventListener: (_: string, l: () => void) => listeners.add(l),
    removeEventListener: (_: string, l: () => void) => listeners.delete(l),
  }
  vi.stubGlobal('matchMedia', (q: string) => {
    expect(q).toBe('(prefers-color-scheme: dark)')
    return mq
  })
  return {
    set(v: boolean) {
      dark = v
      listeners.forEach((l) => l())
    },
    listeners,
  }
}

afterEach(() => vi.unstubAllGlobals())

describe('system theme', () => {
  it('resolves a choice to the theme drawn', () => {
    expect(resolveTheme('light', true)).toBe('light')
    expect(resolveTheme('dark', false)).toBe('dark')
    expect(resolveTheme('system', true)).toBe('dark')
    expect(resolveTheme('system', false)).toBe('light')
    expect(resolveTheme('anything else', false)).toBe('light')
  })

  it('follows the system preference live and stops listening when unmounted', () => {
    const media = fakeMedia(false)
    const { result, unmount } = renderHook(() => useSystemPrefersDark())
    expect(result.current).toBe(false)
    act(() => media.set(true))
    expect(result.current).toBe(true)
    act(() => media.set(false))
    expect(result.current).toBe(false)
    unmount()
    expect(media.listeners.size).toBe(0)
  })

  it('is light where the page cannot ask', () => {
    vi.stubGlobal('matchMedia', undefined)
    const { result } = renderHook(() => useSystemPrefersDark())
    expect(result.current).toBe(false)
  })
})
