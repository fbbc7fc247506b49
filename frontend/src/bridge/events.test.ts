import { createFakeBridge } from '../test/fakeBridge'
import { subscribeAll } from './events'

describe('events', () => {
  it('subscribeAll subscribes each handler and removes them all at once', () => {
    const fake = createFakeBridge()
    const usage: number[] = []
    const chunks: string[] = []
    const off = subscribeAll(fake.bridge.events, {
      'context:usage': (p) => usage.push(p.usagePercent),
      'llm:stream-chunk': (p) => chunks.push(p.messageId),
    })
    fake.emit('context:usage', { conversationId: 'c', usedTokens: 5, totalBudget: 10, usagePercent: 50, remaining: 5, status: 'normal' })
    fake.emit('llm:stream-chunk', { conversationId: 'c', messageId: 'm1', delta: 'x' })
    expect(usage).toEqual([50])
    expect(chunks).toEqual(['m1'])
    off()
    expect(fake.listenerCount('context:usage')).toBe(0)
    expect(fake.listenerCount('llm:stream-chunk')).toBe(0)
    fake.emit('context:usage', { conversationId: 'c', usedTokens: 9, totalBudget: 10, usagePercent: 90, remaining: 1, status: 'critical' })
    expect(usage).toEqual([50])
  })
})
