import { useStore, useStores } from '../../stores'

/** Shown while a tool call of the open conversation waits for another
 * conversation's answer (conv.create, conv.send): who it waits for, a way
 * there, and Stop, which ends all of that work. */
export function WaitingBar() {
  const { chat, conversations } = useStores()
  const waiting = useStore(chat, (s) => s.waitingFor)
  const answering = useStore(conversations, (s) => (waiting ? !!s.answering[waiting.conversationId] || waiting.answering : false))
  if (!waiting) return null
  return (
    <div className="waiting-bar" role="status" data-testid="waiting-bar">
      <span className={`waiting-dot ${answering ? 'is-answering' : ''}`} aria-hidden="true" />
      <span className="waiting-text" title="This conversation goes on with its answer.">
        Waiting for “<strong>{waiting.title}</strong>” {answering ? 'to answer' : 'to start answering'}.
      </span>
      <button type="button" className="btn btn-small" onClick={() => conversations.actions.select(waiting.conversationId)} data-testid="waiting-open">
        Open
      </button>
      <button type="button" className="btn btn-small btn-danger" onClick={() => void chat.actions.stop()} title="Stop this work (Esc)" data-testid="waiting-stop">
        Stop
      </button>
    </div>
  )
}
