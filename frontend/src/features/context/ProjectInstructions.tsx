import { useEffect, useState } from 'react'
import type { ContextPreview } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { formatTokens } from './meter'
import { useTranslation } from '../../i18n'
import { backendText } from '../../i18n/backend'

/** The project's instruction file (AGENTS.md): what every request carries
 * before the conversation, how much of the budget it takes, and an editor. */
export function ProjectInstructions({ preview }: { preview: ContextPreview }) {
  const { t } = useTranslation()
  const { context } = useStores()
  const file = useStore(context, (s) => s.instructions)
  const saving = useStore(context, (s) => s.savingInstructions)
  const error = useStore(context, (s) => s.instructionsError)
  const [draft, setDraft] = useState<string | null>(null)
  const [saved, setSaved] = useState(false)
  useEffect(() => {
    void context.actions.loadInstructions()
  }, [context])
  const inRequest = preview.messages.filter((m) => m.reason.startsWith('project instructions'))
  const tokens = inRequest.reduce((n, m) => n + m.tokens, 0)

  const save = async () => {
    if (draft === null) return
    if (await context.actions.saveInstructions(draft)) {
      setDraft(null)
      setSaved(true)
    }
  }

  return (
    <section className="inspector-section" data-testid="inspector-instructions">
      <h3>
        {t('instr.title')}
        {file?.exists ? ` · ${file.name}` : ''}
        {tokens > 0 ? ` · ${t('instr.tokens', { tokens: formatTokens(tokens) })}` : ''}
      </h3>
      {file && !file.exists && draft === null && (
        <p className="hint" data-testid="instructions-none">
          {t('instr.none', { name: file.name })}
        </p>
      )}
      {file?.exists && draft === null && (
        <pre className="instructions-text" data-testid="instructions-text">
          {file.text || t('instr.empty')}
        </pre>
      )}
      {file?.truncated && <p className="hint">{t('instr.truncated')}</p>}
      {draft !== null ? (
        <div className="instructions-editor">
          <textarea
            aria-label={t('instr.editLabel', { name: file?.name ?? 'AGENTS.md' })}
            data-testid="instructions-editor"
            value={draft}
            rows={12}
            spellCheck={false}
            onChange={(e) => setDraft(e.target.value)}
          />
          <div className="instructions-actions">
            <button type="button" className="btn btn-primary" disabled={saving} onClick={() => void save()} data-testid="instructions-save">
              {saving ? t('settings.saving') : t('common.save')}
            </button>
            <button type="button" className="btn" disabled={saving} onClick={() => setDraft(null)}>
              {t('common.cancel')}
            </button>
          </div>
        </div>
      ) : (
        file &&
        !file.truncated && (
          <div className="instructions-actions">
            <button
              type="button"
              className="btn"
              data-testid="instructions-edit"
              onClick={() => {
                setSaved(false)
                setDraft(file.text)
              }}
            >
              {file.exists ? t('instr.editLabel', { name: file.name }) : t('instr.create', { name: file.name })}
            </button>
            {saved && (
              <span className="hint" role="status" data-testid="instructions-saved">
                {t('instr.saved')}
              </span>
            )}
          </div>
        )
      )}
      {error && (
        <p className="alert" role="alert" data-testid="instructions-error">
          {backendText(error)}
        </p>
      )}
    </section>
  )
}
