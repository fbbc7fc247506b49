import { t, Trans, useTranslation } from '../../i18n'

interface Props {
  root: string
  question: string
  busy: boolean
  onAnswer: (keep: boolean) => void
  onCancel: () => void
}

/** The backend's question ("this looks like project "book" moved from
 * /home/me/book — use its conversations?") in the language in use; a
 * question in other words is shown as it is. */
export function movedQuestion(question: string): string {
  const m = /^this looks like project "(.*)" moved from (.+) — use its conversations\?$/s.exec(question)
  return m ? t('moved.question', { name: m[1], from: m[2] }) : question
}

/** The question of a folder that looks like a project moved from another path:
 * keep its conversations here, or make the folder a new project. */
export function MovedProject({ root, question, busy, onAnswer, onCancel }: Props) {
  const { t } = useTranslation()
  return (
    <section className="card moved-project" role="alertdialog" aria-labelledby="moved-title" aria-describedby="moved-question" data-testid="moved-project" data-root={root}>
      <h2 id="moved-title" className="card-title">
        {t('moved.title')}
      </h2>
      <p id="moved-question" className="moved-question" data-testid="moved-question">
        {movedQuestion(question)}
      </p>
      <p className="hint">
        <Trans t={t} i18nKey="moved.hint" values={{ root }} components={{ path: <span className="mono" /> }} />
      </p>
      <div className="form-actions">
        <button type="button" className="btn btn-ghost" onClick={onCancel} disabled={busy} data-testid="moved-cancel">
          {t('common.cancel')}
        </button>
        <button type="button" className="btn" onClick={() => onAnswer(false)} disabled={busy} data-testid="moved-new">
          {t('moved.newProject')}
        </button>
        <button type="button" className="btn btn-primary" onClick={() => onAnswer(true)} disabled={busy} data-testid="moved-keep">
          {t('moved.keep')}
        </button>
      </div>
    </section>
  )
}
