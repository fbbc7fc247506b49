import { useEffect } from 'react'
import { ErrorCodes } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { formatTokens } from './meter'
import { useTranslation } from '../../i18n'
import { backendText } from '../../i18n/backend'

/** How long the outcome of a compaction stays under the conversation. */
export const outcomeMs = 10000

/** The line above the composer while /compact runs and after it: progress,
 * then what it did (or why it could not), in words. */
export function CompactionStatus({ typing }: { typing: boolean }) {
  const { t } = useTranslation()
  const { context, chat } = useStores()
  const conversationId = useStore(chat, (s) => s.conversationId)
  const compacting = useStore(context, (s) => s.compacting === conversationId && !!conversationId)
  const last = useStore(context, (s) => (s.last?.conversationId === conversationId ? s.last : null))
  const error = useStore(context, (s) => s.error)

  useEffect(() => {
    if (!last && !error) return
    const timer = setTimeout(() => (last ? context.actions.dismissLast() : context.actions.dismissError()), outcomeMs)
    return () => clearTimeout(timer)
  }, [context, last, error])

  let text: string | null = null
  let kind = 'info'
  if (compacting) {
    text = t('compact.progress')
    kind = 'progress'
  } else if (error) {
    kind = 'error'
    text =
      error.code === ErrorCodes.Busy ? t('compact.busy') : t('compact.failed', { message: backendText(error) })
  } else if (last) {
    const r = last.result
    text =
      r.compactedMessages > 0
        ? t('compact.done', { count: r.compactedMessages, before: formatTokens(r.usedTokensBefore), after: formatTokens(r.usedTokensAfter) })
        : t('compact.nothing')
  } else if (typing) {
    text = t('compact.hint')
    kind = 'hint'
  }
  if (!text) return null
  return (
    <div className={`composer-note compaction-status is-${kind}`} role="status" data-testid="compaction-status" data-kind={kind}>
      {kind === 'progress' && <span className="compaction-spinner" aria-hidden="true" />}
      <span>{text}</span>
      {(kind === 'info' || kind === 'error') && (
        <button type="button" className="btn btn-ghost btn-small" onClick={() => (kind === 'error' ? context.actions.dismissError() : context.actions.dismissLast())} aria-label={t('common.dismiss')}>
          ✕
        </button>
      )}
    </div>
  )
}
