import type { ContextStatus, ContextUsage, ReportedUsage, UsageCost } from '../../bridge'

/** The status to show, as the backend measured it (its thresholds, in
 * backend/compression, are the only ones: normal below 60 %, warning from 60
 * to 80 %, critical above 80 %, or compressing). */
export function displayStatus(u: Pick<ContextUsage, 'status'>): ContextStatus {
  return u.status
}

export const statusLabel: Record<ContextStatus, string> = {
  normal: 'Context usage normal',
  warning: 'Context filling up',
  critical: 'Context almost full; older messages will be compressed',
  compressing: 'Compressing older messages…',
}

/** "12.3k" style token counts. */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return '–'
  const abs = Math.abs(n)
  if (abs < 1000) return String(Math.round(n))
  if (abs < 10000) return `${(n / 1000).toFixed(1)}k`
  if (abs < 1e6) return `${Math.round(n / 1000)}k`
  return `${(n / 1e6).toFixed(1)}M`
}

/** Percent shown on the meter: whole numbers, one decimal below 10 %. */
export function formatPercent(p: number): string {
  if (!Number.isFinite(p)) return '–'
  return p < 10 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`
}

function share(part: number, whole: number): string {
  return whole > 0 ? ` (${formatPercent((100 * part) / whole)})` : ''
}

/** The prompt cache in words: how much of the last request and of the whole
 * conversation the server read from its cache; null before any usage was
 * reported. */
export function cacheSummary(r: ReportedUsage | undefined | null): string | null {
  if (!r || r.calls === 0) return null
  if (r.cachedTokens === 0) return `Prompt cache: no cache hits reported in ${r.calls === 1 ? 'the one request' : `${r.calls} requests`} so far.`
  const last = r.last
  const lastPart = last
    ? `the last request read ${last.cachedTokens.toLocaleString()} of ${last.promptTokens.toLocaleString()} prompt tokens from the server's cache${share(last.cachedTokens, last.promptTokens)}; `
    : ''
  return `Prompt cache: ${lastPart}this conversation ${r.cachedTokens.toLocaleString()} of ${r.promptTokens.toLocaleString()}${share(r.cachedTokens, r.promptTokens)} over ${r.calls} requests.`
}

/** A money amount: two decimals, four under one unit so
 * that small conversations do not all read 0.00. */
export function formatMoney(amount: number, currency: string): string {
  const digits = amount > 0 && amount < 1 ? 4 : 2
  return `${amount.toFixed(digits)} ${currency}`
}

/** The tokens the servers reported for the conversation and what they cost
 * (where llm.prices has the models), in words; null before any usage was
 * reported. */
export function costSummary(r: ReportedUsage | undefined | null, cost: UsageCost | undefined | null): string | null {
  if (!r || r.calls === 0) return null
  const tokens = `${r.promptTokens.toLocaleString()} tokens in, ${r.completionTokens.toLocaleString()} out over ${r.calls === 1 ? 'one request' : `${r.calls} requests`}`
  if (!cost) return `Usage: ${tokens}; no price set for its models (Settings → Models).`
  const unpriced = cost.unpriced?.length ? `; without ${cost.unpriced.map((m) => (m ? m : 'an unknown model')).join(', ')}, which has no price` : ''
  return `Usage: ${tokens}; cost ${formatMoney(cost.amount, cost.currency)}${unpriced}.`
}
