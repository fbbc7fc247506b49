// useTranslation: the words in the language in use, remembered per language
// for a key alone, worked out each time when given values, and every
// component using it drawn again when the language changes.
import { act, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { applyLanguage, i18n, useTranslation } from '.'

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
})
