import { isCompactPrefix, parseCompactCommand } from './compactCommand'

describe('the /compact command', () => {
  it.each([
    ['/compact', ''],
    ['  /compact  ', ''],
    ['/COMPACT', ''],
    ['/compact the budget and the dates', 'the budget and the dates'],
    ['/compact   keep\n  the  names ', 'keep the names'],
  ])('reads %j as a compaction with focus %j', (text, focus) => {
    expect(parseCompactCommand(text)).toEqual({ focus })
  })

  it.each(['compact', '/compactify', '/compacting now', 'please /compact', '/comp', '', '/', 'a /compact b'])('leaves %j to be sent', (text) => {
    expect(parseCompactCommand(text)).toBeNull()
  })

  it('notices the command being typed', () => {
    expect(['/c', '/comp', '/compact'].map(isCompactPrefix)).toEqual([true, true, true])
    expect(['/', 'c', '/x', '/compact x', 'hello'].map(isCompactPrefix)).toEqual([false, false, false, false, false])
  })
})
