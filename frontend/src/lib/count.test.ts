import { count } from './count'

describe('count', () => {
  it.each([
    [0, 'message', '0 messages'],
    [1, 'message', '1 message'],
    [2, 'message', '2 messages'],
    [10000, 'message', '10,000 messages'],
    [1, 'entry', '1 entry'],
  ])('%i %s', (n, one, want) => {
    expect(count(n, one, one === 'entry' ? 'entries' : undefined)).toBe(want)
  })
})
