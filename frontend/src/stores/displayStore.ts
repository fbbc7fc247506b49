import { languageChoices, type LanguageChoice } from '../i18n'
import { createStore, type Store } from './store'

/** The size of the answers' text (Settings → Appearance). */
export type TextSize = 'small' | 'default' | 'large' | 'larger'
export const textSizes: readonly TextSize[] = ['small', 'default', 'large', 'larger']

/** The zoom steps of Ctrl/Cmd + = and −, as in a browser. */
export const zoomLevels = [0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2] as const

export interface DisplayState {
  /** The page zoom (1 = 100 %). */
  zoom: number
  textSize: TextSize
  /** The conversation sidebar is hidden (Ctrl/Cmd+B). */
  sidebarHidden: boolean
  /** The language of the interface: the system's, or one chosen in Settings. */
  language: LanguageChoice
  /** A desktop notification when a reply, a run or a created conversation
   * finishes while the window is not focused (Settings → General). */
  notify: boolean
}

export type DisplayStore = Store<DisplayState> & {
  actions: {
    zoomIn(): void
    zoomOut(): void
    zoomReset(): void
    setTextSize(size: TextSize): void
    toggleSidebar(): void
    setLanguage(language: LanguageChoice): void
    setNotify(on: boolean): void
  }
}

/** Where the choices are kept: the window's own storage (they are about this
 * screen, not the runtime's settings). */
export const displayKey = 'crewagent.display'

const defaults: DisplayState = { zoom: 1, textSize: 'default', sidebarHidden: false, language: 'system', notify: true }

/** The choices read back (anything unknown or broken gives the default). */
export function parseDisplay(raw: string | null): DisplayState {
  try {
    const v = JSON.parse(raw ?? '{}') as Partial<DisplayState>
    return {
      zoom: zoomLevels.includes(v.zoom as (typeof zoomLevels)[number]) ? (v.zoom as number) : defaults.zoom,
      textSize: textSizes.includes(v.textSize as TextSize) ? (v.textSize as TextSize) : defaults.textSize,
      sidebarHidden: v.sidebarHidden === true,
      language: languageChoices.includes(v.language as LanguageChoice) ? (v.language as LanguageChoice) : defaults.language,
      notify: v.notify !== false,
    }
  } catch {
    return { ...defaults }
  }
}

/** The next zoom step up (+1) or down (−1) from z, within the levels. */
export function stepZoom(z: number, dir: 1 | -1): number {
  if (dir > 0) return zoomLevels.find((l) => l > z + 0.001) ?? zoomLevels[zoomLevels.length - 1]
  return [...zoomLevels].reverse().find((l) => l < z - 0.001) ?? zoomLevels[0]
}

/** Zoom, text size, the sidebar and the language, kept in `storage` (localStorage). */
export function createDisplayStore(storage: Pick<Storage, 'getItem' | 'setItem'> | null = globalThis.localStorage ?? null): DisplayStore {
  let initial = defaults
  try {
    initial = parseDisplay(storage?.getItem(displayKey) ?? null)
  } catch {
    // storage refused: the defaults, not kept
  }
  const store = createStore<DisplayState>(initial)
  const set = (patch: Partial<DisplayState>) => {
    store.setState(patch)
    try {
      storage?.setItem(displayKey, JSON.stringify(store.getState()))
    } catch {
      // storage full or refused: the choice holds until the window closes
    }
  }
  return Object.assign(store, {
    actions: {
      zoomIn: () => set({ zoom: stepZoom(store.getState().zoom, 1) }),
      zoomOut: () => set({ zoom: stepZoom(store.getState().zoom, -1) }),
      zoomReset: () => set({ zoom: 1 }),
      setTextSize: (textSize: TextSize) => set({ textSize }),
      toggleSidebar: () => set({ sidebarHidden: !store.getState().sidebarHidden }),
      setLanguage: (language: LanguageChoice) => set({ language }),
      setNotify: (notify: boolean) => set({ notify }),
    },
  })
}
