import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { warmUpMarkdownView } from './components/Markdown'
import { createWailsBridge } from './bridge'
import { StoresProvider, createStores } from './stores'
import './styles/tokens.css'
import './styles/base.css'
import './styles/controls.css'

const stores = createStores(createWailsBridge())

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoresProvider stores={stores}>
      <App />
    </StoresProvider>
  </StrictMode>,
)

// Once the start screen is up and the page is idle, prepare what the first
// conversation's messages need (see warmUpMarkdownView).
const whenIdle = (fn: () => void) =>
  typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(fn, { timeout: 2000 }) : window.setTimeout(fn, 500)
whenIdle(() => warmUpMarkdownView())
