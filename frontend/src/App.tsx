import { useEffect } from 'react'
import { SettingsScreen } from './features/settings/SettingsScreen'
import { StartScreen } from './features/start/StartScreen'
import { WorkspaceScreen } from './features/workspace/WorkspaceScreen'
import { useStore, useStores } from './stores'

/** Picks the screen (the start screen until a project is open), applies the
 * theme, and shows Settings over any screen. */
export function App() {
  const stores = useStores()
  const current = useStore(stores.projects, (s) => s.current)
  const settingsOpen = useStore(stores.settings, (s) => s.open)
  const theme = useStore(stores.settings, (s) => s.theme)

  useEffect(() => {
    void stores.appInfo.actions.load()
    void stores.projects.actions.init()
    void stores.settings.actions.load()
  }, [stores])

  useEffect(() => {
    document.documentElement.dataset.theme = theme
  }, [theme])

  return (
    <>
      {current ? <WorkspaceScreen key={current.id} project={current} /> : <StartScreen />}
      {settingsOpen && <SettingsScreen />}
    </>
  )
}
