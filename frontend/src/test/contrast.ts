// WCAG contrast of the colours of the design tokens, read from tokens.css
// itself, in the light and the dark theme.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

export type RGB = [number, number, number]

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
export function theme(name: 'light' | 'dark'): Map<string, string> {
  const t = block(':root')
  if (name === 'dark') for (const [k, v] of block(":root[data-theme='dark']")) t.set(k, v)
  return t
}

/** The colour of a token, following var() references. */
export function color(tokens: Map<string, string>, name: string, depth = 0): RGB {
  const v = tokens.get(name)
  if (v === undefined) throw new Error(`no token ${name}`)
  const ref = /^var\((--[\w-]+)\)$/.exec(v)
  if (ref && depth < 8) return color(tokens, ref[1], depth + 1)
  const hex = /^#([0-9a-f]{6})$/i.exec(v)
  if (!hex) throw new Error(`${name} is not a #rrggbb colour: ${v}`)
  return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)) as RGB
}

function luminance([r, g, b]: RGB): number {
  const lin = (c: number) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/** The WCAG contrast ratio of two colours (1 to 21). */
export function contrast(a: RGB, b: RGB): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}
