import { useState, type FormEvent } from 'react'
import type { McpPrompt } from '../../bridge'
import { useTranslation } from '../../i18n'
import './composerMenu.css'

/** The arguments of an MCP prompt chosen as a slash command, asked above the
 * input before the server fills it in (required ones must be given). */
export function PromptForm({ prompt, busy, onSubmit, onCancel }: { prompt: McpPrompt; busy: boolean; onSubmit: (args: Record<string, string>) => void; onCancel: () => void }) {
  const { t } = useTranslation()
  const args = prompt.arguments ?? []
  const [values, setValues] = useState<Record<string, string>>({})
  const missing = args.filter((a) => a.required && !(values[a.name] ?? '').trim())
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (missing.length || busy) return
    onSubmit(Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== '')))
  }
  return (
    <form
      className="prompt-form"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault()
          e.stopPropagation()
          onCancel()
        }
      }}
      aria-label={t('promptForm.label', { name: prompt.name })}
      data-testid="prompt-form"
    >
      <div className="prompt-form-head">
        <span className="prompt-form-name">/{prompt.name}</span>
        <span className="composer-menu-badge">{prompt.server}</span>
        {(prompt.description || prompt.title) && <span className="prompt-form-desc">{prompt.description || prompt.title}</span>}
      </div>
      <div className="prompt-form-fields">
        {args.map((a, i) => (
          <label key={a.name} className="prompt-form-field">
            <span className="prompt-form-arg">
              {a.title || a.name}
              {a.required && <span className="prompt-form-required" aria-label={t('promptForm.required')}> *</span>}
            </span>
            <input
              className="input input-small"
              autoFocus={i === 0}
              value={values[a.name] ?? ''}
              placeholder={a.description ?? ''}
              onChange={(e) => setValues((v) => ({ ...v, [a.name]: e.target.value }))}
              data-testid={`prompt-arg-${a.name}`}
            />
          </label>
        ))}
      </div>
      <div className="prompt-form-actions">
        <button type="button" className="btn btn-ghost btn-small" onClick={onCancel} data-testid="prompt-cancel">
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary btn-small" disabled={missing.length > 0 || busy} data-testid="prompt-insert">
          {busy ? t('promptForm.filling') : t('promptForm.insert')}
        </button>
      </div>
    </form>
  )
}
