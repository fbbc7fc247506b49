import type { CallUsage, ReportedUsage } from '../bridge'

/** Adds one LLM call's reported usage (from llm:stream-end) to the totals. */
export function addReported(totals: ReportedUsage | undefined, u: CallUsage): ReportedUsage {
  const t = totals ?? { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0 }
  return {
    calls: t.calls + 1,
    promptTokens: t.promptTokens + u.promptTokens,
    completionTokens: t.completionTokens + u.completionTokens,
    totalTokens: t.totalTokens + u.totalTokens,
    cachedTokens: t.cachedTokens + (u.cachedTokens ?? 0),
    last: { ...u, cachedTokens: u.cachedTokens ?? 0 },
  }
}
