import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { McpNotice } from './McpNotice'

describe('McpNotice', () => {
  it('says which servers failed to start and why, opens Settings → MCP, and goes away when dismissed or recovered', async () => {
    const fake = createFakeBridge({})
    const { stores } = renderWithStores(<McpNotice />, fake.bridge)
    expect(screen.queryByTestId('mcp-notice')).toBeNull()
    act(() => {
      fake.emit('mcp:status', { server: 'github', state: 'failed', toolCount: 0, error: 'headers.Authorization: the environment variable GITHUB_TOKEN is not set' })
      fake.emit('mcp:status', { server: 'db', state: 'failed', toolCount: 0, error: 'exit status 3' })
    })
    const rows = await screen.findAllByTestId('mcp-notice-row')
    expect(rows.map((r) => r.dataset.server)).toEqual(['db', 'github'])
    expect(rows[1]).toHaveTextContent('MCP server github failed to start, so its tools are not offered: headers.Authorization: the environment variable GITHUB_TOKEN is not set')

    await userEvent.click(within(rows[1]).getByTestId('mcp-notice-open'))
    expect(stores.settings.getState().tab).toBe('mcp')

    await userEvent.click(within(rows[0]).getByTestId('mcp-notice-dismiss'))
    expect(screen.getAllByTestId('mcp-notice-row').map((r) => r.dataset.server)).toEqual(['github'])
    act(() => fake.emit('mcp:status', { server: 'github', state: 'ready', toolCount: 4 }))
    expect(screen.queryByTestId('mcp-notice')).toBeNull()
  })

  it('shows a server that failed before the conversation was opened', async () => {
    const fake = createFakeBridge({
      mcpServers: [{ spec: { name: 'db', command: 'node', args: ['db.js'] }, source: 'settings', state: 'failed', error: 'exit status 3' }],
    })
    renderWithStores(<McpNotice />, fake.bridge)
    expect(await screen.findByTestId('mcp-notice-row')).toHaveTextContent('MCP server db failed to start, so its tools are not offered: exit status 3')
  })

  it('says when configured servers offer nothing because MCP tools are off, until dismissed', async () => {
    const fake = createFakeBridge({
      mcpServers: [
        { spec: { name: 'db', command: 'node', args: ['db.js'] }, source: 'settings', state: 'stopped' },
        { spec: { name: 'files', command: 'npx', args: ['fs'] }, source: 'settings', state: 'stopped' },
      ],
    })
    await fake.bridge.mcp.setOptions({ enabled: false, startOnOpen: false, callTimeoutSeconds: 120 })
    renderWithStores(<McpNotice />, fake.bridge)
    const row = await screen.findByTestId('mcp-notice-off')
    expect(row).toHaveTextContent('MCP tools are off in the settings: the model is offered none of the tools of the 2 configured servers.')
    await userEvent.click(within(row).getByTestId('mcp-notice-dismiss'))
    expect(screen.queryByTestId('mcp-notice')).toBeNull()
  })
})
