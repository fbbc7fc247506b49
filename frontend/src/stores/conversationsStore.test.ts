import type { Entry } from '../bridge'
import { createFakeBridge } from '../test/fakeBridge'
import { createConversationsStore } from './conversationsStore'

const msg = (id: string, role: string, content: string): Entry => ({ type: 'msg', id, createdAt: '', role, content })

function setup() {
  const fake = createFakeBridge({
    conversations: [
      { meta: { id: 'old', title: 'Old talk', lastActiveAt: '2026-01-01T00:00:00Z' }, entries: [msg('o1', 'user', 'about the parser')] },
      { meta: { id: 'new', title: 'New talk', lastActiveAt: '2026-02-01T00:00:00Z' }, entries: [msg('n1', 'user', 'about lunch')] },
    ],
  })
  const store = createConversationsStore(fake.bridge)
  return { fake, store }
}

describe('conversationsStore', () => {
  it('lists by last activity and follows conversation:changed', async () => {
    const { fake, store } = setup()
    const stop = store.actions.start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    expect(store.getState().list.map((c) => c.id)).toEqual(['new', 'old'])
    fake.append('old', msg('o2', 'assistant', 'reply'))
    fake.emit('conversation:changed', { conversationId: 'old', kind: 'updated' })
    await vi.waitFor(() => expect(store.getState().list.map((c) => c.id)).toEqual(['old', 'new']))
    stop()
    expect(fake.listenerCount('conversation:changed')).toBe(0)
  })

  it('deselects a conversation deleted elsewhere', async () => {
    const { fake, store } = setup()
    const stop = store.actions.start()
    store.actions.select('old')
    fake.convs.delete('old')
    fake.emit('conversation:changed', { conversationId: 'old', kind: 'deleted', external: true })
    expect(store.getState().selectedId).toBeNull()
    await vi.waitFor(() => expect(store.getState().list.map((c) => c.id)).toEqual(['new']))
    stop()
  })

  it('creates (selecting it), renames and removes', async () => {
    const { fake, store } = setup()
    await store.actions.refresh()
    const created = await store.actions.create()
    expect(created).not.toBeNull()
    expect(store.getState().selectedId).toBe(created!.id)
    expect(store.getState().list[0].id).toBe(created!.id)

    expect(await store.actions.rename('old', '  Renamed  ')).toBe(true)
    expect(fake.bridge.conversations.rename).toHaveBeenCalledWith('old', 'Renamed')
    expect(store.getState().list.find((c) => c.id === 'old')?.title).toBe('Renamed')
    expect(await store.actions.rename('old', '   ')).toBe(false)

    store.actions.select('old')
    expect(await store.actions.remove('old')).toBe(true)
    expect(store.getState().selectedId).toBeNull()
    expect(store.getState().list.some((c) => c.id === 'old')).toBe(false)
    expect(await store.actions.remove('old')).toBe(false)
    expect(store.getState().error?.code).toBe('E_NOT_FOUND')
  })

  it('forks at a message or a checkpoint and opens the fork', async () => {
    const { store } = setup()
    await store.actions.refresh()
    const fork = await store.actions.fork('old', { messageId: 'o1' })
    expect(fork?.parentId).toBe('old')
    expect(store.getState().selectedId).toBe(fork!.id)
    expect(await store.actions.checkpoint('old', 'v1')).toBe(true)
    expect(store.getState().list.find((c) => c.id === 'old')?.checkpoints?.map((c) => c.name)).toEqual(['v1'])
    expect(await store.actions.checkpoint('old', 'v1')).toBe(false)
    expect(store.getState().error?.code).toBe('E_CHECKPOINT_EXISTS')
  })

  it('searches after a pause and keeps only the newest answer', async () => {
    const { fake, store } = setup()
    store.actions.setQuery('pa')
    store.actions.setQuery('parser')
    await vi.waitFor(() => expect(store.getState().hits?.map((h) => h.conversationId)).toEqual(['old']))
    expect(fake.bridge.conversations.search).toHaveBeenCalledTimes(1)
    expect(fake.bridge.conversations.search).toHaveBeenCalledWith('parser')
    store.actions.setQuery('')
    expect(store.getState().hits).toBeNull()
  })
})
