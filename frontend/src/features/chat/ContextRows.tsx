import { useState } from 'react'
import type { Entry } from '../../bridge'
import { Markdown } from '../../components/Markdown'
import { useStore, useStores } from '../../stores'
import { formatTokens } from '../context/meter'
import { ActionIcon } from './ActionIcons'
import { SpeakerBadge } from './MessageParts'
import type { Row } from './messageRows'
import { ToolCard } from './ToolCard'
import { screenSummary } from '../../lib/toolSummary'
import './contextRows.css'
import { useTranslation } from '../../i18n'
import { saidText } from '../../i18n/backend'

/** The pin of a message: a pin among its actions, filled (and pressed)
 * once pinned, with "Pinned" above the message; a pinned message is kept
 * word for word by every compaction. */
export function PinControl({ entry, disabled }: { entry: Entry; disabled?: boolean }) {
  const { t } = useTranslation()
  const { context } = useStores()
  const busy = useStore(context, (s) => s.pinning === entry.id)
  const pinned = !!entry.view?.pinned
  return (
    <button
      type="button"
      className={`msg-icon-action pin-control ${pinned ? 'is-pinned' : ''}`}
      disabled={disabled || busy}
      aria-pressed={pinned}
      aria-label={t('pin.pin')}
      title={pinned ? t('pin.pinnedTitle') : t('pin.pinTitle')}
      onClick={() => void context.actions.setPinned(entry.id, !pinned)}
      data-testid="msg-pin"
      data-pinned={pinned}
    >
      <ActionIcon name="pin" />
    </button>
  )
}

/** The mark of a pinned message, shown above it at all times. */
export function PinnedMark({ entry }: { entry: Entry }) {
  const { t } = useTranslation()
  if (!entry.view?.pinned) return null
  return (
    <span className="pinned-mark" title={t('pin.markTitle')} data-testid="msg-pinned">
      <span aria-hidden="true">📌</span> {t('pin.pinned')}
    </span>
  )
}

/** A compaction in the conversation: how many messages went into the
 * summary, and, expanded, the summary and what was kept word for word. */
export function CompactionCard({ row }: { row: Extract<Row, { kind: 'compaction' }> }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const c = row.compaction
  const facts = [
    c.manual ? (c.focus ? t('compaction.youAskedFocus', { focus: c.focus }) : t('compaction.youAsked')) : t('compaction.full'),
    c.tokensBefore && c.tokensAfter ? t('compaction.tokens', { before: formatTokens(c.tokensBefore), after: formatTokens(c.tokensAfter) }) : '',
    c.pinned.length ? t('compaction.kept', { count: c.pinned.length }) : '',
  ].filter(Boolean)
  return (
    <div className={`compaction-card ${open ? 'is-open' : ''}`} data-testid="event-compaction" data-id={row.entry.id} data-count={c.count}>
      <button type="button" className="compaction-head" onClick={() => setOpen((o) => !o)} aria-expanded={open} data-testid="compaction-toggle">
        <span className="compaction-chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="compaction-title" data-testid="compaction-title">
          {c.count > 0 ? t('compaction.title', { count: c.count }) : t('compaction.titleOlder')}
        </span>
        <span className="compaction-facts">{facts.join(' · ')}</span>
      </button>
      {open && (
        <div className="compaction-body" data-testid="compaction-body">
          <p className="hint">
            {t('compaction.explain', { method: c.method })}
          </p>
          {c.summary ? (
            <div className="compaction-summary" data-testid="compaction-summary">
              <Markdown text={screenSummary(c.summary)} />
            </div>
          ) : (
            <p className="hint">{t('compaction.summaryAbove')}</p>
          )}
          {c.pinned.length > 0 && (
            <div className="compaction-pinned" data-testid="compaction-pinned">
              <div className="compaction-section">{t('compaction.keptTitle')}</div>
              <ul>
                {c.pinned.map((p) => (
                  <li key={p.id} data-testid="compaction-pin">
                    <strong>{p.who}:</strong> {p.text.length > 600 ? `${p.text.slice(0, 599)}…` : p.text}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
    </div>
  )
}

/** A step of a workflow run as one row: what it did, in words; its tool
 * calls one click away. */
export function StepsRow({ row }: { row: Extract<Row, { kind: 'steps' }> }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const failed = row.calls.filter((c) => c.status === 'error').length
  const running = row.calls.some((c) => c.status === 'running')
  // A call of the step waits for the user's approval: its card is shown.
  const asking = row.calls.some((c) => c.result?.approval?.state === 'waiting')
  const shown = open || asking
  return (
    <div className="msg msg-steps" data-id={row.entry.id}>
      {row.speaker && <SpeakerBadge speaker={row.speaker} />}
      <div className={`step-row ${open ? 'is-open' : ''}`} data-testid="step-row" data-node={row.step.node ?? ''} data-calls={row.calls.length}>
        <button type="button" className="step-head" onClick={() => setOpen((o) => !o)} aria-expanded={open} data-testid="step-toggle" title={t('steps.callsTitle', { count: row.calls.length })}>
          <span className={`tool-dot ${failed ? 'dot-error' : asking ? 'dot-pending' : running ? 'dot-running' : 'dot-ok'}`} aria-hidden="true" />
          <span className="step-title" data-testid="step-title">
            {saidText(row.step.titleWords, row.step.title)}
          </span>
          <span className="step-summary" data-testid="step-summary">
            {saidText(row.step.summaryWords, row.step.summary)}
          </span>
          <span className="step-chevron" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
        </button>
        {shown && (
          <div className="step-calls" data-testid="step-calls">
            {row.calls.map((c) => (
              <ToolCard key={c.key} call={c.call} result={c.result} status={c.status} words={c.callEntry.view?.calls?.[c.call.id]} said={c.callEntry.view?.callWords?.[c.call.id]} />
            ))}
          </div>
        )}
      </div>
    </div>
  )
}

/** The display name of a workflow of the active package (its id only in
 * the tooltip). */
export function WorkflowName({ id }: { id: string }) {
  const { packages } = useStores()
  const name = useStore(packages, (s) => s.active?.workflows.find((w) => w.id === id)?.displayName ?? '')
  if (!name) return null
  return (
    <span className="event-detail" title={id}>
      {' '}
      · {name}
    </span>
  )
}
