import type { HandoverView } from '../../bridge'
import { Markdown } from '../../components/Markdown'
import { useStore, useStores } from '../../stores'

/** How a handed-over turn stands, in words. */
export function handoverStatus(h: HandoverView, answering: boolean): string {
  switch (h.status) {
    case 'waiting':
      return answering ? 'answering…' : 'waiting to answer'
    case 'completed':
      return 'answered'
    case 'failed':
      return 'could not answer'
    case 'stopped':
      return 'stopped'
    case 'interrupted':
      return 'interrupted'
  }
  return h.status
}

/** Why a handed-over turn has no answer, for the user. */
function handoverNote(h: HandoverView): string {
  switch (h.status) {
    case 'stopped':
      return 'Stopped before it finished.'
    case 'interrupted':
      return 'The app closed before it finished.'
  }
  return h.message ?? ''
}

const answerLines = 6

/** The conversation a conv.create or conv.send call handed the turn to: its
 * title, whether it is answering, its answer (or why there is none), and a
 * way to open it. */
export function HandoverBox({ h, tool }: { h: HandoverView; tool: string }) {
  const { conversations } = useStores()
  const title = useStore(conversations, (s) => s.list.find((c) => c.id === h.conversationId)?.title ?? h.title ?? 'a conversation')
  const exists = useStore(conversations, (s) => !s.loaded || s.list.some((c) => c.id === h.conversationId))
  const answering = useStore(conversations, (s) => !!s.answering[h.conversationId])
  const status = handoverStatus(h, answering)
  const lines = (h.answer ?? '').trim().split('\n')
  const shown = lines.slice(0, answerLines).join('\n') + (lines.length > answerLines ? '\n…' : '')
  return (
    <div className={`handover is-${h.status}${answering ? ' is-answering' : ''}`} data-testid="handover" data-status={h.status} data-conversation={h.conversationId}>
      <div className="handover-head">
        <span className="handover-kind">{tool.endsWith('create') ? 'New conversation' : 'Asked'}</span>
        <span className="handover-title" title={title}>
          “{title}”
        </span>
        <span className="handover-status" data-testid="handover-status">
          {status}
        </span>
        {exists ? (
          <button type="button" className="btn btn-small" onClick={() => conversations.actions.select(h.conversationId)} data-testid="handover-open">
            Open
          </button>
        ) : (
          <span className="hint">deleted</span>
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
