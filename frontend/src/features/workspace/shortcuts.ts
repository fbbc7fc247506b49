/** The window's keys beyond the ones each screen handles: what a key press
 * asks for, and whether the focus is in a place that takes text. */

export type Shortcut = 'switcher' | 'find' | 'sheet'

/** Whether an element takes typed text (a `?` typed there is text). */
export function isTextField(el: Element | null): boolean {
  if (!el) return false
  if (el instanceof HTMLTextAreaElement) return true
  if (el instanceof HTMLSelectElement) return false
  if (el instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(el.type)
  return (el as HTMLElement).isContentEditable === true
}

type Key = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>

/** What a key press asks for: Ctrl/Cmd+K the conversation switcher,
 * Ctrl/Cmd+F search in the conversation, `?` the sheet of shortcuts (not
 * while typing); null for any other key. */
export function shortcutOf(e: Key, focused: Element | null): Shortcut | null {
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey
  const k = e.key.toLowerCase()
  if (mod && k === 'k') return 'switcher'
  if (mod && k === 'f') return 'find'
  if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTextField(focused)) return 'sheet'
  return null
}

/** The shortcuts the sheet lists: the keys (Mod is Ctrl, or ⌘ on a Mac)
 * and the catalogue key of what they do. */
export const shortcutList: readonly { keys: string[]; what: string }[] = [
  { keys: ['Mod', 'K'], what: 'keys.switcher' },
  { keys: ['Mod', 'F'], what: 'keys.find' },
  { keys: ['Mod', 'N'], what: 'keys.newConv' },
  { keys: ['Mod', 'B'], what: 'keys.sidebar' },
  { keys: ['Enter'], what: 'keys.send' },
  { keys: ['Shift', 'Enter'], what: 'keys.newLine' },
  { keys: ['Esc'], what: 'keys.stop' },
  { keys: ['Mod', '='], what: 'keys.zoomIn' },
  { keys: ['Mod', '−'], what: 'keys.zoomOut' },
  { keys: ['Mod', '0'], what: 'keys.zoomReset' },
  { keys: ['?'], what: 'keys.sheet' },
]

/** Whether the keys are a Mac's (⌘ for Mod). */
export function isMac(platform: string = globalThis.navigator?.platform ?? ''): boolean {
  return /mac|iphone|ipad/i.test(platform)
}

/** Conversations whose title holds every word of a query (any case), the
 * most recently active first; all of them for an empty query. */
export function matchConversations<T extends { title: string; lastActiveAt?: string }>(list: readonly T[], query: string): T[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  return list
    .filter((c) => {
      const title = (c.title || '').toLowerCase()
      return words.every((w) => title.includes(w))
    })
    .sort((a, b) => (b.lastActiveAt ?? '').localeCompare(a.lastActiveAt ?? ''))
}
