/** Numbers in the units people read (sizes in KB and MB, shares in per cent,
 * counts with separators or "k", durations in seconds and minutes) and
 * back: each format has a parser that accepts what a person types for it
 * (and what the formatter wrote) and says clearly what is wrong otherwise. */
import { t as tr } from '../i18n'


export type Parsed = { ok: true; value: number } | { ok: false; error: string }

const ok = (value: number): Parsed => ({ ok: true, value })
const fail = (error: string): Parsed => ({ ok: false, error })

/** A decimal number as people type it: "1,024", "1 024", "0.5", ".5", "1_000". */
function number(text: string): number | null {
  const s = text.replace(/[\s,_\u00a0\u202f]/g, '')
  if (!/^[+]?(\d+\.?\d*|\.\d+)$/.test(s)) return null
  const n = Number(s)
  return Number.isFinite(n) ? n : null
}

/** A number and the word after it ("512 KB" → 512, "kb"); null when the text
 * is not of that shape. */
function amount(text: string): { n: number; unit: string } | null {
  const m = /^\s*([+]?[\d\s,_.\u00a0\u202f]*\d[\d\s,_.\u00a0\u202f]*|[+]?\.\d+)\s*([a-zA-Z%µ]*)\s*$/.exec(text)
  if (!m) return null
  const n = number(m[1])
  return n === null ? null : { n, unit: m[2].toLowerCase() }
}

/** Up to `digits` decimals, without trailing zeros ("1.5", "2", "0.25"). */
function short(n: number, digits = 2): string {
  return String(Number(n.toFixed(digits)))
}

// ── sizes ────────────────────────────────────────────────────────────────

/** 1 KB = 1024 bytes, as file managers show sizes. */
const KB = 1024
const sizeUnits: [string, number][] = [
  ['GB', KB ** 3],
  ['MB', KB ** 2],
  ['KB', KB],
]
const sizeWords: Record<string, number> = {
  '': 1, b: 1, byte: 1, bytes: 1,
  k: KB, kb: KB, kib: KB,
  m: KB ** 2, mb: KB ** 2, mib: KB ** 2,
  g: KB ** 3, gb: KB ** 3, gib: KB ** 3,
}

/** 524288 → "512 KB", 2097152 → "2 MB", 1536 → "1.5 KB", 300 → "300 bytes". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return ''
  for (const [name, size] of sizeUnits) {
    // the biggest unit that shows the value exactly to two decimals
    if (bytes >= size && Math.abs(Number((bytes / size).toFixed(2)) * size - bytes) < 0.5) return `${short(bytes / size)} ${name}`
  }
  if (bytes >= KB) {
    // not exact in any unit: the bytes themselves
    return `${Math.round(bytes).toLocaleString('en-US')} bytes`
  }
  return `${Math.round(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`
}

/** "512 KB", "0.5mb", "2 MiB", "1,024 bytes", "300" (bytes) → bytes. */
export function parseBytes(text: string, { min = 1, max = KB ** 3 }: { min?: number; max?: number } = {}): Parsed {
  if (text.trim() === '') return fail(tr('units.err.sizeEmpty', { a: formatBytes(512 * KB), b: formatBytes(2 * KB * KB) }))
  const a = amount(text)
  const factor = a ? sizeWords[a.unit] : undefined
  if (!a || factor === undefined) return fail(tr('units.err.sizeBad', { text: text.trim(), a: formatBytes(512 * KB), b: formatBytes(2 * KB * KB) }))
  const bytes = Math.round(a.n * factor)
  if (bytes < min) return fail(tr('units.err.atLeast', { min: formatBytes(min) }))
  if (bytes > max) return fail(tr('units.err.atMost', { max: formatBytes(max) }))
  return ok(bytes)
}

// ── shares ───────────────────────────────────────────────────────────────

/** 0.8 → "80 %", 0.625 → "62.5 %". */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return ''
  return `${short(fraction * 100, 1)} %`
}

/** "80 %", "80%", "80" → 0.8 (a bare number is a percentage too); the value
 * must lie between min and max (fractions, inclusive). */
export function parsePercent(text: string, { min = 0.01, max = 0.99 }: { min?: number; max?: number } = {}): Parsed {
  const range = { min: formatPercent(min), max: formatPercent(max) }
  if (text.trim() === '') return fail(tr('units.err.percentEmpty', range))
  const a = amount(text)
  if (!a || !['', '%', 'pct', 'percent'].includes(a.unit)) return fail(tr('units.err.percentBad', { text: text.trim() }))
  const fraction = Math.round(a.n * 100) / 10000
  if (fraction < min || fraction > max) return fail(tr('units.err.percentRange', range))
  return ok(fraction)
}

// ── counts ───────────────────────────────────────────────────────────────

/** 128000 → "128,000". */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return ''
  return Math.round(n).toLocaleString('en-US')
}

const countWords: Record<string, number> = { '': 1, k: 1000, thousand: 1000, m: 1_000_000, million: 1_000_000 }

/** "128,000", "128 000", "128k", "1.5M" → a whole number. With `off`, an empty
 * field (or "off") means 0, and 0 is allowed. */
export function parseCount(text: string, { min = 1, max = Number.MAX_SAFE_INTEGER, off = false, what = tr('units.what.number') }: { min?: number; max?: number; off?: boolean; what?: string } = {}): Parsed {
  const t = text.trim().toLowerCase()
  if (off && (t === '' || t === 'off' || t === '0')) return ok(0)
  if (t === '') return fail(tr('units.err.countEmpty', { what }))
  const a = amount(t)
  const factor = a ? countWords[a.unit] : undefined
  if (!a || factor === undefined) return fail(tr('units.err.countBad', { text: text.trim(), what }))
  const n = a.n * factor
  if (!Number.isInteger(Math.round(n * 1000) / 1000)) return fail(tr('units.err.whole'))
  const v = Math.round(n)
  if (v < min) return fail(tr(off ? 'units.err.atLeastOff' : 'units.err.atLeast', { min: formatCount(min) }))
  if (v > max) return fail(tr('units.err.atMost', { max: formatCount(max) }))
  return ok(v)
}

// ── durations ────────────────────────────────────────────────────────────

const durationWords: Record<string, number> = {
  '': 1, s: 1, sec: 1, secs: 1, second: 1, seconds: 1,
  m: 60, min: 60, mins: 60, minute: 60, minutes: 60,
  h: 3600, hr: 3600, hrs: 3600, hour: 3600, hours: 3600,
}

/** 120 → "2 min", 90 → "90 s", 5400 → "90 min", 7200 → "2 h". */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return ''
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600} h`
  if (s >= 60 && s % 60 === 0) return `${s / 60} min`
  return `${Math.round(s)} s`
}

/** "2 min", "90 s", "1.5 h", "120" (seconds) → whole seconds. */
export function parseSeconds(text: string, { min = 1, max = 24 * 3600 }: { min?: number; max?: number } = {}): Parsed {
  if (text.trim() === '') return fail(tr('units.err.durationEmpty'))
  const a = amount(text)
  const factor = a ? durationWords[a.unit] : undefined
  if (!a || factor === undefined) return fail(tr('units.err.durationBad', { text: text.trim() }))
  const s = Math.round(a.n * factor)
  if (s < min) return fail(tr('units.err.atLeast', { min: formatSeconds(min) }))
  if (s > max) return fail(tr('units.err.atMost', { max: formatSeconds(max) }))
  return ok(s)
}
