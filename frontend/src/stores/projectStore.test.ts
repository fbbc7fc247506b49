import { createFakeBridge } from '../test/fakeBridge'
import { createProjectStore } from './projectStore'

const setup = (opts?: Parameters<typeof createFakeBridge>[0]) => {
  const fake = createFakeBridge(opts)
  return { fake, store: createProjectStore(fake.bridge) }
}

describe('projectStore', () => {
  it('init loads the current project and the recent list', async () => {
    const { store } = setup({
      folders: ['/p/a'],
      recent: [
        { root: '/p/a', id: '1', name: 'a', lastOpenedAt: '2026-01-01T00:00:00Z' },
        { root: '/p/gone', id: '2', name: 'gone', lastOpenedAt: '2026-01-01T00:00:00Z' },
      ],
      current: { id: '1', name: 'a', root: '/p/a', dataDir: '/d', activePackageId: '' },
    })
    await store.actions.init()
    const s = store.getState()
    expect(s.current?.root).toBe('/p/a')
    expect(s.recentLoaded).toBe(true)
    expect(s.recent.map((r) => [r.name, r.exists])).toEqual([
      ['a', true],
      ['gone', false],
    ])
  })

  it('open sets the current project and refreshes the recent list', async () => {
    const { store, fake } = setup({ folders: ['/p/a'] })
    expect(await store.actions.open('  /p/a  ')).toBe(true)
    expect(fake.bridge.projects.open).toHaveBeenCalledWith('/p/a')
    expect(store.getState().current?.name).toBe('a')
    await vi.waitFor(() => expect(store.getState().recent.map((r) => r.root)).toEqual(['/p/a']))
    expect(store.getState().busy).toBeNull()
  })

  it('a failed open keeps the start screen and records the coded error', async () => {
    const { store } = setup()
    expect(await store.actions.open('/nope')).toBe(false)
    const s = store.getState()
    expect(s.current).toBeNull()
    expect(s.error?.code).toBe('E_PROJECT_NOT_FOUND')
    expect(s.error?.message).toContain('/nope')
    store.actions.dismissError()
    expect(store.getState().error).toBeNull()
  })

  it('a moved project is a question, not an error; the answer opens it and its notice is said once', async () => {
    const { store, fake } = setup({ folders: ['/p/renamed', '/p/other'], moved: { '/p/renamed': '/p/book' } })
    expect(await store.actions.open('/p/renamed')).toBe(false)
    expect(store.getState().error).toBeNull()
    expect(store.getState().moved).toEqual({ root: '/p/renamed', question: 'this looks like project "book" moved from /p/book — use its conversations?' })
    // opening another folder leaves the question
    expect(await store.actions.open('/p/other')).toBe(true)
    expect(store.getState().moved).toBeNull()
    expect(await store.actions.answerMoved(true)).toBe(false)
    expect(fake.bridge.projects.openMoved).not.toHaveBeenCalled()

    expect(await store.actions.open('/p/renamed')).toBe(false)
    expect(await store.actions.answerMoved(false)).toBe(true)
    expect(fake.bridge.projects.openMoved).toHaveBeenCalledWith('/p/renamed', false)
    const s = store.getState()
    expect(s.current?.root).toBe('/p/renamed')
    expect(s.moved).toBeNull()
    expect(s.notice).toContain('is a new project')
    store.actions.dismissNotice()
    expect(store.getState().notice).toBeNull()
  })

  it('ignores an empty path', async () => {
    const { store, fake } = setup()
    expect(await store.actions.open('   ')).toBe(false)
    expect(fake.bridge.projects.open).not.toHaveBeenCalled()
  })

  it('runs one action at a time', async () => {
    const { store, fake } = setup({ folders: ['/p/a', '/p/b'] })
    const first = store.actions.open('/p/a')
    expect(store.getState().busy).toBe('open')
    expect(await store.actions.open('/p/b')).toBe(false)
    expect(await first).toBe(true)
    expect(fake.bridge.projects.open).toHaveBeenCalledTimes(1)
    expect(store.getState().current?.root).toBe('/p/a')
  })

  it('chooseAndOpen opens the chosen folder and does nothing when cancelled', async () => {
    const { store, fake } = setup({ folders: ['/p/a'] })
    fake.setNextFolder(null)
    expect(await store.actions.chooseAndOpen()).toBe(false)
    expect(fake.bridge.projects.open).not.toHaveBeenCalled()
    fake.setNextFolder('/p/a')
    expect(await store.actions.chooseAndOpen()).toBe(true)
    expect(store.getState().current?.root).toBe('/p/a')
  })

  it('create opens the new project; a bad name is an error', async () => {
    const { store, fake } = setup({ folders: ['/p'] })
    expect(await store.actions.create('/p', 'bad/name')).toBe(false)
    expect(store.getState().error?.code).toBe('E_PROJECT_NAME_INVALID')
    expect(await store.actions.create(' /p ', 'fresh')).toBe(true)
    expect(fake.bridge.projects.create).toHaveBeenLastCalledWith('/p', 'fresh')
    expect(store.getState().current?.root).toBe('/p/fresh')
    expect(store.getState().error).toBeNull()
  })

  it('forget removes a recent entry; close returns to no project', async () => {
    const { store } = setup({ folders: ['/p/a'] })
    await store.actions.open('/p/a')
    await store.actions.close()
    expect(store.getState().current).toBeNull()
    expect(store.getState().recent).toHaveLength(1)
    await store.actions.forget('/p/a')
    expect(store.getState().recent).toEqual([])
  })
})
