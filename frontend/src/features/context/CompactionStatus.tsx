import { useEffect } from 'react'
import { ErrorCodes } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { count } from '../../lib/count'
import { formatTokens } from './meter'

/** How long the outcome of a compaction stays under the conversation. */
export const outcomeMs = 10000

/** The line above the composer while /compact runs and after it: progress,
 * then what it did (or why it could not), in words. */
export function CompactionStatus({ typing }: { typing: boolean }) {
  const { context, chat } = useStores()
  const conversationId = useStore(chat, (s) => s.conversationId)
  const compacting = useStore(context, (s) => s.compacting === conversationId && !!conversationId)
  const last = useStore(context, (s) => (s.last?.conversationId === conversationId ? s.last : null))
  const error = useStore(context, (s) => s.error)

  useEffect(() => {
    if (!last && !error) return
    const t = setTimeout(() => (last ? context.actions.dismissLast() : context.actions.dismissError()), outcomeMs)
    return () => clearTimeout(t)
  }, [context, last, error])

  let text: string | null = null
  let kind = 'info'
  if (compacting) {
    text = 'Compacting the conversation: the older messages become a summary…'
    kind = 'progress'
  } else if (error) {
    kind = 'error'
    text =
      error.code === ErrorCodes.Busy
        ? 'The conversation cannot be compacted while an answer is being written: wait for it or stop it, then try again.'
        : `The conversation could not be compacted: ${error.message}`
  } else if (last) {
    const r = last.result
    text =
      r.compactedMessages > 0
        ? `Compacted ${count(r.compactedMessages, 'message')}: ${formatTokens(r.usedTokensBefore)} → ${formatTokens(r.usedTokensAfter)} tokens. The summary is in the conversation.`
        : 'Nothing to compact yet: only your newest message and what follows it are left.'
  } else if (typing) {
    text = '/compact makes the older messages a summary now; words after it say what the summary must keep (“/compact the budget and the dates”).'
    kind = 'hint'
  }
  if (!text) return null
  return (
    <div className={`composer-note compaction-status is-${kind}`} role="status" data-testid="compaction-status" data-kind={kind}>
      {kind === 'progress' && <span className="compaction-spinner" aria-hidden="true" />}
      <span>{text}</span>
      {(kind === 'info' || kind === 'error') && (
        <button type="button" className="btn btn-ghost btn-small" onClick={() => (kind === 'error' ? context.actions.dismissError() : context.actions.dismissLast())} aria-label="Dismiss">
          ✕
        </button>
      )}
    </div>
  )
}
