import { describe, expect, it } from 'vitest'
import type { Entry } from '../../bridge'
import type { Row } from './messageRows'
import { estimateRow, estimateRowOnce, offsetAfterPrepend } from './MessageList'

const entry = (id: string) => ({ type: 'msg', id, createdAt: '', role: 'assistant' }) as Entry
const answer = (id: string, text = `answer ${id}`): Row => ({ kind: 'assistant', key: id, entry: entry(id), text, regenerable: true })
const user = (id: string): Row => ({ kind: 'user', key: id, entry: entry(id), text: `question ${id}`, editable: true })

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
