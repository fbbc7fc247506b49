import type { ContextPreview, ContextStatus, ContextUsage } from '../../bridge'

/** Thresholds of the context meter (contracts.md): normal below 60 %,
 * warning from 60 to 80 %, critical above 80 %. */
export const warningPercent = 60
export const criticalPercent = 80

export function statusFor(percent: number): Exclude<ContextStatus, 'compressing'> {
  if (percent > criticalPercent) return 'critical'
  if (percent >= warningPercent) return 'warning'
  return 'normal'
}

/** The status to show: "compressing" as sent, otherwise from the percentage
 * (so a meter never disagrees with its own number). */
export function displayStatus(u: Pick<ContextUsage, 'status' | 'usagePercent'>): ContextStatus {
  return u.status === 'compressing' ? 'compressing' : statusFor(u.usagePercent)
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

/** The usage a context preview implies (before any reply was sent). */
export function usageFromPreview(conversationId: string, p: ContextPreview): ContextUsage {
  const u = p.usage
  return {
    conversationId,
    usedTokens: u.usedTokens,
    totalBudget: u.totalBudget,
    usagePercent: u.usagePercent,
    remaining: u.remaining,
    status: statusFor(u.usagePercent),
  }
}
