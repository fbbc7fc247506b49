/** The words of the interface in the user's language: English and
 * Simplified Chinese catalogues (locales/), one i18next instance, and the
 * number and date formats of the language in use. The language is the
 * system's (navigator.languages) unless chosen in Settings → General. */
import i18next, { type TFunction } from 'i18next'
import { useMemo, useSyncExternalStore } from 'react'
import { initReactI18next } from 'react-i18next'
import backendEn from './locales/backend.en.gen.json'
import backendZhCN from './locales/backend.zh-CN.json'
import en from './locales/en.json'
import zhCN from './locales/zh-CN.json'

export type Language = 'en' | 'zh-CN'
/** The choice in Settings: the system's language or a fixed one. */
export type LanguageChoice = 'system' | Language
export const languages: readonly Language[] = ['en', 'zh-CN']
export const languageChoices: readonly LanguageChoice[] = ['system', 'en', 'zh-CN']

/** The catalogue for a list of BCP 47 tags, the preferred first: Chinese in
 * any form reads the Simplified catalogue, anything else English. */
export function languageOf(tags: readonly string[]): Language {
  for (const tag of tags) {
    const t = tag.toLowerCase()
    if (t === 'zh' || t.startsWith('zh-')) return 'zh-CN'
    if (t === 'en' || t.startsWith('en-')) return 'en'
  }
  return 'en'
}

/** The system's languages, preferred first. */
export function systemTags(): readonly string[] {
  const nav = globalThis.navigator
  if (!nav) return []
  return nav.languages?.length ? nav.languages : nav.language ? [nav.language] : []
}

/** The language a choice stands for on this system. */
export function resolveLanguage(choice: LanguageChoice, tags: readonly string[] = systemTags()): Language {
  return choice === 'system' ? languageOf(tags) : choice
}

export const i18n = i18next.createInstance()
void i18n.use(initReactI18next).init({
  // The backend's words (backend.ts) sit under "backend": the English ones
  // are generated from backend/errs, the others translate them.
  resources: { en: { translation: { ...en, backend: backendEn } }, 'zh-CN': { translation: { ...zhCN, backend: backendZhCN } } },
  lng: resolveLanguage('system'),
  fallbackLng: 'en',
  supportedLngs: languages as Language[],
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  initAsync: false,
})

/** Switches the interface (and the page's lang) to a language. */
export function applyLanguage(lang: Language): void {
  if (i18n.language !== lang) void i18n.changeLanguage(lang)
  if (typeof document !== 'undefined') document.documentElement.lang = lang
}

/** The locale of the numbers and dates: the language in use. */
export function locale(): Language {
  return i18n.language === 'zh-CN' ? 'zh-CN' : 'en'
}

/** The formatters of numbers, dates and relative times, made once per
 * locale and options: the lists ask for one on every row each time they
 * draw, and making one costs more than formatting with it. */
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>()
function formatter<F extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(kind: string, loc: string, options: object, make: () => F): F {
  const key = `${kind}|${loc}|${JSON.stringify(options)}`
  let f = formatters.get(key) as F | undefined
  if (!f) formatters.set(key, (f = make()))
  return f
}

/** A number in the language in use ("12,345", "1.5"). */
export function formatNumber(n: number, options: Intl.NumberFormatOptions = {}): string {
  return formatter('number', locale(), options, () => new Intl.NumberFormat(locale(), options)).format(n)
}

/** A date and time in the language in use; "" for an unreadable one. */
export function formatDateTime(value: string | number | Date, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  const d = value instanceof Date ? value : new Date(value)
  if (Number.isNaN(d.getTime())) return ''
  return formatter('date', locale(), options, () => new Intl.DateTimeFormat(locale(), options)).format(d)
}

/** The relative-time formatter of a locale ("yesterday", "3 hours ago"). */
export function relativeTimeFormat(loc: string): Intl.RelativeTimeFormat {
  const options: Intl.RelativeTimeFormatOptions = { numeric: 'auto' }
  return formatter('relative', loc, options, () => new Intl.RelativeTimeFormat(loc, options))
}

export { Trans } from 'react-i18next'

/** The words of each language as they were worked out: the rows of a long
 * conversation ask for the same words (their actions' names and tooltips,
 * a code block's header, a tool card's line with its file) each time one
 * scrolls into view, and i18next works each out again (resolving the key,
 * the fallbacks, the plural, the interpolation), which costs the page's
 * frames and leaves garbage behind. A key alone, or a key with values that
 * are only strings, numbers and booleans, gives the same words every time,
 * so the words are remembered under the key and the values. */
const wordsByLanguage = new Map<string, TFunction>()
/** How many words one language remembers before it starts over (a long
 * conversation's tool cards name many files). */
const maxRemembered = 2000

/** The values of a call when they are plain (a key with them always gives the same words). */
function plainValues(v: unknown): v is Record<string, string | number | boolean | undefined> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  for (const x of Object.values(v)) {
    const k = typeof x
    if (k !== 'string' && k !== 'number' && k !== 'boolean' && k !== 'undefined') return false
  }
  return true
}

/** i18n.t for the language lang, remembering what a key alone, or a key with
 * plain values, gives. */
function wordsOf(lang: string): TFunction {
  let tr = wordsByLanguage.get(lang)
  if (tr) return tr
  const seen = new Map<string, string>()
  const fixed = i18n.getFixedT(lang) as unknown as (...a: unknown[]) => unknown
  tr = ((...args: unknown[]) => {
    const key = args[0]
    if (typeof key !== 'string' || args.length > 2) return fixed(...args)
    let memo = key
    if (args.length === 2) {
      if (!plainValues(args[1])) return fixed(...args)
      memo = `${key}\u0000${JSON.stringify(args[1])}`
    }
    let w = seen.get(memo)
    if (w === undefined) {
      const out = fixed(...args)
      if (args.length === 2 && typeof out !== 'string') return out
      w = String(out)
      if (seen.size >= maxRemembered) seen.clear()
      seen.set(memo, w)
    }
    return w
  }) as unknown as TFunction
  wordsByLanguage.set(lang, tr)
  return tr
}

/** The words of the interface outside components, in the language in use
 * (remembered like useTranslation's). */
export const t = ((...args: unknown[]) => (wordsOf(i18n.language) as unknown as (...a: unknown[]) => unknown)(...args)) as unknown as TFunction

// A catalogue changed (added to, reloaded) may change any word.
const forget = () => wordsByLanguage.clear()
i18n.store.on('added', forget)
i18n.store.on('removed', forget)

const listeners = new Set<() => void>()
i18n.on('languageChanged', () => listeners.forEach((l) => l()))
const subscribe = (l: () => void) => {
  listeners.add(l)
  return () => listeners.delete(l)
}
const currentLanguage = () => i18n.language

/** The words of the interface for a component: t in the language in use,
 * and the component drawn again when the language changes. One listener
 * for the whole page instead of one per component (rows mount and unmount
 * at every frame while a long conversation scrolls). */
export function useTranslation(): { t: TFunction; i18n: typeof i18n } {
  const lang = useSyncExternalStore(subscribe, currentLanguage)
  return useMemo(() => ({ t: wordsOf(lang), i18n }), [lang])
}
