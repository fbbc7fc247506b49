import { addReported } from './usage'

describe('reported usage', () => {
  it('adds one call to the totals and keeps it as the last', () => {
    const one = addReported(undefined, { promptTokens: 100, completionTokens: 10, totalTokens: 110, cachedTokens: 0 })
    expect(one).toEqual({ calls: 1, promptTokens: 100, completionTokens: 10, totalTokens: 110, cachedTokens: 0, last: { promptTokens: 100, completionTokens: 10, totalTokens: 110, cachedTokens: 0 } })
    const two = addReported(one, { promptTokens: 120, completionTokens: 5, totalTokens: 125, cachedTokens: 96 })
    expect(two).toMatchObject({ calls: 2, promptTokens: 220, cachedTokens: 96, last: { cachedTokens: 96 } })
    expect(one.calls).toBe(1)
  })
})
