// The real bridge against the shapes the Wails runtime puts on window.
import { createWailsBridge } from '.'

type AnyFn = (...args: unknown[]) => unknown

function installWindowGo(bound: Record<string, Record<string, AnyFn>>) {
  ;(window as unknown as { go: unknown }).go = { desktop: bound }
}

afterEach(() => {
  delete (window as unknown as { go?: unknown }).go
  delete (window as unknown as { runtime?: unknown }).runtime
})

describe('createWailsBridge', () => {
  it('calls the bound methods and normalises their answers', async () => {
    const OpenProject = vi.fn(async (root: unknown) => ({ id: 'i', name: 'n', root, dataDir: 'd', activePackageId: '' }))
    installWindowGo({
      Projects: {
        Open: OpenProject,
        Recent: async () => null,
        Current: async () => null,
        ChooseFolder: async () => '',
      },
      System: { Version: async () => '1.2.3' },
    })
    const b = createWailsBridge()
    await expect(b.projects.open('/r')).resolves.toMatchObject({ root: '/r' })
    expect(OpenProject).toHaveBeenCalledWith('/r')
    await expect(b.projects.recent()).resolves.toEqual([])
    await expect(b.projects.current()).resolves.toBeNull()
    await expect(b.projects.chooseFolder()).resolves.toBeNull()
    await expect(b.system.version()).resolves.toBe('1.2.3')
  })

  it('turns "CODE: message" rejections into coded errors', async () => {
    installWindowGo({
      Projects: {
        Create: async () => {
          throw new Error('E_PROJECT_NAME_INVALID: invalid project name "a/b"')
        },
      },
    })
    await expect(createWailsBridge().projects.create('/p', 'a/b')).rejects.toMatchObject({
      name: 'BridgeError',
      code: 'E_PROJECT_NAME_INVALID',
      message: 'invalid project name "a/b"',
    })
  })

  it('subscribes through the runtime and returns its unsubscribe', () => {
    const off = vi.fn()
    const EventsOnMultiple = vi.fn((_name: unknown, cb: unknown) => {
      ;(cb as (p: unknown) => void)({ conversationId: 'c', usedTokens: 1 })
      return off
    })
    ;(window as unknown as { runtime: unknown }).runtime = { EventsOnMultiple }
    const seen: unknown[] = []
    const unsubscribe = createWailsBridge().events.on('context:usage', (p) => seen.push(p.conversationId))
    expect(EventsOnMultiple).toHaveBeenCalledWith('context:usage', expect.any(Function), -1)
    expect(seen).toEqual(['c'])
    unsubscribe()
    expect(off).toHaveBeenCalled()
  })
})
