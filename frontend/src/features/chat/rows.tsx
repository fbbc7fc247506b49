import { memo, useEffect, useRef, type KeyboardEvent } from 'react'
import { LiveMarkdown, Markdown } from '../../components/Markdown'
import { useStore, useStores } from '../../stores'
import { WidgetCard } from '../runs/WidgetCard'
import { SkillRow } from '../skills/SkillRow'
import { CompactionCard, PinControl, PinnedMark, StepsRow, WorkflowName } from './ContextRows'
import { IconAction } from './ActionIcons'
import { BranchSwitcher, CopyButton, SpeakerBadge } from './MessageParts'
import type { Row } from './messageRows'
import { ToolCard } from './ToolCard'
import { useTranslation } from '../../i18n'
import { problemText } from '../../i18n/backend'

export interface RowActions {
  fork(messageId: string): void
  /** Opens "Rewind to here" for a user message. */
  rewind(messageId: string): void
  continueReply(): void
  retry(): void
  regenerate(messageId: string): void
  edit(messageId: string, text: string): void
  switchBranch(after: string, index: number): void
  openSettings(): void
  streaming: boolean
}

function ForkButton({ id, actions }: { id: string; actions: RowActions }) {
  const { t } = useTranslation()
  return <IconAction icon="fork" label={t('chat.fork')} title={t('chat.forkTitle')} onClick={() => actions.fork(id)} testId="msg-fork" />
}

function Compacted() {
  const { t } = useTranslation()
  return (
    <span className="compacted-tag" title={t('chat.compactedTitle')} data-testid="msg-compacted">
      {t('chat.compacted')}
    </span>
  )
}

/** The line under a message: its version switcher (always shown) and its
 * actions, icons with tooltips: always shown under the latest answer and
 * the latest message of the user, on hover or focus under the others. */
function Foot({ row, actions, children }: { row: Extract<Row, { branch?: unknown }>; actions: RowActions; children: React.ReactNode }) {
  const shown = 'last' in row && !!row.last
  return (
    <div className="msg-foot">
      {row.branch && <BranchSwitcher branch={row.branch} disabled={actions.streaming} onSwitch={actions.switchBranch} />}
      <div className={`msg-actions ${shown ? 'is-shown' : ''}`} data-testid="msg-actions" data-shown={shown}>
        {children}
      </div>
    </div>
  )
}

/** A sent message edited in place: Enter sends it as a new version,
 * Shift+Enter adds a line, Escape cancels. */
function EditBox({ id }: { id: string }) {
  const { t } = useTranslation()
  const { chat } = useStores()
  const draft = useStore(chat, (s) => (s.editing?.id === id ? s.editing.text : ''))
  const streaming = useStore(chat, (s) => s.streaming)
  const ref = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    el.focus()
    el.setSelectionRange(el.value.length, el.value.length)
  }, [])
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.stopPropagation()
      chat.actions.startEdit(null)
    } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void chat.actions.submitEdit()
    }
  }
  return (
    <div className="edit-box" data-testid="edit-box">
      <textarea
        ref={ref}
        className="edit-input"
        value={draft}
        rows={Math.min(10, Math.max(2, draft.split('\n').length))}
        onChange={(e) => chat.actions.setEditDraft(e.target.value)}
        onKeyDown={onKey}
        aria-label={t('chat.editLabel')}
        data-testid="edit-input"
      />
      <div className="edit-bar">
        <span className="hint">{t('chat.editHint')}</span>
        <button type="button" className="btn btn-small" onClick={() => chat.actions.startEdit(null)} data-testid="edit-cancel">
          {t('common.cancel')}
        </button>
        <button type="button" className="btn btn-small btn-primary" disabled={streaming || !draft.trim()} onClick={() => void chat.actions.submitEdit()} data-testid="edit-send">
          {t('common.send')}
        </button>
      </div>
    </div>
  )
}

function UserRow({ row, actions }: { row: Extract<Row, { kind: 'user' }>; actions: RowActions }) {
  const { t } = useTranslation()
  const { chat, runs } = useStores()
  const editing = useStore(chat, (s) => s.editing?.id === row.entry.id)
  // The step a run's input was for, by its title (its id in the tooltip).
  const step = useStore(runs, (s) => (row.forNode ? (s.run?.nodes?.find((n) => n.id === row.forNode)?.title ?? '') : ''))
  return (
    <div className={`msg msg-user ${row.entry.compacted ? 'is-compacted' : ''}`} data-testid="msg-user" data-id={row.entry.id}>
      {row.entry.compacted && <Compacted />}
      <PinnedMark entry={row.entry} />
      {row.forNode && (
        <span className="for-node" title={t('chat.forNodeTitle', { node: row.forNode })} data-testid="msg-for-node">
          {step ? t('chat.forStep', { step }) : t('chat.sentToRun')}
        </span>
      )}
      {editing ? (
        <EditBox id={row.entry.id} />
      ) : (
        <div className="bubble bubble-user" data-content="">
          {row.entry.attachments && row.entry.attachments.length > 0 && (
            <span className="msg-attachments" data-testid="msg-attachments">
              {row.entry.attachments.map((a, i) => (
                <span className="msg-attachment" key={`${a.name}-${i}`} title={a.truncated ? t('chat.attachmentTruncated', { name: a.name }) : a.name}>
                  <span aria-hidden="true">{a.kind === 'image' ? '🖼' : '📄'}</span> {a.name}
                </span>
              ))}
            </span>
          )}
          {row.text}
          {row.entry.editOf && (
            <span className="edited-tag" title={t('chat.editedTitle')}>
              {' '}
              {t('chat.edited')}
            </span>
          )}
        </div>
      )}
      {!editing && (
        <Foot row={row} actions={actions}>
          <CopyButton text={row.text} />
          {row.editable && (
            <IconAction icon="edit" label={t('common.edit')} title={t('chat.editTitle')} disabled={actions.streaming} onClick={() => actions.edit(row.entry.id, row.text)} testId="msg-edit" />
          )}
          <PinControl entry={row.entry} disabled={actions.streaming} />
          <ForkButton id={row.entry.id} actions={actions} />
          <IconAction icon="rewind" label={t('chat.rewind')} title={t('chat.rewindTitle')} disabled={actions.streaming} onClick={() => actions.rewind(row.entry.id)} testId="msg-rewind" />
        </Foot>
      )}
    </div>
  )
}

/** The note of an answer the server cut short: why, and Continue (when
 * there is something to continue from) and Retry while it is the latest
 * reply. */
function IncompleteNotice({ row, actions }: { row: Extract<Row, { kind: 'assistant' }>; actions: RowActions }) {
  const { t } = useTranslation()
  return (
    <div className="incomplete-notice" role="status" data-testid="msg-incomplete" data-reason={row.incomplete}>
      <strong>{t('chat.incomplete')}</strong>
      <span>
        {row.incomplete === 'length' ? t('chat.incompleteLength') : t('chat.incompleteFilter')}
      </span>
      {row.latest && (
        <div className="error-actions">
          {row.canContinue && (
            <button type="button" className="btn btn-small btn-primary" disabled={actions.streaming} onClick={actions.continueReply} data-testid="incomplete-continue">
              {t('common.continue')}
            </button>
          )}
          <button type="button" className={`btn btn-small ${row.canContinue ? '' : 'btn-primary'}`} disabled={actions.streaming} onClick={actions.retry} data-testid="incomplete-retry">
            {t('common.retry')}
          </button>
        </div>
      )}
    </div>
  )
}

/** One row of the message list. Rows are rebuilt whenever the entries
 * change; a row whose parts are the same objects is not drawn again. */
export const MessageRow = memo(
  function MessageRow({ row, actions }: { row: Row; actions: RowActions }) {
    const { t } = useTranslation()
    switch (row.kind) {
      case 'user':
        return <UserRow row={row} actions={actions} />
      case 'assistant':
        return (
          <div className={`msg msg-assistant ${row.entry.compacted ? 'is-compacted' : ''}`} data-testid="msg-assistant" data-id={row.entry.id}>
            {row.entry.compacted && <Compacted />}
            <PinnedMark entry={row.entry} />
            {row.speaker && <SpeakerBadge speaker={row.speaker} />}
            <div className="bubble bubble-assistant" data-content="">
              {row.text.trim() && <Markdown text={row.text} />}
              {row.incomplete && <IncompleteNotice row={row} actions={actions} />}
            </div>
            <Foot row={row} actions={actions}>
              {row.text.trim() && <CopyButton text={row.text} />}
              {row.regenerable && (
                <IconAction
                  icon="regenerate"
                  label={t('chat.regenerate')}
                  title={t('chat.regenerateTitle')}
                  disabled={actions.streaming}
                  onClick={() => actions.regenerate(row.entry.id)}
                  testId="msg-regenerate"
                />
              )}
              <PinControl entry={row.entry} disabled={actions.streaming} />
              <ForkButton id={row.entry.id} actions={actions} />
            </Foot>
          </div>
        )
      case 'thinking':
        return (
          <div className="msg msg-thinking-row" data-id={row.entry.id}>
            {row.speaker && <SpeakerBadge speaker={row.speaker} />}
            <details className="msg-thinking">
              <summary>{t('chat.thinking')}</summary>
              <div className="thinking-text">{row.entry.content}</div>
            </details>
          </div>
        )
      case 'tool':
        return (
          <div className="msg msg-tool" data-id={row.result?.id ?? row.callEntry?.id}>
            {row.speaker && <SpeakerBadge speaker={row.speaker} />}
            <ToolCard call={row.call} result={row.result} status={row.status} words={row.callEntry?.view?.calls?.[row.call.id]} said={row.callEntry?.view?.callWords?.[row.call.id]} />
          </div>
        )
      case 'switcher':
        return (
          <div className="msg msg-switcher" data-id={row.entry.id}>
            <BranchSwitcher branch={row.branch} disabled={actions.streaming} onSwitch={actions.switchBranch} />
          </div>
        )
      case 'error': {
        const { error } = row
        const problem = { ...row.problem, ...problemText(row.problem) }
        const facts = [error.fields?.status && t('chat.errorFacts.status', { status: error.fields.status }), error.fields?.provider, t('chat.errorFacts.code', { code: error.code })].filter(Boolean).join(' · ')
        return (
          <div className="msg msg-assistant msg-error" data-testid="msg-error" data-id={row.entry.id} data-code={error.code}>
            {row.speaker && <SpeakerBadge speaker={row.speaker} />}
            {row.partial && (
              <div className="bubble bubble-assistant" data-content="">
                <Markdown text={row.partial} />
              </div>
            )}
            <div className="problem" role="alert">
              <div className="problem-title" data-testid="problem-title">
                {problem.title}
              </div>
              {problem.advice && (
                <div className="problem-advice" data-testid="problem-advice">
                  {problem.advice}
                </div>
              )}
              <details className="problem-details" data-testid="problem-details">
                <summary>{t('common.details')}</summary>
                <div className="problem-message mono">{error.message}</div>
                <div className="problem-facts">{facts}</div>
              </details>
              {row.latest && (
                <div className="error-actions">
                  {row.canContinue && (
                    <button type="button" className="btn btn-small btn-primary" disabled={actions.streaming} onClick={actions.continueReply} data-testid="error-continue">
                      {t('common.continue')}
                    </button>
                  )}
                  <button
                    type="button"
                    className={`btn btn-small ${row.canContinue ? '' : 'btn-primary'}`}
                    disabled={actions.streaming}
                    onClick={actions.retry}
                    data-testid="error-retry"
                  >
                    {t('common.retry')}
                  </button>
                  {problem.settings && (
                    <button type="button" className="btn btn-small" onClick={actions.openSettings} data-testid="error-open-settings">
                      {t('chat.openSettings')}
                    </button>
                  )}
                </div>
              )}
            </div>
            <Foot row={row} actions={actions}>
              {row.partial && <CopyButton text={row.partial} />}
              <ForkButton id={row.entry.id} actions={actions} />
            </Foot>
          </div>
        )
      }
      case 'stopped':
        return (
          <div className="msg msg-assistant msg-stopped" data-testid="msg-stopped" data-id={row.entry.id}>
            {row.speaker && <SpeakerBadge speaker={row.speaker} />}
            {row.partial && (
              <div className="bubble bubble-assistant" data-content="">
                <Markdown text={row.partial} />
              </div>
            )}
            <div className="stopped-note" role="status" title={`${row.entry.view?.error?.message ?? ''} (${row.entry.view?.error?.code ?? ''})`}>
              <span className="stopped-label" data-testid="stopped-label">
                {row.partial ? t('chat.stopped') : t('chat.stoppedEmpty')}
              </span>
              {row.latest && row.canContinue && (
                <button type="button" className="btn btn-small" disabled={actions.streaming} onClick={actions.continueReply} data-testid="stopped-continue">
                  {t('common.continue')}
                </button>
              )}
              {row.latest && (
                <button type="button" className="btn btn-small btn-ghost" disabled={actions.streaming} onClick={actions.retry} data-testid="stopped-retry">
                  {t('common.retry')}
                </button>
              )}
            </div>
            <Foot row={row} actions={actions}>
              {row.partial && <CopyButton text={row.partial} />}
              <ForkButton id={row.entry.id} actions={actions} />
            </Foot>
          </div>
        )
      case 'unfinished':
        return (
          <div className="msg msg-unfinished" data-testid="msg-unfinished">
            <div className="unfinished-notice" role="status">
              <strong>{t('chat.unfinished')}</strong>
              <span>{t('chat.unfinishedWhy')}</span>
              <div className="error-actions">
                {row.canContinue && (
                  <button type="button" className="btn btn-small btn-primary" disabled={actions.streaming} onClick={actions.continueReply} data-testid="unfinished-continue">
                    {t('common.continue')}
                  </button>
                )}
                <button type="button" className={`btn btn-small ${row.canContinue ? '' : 'btn-primary'}`} disabled={actions.streaming} onClick={actions.retry} data-testid="unfinished-retry">
                  {t('common.retry')}
                </button>
              </div>
            </div>
          </div>
        )
      case 'stopped-end':
        return (
          <div className="msg msg-assistant msg-stopped" data-testid="msg-stopped-end">
            <div className="stopped-note" role="status">
              <span className="stopped-label">{t('chat.stopped')}</span>
              {row.canContinue && (
                <button type="button" className="btn btn-small" disabled={actions.streaming} onClick={actions.continueReply} data-testid="stopped-end-continue">
                  {t('common.continue')}
                </button>
              )}
            </div>
          </div>
        )
      case 'awaiting':
        return (
          <div className="msg msg-awaiting" data-testid="msg-awaiting">
            <div className="awaiting-note" role="status">
              <span>{t('chat.awaiting')}</span>
              <button type="button" className="btn btn-small" disabled={actions.streaming} onClick={actions.retry} data-testid="awaiting-answer">
                {t('chat.answerIt')}
              </button>
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
              {row.entry.event === 'run_started' && <WorkflowName id={String((row.entry.data as { workflowId?: unknown } | undefined)?.workflowId ?? '')} />}
            </span>
            <span className="event-line" />
          </div>
        )
      case 'skill':
        return <SkillRow id={row.entry.id} skill={row.skill} />
      case 'compaction':
        return <CompactionCard row={row} />
      case 'steps':
        return <StepsRow row={row} />
      case 'live':
        return (
          <div className="msg msg-assistant is-live" data-testid="msg-live" data-id={row.call.messageId}>
            <div className="bubble bubble-assistant" data-content="">
              {row.call.text ? <LiveMarkdown text={row.call.text} /> : <span className="typing" aria-label={t('chat.waitingAnswer')} />}
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
  },
  (a, b) => a.actions === b.actions && sameRow(a.row, b.row),
)

/** Whether two rows show the same thing: the same kind and key, and every
 * part the same value or object (rows are rebuilt from entries that keep
 * their identity while unchanged). */
export function sameRow(a: Row, b: Row): boolean {
  if (a === b) return true
  if (a.kind !== b.kind || a.key !== b.key) return false
  return shallowEqual(a, b, 1)
}

function shallowEqual(a: object, b: object, depth: number): boolean {
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => {
    const x = (a as Record<string, unknown>)[k]
    const y = (b as Record<string, unknown>)[k]
    if (x === y) return true
    // Parts built afresh with each row (a failure's block, who answered)
    // compare by their own parts.
    return depth > 0 && isPlain(x) && isPlain(y) && shallowEqual(x, y, depth - 1)
  })
}

const isPlain = (v: unknown): v is object => !!v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype
