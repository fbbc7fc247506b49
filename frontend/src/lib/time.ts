import { locale as currentLocale, relativeTimeFormat, t as tr } from '../i18n'

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
]

/** "3 minutes ago", "yesterday", "just now"; "" for an unreadable timestamp. */
export function timeAgo(iso: string, now: Date = new Date(), locale: string = currentLocale()): string {
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return ''
  const seconds = Math.round((t - now.getTime()) / 1000)
  if (Math.abs(seconds) < 45) return tr('time.justNow', { lng: locale.startsWith('zh') ? 'zh-CN' : 'en' })
  const fmt = relativeTimeFormat(locale)
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return fmt.format(Math.round(seconds / size), unit)
  }
  return fmt.format(Math.round(seconds / 60) || -1, 'minute')
}
