import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { App } from '../../App'
import type { FakeMcpServer } from '../../test/fakeMcp'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'

const project = { id: 'p1', name: 'alpha', root: '/home/me/alpha', dataDir: '/d', activePackageId: '' }
const servers: FakeMcpServer[] = [
  {
    spec: { name: 'everything', command: 'node', args: ['server.js', 'stdio'], env: { API_TOKEN: 'tok-0123456789' } },
    source: 'settings',
    state: 'ready',
    tools: [
      { name: 'echo', description: 'Echoes back the input string' },
      { name: 'get-sum', description: 'Returns the sum of two numbers' },
    ],
  },
  { spec: { name: 'broken', command: 'node', args: ['-e', 'x'] }, source: 'settings', state: 'failed', error: 'exited with status 3 during the handshake', stderrTail: 'line 1\ncannot reach the database at db:5432\n', log: 'started\ncannot reach the database at db:5432\n' },
  { spec: { name: 'proj', command: 'npx', args: ['-y', 'proj-server'] }, source: 'project', file: '.vscode/mcp.json', state: 'pending-approval' },
]

describe('Settings → MCP, a project server', () => {
  it('shows the env it would run with as written, and what its loader variables do', async () => {
    const tidy: FakeMcpServer = { spec: { name: 'tidy', command: 'python3', args: ['-m', 'tidy'], env: { PYTHONPATH: './vendor' } }, source: 'project', state: 'pending-approval' }
    const fake = createFakeBridge({ folders: [project.root], current: project, conversations: [], mcpServers: [tidy] })
    await openMcp(fake)
    await waitFor(() => expect(screen.getAllByTestId('mcp-server')).toHaveLength(1))
    expect(within(card('tidy')).getByTestId('mcp-env')).toHaveTextContent('PYTHONPATH=./vendor')
    expect(within(card('tidy')).getByTestId('mcp-warning')).toHaveTextContent('Careful: env PYTHONPATH makes python load modules')
  })
})

async function openMcp(fake: ReturnType<typeof createFakeBridge>) {
  renderWithStores(<App />, fake.bridge)
  await screen.findByTestId('workspace-screen')
  await userEvent.click(screen.getByTestId('open-settings'))
  await userEvent.click(await screen.findByTestId('settings-tab-mcp'))
  return screen.findByTestId('mcp-panel')
}

const card = (name: string) => screen.getAllByTestId('mcp-server').find((c) => c.dataset.name === name)!

describe('Settings → MCP', () => {
  it('names a server whose tools are over the bounds of one server, and says why they are not offered', async () => {
    const big: FakeMcpServer = {
      spec: { name: 'huge', command: 'node', args: ['huge.js'] },
      source: 'settings',
      state: 'ready',
      tools: [{ name: 'a', description: 'x' }],
      withheld: 'MCP server "huge" lists 5000 tools, more than the 128 one server may bring into a request (settings tools.mcp.maxToolsPerServer)',
    }
    const fake = createFakeBridge({ folders: [project.root], current: project, conversations: [], mcpServers: [servers[0], big] })
    await openMcp(fake)
    await waitFor(() => expect(screen.getAllByTestId('mcp-server')).toHaveLength(2))
    expect(within(card('huge')).getByTestId('mcp-withheld')).toHaveTextContent('MCP server "huge" lists 5000 tools')
    expect(within(card('everything')).queryByTestId('mcp-withheld')).toBeNull()
  })

  it('shows each server with its status: tools, the failure with its stderr and log, and what a project server would run', async () => {
    const fake = createFakeBridge({ folders: [project.root], current: project, conversations: [], mcpServers: servers })
    await openMcp(fake)
    await waitFor(() => expect(screen.getAllByTestId('mcp-server')).toHaveLength(3))

    const ev = card('everything')
    expect(ev.dataset.state).toBe('ready')
    expect(within(ev).getByTestId('mcp-status')).toHaveTextContent('Ready · 2 tools')
    expect(within(ev).getByTestId('mcp-env')).toHaveTextContent('API_TOKEN=••••6789')
    expect(ev).not.toHaveTextContent('tok-0123456789')
    await userEvent.click(within(ev).getByTestId('mcp-tools-toggle'))
    expect(within(ev).getAllByTestId('mcp-tool').map((t) => t.dataset.name)).toEqual(['mcp__everything__echo', 'mcp__everything__get-sum'])
    expect(within(ev).getAllByTestId('mcp-tool')[1]).toHaveTextContent('Returns the sum of two numbers')

    const br = card('broken')
    expect(within(br).getByTestId('mcp-error')).toHaveTextContent('exited with status 3 during the handshake')
    expect(within(br).getByTestId('mcp-stderr')).toHaveTextContent('cannot reach the database at db:5432')
    await userEvent.click(within(br).getByTestId('mcp-log-button'))
    expect(await within(br).findByTestId('mcp-log')).toHaveTextContent('started')
    expect(fake.bridge.mcp.log).toHaveBeenCalledWith('broken')

    const pr = card('proj')
    expect(within(pr).getByTestId('mcp-status')).toHaveTextContent('Waiting for approval')
    expect(within(pr).getByTestId('mcp-command')).toHaveTextContent('$ npx -y proj-server')
    expect(within(pr).getByTestId('mcp-source')).toHaveTextContent('.vscode/mcp.json')
    expect(within(pr).getByTestId('mcp-approval')).toHaveTextContent('came with the project’s .vscode/mcp.json')
    expect(within(pr).getByTestId('mcp-approval')).toHaveTextContent('came with the project')
    expect(within(pr).queryByTestId('mcp-restart')).toBeNull()
    expect(within(pr).queryByTestId('mcp-edit')).toBeNull()
    await userEvent.click(within(pr).getByTestId('mcp-approve'))
    await waitFor(() => expect(card('proj').dataset.state).toBe('stopped'))
    await userEvent.click(within(card('proj')).getByTestId('mcp-restart'))
    await waitFor(() => expect(card('proj').dataset.state).toBe('ready'))
    expect(fake.bridge.mcp.approve).toHaveBeenCalledWith('proj')
  })

  it('turns MCP on, says when it is off, and refreshes on status events', async () => {
    const fake = createFakeBridge({ folders: [project.root], current: project, conversations: [], mcpServers: servers })
    fake.bridge.mcp.setOptions({ enabled: false, startOnOpen: false, callTimeoutSeconds: 120 })
    await openMcp(fake)
    expect(await screen.findByTestId('mcp-off')).toHaveTextContent('MCP tools are off')
    await userEvent.click(screen.getByTestId('mcp-enabled'))
    await waitFor(() => expect(screen.queryByTestId('mcp-off')).toBeNull())
    expect(fake.bridge.mcp.setOptions).toHaveBeenLastCalledWith({ enabled: true, startOnOpen: false, callTimeoutSeconds: 120 })
    await userEvent.clear(screen.getByTestId('mcp-call-timeout'))
    await userEvent.type(screen.getByTestId('mcp-call-timeout'), '45{Enter}')
    expect(fake.bridge.mcp.setOptions).toHaveBeenLastCalledWith({ enabled: true, startOnOpen: false, callTimeoutSeconds: 45 })

    fake.mcpServers.get('broken')!.state = 'starting'
    fake.emit('mcp:status', { server: 'broken', state: 'starting', toolCount: 0 })
    await waitFor(() => expect(card('broken').dataset.state).toBe('starting'))
    expect(within(card('broken')).getByTestId('mcp-status')).toHaveTextContent('Starting…')
  })

  it('adds a server in the form, edits it with its secret still masked, disables and removes it', async () => {
    const fake = createFakeBridge({ folders: [project.root], current: project, conversations: [] })
    await openMcp(fake)
    expect(await screen.findByTestId('mcp-empty')).toBeInTheDocument()
    await userEvent.click(screen.getByTestId('mcp-add'))
    await userEvent.click(screen.getByTestId('mcp-form-save'))
    expect(screen.getByTestId('mcp-form-problems')).toHaveTextContent('Give the server a name.')
    await userEvent.type(screen.getByTestId('mcp-form-name'), 'files')
    await userEvent.type(screen.getByTestId('mcp-form-command'), 'npx')
    await userEvent.type(screen.getByTestId('mcp-form-args'), '-y{Enter}@modelcontextprotocol/server-filesystem{Enter}/home/me/notes')
    await userEvent.type(screen.getByTestId('mcp-form-env'), 'NOTES_TOKEN=abcdefgh12345678')
    await userEvent.click(screen.getByTestId('mcp-form-save'))
    await waitFor(() => expect(screen.queryByTestId('mcp-form')).toBeNull())
    expect(fake.bridge.mcp.save).toHaveBeenLastCalledWith('', {
      name: 'files',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'],
      env: { NOTES_TOKEN: 'abcdefgh12345678' },
      disabled: undefined,
    })
    expect(within(card('files')).getByTestId('mcp-env')).toHaveTextContent('NOTES_TOKEN=••••5678')

    await userEvent.click(within(card('files')).getByTestId('mcp-edit'))
    expect(screen.getByTestId('mcp-form-env')).toHaveValue('NOTES_TOKEN=••••5678')
    await userEvent.clear(screen.getByTestId('mcp-form-name'))
    await userEvent.type(screen.getByTestId('mcp-form-name'), 'notes')
    await userEvent.click(screen.getByTestId('mcp-form-save'))
    await waitFor(() => expect(card('notes')).toBeTruthy())
    expect(fake.mcpServers.get('notes')?.spec.env).toEqual({ NOTES_TOKEN: 'abcdefgh12345678' })

    await userEvent.click(within(card('notes')).getByTestId('mcp-toggle'))
    await waitFor(() => expect(card('notes').dataset.state).toBe('disabled'))
    await userEvent.click(within(card('notes')).getByTestId('mcp-remove'))
    await userEvent.click(await screen.findByTestId('mcp-remove-confirm'))
    await waitFor(() => expect(screen.queryAllByTestId('mcp-server')).toHaveLength(0))
  })

  it('reads a pasted Claude Desktop block with secrets masked, then adds it', async () => {
    const fake = createFakeBridge({ folders: [project.root], current: project, conversations: [], mcpServers: servers.slice(0, 1) })
    await openMcp(fake)
    const block = JSON.stringify({
      mcpServers: { everything: { command: 'node', args: ['other.js'] }, github: { command: 'github-mcp-server', args: ['stdio'], env: { GITHUB_TOKEN: 'ghp_abcdefghijkl' } }, nothing: {} },
    })
    await userEvent.click(screen.getByTestId('mcp-paste-input'))
    await userEvent.paste(block)
    await userEvent.click(screen.getByTestId('mcp-paste-read'))
    const preview = await screen.findByTestId('mcp-paste-preview')
    expect(within(preview).getAllByTestId('mcp-paste-server').map((s) => s.dataset.name)).toEqual(['everything', 'github'])
    expect(preview).toHaveTextContent('replaces the saved one')
    expect(preview).toHaveTextContent('GITHUB_TOKEN=••••ijkl')
    expect(preview).not.toHaveTextContent('ghp_abcdefghijkl')
    expect(within(preview).getByTestId('mcp-paste-problem')).toHaveTextContent('nothing')
    expect(fake.bridge.mcp.importBlock).not.toHaveBeenCalled()
    await userEvent.click(within(preview).getByTestId('mcp-paste-add'))
    expect(await screen.findByTestId('mcp-paste-result')).toHaveTextContent('Added github · Replaced everything · 1 left out')
    expect(screen.getByTestId('mcp-paste-input')).toHaveValue('')
    await waitFor(() => expect(screen.getAllByTestId('mcp-server').map((c) => c.dataset.name)).toEqual(['everything', 'github']))
  })
})
