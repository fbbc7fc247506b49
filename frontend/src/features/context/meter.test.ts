import { applyLanguage } from '../../i18n'
import { cacheSummary, costSummary, displayStatus, formatMoney, formatPercent, formatTokens } from './meter'

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

  it('says how much of the prompt came from the server\'s cache', () => {
    expect(cacheSummary(undefined)).toBeNull()
    expect(cacheSummary({ calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0 })).toBeNull()
    expect(cacheSummary({ calls: 3, promptTokens: 3000, completionTokens: 10, totalTokens: 3010, cachedTokens: 0 })).toBe('Prompt cache: no cache hits reported in 3 requests so far.')
    const s = cacheSummary({
      calls: 2,
      promptTokens: 4000,
      completionTokens: 50,
      totalTokens: 4050,
      cachedTokens: 1920,
      last: { promptTokens: 2006, completionTokens: 25, totalTokens: 2031, cachedTokens: 1920 },
    })
    expect(s).toContain('the last request read 1,920 of 2,006 prompt tokens from the server\'s cache (96%)')
    expect(s).toContain('this conversation 1,920 of 4,000 (48%) over 2 requests')
  })

  it('says what the conversation cost where its models have a price', () => {
    const r = { calls: 2, promptTokens: 4000, completionTokens: 500, totalTokens: 4500, cachedTokens: 1000 }
    expect(costSummary(undefined, null)).toBeNull()
    expect(costSummary(r, null)).toBe('Usage: 4,000 tokens in, 500 out over 2 requests; no price set for its models (Settings → Models).')
    expect(costSummary(r, { amount: 0.0123, currency: 'EUR' })).toBe('Usage: 4,000 tokens in, 500 out over 2 requests; cost 0.0123 EUR.')
    expect(costSummary(r, { amount: 1.5, currency: 'USD', unpriced: ['local'] })).toBe('Usage: 4,000 tokens in, 500 out over 2 requests; cost 1.50 USD; without local, which has no price.')
    expect(formatMoney(0, 'USD')).toBe('0.00 USD')
    expect(formatMoney(0.004, 'USD')).toBe('0.0040 USD')
  })

  it.each([
    ['en', { calls: 1, promptTokens: 12000, completionTokens: 300, totalTokens: 12300, cachedTokens: 0 }, { amount: 0.5, currency: 'USD', unpriced: [''] }, 'Usage: 12,000 tokens in, 300 out over one request; cost 0.5000 USD; without an unknown model, which has no price.'],
    ['zh-CN', { calls: 1, promptTokens: 12000, completionTokens: 300, totalTokens: 12300, cachedTokens: 0 }, { amount: 0.5, currency: 'USD', unpriced: [''] }, '用量：输入 12,000 token、输出 300 token，共 1 次请求；费用 0.5000 USD；不含未设置价格的 未知模型。'],
    ['zh-CN', { calls: 3, promptTokens: 4000, completionTokens: 500, totalTokens: 4500, cachedTokens: 0 }, null, '用量：输入 4,000 token、输出 500 token，共 3 次请求；尚未为其模型设置价格（设置 → 模型）。'],
  ] as const)('says the usage and cost in %s', (lang, r, cost, want) => {
    applyLanguage(lang)
    try {
      expect(costSummary(r, cost ? { ...cost, unpriced: [...cost.unpriced] } : null)).toBe(want)
    } finally {
      applyLanguage('en')
    }
  })
})
