import { timeAgo } from './time'

describe('timeAgo', () => {
  const now = new Date('2026-03-10T12:00:00Z')
  it.each([
    ['2026-03-10T11:59:40Z', 'just now'],
    ['2026-03-10T11:55:00Z', '5 minutes ago'],
    ['2026-03-10T09:00:00Z', '3 hours ago'],
    ['2026-03-09T12:00:00Z', 'yesterday'],
    ['2026-02-20T12:00:00Z', '3 weeks ago'],
    ['2025-03-10T12:00:00Z', 'last year'],
    ['not a date', ''],
  ])('%s -> %s', (iso, want) => {
    expect(timeAgo(iso, now, 'en')).toBe(want)
  })

  it('says it in the locale asked for, whichever came first', () => {
    expect(timeAgo('2026-03-09T12:00:00Z', now, 'zh-CN')).toBe('昨天')
    expect(timeAgo('2026-03-09T12:00:00Z', now, 'en')).toBe('yesterday')
    expect(timeAgo('2026-03-10T09:00:00Z', now, 'zh-CN')).toBe('3小时前')
  })
})
