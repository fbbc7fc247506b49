import { render } from '@testing-library/react'
import type { ReactElement } from 'react'
import type { Bridge } from '../bridge'
import { StoresProvider, createStores } from '../stores'

/** Renders ui with fresh stores built on the given (fake) bridge. */
export function renderWithStores(ui: ReactElement, bridge: Bridge) {
  const stores = createStores(bridge)
  return { stores, ...render(<StoresProvider stores={stores}>{ui}</StoresProvider>) }
}
