import { act, fireEvent, screen } from '@testing-library/react'
import { App, zoomKey } from './App'
import { createFakeBridge } from './test/fakeBridge'
import { renderWithStores } from './test/render'

describe('App', () => {
  it('shows the workspace when the Go side already has a project open', async () => {
    const fake = createFakeBridge({
      folders: ['/home/me/alpha'],
      current: { id: 'pid-1', name: 'alpha', root: '/home/me/alpha', dataDir: '/home/x/projects/pid-1', activePackageId: '' },
    })
    renderWithStores(<App />, fake.bridge)
    expect(await screen.findByTestId('workspace-screen')).toBeInTheDocument()
    expect(screen.getByTestId('workspace-project-id')).toHaveTextContent('pid-1')
    expect(screen.getByText('/home/x/projects/pid-1')).toBeInTheDocument()
  })

  it.each([
    [{ ctrlKey: true, key: '=' }, 'in'],
    [{ ctrlKey: true, key: '+' }, 'in'],
    [{ metaKey: true, key: '=' }, 'in'],
    [{ ctrlKey: true, key: '-' }, 'out'],
    [{ ctrlKey: true, key: '0' }, 'reset'],
    [{ ctrlKey: true, code: 'NumpadAdd', key: '+' }, 'in'],
    [{ key: '=' }, null],
    [{ ctrlKey: true, altKey: true, key: '=' }, null],
    [{ ctrlKey: true, key: 'b' }, null],
  ])('reads %o as zoom %s', (e, want) => {
    expect(zoomKey({ ctrlKey: false, metaKey: false, altKey: false, code: '', ...e })).toBe(want)
  })

  it('zooms the page with Ctrl + = − 0, keeps it, and hides the conversations with Ctrl+B', async () => {
    localStorage.clear()
    const fake = createFakeBridge({
      folders: ['/home/me/alpha'],
      current: { id: 'pid-1', name: 'alpha', root: '/home/me/alpha', dataDir: '/home/x/projects/pid-1', activePackageId: '' },
    })
    renderWithStores(<App />, fake.bridge)
    await screen.findByTestId('workspace-screen')
    const root = document.documentElement
    act(() => void fireEvent.keyDown(window, { key: '=', ctrlKey: true }))
    act(() => void fireEvent.keyDown(window, { key: '=', ctrlKey: true }))
    expect(root.dataset.zoom).toBe('125')
    expect(JSON.parse(localStorage.getItem('crewagent.display')!).zoom).toBe(1.25)
    act(() => void fireEvent.keyDown(window, { key: '-', ctrlKey: true }))
    expect(root.dataset.zoom).toBe('110')
    act(() => void fireEvent.keyDown(window, { key: '0', ctrlKey: true }))
    expect(root.dataset.zoom).toBe('100')

    expect(screen.getByTestId('sidebar')).toBeInTheDocument()
    act(() => void fireEvent.keyDown(window, { key: 'b', ctrlKey: true }))
    expect(screen.queryByTestId('sidebar')).toBeNull()
    expect(screen.getByTestId('sidebar-toggle')).toHaveAttribute('aria-expanded', 'false')
    fireEvent.click(screen.getByTestId('sidebar-toggle'))
    expect(screen.getByTestId('sidebar')).toBeInTheDocument()
    expect(screen.getByTestId('sidebar-toggle')).toHaveAccessibleName('Hide the conversation list')
    localStorage.clear()
  })
})
