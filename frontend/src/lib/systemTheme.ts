import { useSyncExternalStore } from 'react'

/** The desktop's light or dark preference, followed live. */
const darkQuery = '(prefers-color-scheme: dark)'

function media(): MediaQueryList | null {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(darkQuery) : null
}

function subscribe(onChange: () => void): () => void {
  const mq = media()
  if (!mq) return () => {}
  mq.addEventListener('change', onChange)
  return () => mq.removeEventListener('change', onChange)
}

const prefersDark = () => media()?.matches ?? false

/** True while the system prefers a dark appearance; re-renders when it changes. */
export function useSystemPrefersDark(): boolean {
  return useSyncExternalStore(subscribe, prefersDark, () => false)
}

/** The theme to draw: the chosen one, or the system's for "system". */
export function resolveTheme(choice: string, systemDark: boolean): 'light' | 'dark' {
  if (choice === 'light' || choice === 'dark') return choice
  return systemDark ? 'dark' : 'light'
}
