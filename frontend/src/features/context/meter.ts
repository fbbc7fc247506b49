import type { ContextStatus, ContextUsage, ReportedUsage, UsageCost } from '../../bridge'
import { t } from '../../i18n'

/** The status to show, as the backend measured it (its thresholds, in
 * backend/compression, are the only ones: normal below 60 %, warning from 60
 * to 80 %, critical above 80 %, or compressing). */
export function displayStatus(u: Pick<ContextUsage, 'status'>): ContextStatus {
  return u.status
}

const statuses: readonly string[] = ['normal', 'warning', 'critical', 'compressing'] satisfies ContextStatus[]

/** A status in words (an unknown one as it is). */
export function statusLabel(status: string): string {
  return statuses.includes(status) ? t(`meter.status.${status}`) : status
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
  return whole > 0 ? t('meter.share', { pct: formatPercent((100 * part) / whole) }) : ''
}

/** The prompt cache in words: how much of the last request and of the whole
 * conversation the server read from its cache; null before any usage was
 * reported. */
export function cacheSummary(r: ReportedUsage | undefined | null): string | null {
  if (!r || r.calls === 0) return null
  if (r.cachedTokens === 0) return r.calls === 1 ? t('meter.cacheNone') : t('meter.cacheNoneMany', { calls: r.calls })
  const last = r.last
  const lastPart = last
    ? t('meter.cacheLast', { cached: last.cachedTokens, prompt: last.promptTokens, share: share(last.cachedTokens, last.promptTokens) })
    : ''
  return t('meter.cache', { last: lastPart, cached: r.cachedTokens, prompt: r.promptTokens, share: share(r.cachedTokens, r.promptTokens), calls: r.calls })
}

/** A money amount: two decimals, four under one unit so that small
 * conversations do not all read 0.00. */
export function formatMoney(amount: number, currency: string): string {
  const digits = amount > 0 && amount < 1 ? 4 : 2
  return t('meter.money', { amount: amount.toFixed(digits), currency })
}

/** The tokens the servers reported for the conversation and what they cost
 * (where llm.prices has the models), in words; null before any usage was
 * reported. */
export function costSummary(r: ReportedUsage | undefined | null, cost: UsageCost | undefined | null, labelled = true): string | null {
  if (!r || r.calls === 0) return null
  const tokens = t('meter.usageTokens', { count: r.calls, input: r.promptTokens, output: r.completionTokens })
  const unpriced = cost?.unpriced?.length ? t('meter.usageUnpriced', { models: cost.unpriced.map((m) => (m ? m : t('meter.unknownModel'))).join(', ') }) : ''
  const text = cost ? t('meter.usageCost', { tokens, cost: formatMoney(cost.amount, cost.currency), unpriced }) : t('meter.usageNoPrice', { tokens })
  return labelled ? t('meter.usageLabel', { text }) : text
}
