// The text colours of the design tokens are readable on the backgrounds they
// are drawn on: WCAG contrast of at least 4.5:1 in both themes, computed
// from tokens.css itself.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

const css = readFileSync(resolve(process.cwd(), 'src/styles/tokens.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')

/** The custom properties of the rule blocks whose selector is exactly `selector`. */
function block(selector: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const m of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
    if (m[1].trim() !== selector) continue
    for (const d of m[2].matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)) out.set(d[1], d[2].trim())
  }
  return out
}

/** The tokens of a theme: the light ones, with the dark ones over them. */
function theme(name: 'light' | 'dark'): Map<string, string> {
  const t = block(':root')
  if (name === 'dark') for (const [k, v] of block(":root[data-theme='dark']")) t.set(k, v)
  return t
}

function color(tokens: Map<string, string>, name: string, depth = 0): [number, number, number] {
  const v = tokens.get(name)
  if (v === undefined) throw new Error(`no token ${name}`)
  const ref = /^var\((--[\w-]+)\)$/.exec(v)
  if (ref && depth < 8) return color(tokens, ref[1], depth + 1)
  const hex = /^#([0-9a-f]{6})$/i.exec(v)
  if (!hex) throw new Error(`${name} is not a #rrggbb colour: ${v}`)
  return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)) as [number, number, number]
}

function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

function contrast(a: [number, number, number], b: [number, number, number]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

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
