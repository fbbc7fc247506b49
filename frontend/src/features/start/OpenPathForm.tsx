import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from '../../i18n'

/** Opens a project by a typed or pasted folder path. */
export function OpenPathForm({ busy, onOpen }: { busy: boolean; onOpen: (path: string) => Promise<boolean> }) {
  const { t } = useTranslation()
  const [path, setPath] = useState('')
  const id = useId()
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (await onOpen(path)) setPath('')
  }
  return (
    <form className="path-form" onSubmit={submit} data-testid="open-path-form">
      <label htmlFor={id} className="path-form-label">
        {t('start.openByPath')}
      </label>
      <div className="path-form-row">
        <input
          id={id}
          className="input mono"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          placeholder="/home/me/projects/my-project"
          spellCheck={false}
          autoComplete="off"
          data-testid="open-path-input"
        />
        <button type="submit" className="btn" disabled={busy || !path.trim()} data-testid="open-path-submit">
          {t('common.open')}
        </button>
      </div>
    </form>
  )
}
