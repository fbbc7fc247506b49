/** Text helpers of tool calls and durations, shared by the conversation and
 * the run panel. */
import { t } from '../i18n'

/** A short one-line preview of tool-call arguments. */
export function argsPreview(args: string, max = 120): string {
  let s = args
  try {
    const v = JSON.parse(args)
    if (v && typeof v === 'object') {
      s = Object.entries(v as Record<string, unknown>)
        .map(([k, val]) => `${k}: ${typeof val === 'string' ? val : JSON.stringify(val)}`)
        .join(', ')
    }
  } catch {
    // partial or invalid JSON: shown as it is
  }
  s = s.replace(/\s+/g, ' ').trim()
  return s.length > max ? `${s.slice(0, max - 1)}…` : s
}

/** Pretty JSON for the expanded card (the raw text when it is not JSON). */
export function prettyArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2)
  } catch {
    return args
  }
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return ''
  if (ms < 1000) return t('units.ms', { n: Math.round(ms) })
  if (ms < 60000) return t('units.s', { n: Math.round(ms / 100) / 10 })
  return t('units.minS', { min: Math.floor(ms / 60000), s: Math.round((ms % 60000) / 1000) })
}

/** Tool output for reading: a JSON object is pretty-printed, and a long text
 * field ("content", as fs.read returns, or "text", as MCP tools return) is
 * shown as the text it is, after the other fields. Anything else is returned
 * unchanged. */
export function readableOutput(text: string): string {
  const t = text.trimStart()
  if (!t.startsWith('{')) return text
  try {
    const v = JSON.parse(t) as Record<string, unknown>
    if (!v || typeof v !== 'object' || Array.isArray(v)) return text
    for (const key of ['content', 'text']) {
      const { [key]: body, ...rest } = v
      if (typeof body === 'string') return `${JSON.stringify(rest, null, 2)}\n\n${key}:\n${body}`
    }
    return JSON.stringify(v, null, 2)
  } catch {
    return text
  }
}

/** A byte count in words: "820 bytes", "77 KB", "2.4 MB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return ''
  if (n < 1024) return t('units.bytes', { count: n })
  if (n < 1024 * 1024) return t('units.kb', { n: Math.round(n / 1024) })
  return t('units.mb', { n: Math.round((n / (1024 * 1024)) * 10) / 10 })
}
