import { lazy, Suspense, useEffect, useLayoutEffect } from 'react'
import { StartScreen } from './features/start/StartScreen'
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
