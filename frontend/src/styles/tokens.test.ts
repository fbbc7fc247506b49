// The text colours of the design tokens are readable on the backgrounds they
// are drawn on: WCAG contrast of at least 4.5:1 in both themes, computed
// from tokens.css itself.
import { color, contrast, theme } from '../test/contrast'

/** Text tokens and the backgrounds each is drawn on. */
const pairs: [string, string[]][] = [
  ['--text', ['--bg', '--surface', '--surface-2']],
  ['--text-muted', ['--bg', '--surface', '--surface-2']],
  ['--text-faint', ['--bg', '--surface', '--surface-2', '--code-bg']],
  ['--warning', ['--bg', '--surface']],
  ['--danger', ['--bg', '--surface', '--danger-soft']],
  ['--success', ['--bg', '--surface', '--surface-2']],
  ['--accent', ['--bg', '--surface', '--accent-soft']],
  ['--accent-contrast', ['--accent']],
  ['--danger-contrast', ['--danger']],
  ['--user-bubble-text', ['--user-bubble']],
  ['--hl-comment', ['--code-bg']],
]

describe('design tokens', () => {
  it('parses both themes from tokens.css', () => {
    expect(theme('light').get('--bg')).toMatch(/^#/)
    expect(theme('dark').get('--bg')).not.toBe(theme('light').get('--bg'))
  })

  it('computes the WCAG contrast ratio', () => {
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5)
    expect(contrast([255, 255, 255], [255, 255, 255])).toBeCloseTo(1, 5)
    // the faint text before it was darkened: 2.9:1 on the page background
    expect(contrast([0x8b, 0x93, 0xa0], [0xf6, 0xf7, 0xf9])).toBeCloseTo(2.89, 2)
  })

  for (const name of ['light', 'dark'] as const) {
    it(`keeps text readable (≥ 4.5:1) in the ${name} theme`, () => {
      const t = theme(name)
      const low: string[] = []
      for (const [fg, bgs] of pairs) {
        for (const bg of bgs) {
          const r = contrast(color(t, fg), color(t, bg))
          if (r < 4.5) low.push(`${fg} on ${bg}: ${r.toFixed(2)}`)
        }
      }
      expect(low).toEqual([])
    })
  }
})
