import { memo } from 'react'
import { LiveMarkdown, Markdown } from '../../components/Markdown'
import { WidgetCard } from '../runs/WidgetCard'
import type { Row } from './messageRows'
import { ToolCard } from './ToolCard'

export interface RowActions {
  fork(messageId: string): void
  continueReply(): void
  retry(): void
  streaming: boolean
}

function ForkButton({ id, actions }: { id: string; actions: RowActions }) {
  return (
    <button type="button" className="msg-action" title="Fork a new conversation from here" onClick={() => actions.fork(id)} data-testid="msg-fork">
      Fork from here
    </button>
  )
}

function Compacted() {
  return (
    <span className="compacted-tag" title="Compressed out of the context sent to the model; kept in the log" data-testid="msg-compacted">
      compressed
    </span>
  )
}

/** One row of the message list. */
export const MessageRow = memo(function MessageRow({ row, actions }: { row: Row; actions: RowActions }) {
  switch (row.kind) {
    case 'user':
      return (
        <div className={`msg msg-user ${row.entry.compacted ? 'is-compacted' : ''}`} data-testid="msg-user" data-id={row.entry.id}>
          {row.entry.compacted && <Compacted />}
          {row.forNode && (
            <span className="for-node" title="Sent to the workflow run for this step" data-testid="msg-for-node">
              → {row.forNode}
            </span>
          )}
          <div className="bubble bubble-user">{row.text}</div>
          <div className="msg-actions">
            <ForkButton id={row.entry.id} actions={actions} />
          </div>
        </div>
      )
    case 'assistant':
      return (
        <div className={`msg msg-assistant ${row.entry.compacted ? 'is-compacted' : ''}`} data-testid="msg-assistant" data-id={row.entry.id}>
          {row.entry.compacted && <Compacted />}
          <div className="bubble bubble-assistant">
            {row.text.trim() && <Markdown text={row.text} />}
            {row.incomplete && (
              <div className="incomplete-notice" role="status" data-testid="msg-incomplete" data-reason={row.incomplete}>
                <strong>This answer is incomplete.</strong>
                <span>
                  {row.incomplete === 'length'
                    ? 'The model reached its output limit before it finished; any tool calls it was making were not run.'
                    : "The provider's content filter stopped the answer; any tool calls it was making were not run."}
                </span>
                {row.latest && (
                  <div className="error-actions">
                    <button type="button" className="btn btn-small btn-primary" disabled={actions.streaming} onClick={actions.continueReply} data-testid="incomplete-continue">
                      Continue
                    </button>
                    <button type="button" className="btn btn-small" disabled={actions.streaming} onClick={actions.retry} data-testid="incomplete-retry">
                      Retry
                    </button>
                  </div>
                )}
              </div>
            )}
          </div>
          <div className="msg-actions">
            <ForkButton id={row.entry.id} actions={actions} />
          </div>
        </div>
      )
    case 'thinking':
      return (
        <details className="msg msg-thinking" data-id={row.entry.id}>
          <summary>Thinking</summary>
          <div className="thinking-text">{row.entry.content}</div>
        </details>
      )
    case 'tool':
      return (
        <div className="msg msg-tool" data-id={row.result?.id ?? row.callEntry?.id}>
          <ToolCard call={row.call} result={row.result} status={row.status} />
        </div>
      )
    case 'error':
      return (
        <div className="msg msg-assistant msg-error" data-testid="msg-error" data-id={row.entry.id} data-code={row.error.code}>
          <div className="bubble bubble-error">
            {row.partial && <Markdown text={row.partial} />}
            <div className="error-block" role="alert">
              <strong className="mono">{row.error.code}</strong>
              <span>{row.error.message}</span>
            </div>
            {row.latest && (
              <div className="error-actions">
                <button type="button" className="btn btn-small btn-primary" disabled={actions.streaming} onClick={actions.continueReply} data-testid="error-continue">
                  Continue
                </button>
                <button type="button" className="btn btn-small" disabled={actions.streaming} onClick={actions.retry} data-testid="error-retry">
                  Retry
                </button>
              </div>
            )}
          </div>
          <div className="msg-actions">
            <ForkButton id={row.entry.id} actions={actions} />
          </div>
        </div>
      )
    case 'unfinished':
      return (
        <div className="msg msg-unfinished" data-testid="msg-unfinished">
          <div className="unfinished-notice" role="status">
            <strong>This reply did not finish.</strong>
            <span>Nothing after this point was saved: the app may have closed, or the log could not be written, while the model was answering.</span>
            <div className="error-actions">
              <button type="button" className="btn btn-small btn-primary" disabled={actions.streaming} onClick={actions.continueReply} data-testid="unfinished-continue">
                Continue
              </button>
              <button type="button" className="btn btn-small" disabled={actions.streaming} onClick={actions.retry} data-testid="unfinished-retry">
                Retry
              </button>
            </div>
          </div>
        </div>
      )
    case 'event':
      return (
        <div className={`msg-event event-${row.entry.event}`} data-testid={`event-${row.entry.event}`} data-id={row.entry.id}>
          <span className="event-line" />
          <span className="event-label">
            {row.label}
            {row.detail && <span className="event-detail"> · {row.detail}</span>}
          </span>
          <span className="event-line" />
        </div>
      )
    case 'live':
      return (
        <div className="msg msg-assistant is-live" data-testid="msg-live" data-id={row.call.messageId}>
          <div className="bubble bubble-assistant">
            {row.call.text ? <LiveMarkdown text={row.call.text} /> : <span className="typing" aria-label="Waiting for the answer" />}
            {!row.call.ended && row.call.text && <span className="cursor" aria-hidden="true" />}
          </div>
        </div>
      )
    case 'widget':
      return (
        <div className="msg msg-widget" data-id={row.entry.id}>
          <WidgetCard widget={row.widget} state={row.state} answer={row.answer} runId={row.runId} />
        </div>
      )
    case 'live-tool':
      return (
        <div className="msg msg-tool" data-testid="live-tool">
          <ToolCard
            call={{ id: row.tool.toolCallId, type: 'function', function: { name: row.tool.toolName, arguments: '' } }}
            status={row.tool.status}
            durationMs={row.tool.durationMs}
            errorText={row.tool.error?.message}
          />
        </div>
      )
  }
})
