import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { createWailsBridge } from './bridge'
import { StoresProvider, createStores } from './stores'
import './styles/theme.css'

const stores = createStores(createWailsBridge())

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoresProvider stores={stores}>
      <App />
    </StoresProvider>
  </StrictMode>,
)
