// useTranslation (and t): the words in the language in use, remembered per
// language for a key alone or with plain values, worked out each time with
// other values, and every component using it drawn again when the language
// changes.
import { act, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { flatten, type Tree } from '../test/catalogue'
import { applyLanguage, i18n, t, useTranslation } from '.'
import en from './locales/en.json'

function Words({ count }: { count: number }) {
  const { t } = useTranslation()
  return (
    <p data-testid="words">
      {t('common.copy')}|{t('markdown.moreChars', { count })}
    </p>
  )
}

afterEach(() => act(() => applyLanguage('en')))

describe('useTranslation', () => {
  it.each([
    { lang: 'en' as const, count: 1 },
    { lang: 'en' as const, count: 3 },
    { lang: 'zh-CN' as const, count: 1 },
    { lang: 'zh-CN' as const, count: 3 },
  ])('gives what i18next gives ($lang, $count)', ({ lang, count }) => {
    act(() => applyLanguage(lang))
    render(<Words count={count} />)
    const want = `${i18n.t('common.copy', { lng: lang })}|${i18n.t('markdown.moreChars', { lng: lang, count })}`
    expect(screen.getByTestId('words').textContent).toBe(want)
  })

  it('draws the components again in the language chosen, with the words of that language', () => {
    act(() => applyLanguage('en'))
    render(<Words count={2} />)
    const en = screen.getByTestId('words').textContent
    act(() => applyLanguage('zh-CN'))
    const zh = screen.getByTestId('words').textContent
    expect(zh).not.toBe(en)
    expect(zh).toBe(`${i18n.t('common.copy', { lng: 'zh-CN' })}|${i18n.t('markdown.moreChars', { lng: 'zh-CN', count: 2 })}`)
    act(() => applyLanguage('en'))
    expect(screen.getByTestId('words').textContent).toBe(en)
  })

  it('forgets the words of a catalogue that changed', () => {
    act(() => applyLanguage('en'))
    const { unmount } = render(<Words count={1} />)
    const before = screen.getByTestId('words').textContent
    unmount()
    act(() => {
      i18n.addResource('en', 'translation', 'common.copy', 'Copy it')
    })
    render(<Words count={1} />)
    expect(screen.getByTestId('words').textContent).toMatch(/^Copy it\|/)
    act(() => {
      i18n.addResource('en', 'translation', 'common.copy', 'Copy')
    })
    expect(before).toMatch(/^Copy\|/)
  })

  // Every word of the catalogue, asked for twice with the values it names
  // (a number for each, so plurals and number formats are exercised): the
  // remembered words are i18next's, in both languages, and other values give
  // other words.
  it.each(['en', 'zh-CN'] as const)('t gives what i18next gives for every word of the catalogue (%s)', (lang) => {
    act(() => applyLanguage(lang))
    const catalogue = flatten(en as Tree)
    const keys = new Set([...catalogue.keys()].map((k) => k.replace(/_(zero|one|two|few|many|other)$/, '')))
    let withValues = 0
    for (const key of keys) {
      for (const n of [1, 3]) {
        const values: Record<string, number | string> = {}
        for (const m of (catalogue.get(key) ?? catalogue.get(`${key}_other`) ?? '').matchAll(/\{\{(\w+)/g)) values[m[1]] = n
        if ('count' in values || Object.keys(values).length === 0) values.count = n
        const want = i18n.t(key, { ...values, lng: lang })
        expect(t(key, values)).toBe(want)
        expect(t(key, { ...values })).toBe(want) // remembered
        if (Object.keys(values).length > 1) withValues++
      }
    }
    expect(withValues).toBeGreaterThan(20)
    expect(t('markdown.moreChars', { count: 1 })).not.toBe(t('markdown.moreChars', { count: 5 }))
  })

  it('t works the words out again for values that are not plain', () => {
    act(() => applyLanguage('en'))
    let n = 0
    const value = { toString: () => `file${++n}.go` }
    const first = t('tool.sum.read', { path: value as unknown as string })
    const second = t('tool.sum.read', { path: value as unknown as string })
    expect(first).toContain('file')
    expect(second).not.toBe(first)
  })
})
