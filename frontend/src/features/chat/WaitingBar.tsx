import { useStore, useStores } from '../../stores'
import { Trans, useTranslation } from '../../i18n'

/** Shown while a tool call of the open conversation waits for another
 * conversation's answer (conv.create, conv.send): who it waits for, a way
 * there, and Stop, which ends all of that work. */
export function WaitingBar() {
  const { t } = useTranslation()
  const { chat, conversations } = useStores()
  const waiting = useStore(chat, (s) => s.waitingFor)
  const answering = useStore(conversations, (s) => (waiting ? !!s.answering[waiting.conversationId] || waiting.answering : false))
  if (!waiting) return null
  return (
    <div className="waiting-bar" role="status" data-testid="waiting-bar">
      <span className={`waiting-dot ${answering ? 'is-answering' : ''}`} aria-hidden="true" />
      <span className="waiting-text" title={t('chat.waiting.title')}>
        <Trans t={t} i18nKey={answering ? 'chat.waiting.toAnswer' : 'chat.waiting.toStart'} values={{ title: waiting.title }} components={{ b: <strong /> }} />
      </span>
      <button type="button" className="btn btn-small" onClick={() => conversations.actions.select(waiting.conversationId)} data-testid="waiting-open">
        {t('common.open')}
      </button>
      <button type="button" className="btn btn-small btn-danger" onClick={() => void chat.actions.stop()} title={t('chat.waiting.stopTitle')} data-testid="waiting-stop">
        {t('common.stop')}
      </button>
    </div>
  )
}
