import { screen } from '@testing-library/react'
import { App } from './App'
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
})
