import { displayStatus, formatPercent, formatTokens, usageFromPreview } from './meter'

describe('context meter', () => {
  it('shows the status the backend measured', () => {
    expect(displayStatus({ status: 'compressing' })).toBe('compressing')
    expect(displayStatus({ status: 'critical' })).toBe('critical')
  })

  it('formats tokens and percentages', () => {
    expect(formatTokens(950)).toBe('950')
    expect(formatTokens(2400)).toBe('2.4k')
    expect(formatTokens(128000)).toBe('128k')
    expect(formatTokens(2_500_000)).toBe('2.5M')
    expect(formatPercent(5.55)).toBe('5.5%')
    expect(formatPercent(64.4)).toBe('64%')
  })

  it('derives the usage of a preview', () => {
    const u = usageFromPreview('c1', {
      usage: { conversationId: 'c1', usedTokens: 4500, totalBudget: 5000, usagePercent: 90, remaining: 500, status: 'critical' },
    } as never)
    expect(u).toEqual({ conversationId: 'c1', usedTokens: 4500, totalBudget: 5000, usagePercent: 90, remaining: 500, status: 'critical' })
  })
})
