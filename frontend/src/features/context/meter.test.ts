import { displayStatus, formatPercent, formatTokens } from './meter'

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
})
