import { useEffect, useState } from 'react'
import type { RestoreResult, RewindWhat } from '../../bridge'
import { Modal } from '../../components/Modal'
import { useStores } from '../../stores'
import { t, useTranslation } from '../../i18n'
import './restore.css'

const whatLabels: { id: RewindWhat; label: () => string; hint: () => string }[] = [
  { id: 'both', label: () => t('restore.what.both'), hint: () => t('restore.what.bothHint') },
  { id: 'files', label: () => t('restore.what.files'), hint: () => t('restore.what.filesHint') },
  { id: 'conversation', label: () => t('restore.what.conversation'), hint: () => t('restore.what.conversationHint') },
]

function FileList({ title, files, testId }: { title: string; files: string[]; testId: string }) {
  if (files.length === 0) return null
  return (
    <div className="restore-group" data-testid={testId}>
      <div className="restore-group-title">{title}</div>
      <ul className="restore-files mono">
        {files.map((f) => (
          <li key={f}>{f}</li>
        ))}
      </ul>
    </div>
  )
}

/** The files a restore will put back, and those changed since the tools
 * wrote them, which are kept unless ticked; for a rewind, what it goes back
 * on. The plan is asked for when the dialog opens (nothing changes until
 * the confirm button). */
export function RestoreDialog({
  kind,
  conversationId,
  target,
  onClose,
  onDone,
}: {
  /** rewind: to before the user message target; undo: the change of the tool call target. */
  kind: 'rewind' | 'undo'
  conversationId: string
  target: string
  onClose: () => void
  /** Called after a restore that went through, with what it restored. */
  onDone?: (r: RestoreResult | null) => void
}) {
  const { t } = useTranslation()
  const { conversations } = useStores()
  const [plan, setPlan] = useState<RestoreResult | null>(null)
  const [failed, setFailed] = useState(false)
  const [what, setWhat] = useState<RewindWhat>('both')
  const [forced, setForced] = useState<string[]>([])
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    let live = true
    const ask = kind === 'rewind' ? conversations.actions.planRewind(conversationId, target) : conversations.actions.planUndo(conversationId, target)
    void ask.then((p) => {
      if (!live) return
      if (p) setPlan(p)
      else setFailed(true)
    })
    return () => {
      live = false
    }
  }, [conversations, kind, conversationId, target])

  const files = what !== 'conversation'
  const nothing = !!plan && plan.restored.length === 0 && plan.kept.length === 0
  const canGo = !busy && !!plan && (kind === 'rewind' ? !(what === 'files' && nothing) : plan.restored.length + forced.length > 0)

  const confirm = async () => {
    setBusy(true)
    try {
      const force = files ? forced : []
      if (kind === 'rewind') {
        const r = await conversations.actions.rewind(conversationId, target, what, force)
        if (r) {
          onDone?.(r.files ?? null)
          onClose()
        }
      } else {
        const r = await conversations.actions.undoChange(conversationId, target, force)
        if (r) {
          onDone?.(r)
          onClose()
        }
      }
    } finally {
      setBusy(false)
    }
  }

  const toggle = (f: string, on: boolean) => setForced((cur) => (on ? [...cur, f] : cur.filter((x) => x !== f)))

  return (
    <Modal
      title={kind === 'rewind' ? t('restore.rewindTitle') : t('restore.undoTitle')}
      onClose={onClose}
      testId="restore-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose} data-testid="restore-cancel">
            {t('common.cancel')}
          </button>
          <button type="button" className="btn btn-primary" disabled={!canGo} onClick={() => void confirm()} data-testid="restore-confirm">
            {busy ? t('restore.restoring') : kind === 'rewind' ? t('restore.rewind') : t('restore.undo')}
          </button>
        </>
      }
    >
      {kind === 'rewind' && (
        <div className="restore-what" role="radiogroup" aria-label={t('restore.whatLabel')}>
          {whatLabels.map((w) => (
            <label key={w.id} className={`restore-option ${what === w.id ? 'is-active' : ''}`}>
              <input type="radio" name="restore-what" value={w.id} checked={what === w.id} onChange={() => setWhat(w.id)} data-testid={`restore-what-${w.id}`} />
              {w.label()}
            </label>
          ))}
          <p className="hint" data-testid="restore-what-hint">
            {whatLabels.find((w) => w.id === what)?.hint()}
          </p>
        </div>
      )}
      {!plan && !failed && <p className="hint">{t('restore.looking')}</p>}
      {failed && <p className="hint">{t('restore.failed')}</p>}
      {plan && files && (
        <div className="restore-plan" data-testid="restore-plan">
          {nothing && plan.unrestorable.length === 0 && (
            <p className="hint" data-testid="restore-nothing">
              {kind === 'rewind' ? t('restore.nothingRewind') : t('restore.nothingUndo')}
            </p>
          )}
          <FileList title={t('restore.willRestore', { count: plan.restored.length })} files={plan.restored} testId="restore-restored" />
          {plan.kept.length > 0 && (
            <div className="restore-group" data-testid="restore-kept">
              <div className="restore-group-title">{t('restore.changedSince', { count: plan.kept.length })}</div>
              <ul className="restore-files mono">
                {plan.kept.map((f) => (
                  <li key={f}>
                    <label>
                      <input type="checkbox" checked={forced.includes(f)} onChange={(e) => toggle(f, e.target.checked)} data-testid="restore-force" data-path={f} /> {f}
                    </label>
                  </li>
                ))}
              </ul>
            </div>
          )}
          <FileList title={t('restore.tooLarge')} files={plan.unrestorable} testId="restore-unrestorable" />
          {!nothing && kind === 'undo' && <p className="hint">{t('restore.redoLater')}</p>}
        </div>
      )}
    </Modal>
  )
}
