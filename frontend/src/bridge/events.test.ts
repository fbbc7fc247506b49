import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { createFakeBridge } from '../test/fakeBridge'
import { EventNames, subscribeAll } from './events'

describe('events', () => {
  it('mirrors every event name of backend/events/events.go', () => {
    const src = readFileSync(resolve(process.cwd(), '../backend/events/events.go'), 'utf8') // vitest runs in frontend/
    const constBlock = /const \(([\s\S]*?)\n\)/.exec(src)?.[1] ?? ''
    const goNames = Object.fromEntries([...constBlock.matchAll(/^\s*(\w+)\s*=\s*"([^"]+)"/gm)].map((m) => [m[1], m[2]]))
    expect(Object.keys(goNames).length).toBeGreaterThan(0)
    expect(EventNames).toEqual(goNames)
  })

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
