import { createFakeBridge } from '../test/fakeBridge'
import { createMcpStore, mcpRefreshDelayMs } from './mcpStore'

const everything = { spec: { name: 'everything', command: 'node', args: ['server.js', 'stdio'], env: { API_TOKEN: 'tok-0123456789' } }, source: 'settings' as const, state: 'stopped', tools: [{ name: 'echo', description: 'Echoes' }] }
const proj = { spec: { name: 'proj', command: 'npx', args: ['-y', 'proj-server'] }, source: 'project' as const, state: 'pending-approval' }

describe('mcpStore', () => {
  it('reads the page again after a burst of status events, once, while started', async () => {
    vi.useFakeTimers()
    try {
      const fake = createFakeBridge({ mcpServers: [everything] })
      const store = createMcpStore(fake.bridge)
      const off = store.actions.start()
      fake.emit('mcp:status', { server: 'everything', state: 'starting', toolCount: 0 })
      fake.emit('mcp:status', { server: 'everything', state: 'ready', toolCount: 1 })
      expect(fake.bridge.mcp.list).not.toHaveBeenCalled()
      await vi.advanceTimersByTimeAsync(mcpRefreshDelayMs + 5)
      expect(fake.bridge.mcp.list).toHaveBeenCalledTimes(1)
      expect(store.getState().view?.servers.map((s) => s.name)).toEqual(['everything'])
      off()
      expect(fake.listenerCount('mcp:status')).toBe(0)
      fake.emit('mcp:status', { server: '', toolCount: 0 })
      await vi.advanceTimersByTimeAsync(mcpRefreshDelayMs + 5)
      expect(fake.bridge.mcp.list).toHaveBeenCalledTimes(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('keeps the servers that failed to start until they recover, are dismissed or the configuration changes', () => {
    const fake = createFakeBridge({ mcpServers: [everything] })
    const store = createMcpStore(fake.bridge)
    const off = store.actions.watchFailures()
    fake.emit('mcp:status', { server: 'everything', state: 'starting', toolCount: 0 })
    expect(store.getState().failed).toEqual({})
    fake.emit('mcp:status', { server: 'everything', state: 'failed', toolCount: 0, error: 'args[1]: the environment variable TOKEN is not set' })
    fake.emit('mcp:status', { server: 'db', state: 'failed', toolCount: 0 })
    expect(store.getState().failed).toEqual({ everything: 'args[1]: the environment variable TOKEN is not set', db: 'it failed to start' })
    fake.emit('mcp:status', { server: 'everything', state: 'ready', toolCount: 3 })
    expect(store.getState().failed).toEqual({ db: 'it failed to start' })
    store.actions.dismissFailure('db')
    expect(store.getState().failed).toEqual({})
    fake.emit('mcp:status', { server: 'db', state: 'failed', toolCount: 0, error: 'exit status 3' })
    fake.emit('mcp:status', { server: '', toolCount: 0 })
    expect(store.getState().failed).toEqual({})
    off()
    expect(fake.listenerCount('mcp:status')).toBe(0)
  })

  it('edits with masked secrets kept, approves, restarts and says why a change failed', async () => {
    const fake = createFakeBridge({ mcpServers: [everything, proj] })
    const store = createMcpStore(fake.bridge)
    await store.actions.load()
    const shown = store.getState().view!.servers[0]
    expect(shown.config.env).toEqual({ API_TOKEN: '••••6789' })
    expect(await store.actions.save('everything', { ...shown.config, name: 'ev' })).toBe(true)
    expect(fake.mcpServers.get('ev')?.spec.env).toEqual({ API_TOKEN: 'tok-0123456789' })
    expect(store.getState().busy).toEqual({})

    expect(await store.actions.restart('proj')).toBe(false)
    expect(store.getState().error?.code).toBe('E_MCP_NOT_APPROVED')
    expect(await store.actions.approve('proj')).toBe(true)
    expect(store.getState().error).toBeNull()
    expect(await store.actions.restart('proj')).toBe(true)
    expect(store.getState().view?.servers.find((s) => s.name === 'proj')?.state).toBe('ready')

    expect(await store.actions.save('', { name: 'ev', command: 'x' })).toBe(false)
    expect(store.getState().error?.code).toBe('E_MCP_CONFIG_INVALID')
  })

  it('saves the switches and tells the settings screen', async () => {
    const fake = createFakeBridge()
    let told = 0
    const store = createMcpStore(fake.bridge, () => told++)
    expect(await store.actions.setOptions({ enabled: true, startOnOpen: true, callTimeoutSeconds: 30 })).toBe(true)
    expect(store.getState().view).toMatchObject({ enabled: true, startOnOpen: true, callTimeoutSeconds: 30 })
    expect(told).toBe(1)
    expect(await store.actions.setOptions({ enabled: true, startOnOpen: true, callTimeoutSeconds: 0 })).toBe(false)
    expect(store.getState().error?.code).toBe('E_SETTINGS_INVALID')
    expect(told).toBe(1)
  })

  it('reads a pasted block, then adds it', async () => {
    const fake = createFakeBridge({ mcpServers: [everything] })
    const store = createMcpStore(fake.bridge)
    const block = '"everything": {"command": "node", "args": ["x.js"]}, "gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_secret_1234"}}, "bad": {},'
    await store.actions.parse(block)
    const parsed = store.getState().parsed!
    expect(parsed.servers.map((s) => s.name)).toEqual(['everything', 'gh'])
    expect(parsed.replaces).toEqual(['everything'])
    expect(parsed.problems.map((p) => p.server)).toEqual(['bad'])
    expect(JSON.stringify(parsed)).not.toContain('ghp_secret_1234')
    expect(await store.actions.importBlock(block)).toBe(true)
    expect(store.getState().imported).toMatchObject({ added: ['gh'], replaced: ['everything'] })
    expect(store.getState().parsed).toBeNull()
    expect(store.getState().view?.servers.map((s) => s.name)).toEqual(['everything', 'gh'])
    await store.actions.parse('   ')
    expect(store.getState().imported).toBeNull()
  })
})
