import { describe, expect, it } from 'vitest'
import type { Entry } from '../../bridge'
import type { Row } from './messageRows'
import { estimateRow, estimateRowOnce, offsetAfterPrepend } from './MessageList'
import { createPreparer, prepareAhead, prepareBehind, prepareOrder, rowMarkdown, type AfterFrame } from './prepare'

const entry = (id: string) => ({ type: 'msg', id, createdAt: '', role: 'assistant' }) as Entry
const answer = (id: string, text = `answer ${id}`): Row => ({ kind: 'assistant', key: id, entry: entry(id), text, regenerable: true })
const user = (id: string): Row => ({ kind: 'user', key: id, entry: entry(id), text: `question ${id}`, editable: true })

describe('rowMarkdown', () => {
  it('is the model text a row shows as markdown', () => {
    expect(rowMarkdown(answer('a', '**hi**'))).toBe('**hi**')
    expect(rowMarkdown(user('u'))).toBe('')
    expect(rowMarkdown({ kind: 'stopped', key: 's', entry: entry('s'), partial: 'part', latest: false, canContinue: false })).toBe('part')
    expect(rowMarkdown(undefined)).toBe('')
  })
})

describe('prepareOrder', () => {
  it('goes up from the first row drawn, then down from the last, nearest first', () => {
    expect(prepareOrder(10, 4, 6)).toEqual([3, 2, 1, 0, 7, 8, 9])
    expect(prepareOrder(3, 0, 2)).toEqual([])
  })
  it('stops prepareAhead rows before and prepareBehind rows after', () => {
    const order = prepareOrder(1000, 500, 510)
    expect(order[0]).toBe(499)
    expect(order).toContain(500 - prepareAhead)
    expect(order).not.toContain(500 - prepareAhead - 1)
    expect(order).toContain(510 + prepareBehind)
    expect(order).not.toContain(510 + prepareBehind + 1)
  })
})

/** A schedule run by hand, and a clock the work moves. */
function harness() {
  let clock = 0
  const queue: (() => void)[] = []
  const schedule: AfterFrame = (fn) => {
    queue.push(fn)
    return () => {
      const i = queue.indexOf(fn)
      if (i >= 0) queue.splice(i, 1)
    }
  }
  const done: string[] = []
  const formatted = new Set<string>()
  // each piece of work takes 2 ms; a text is one piece until it is formatted
  const work = (text: string) =>
    text && !formatted.has(text)
      ? [
          () => {
            clock += 2
            formatted.add(text)
            done.push(text)
          },
        ]
      : []
  const runTurn = () => queue.shift()?.()
  return { schedule, work, done, formatted, queue, runTurn, now: () => clock }
}

describe('createPreparer', () => {
  it('formats the rows before the ones drawn, nearest first, a budget at a time after each frame', () => {
    const h = harness()
    const p = createPreparer(h.work, { schedule: h.schedule, budgetMs: 3, now: h.now })
    const rows = [answer('a'), user('b'), answer('c'), answer('d'), answer('e'), answer('f')]
    p.update(rows, 4, 5)
    expect(h.done).toEqual([]) // nothing before the frame
    h.runTurn()
    expect(h.done).toEqual(['answer d', 'answer c']) // 2 ms, then 4 ms: over the budget of 3
    h.runTurn()
    expect(h.done).toEqual(['answer d', 'answer c', 'answer a'])
    expect(h.queue).toHaveLength(0) // nothing left: no more turns
  })

  it('starts again from the rows drawn now when the user scrolls, and skips what is formatted', () => {
    const h = harness()
    const p = createPreparer(h.work, { schedule: h.schedule, budgetMs: 1, now: h.now })
    const rows = Array.from({ length: 20 }, (_, i) => answer(`r${i}`))
    p.update(rows, 15, 19)
    h.runTurn()
    expect(h.done).toEqual(['answer r14'])
    p.update(rows, 10, 14) // scrolled up meanwhile
    h.runTurn()
    h.runTurn()
    expect(h.done).toEqual(['answer r14', 'answer r9', 'answer r8'])
    p.update(rows, 15, 19)
    h.runTurn()
    expect(h.done.at(-1)).toBe('answer r13') // r14 is formatted already
  })

  it('does nothing once stopped', () => {
    const h = harness()
    const p = createPreparer(h.work, { schedule: h.schedule, now: h.now })
    p.update([answer('a'), answer('b')], 1, 1)
    p.stop()
    expect(h.queue).toHaveLength(0)
    expect(h.done).toEqual([])
  })
})

describe('offsetAfterPrepend', () => {
  const start = (sizes: number[]) => (i: number) => sizes.slice(0, i).reduce((a, b) => a + b, 0)
  const rows = (keys: string[]) => keys.map((k) => user(k))

  it('keeps the rows drawn where they were on screen when older rows come first', () => {
    // before: c d e f drawn, c at 0, d at 100; the user is at 150 (in d)
    // now: a b (200 px each) come before c
    const now = rows(['a', 'b', 'c', 'd', 'e', 'f'])
    const drawn = [
      { key: 'c', start: 0 },
      { key: 'd', start: 100 },
    ]
    expect(offsetAfterPrepend(now, 'c', drawn, 150, start([200, 200, 100, 100, 100, 100]))).toBe(550)
    // the user scrolled on to 180 while the page loaded: the view follows from there
    expect(offsetAfterPrepend(now, 'c', drawn, 180, start([200, 200, 100, 100, 100, 100]))).toBe(580)
  })

  it('anchors on the next row drawn when the first one changed its key (a call joined by its result)', () => {
    const now = rows(['a', 'b:call', 'd', 'e'])
    const drawn = [
      { key: 'b-result', start: 0 },
      { key: 'd', start: 60 },
    ]
    expect(offsetAfterPrepend(now, 'b-result', drawn, 80, start([300, 100, 50, 50]))).toBe(80 + 400 - 60)
  })

  it('is null when nothing came first, on a first draw, and for another conversation', () => {
    const drawn = [{ key: 'a', start: 0 }]
    expect(offsetAfterPrepend(rows(['a', 'b', 'c']), 'a', drawn, 10, start([1, 1, 1]))).toBeNull()
    expect(offsetAfterPrepend(rows(['a', 'b']), null, [], 0, start([1, 1]))).toBeNull()
    expect(offsetAfterPrepend(rows(['x', 'y']), 'a', drawn, 10, start([1, 1]))).toBeNull()
    expect(offsetAfterPrepend([], 'a', drawn, 10, start([]))).toBeNull()
  })
})

describe('estimateRowOnce', () => {
  it('is estimateRow, worked out once per row', () => {
    let reads = 0
    const text = 'line\n'.repeat(30)
    const row = { ...answer('a'), get text() { reads++; return text } } as Row
    expect(estimateRowOnce(row)).toBe(estimateRow(answer('a', text)))
    const after = reads
    for (let i = 0; i < 5; i++) estimateRowOnce(row)
    expect(reads).toBe(after)
    expect(estimateRowOnce(undefined)).toBe(estimateRow(undefined))
  })
})
