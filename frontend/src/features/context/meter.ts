import type { ContextStatus, ContextUsage } from '../../bridge'

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
