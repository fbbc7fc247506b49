import { useEffect, useMemo, useState, type FormEvent } from 'react'
import type { McpElicitation } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'
import { formContent, formFields, initialValues, type FieldProblem, type FieldValue, type FormField } from './elicitForm'
import './elicitation.css'

/** The forms MCP servers wait for during a call, as cards in the
 * conversation above the input: each one answered with Accept (the fields
 * checked against the server's schema), Decline or Cancel. */
export function ElicitationCards() {
  const { mcpComposer } = useStores()
  const list = useStore(mcpComposer, (s) => s.elicitations)
  const error = useStore(mcpComposer, (s) => s.error)
  useEffect(() => mcpComposer.actions.start(), [mcpComposer])
  if (list.length === 0) return null
  return (
    <div className="elicit-cards" data-testid="elicit-cards">
      {error && <ErrorBanner error={error} onDismiss={mcpComposer.actions.dismissError} />}
      {list.map((e) => (
        <ElicitationCard key={e.id} request={e} />
      ))}
    </div>
  )
}

function ElicitationCard({ request }: { request: McpElicitation }) {
  const { t } = useTranslation()
  const { mcpComposer } = useStores()
  const answering = useStore(mcpComposer, (s) => s.answering === request.id)
  const fields = useMemo(() => formFields(request.requestedSchema), [request.requestedSchema])
  const [values, setValues] = useState<Record<string, FieldValue>>(() => initialValues(fields))
  const [problems, setProblems] = useState<FieldProblem[]>([])
  const set = (name: string, v: FieldValue) => {
    setValues((cur) => ({ ...cur, [name]: v }))
    setProblems((cur) => cur.filter((p) => p.field !== name))
  }
  const accept = (e: FormEvent) => {
    e.preventDefault()
    const r = formContent(fields, values)
    setProblems(r.problems)
    if (r.problems.length === 0) void mcpComposer.actions.answer(request.id, 'accept', r.content)
  }
  return (
    <form className="elicit-card" onSubmit={accept} aria-label={t('elicit.label', { server: request.server })} data-testid="elicit-card" noValidate>
      <div className="elicit-head">
        <span className="elicit-server">{t('elicit.asks', { server: request.server })}</span>
      </div>
      {request.message && <p className="elicit-message">{request.message}</p>}
      <div className="elicit-fields">
        {fields.map((f) => (
          <Field key={f.name} field={f} value={values[f.name]} problem={problems.find((p) => p.field === f.name)} onChange={(v) => set(f.name, v)} />
        ))}
      </div>
      <div className="elicit-actions">
        <button type="button" className="btn btn-ghost btn-small" disabled={answering} onClick={() => void mcpComposer.actions.answer(request.id, 'cancel', {})} data-testid="elicit-cancel">
          {t('common.cancel')}
        </button>
        <button type="button" className="btn btn-small" disabled={answering} onClick={() => void mcpComposer.actions.answer(request.id, 'decline', {})} data-testid="elicit-decline">
          {t('elicit.decline')}
        </button>
        <button type="submit" className="btn btn-primary btn-small" disabled={answering} data-testid="elicit-accept">
          {t('elicit.accept')}
        </button>
      </div>
    </form>
  )
}

const anyStep = 'any'

function Field({ field: f, value, problem, onChange }: { field: FormField; value: FieldValue; problem?: FieldProblem; onChange: (v: FieldValue) => void }) {
  const { t } = useTranslation()
  const id = `elicit-${f.name}`
  const hint = problem ? t(problem.key, problem.values ?? {}) : f.description
  const label = (
    <>
      {f.label}
      {f.required && <span className="elicit-required" aria-label={t('promptForm.required')}> *</span>}
    </>
  )
  let control
  if (f.kind === 'boolean') {
    return (
      <div className="elicit-field elicit-field-check">
        <label className="elicit-check">
          <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} data-testid={id} />
          {label}
        </label>
        {hint && <span className={`elicit-hint${problem ? ' is-problem' : ''}`}>{hint}</span>}
      </div>
    )
  }
  if (f.kind === 'choices') {
    const list = Array.isArray(value) ? value : []
    control = (
      <div className="elicit-choices" role="group" aria-labelledby={`${id}-label`} data-testid={id}>
        {f.choices!.map((c) => (
          <label key={c.value} className="elicit-check">
            <input type="checkbox" checked={list.includes(c.value)} onChange={(e) => onChange(e.target.checked ? [...list, c.value] : list.filter((x) => x !== c.value))} />
            {c.label}
          </label>
        ))}
      </div>
    )
  } else if (f.kind === 'choice') {
    control = (
      <select id={id} className="input input-small" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} aria-invalid={!!problem} data-testid={id}>
        {!f.required || value === '' ? <option value="">{t('elicit.none')}</option> : null}
        {f.choices!.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    )
  } else {
    const type = f.kind === 'number' || f.kind === 'integer' ? 'number' : f.format === 'email' ? 'email' : f.format === 'date' ? 'date' : f.format === 'uri' ? 'url' : 'text'
    control = (
      <input
        id={id}
        className="input input-small"
        type={type}
        step={f.kind === 'integer' ? 1 : f.kind === 'number' ? anyStep : undefined}
        min={f.min}
        max={f.max}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={!!problem}
        data-testid={id}
      />
    )
  }
  return (
    <div className="elicit-field">
      <label className="elicit-label" id={`${id}-label`} htmlFor={f.kind === 'choices' ? undefined : id}>
        {label}
      </label>
      {control}
      {hint && <span className={`elicit-hint${problem ? ' is-problem' : ''}`}>{hint}</span>}
    </div>
  )
}
