import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { applyLanguage } from '../i18n'
import { AppBoundary } from './AppBoundary'

let failing = true
function Screen() {
  const [n] = useState(1)
  if (failing) throw new Error('the chunk of the workspace could not be loaded')
  return <p data-testid="drawn">drawn {n}</p>
}

afterEach(() => {
  failing = true
  applyLanguage('en')
})

describe('AppBoundary', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}))

  it('says the screen failed, with the error under Details, instead of a blank window; Try again draws it anew', async () => {
    render(
      <AppBoundary>
        <Screen />
      </AppBoundary>,
    )
    expect(screen.getByTestId('app-error')).toHaveTextContent('This screen could not be drawn')
    expect(screen.getByText('Details').closest('details')).toHaveTextContent('the chunk of the workspace could not be loaded')
    failing = false
    await userEvent.click(screen.getByTestId('app-error-retry'))
    expect(screen.getByTestId('drawn')).toHaveTextContent('drawn 1')
  })

  it('speaks the language in use', () => {
    applyLanguage('zh-CN')
    render(
      <AppBoundary>
        <Screen />
      </AppBoundary>,
    )
    expect(screen.getByTestId('app-error')).toHaveTextContent('无法显示这个界面')
    expect(screen.getByTestId('app-error-reload')).toHaveTextContent('重新加载窗口')
  })
})
