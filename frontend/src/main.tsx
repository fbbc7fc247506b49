import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { AppBoundary } from './components/AppBoundary'
import { createWailsBridge } from './bridge'
import { applyLanguage, resolveLanguage } from './i18n'
import { StoresProvider, createStores } from './stores'
import './styles/tokens.css'
import './styles/base.css'
import './styles/controls.css'

const stores = createStores(createWailsBridge())
// the first screen already in the chosen language
applyLanguage(resolveLanguage(stores.display.getState().language))

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoresProvider stores={stores}>
      <AppBoundary>
        <App />
      </AppBoundary>
    </StoresProvider>
  </StrictMode>,
)

// The start screen loads only what it needs. Once it is up and the page is
// idle, fetch the workspace (with the markdown pipeline) and prepare what the
// first conversation's messages need (see warmUpMarkdownView), so opening a
// project waits for neither.
const whenIdle = (fn: () => void) =>
  typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(fn, { timeout: 2000 }) : window.setTimeout(fn, 500)
whenIdle(() => {
  void import('./features/workspace/WorkspaceScreen')
  void import('./components/Markdown').then((m) => whenIdle(() => m.warmUpMarkdownView()))
})
