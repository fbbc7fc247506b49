// The catalogues and their use: every word in English and Chinese with the
// same placeholders, every key the code asks for present, and no word
// written straight into the markup.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { findLiterals } from '../test/untranslated'
import { applyLanguage, formatDateTime, formatNumber, i18n, languageOf, resolveLanguage } from '.'
import en from './locales/en.json'
import zhCN from './locales/zh-CN.json'
import { flatten, type Tree } from '../test/catalogue'

const src = resolve(process.cwd(), 'src')

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p, out)
    else out.push(p)
  }
  return out
}
const code = walk(src).filter((f) => /\.(ts|tsx)$/.test(f) && !/\.test\.(ts|tsx)$/.test(f) && !relative(src, f).startsWith('test'))

const plural = /_(zero|one|two|few|many|other)$/
/** The keys without their plural forms, each with the placeholders of all its forms. */
function byBase(cat: Map<string, string>): Map<string, string[]> {
  const out = new Map<string, Set<string>>()
  for (const [k, v] of cat) {
    const base = k.replace(plural, '')
    const vars = out.get(base) ?? new Set<string>()
    for (const m of v.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)) vars.add(m[1])
    if (plural.test(k)) vars.add('count')
    out.set(base, vars)
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]))
}

const enKeys = flatten(en as Tree)
const zhKeys = flatten(zhCN as Tree)

describe('catalogues', () => {
  it('have the same keys with the same placeholders in English and Chinese', () => {
    const a = byBase(enKeys)
    const b = byBase(zhKeys)
    expect([...a.keys()].filter((k) => !b.has(k))).toEqual([])
    expect([...b.keys()].filter((k) => !a.has(k))).toEqual([])
    const differ = [...a].filter(([k, vars]) => b.has(k) && vars.join() !== b.get(k)!.join()).map(([k, vars]) => `${k}: {${vars}} / {${b.get(k)}}`)
    expect(differ).toEqual([])
    expect(a.size).toBeGreaterThan(400)
  })

  it('have a word for every key (the "other" plural form in Chinese)', () => {
    expect([...enKeys, ...zhKeys].filter(([, v]) => v.trim() === '').map(([k]) => k)).toEqual([])
    const enPlurals = [...enKeys.keys()].filter((k) => plural.test(k)).map((k) => k.replace(plural, ''))
    expect(enPlurals.filter((b) => !enKeys.has(`${b}_other`) || !zhKeys.has(`${b}_other`))).toEqual([])
  })

  it('hold every key the code asks for with a literal t("…")', () => {
    const bases = byBase(enKeys)
    const missing: string[] = []
    for (const f of code) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:\bt\(\s*|i18nKey=\{?)['"]([\w.-]+)['"]/g)) {
        if (!bases.has(m[1])) missing.push(`${relative(src, f)}: ${m[1]}`)
      }
    }
    expect(missing).toEqual([])
  })
})

describe('untranslated words in the markup', () => {
  it.each([
    ['text between tags', '<p>Hello there</p>', ['Hello there']],
    ['a title', '<button title="Stop the run">…</button>', ['Stop the run']],
    ['an aria-label in braces', "<button aria-label={'Close'} />", ['Close']],
    ['a placeholder', '<input placeholder="Type here" />', ['Type here']],
    ['both sides of a conditional', "<span>{busy ? 'Saving…' : 'Save'}</span>", ['Saving…', 'Save']],
    ['a template', '<span>{`${n} files`}</span>', ['files']],
    ['a prop of a component', '<Field label="Base URL" />', ['Base URL']],
    ['a translated text', "<p>{t('chat.send')}</p>", []],
    ['symbols only', '<span>{ok ? "✓ " : "✗ "} · — …</span>', []],
    ['names for the program', '<div className="row big" data-testid="send" role="status" aria-hidden="true" />', []],
  ])('finds %s', (_, jsx, want) => {
    expect(findLiterals('x.tsx', `export const X = () => ${jsx}`).map((l) => l.text)).toEqual(want)
  })

  it('finds none in the app', () => {
    const found = code.filter((f) => f.endsWith('.tsx')).flatMap((f) => findLiterals(relative(src, f), readFileSync(f, 'utf8')))
    expect(found.map((l) => `${l.file}:${l.line} ${l.where}: ${l.text}`)).toEqual([])
  })
})

describe('language', () => {
  afterEach(() => applyLanguage('en'))

  it.each([
    [['zh-CN'], 'zh-CN'],
    [['zh'], 'zh-CN'],
    [['zh-Hans-SG', 'en-US'], 'zh-CN'],
    [['en-GB', 'zh-CN'], 'en'],
    [['fr-FR', 'zh-TW'], 'zh-CN'],
    [['de-DE'], 'en'],
    [[], 'en'],
  ])('reads the system languages %j as %s', (tags, want) => {
    expect(languageOf(tags)).toBe(want)
    expect(resolveLanguage('system', tags)).toBe(want)
    expect(resolveLanguage('en', tags)).toBe('en')
  })

  it('formats numbers and dates in the language in use and sets the page language', () => {
    const when = Date.UTC(2026, 2, 5, 14, 7)
    applyLanguage('en')
    expect(formatNumber(1234567.5)).toBe('1,234,567.5')
    expect(formatDateTime(when, { dateStyle: 'long', timeZone: 'UTC' })).toBe('March 5, 2026')
    expect(formatDateTime(when, { dateStyle: 'short', timeZone: 'UTC' })).toBe('3/5/26')
    applyLanguage('zh-CN')
    expect(document.documentElement.lang).toBe('zh-CN')
    expect(i18n.language).toBe('zh-CN')
    expect(formatDateTime(when, { dateStyle: 'long', timeZone: 'UTC' })).toBe('2026年3月5日')
    expect(formatDateTime('not a date')).toBe('')
  })
})
