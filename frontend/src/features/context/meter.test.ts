import { displayStatus, formatPercent, formatTokens, statusFor, usageFromPreview } from './meter'

describe('context meter thresholds', () => {
  it.each([
    [0, 'normal'],
    [59.9, 'normal'],
    [60, 'warning'],
    [70, 'warning'],
    [80, 'warning'],
    [80.1, 'critical'],
    [100, 'critical'],
    [140, 'critical'],
  ])('%s %% is %s', (p, want) => {
    expect(statusFor(p)).toBe(want)
  })

  it('shows compressing as sent, and otherwise trusts the percentage', () => {
    expect(displayStatus({ status: 'compressing', usagePercent: 85 })).toBe('compressing')
    expect(displayStatus({ status: 'normal', usagePercent: 85 })).toBe('critical')
    expect(displayStatus({ status: 'critical', usagePercent: 10 })).toBe('normal')
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
