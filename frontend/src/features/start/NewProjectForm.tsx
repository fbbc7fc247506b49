import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import { Trans, useTranslation } from '../../i18n'

interface Props {
  busy: boolean
  /** Where a project goes unless another folder is chosen ("" when unknown);
   * it is created with the project when missing. */
  defaultLocation: string
  chooseFolder: () => Promise<string | null>
  onCreate: (parentDir: string, name: string) => Promise<boolean>
  onCancel: () => void
}

function joinPath(dir: string, name: string): string {
  const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/'
  return dir.endsWith(sep) ? dir + name : `${dir}${sep}${name}`
}

/** A new project: a folder name and a location (the default one, or one
 * chosen in the native picker or typed). */
export function NewProjectForm({ busy, defaultLocation, chooseFolder, onCreate, onCancel }: Props) {
  const { t } = useTranslation()
  const [parent, setParent] = useState(defaultLocation)
  const [touched, setTouched] = useState(false)
  // the default arrives after the form opened: shown unless a folder was chosen
  useEffect(() => {
    if (!touched && defaultLocation) setParent(defaultLocation)
  }, [defaultLocation, touched])
  const [name, setName] = useState('')
  const parentId = useId()
  const nameId = useId()
  const nameRef = useRef<HTMLInputElement>(null)

  useEffect(() => {
    nameRef.current?.focus()
  }, [])

  const browse = async () => {
    const dir = await chooseFolder()
    if (dir) {
      setParent(dir)
      setTouched(true)
      nameRef.current?.focus()
    }
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    await onCreate(parent, name)
  }
  const ready = parent.trim() !== '' && name.trim() !== ''
  const isDefault = defaultLocation !== '' && parent.trim() === defaultLocation

  return (
    <form className="card new-project" onSubmit={submit} aria-labelledby="new-project-title" data-testid="new-project-form">
      <h2 id="new-project-title" className="card-title">
        {t('start.newProject')}
      </h2>
      <div className="field">
        <label htmlFor={nameId}>{t('newProject.name')}</label>
        <input
          id={nameId}
          ref={nameRef}
          className="input"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="my-project"
          spellCheck={false}
          autoComplete="off"
          data-testid="new-project-name-input"
        />
      </div>
      <div className="field">
        <label htmlFor={parentId}>{t('newProject.location')}</label>
        <div className="path-form-row">
          <input
            id={parentId}
            className="input mono"
            value={parent}
            onChange={(e) => {
              setParent(e.target.value)
              setTouched(true)
            }}
            placeholder="/home/me/projects"
            spellCheck={false}
            autoComplete="off"
            data-testid="new-project-parent-input"
          />
          <button type="button" className="btn" onClick={browse} disabled={busy} data-testid="new-project-browse">
            {t('newProject.browse')}
          </button>
        </div>
      </div>
      <p className="hint" data-testid="new-project-preview">
        {ready ? (
          <>
            <Trans t={t} i18nKey="newProject.creates" values={{ path: joinPath(parent.trim(), name) }} components={{ mono: <span className="mono" /> }} />
            {isDefault && t('newProject.andLocation')}
          </>
        ) : (
          t('newProject.nameIt')
        )}
        {defaultLocation && !isDefault && (
          <>
            {' '}
            <button
              type="button"
              className="new-project-default"
              onClick={() => {
                setParent(defaultLocation)
                setTouched(false)
              }}
              data-testid="new-project-default"
            >
              {t('newProject.useDefault')}
            </button>
          </>
        )}
      </p>
      <div className="form-actions">
        <button type="button" className="btn btn-ghost" onClick={onCancel} data-testid="new-project-cancel">
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !ready} data-testid="new-project-submit">
          {t('newProject.create')}
        </button>
      </div>
    </form>
  )
}
