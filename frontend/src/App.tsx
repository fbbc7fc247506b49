import { lazy, Suspense, useEffect, useLayoutEffect } from 'react'
import { StartScreen } from './features/start/StartScreen'
import { applyLanguage, resolveLanguage, systemTags } from './i18n'
import { resolveTheme, useSystemPrefersDark } from './lib/systemTheme'
import { useStore, useStores } from './stores'

// Screens the start screen does not need load when first shown (main.tsx
// fetches them once the start screen is idle).
const WorkspaceScreen = lazy(() => import('./features/workspace/WorkspaceScreen').then((m) => ({ default: m.WorkspaceScreen })))
const SettingsScreen = lazy(() => import('./features/settings/SettingsScreen').then((m) => ({ default: m.SettingsScreen })))

/** Picks the screen (the start screen until a project is open), applies the
 * theme (the system's, live, for "system"), and shows Settings over any
 * screen. */
export function App() {
  const stores = useStores()
  const current = useStore(stores.projects, (s) => s.current)
  const settingsOpen = useStore(stores.settings, (s) => s.open)
  const choice = useStore(stores.settings, (s) => s.theme)
  const systemDark = useSystemPrefersDark()
  const theme = resolveTheme(choice, systemDark)

  useEffect(() => {
    void stores.appInfo.actions.load()
    void stores.projects.actions.init()
    void stores.settings.actions.load()
  }, [stores])

  // before the screen is painted: no flash of the other theme
  useLayoutEffect(() => {
    const root = document.documentElement
    root.dataset.theme = theme
    root.dataset.themeChoice = choice
  }, [theme, choice])

  // Zoom (Ctrl/Cmd + = − 0) and the answers' text size, on every screen.
  const zoom = useStore(stores.display, (s) => s.zoom)
  const textSize = useStore(stores.display, (s) => s.textSize)
  useLayoutEffect(() => {
    const root = document.documentElement
    // Scaled, the root must still fill the window exactly: WebKit scales
    // percentages of the window with the zoom but not viewport units.
    root.style.setProperty('zoom', zoom === 1 ? '' : String(zoom))
    root.style.setProperty('width', zoom === 1 ? '' : '100vw')
    root.style.setProperty('height', zoom === 1 ? '' : '100vh')
    root.style.setProperty('overflow', zoom === 1 ? '' : 'hidden')
    root.dataset.zoom = String(Math.round(zoom * 100))
    if (textSize === 'default') delete root.dataset.textSize
    else root.dataset.textSize = textSize
  }, [zoom, textSize])
  // The language: the one chosen, or the system's (read again when it changes).
  const languageChoice = useStore(stores.display, (s) => s.language)
  useLayoutEffect(() => {
    const apply = () => applyLanguage(resolveLanguage(languageChoice, systemTags()))
    apply()
    if (languageChoice !== 'system') return
    window.addEventListener('languagechange', apply)
    return () => window.removeEventListener('languagechange', apply)
  }, [languageChoice])
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const key = zoomKey(e)
      if (!key) return
      e.preventDefault()
      const d = stores.display.actions
      if (key === 'in') d.zoomIn()
      else if (key === 'out') d.zoomOut()
      else d.zoomReset()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [stores])

  return (
    <>
      {current ? (
        <Suspense fallback={null}>
          <WorkspaceScreen key={current.id} project={current} />
        </Suspense>
      ) : (
        <StartScreen />
      )}
      {settingsOpen && (
        <Suspense fallback={null}>
          <SettingsScreen />
        </Suspense>
      )}
    </>
  )
}

/** The zoom a key asks for: Ctrl/Cmd with = or + (in), − (out), 0 (back to 100 %). */
export function zoomKey(e: Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'altKey' | 'key' | 'code'>): 'in' | 'out' | 'reset' | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null
  if (e.key === '=' || e.key === '+' || e.code === 'NumpadAdd') return 'in'
  if (e.key === '-' || e.key === '_' || e.code === 'NumpadSubtract') return 'out'
  if (e.key === '0' || e.code === 'Numpad0') return 'reset'
  return null
}
