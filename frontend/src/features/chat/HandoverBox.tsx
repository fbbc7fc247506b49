import type { HandoverView } from '../../bridge'
import { Markdown } from '../../components/Markdown'
import { useStore, useStores } from '../../stores'
import { t, useTranslation } from '../../i18n'

/** How a handed-over turn stands, in words. */
export function handoverStatus(h: HandoverView, answering: boolean): string {
  switch (h.status) {
    case 'waiting':
      return answering ? t('handover.answering') : t('handover.waiting')
    case 'completed':
      return t('handover.answered')
    case 'failed':
      return t('handover.failed')
    case 'stopped':
      return t('handover.stopped')
    case 'interrupted':
      return t('handover.interrupted')
  }
  return h.status
}

/** Why a handed-over turn has no answer, for the user. */
function handoverNote(h: HandoverView): string {
  switch (h.status) {
    case 'stopped':
      return t('handover.stoppedNote')
    case 'interrupted':
      return t('handover.interruptedNote')
  }
  return h.message ?? ''
}

const answerLines = 6

/** The conversation a conv.create or conv.send call handed the turn to: its
 * title, whether it is answering, its answer (or why there is none), and a
 * way to open it. */
export function HandoverBox({ h, tool }: { h: HandoverView; tool: string }) {
  const { t } = useTranslation()
  const { conversations } = useStores()
  const title = useStore(conversations, (s) => s.list.find((c) => c.id === h.conversationId)?.title ?? h.title ?? t('handover.aConversation'))
  const exists = useStore(conversations, (s) => !s.loaded || s.list.some((c) => c.id === h.conversationId))
  const answering = useStore(conversations, (s) => !!s.answering[h.conversationId])
  const status = handoverStatus(h, answering)
  const lines = (h.answer ?? '').trim().split('\n')
  const shown = lines.slice(0, answerLines).join('\n') + (lines.length > answerLines ? '\n…' : '')
  return (
    <div className={`handover is-${h.status}${answering ? ' is-answering' : ''}`} data-testid="handover" data-status={h.status} data-conversation={h.conversationId}>
      <div className="handover-head">
        <span className="handover-kind">{tool.endsWith('create') ? t('handover.new') : t('handover.asked')}</span>
        <span className="handover-title" title={title}>
          {t('handover.quoted', { title })}
        </span>
        <span className="handover-status" data-testid="handover-status">
          {status}
        </span>
        {exists ? (
          <button type="button" className="btn btn-small" onClick={() => conversations.actions.select(h.conversationId)} data-testid="handover-open">
            {t('common.open')}
          </button>
        ) : (
          <span className="hint">{t('handover.deleted')}</span>
        )}
      </div>
      {h.answer?.trim() ? (
        <div className="handover-answer" data-testid="handover-answer">
          <Markdown text={shown} />
        </div>
      ) : (
        h.status !== 'waiting' && <div className="handover-note">{handoverNote(h)}</div>
      )}
    </div>
  )
}
