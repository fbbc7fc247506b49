import type { ConversationMeta } from '../bridge'
import { ancestors, conversationTree, isFork } from './conversationTree'

const meta = (id: string, lastActiveAt: string, extra: Partial<ConversationMeta> = {}): ConversationMeta =>
  ({ id, title: id, activeType: 'chat', createdAt: lastActiveAt, lastActiveAt, messageCount: 1, ...extra }) as ConversationMeta
const child = (id: string, parent: string, t: string) => meta(id, t, { parentId: parent, origin: { conversationId: parent, toolCallId: 'c-' + id } })

describe('conversationTree', () => {
  const list = [
    meta('a', '2026-01-01T10:00:00Z'),
    meta('b', '2026-01-01T11:00:00Z'),
    child('a1', 'a', '2026-01-01T12:00:00Z'),
    child('a2', 'a', '2026-01-01T10:30:00Z'),
    child('a1x', 'a1', '2026-01-01T12:30:00Z'),
    meta('fork-of-b', '2026-01-01T09:00:00Z', { parentId: 'b' }),
    child('orphan', 'gone', '2026-01-01T08:00:00Z'),
  ]

  it('puts children under their parent, roots by the newest activity of their branch', () => {
    const rows = conversationTree(list, new Set())
    expect(rows.map((r) => `${'-'.repeat(r.depth)}${r.meta.id}`)).toEqual(['a', '-a2', '-a1', '--a1x', 'b', 'fork-of-b', 'orphan'])
    expect(rows.find((r) => r.meta.id === 'a')!.children).toBe(2)
    expect(isFork(list[5])).toBe(true)
    expect(isFork(list[2])).toBe(false)
  })

  it('hides the branch of a collapsed row', () => {
    const rows = conversationTree(list, new Set(['a']))
    expect(rows.map((r) => r.meta.id)).toEqual(['a', 'b', 'fork-of-b', 'orphan'])
    expect(rows[0].collapsed).toBe(true)
  })

  it('survives a cycle in broken records', () => {
    const loop = [child('x', 'y', '2026-01-01T00:00:00Z'), child('y', 'x', '2026-01-01T00:00:01Z')]
    expect(conversationTree(loop, new Set()).map((r) => r.meta.id).sort()).toEqual(['x', 'y'])
    expect(ancestors(loop, 'x')).toEqual(['y'])
  })

  it('lists the ancestors of a child', () => {
    expect(ancestors(list, 'a1x')).toEqual(['a1', 'a'])
    expect(ancestors(list, 'b')).toEqual([])
  })
})
