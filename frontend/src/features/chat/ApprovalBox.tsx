import { useState } from 'react'
import type { ApprovalDecision, ApprovalRequest } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { t, useTranslation } from '../../i18n'

/** The state of an approval request, in words. */
export function approvalStatus(a: ApprovalRequest): string {
  switch (a.state) {
    case 'waiting':
      return t('approval.waiting')
    case 'allowed':
      return a.answer === 'allow-conversation' ? t('approval.allowedConversation') : a.answer === 'allow-project' ? t('approval.allowedProject') : t('approval.allowed')
    case 'denied':
      return t('approval.denied')
    case 'stopped':
      return t('approval.stopped')
  }
  return a.state
}

/** One line of a unified diff, with its kind for the colour. */
function diffLineKind(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'file'
  if (line.startsWith('@@')) return 'hunk'
  if (line.startsWith('+')) return 'add'
  if (line.startsWith('-')) return 'del'
  if (line.startsWith('\\')) return 'note'
  return 'ctx'
}

const diffLinesShown = 400

/** A unified diff, coloured by line (text only: nothing in it is markup). */
export function DiffView({ diff }: { diff: string }) {
  const { t } = useTranslation()
  const [all, setAll] = useState(false)
  const lines = diff.replace(/\n$/, '').split('\n')
  const shown = all ? lines : lines.slice(0, diffLinesShown)
  return (
    <>
      <pre className="approval-diff mono" data-testid="approval-diff">
        {shown.map((l, i) => (
          <span key={i} className={`diff-line diff-${diffLineKind(l)}`}>
            {l}
            {'\n'}
          </span>
        ))}
      </pre>
      {lines.length > diffLinesShown && (
        <button type="button" className="msg-action" onClick={() => setAll((a) => !a)}>
          {all ? t('common.showLess') : t('tool.showAllLines', { count: lines.length })}
        </button>
      )}
    </>
  )
}

/** The approval request of a tool call: what it will do, the diff of a
 * write or the command with its folder, and — while it waits — the answers:
 * Allow, Allow for this conversation, Always allow in this project, Deny
 * (with a reason the model receives). */
export function ApprovalBox({ a, toolCallId }: { a: ApprovalRequest; toolCallId: string }) {
  const { t } = useTranslation()
  const { chat } = useStores()
  const answering = useStore(chat, (s) => s.answering.includes(toolCallId))
  const [denying, setDenying] = useState(false)
  const [reason, setReason] = useState('')
  const waiting = a.state === 'waiting'
  const answer = (d: ApprovalDecision) => void chat.actions.answerApproval(toolCallId, d, d === 'deny' ? reason.trim() : '')

  return (
    <div className={`approval is-${a.state}`} data-testid="approval" data-state={a.state}>
      <div className="approval-head">
        <span className="approval-summary" data-testid="approval-summary">
          {a.summary}
        </span>
        <span className="approval-status" data-testid="approval-status">
          {approvalStatus(a)}
        </span>
      </div>
      {a.command && (
        <pre className="approval-command mono" data-testid="approval-command">
          {`$ ${a.command}`}
          {a.cwd ? `\n  ${t('approval.in', { cwd: a.cwd })}` : ''}
        </pre>
      )}
      {a.binary && <div className="approval-note">{t('approval.binary')}</div>}
      {a.diff && <DiffView diff={a.diff} />}
      {waiting && a.why && <div className="approval-note">{a.why}</div>}
      {a.state === 'denied' && a.note && <div className="approval-note">{t('approval.yourReason', { note: a.note })}</div>}
      {waiting && !denying && (
        <div className="approval-actions">
          <button type="button" className="btn btn-primary btn-small" disabled={answering} onClick={() => answer('allow')} data-testid="approval-allow">
            {t('approval.allow')}
          </button>
          <button type="button" className="btn btn-small" disabled={answering} onClick={() => answer('allow-conversation')} data-testid="approval-allow-conversation">
            {t('approval.allowConversation')}
          </button>
          <button
            type="button"
            className="btn btn-small"
            disabled={answering}
            onClick={() => answer('allow-project')}
            title={a.grant ? t('approval.grantTitle', { rule: a.grant }) : undefined}
            data-testid="approval-allow-project"
          >
            {t('approval.allowProject')}
          </button>
          <button type="button" className="btn btn-danger btn-small" disabled={answering} onClick={() => setDenying(true)} data-testid="approval-deny">
            {t('approval.denyMore')}
          </button>
        </div>
      )}
      {waiting && denying && (
        <form
          className="approval-actions"
          onSubmit={(e) => {
            e.preventDefault()
            answer('deny')
          }}
        >
          <input
            className="input approval-reason"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder={t('approval.reasonPlaceholder')}
            aria-label={t('approval.reasonLabel')}
            autoFocus
            data-testid="approval-reason"
          />
          <button type="submit" className="btn btn-danger btn-small" disabled={answering} data-testid="approval-deny-send">
            {t('approval.deny')}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setDenying(false)}>
            {t('common.back')}
          </button>
        </form>
      )}
    </div>
  )
}
