import type { ContextUsage } from '../../bridge'
import { cacheSummary, costSummary, displayStatus, formatPercent, formatTokens, statusLabel } from './meter'
import './context.css'
import { t } from '../../i18n'

/** The context-usage indicator next to the input: a bar and a percentage,
 * coloured by status (normal < 60 %, warning 60–80 %, critical > 80 %,
 * compressing animated). Clicking it opens the context inspector. */
export function ContextMeter({ usage, onOpen }: { usage: ContextUsage | null; onOpen: () => void }) {
  if (!usage) {
    return (
      <button type="button" className="context-meter is-unknown" onClick={onOpen} data-testid="context-meter" data-status="unknown" title={t('meter.unknownTitle')} aria-label={t('meter.unknownLabel')}>
        <span className="meter-bar">
          <span className="meter-fill" style={{ width: 0 }} />
        </span>
        <span className="meter-text">–</span>
      </button>
    )
  }
  const status = displayStatus(usage)
  const pct = Math.max(0, Math.min(100, usage.usagePercent))
  const cache = cacheSummary(usage.reported)
  const spent = costSummary(usage.reported, usage.cost)
  const title = `${t('meter.title', { status: statusLabel(status), used: usage.usedTokens, budget: usage.totalBudget, pct: formatPercent(usage.usagePercent), left: usage.remaining })}${cache ? `\n${cache}` : ''}${spent ? `\n${spent}` : ''}\n${t('meter.click')}`
  return (
    <button
      type="button"
      className={`context-meter is-${status}`}
      onClick={onOpen}
      title={title}
      aria-label={title}
      data-testid="context-meter"
      data-status={status}
      data-percent={usage.usagePercent.toFixed(1)}
      data-used={usage.usedTokens}
      data-cached={usage.reported?.cachedTokens ?? 0}
    >
      <span className="meter-bar">
        <span className="meter-fill" style={{ width: `${pct}%` }} />
      </span>
      <span className="meter-text">
        {status === 'compressing' ? t('meter.compressing') : `${formatPercent(usage.usagePercent)} · ${formatTokens(usage.usedTokens)}/${formatTokens(usage.totalBudget)}`}
      </span>
    </button>
  )
}
