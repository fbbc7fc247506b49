import { useState, type FormEvent } from 'react'
import type { QuestionState, Widget, WidgetAnswer, WidgetAnswerRecord, WidgetField } from '../../bridge'
import { useStore, useStores } from '../../stores'
import './runs.css'
import { t, Trans, useTranslation } from '../../i18n'

/** The state said on the card; a pending question says nothing more (the
 * run bar says the run waits for you, once). */
const stateLabel = (s: QuestionState): string => (s === 'answered' ? t('widget.answered') : s === 'unanswered' ? t('widget.unanswered') : '')

type Values = Record<string, unknown>

/** The initial values of a form: the answer's, else empty (false for booleans). */
function initialValues(w: Widget, answer?: WidgetAnswerRecord): Values {
  const out: Values = {}
  for (const f of w.fields ?? []) out[f.name] = answer?.answer.values?.[f.name] ?? (f.type === 'boolean' ? false : '')
  return out
}

/** The missing required fields of a form answer. */
export function missingFields(w: Widget, values: Values): string[] {
  return (w.fields ?? []).filter((f) => f.required && f.type !== 'boolean' && (values[f.name] === undefined || values[f.name] === '')).map((f) => f.label || f.name)
}

/** Form values as the answer sends them: numbers as numbers, empty optional fields left out. */
export function formAnswer(w: Widget, values: Values): WidgetAnswer {
  const out: Record<string, unknown> = {}
  for (const f of w.fields ?? []) {
    const v = values[f.name]
    if (v === undefined || v === '') continue
    out[f.name] = f.type === 'number' ? Number(v) : v
  }
  return { values: out }
}

/** The answer in words, for the read-only card. */
export function describeAnswer(w: Widget, a: WidgetAnswerRecord): string {
  switch (w.type) {
    case 'confirmation':
      return a.answer.confirmed ? t('widget.yes') : t('widget.no')
    case 'selection':
      return w.options?.find((o) => o.value === a.answer.selected)?.label ?? a.answer.selected ?? ''
    default:
      return (w.fields ?? [])
        .filter((f) => a.answer.values && f.name in a.answer.values)
        .map((f) => `${f.label || f.name}: ${String(a.answer.values?.[f.name])}`)
        .join(' · ')
  }
}

/** A ui.ask_user question inline in the conversation: a confirmation,
 * a selection or a short form. While the run waits for it the user answers
 * here (the run then continues); once answered it stays read-only with the
 * answer, also after a reload (the answer is read back from the log). */
export function WidgetCard({ widget, state, answer, runId }: { widget: Widget; state: QuestionState; answer?: WidgetAnswerRecord; runId: string }) {
  const { t } = useTranslation()
  const { runs, chat } = useStores()
  const answering = useStore(runs, (s) => s.answering === widget.widgetId)
  const streaming = useStore(chat, (s) => s.streaming)
  const [selected, setSelected] = useState<string>(answer?.answer.selected ?? '')
  const [values, setValues] = useState<Values>(() => initialValues(widget, answer))
  const [missing, setMissing] = useState<string[]>([])
  const live = state === 'pending'
  const disabled = !live || answering || streaming

  const send = (a: WidgetAnswer) => void runs.actions.answerWidget(runId, widget.widgetId, a)
  const submitForm = (e: FormEvent) => {
    e.preventDefault()
    if (disabled) return
    const m = missingFields(widget, values)
    setMissing(m)
    if (m.length === 0) send(formAnswer(widget, values))
  }

  return (
    <div className={`widget-card is-${state}`} data-testid="widget-card" data-state={state} data-type={widget.type} data-widget={widget.widgetId}>
      <div className="widget-head">
        <span className="widget-icon" aria-hidden="true">
          {state === 'answered' ? '✓' : '?'}
        </span>
        <span className="widget-prompt" data-testid="widget-prompt">
          {widget.prompt}
        </span>
        {(answering || stateLabel(state)) && <span className={`widget-state is-${state}`}>{answering ? t('widget.sending') : stateLabel(state)}</span>}
      </div>

      {widget.type === 'confirmation' && (
        <div className="widget-actions">
          {live ? (
            <>
              <button type="button" className="btn btn-primary btn-small" disabled={disabled} onClick={() => send({ confirmed: true })} data-testid="widget-yes">
                {t('widget.yes')}
              </button>
              <button type="button" className="btn btn-small" disabled={disabled} onClick={() => send({ confirmed: false })} data-testid="widget-no">
                {t('widget.no')}
              </button>
            </>
          ) : null}
        </div>
      )}

      {widget.type === 'selection' && (
        <form
          className="widget-options"
          onSubmit={(e) => {
            e.preventDefault()
            if (!disabled && selected) send({ selected })
          }}
        >
          <div role="radiogroup" aria-label={widget.prompt} className="widget-option-list">
            {(widget.options ?? []).map((o) => {
              const chosen = (answer?.answer.selected ?? selected) === o.value
              return (
                <label key={o.value} className={`widget-option ${chosen ? 'is-chosen' : ''}`} data-testid="widget-option" data-value={o.value} data-chosen={chosen}>
                  <input type="radio" name={`w-${widget.widgetId}`} value={o.value} checked={chosen} disabled={!live || answering} onChange={() => setSelected(o.value)} />
                  {o.label}
                </label>
              )
            })}
          </div>
          {live && (
            <button type="submit" className="btn btn-primary btn-small" disabled={disabled || !selected} data-testid="widget-submit">
              {t('widget.send')}
            </button>
          )}
        </form>
      )}

      {widget.type === 'form' && (
        <form className="widget-form" onSubmit={submitForm} noValidate>
          {(widget.fields ?? []).map((f) => (
            <FormField key={f.name} field={f} value={values[f.name]} readOnly={!live || answering} onChange={(v) => setValues((vs) => ({ ...vs, [f.name]: v }))} />
          ))}
          {missing.length > 0 && (
            <div className="widget-missing" role="alert" data-testid="widget-missing">
              {t('widget.missing', { fields: missing.join(', ') })}
            </div>
          )}
          {live && (
            <button type="submit" className="btn btn-primary btn-small" disabled={disabled} data-testid="widget-submit">
              {t('widget.send')}
            </button>
          )}
        </form>
      )}

      {answer && (
        <div className="widget-answer" data-testid="widget-answer">
          <Trans t={t} i18nKey="widget.yourAnswer" values={{ answer: describeAnswer(widget, answer) }} components={{ b: <strong /> }} />
        </div>
      )}
      {state === 'unanswered' && <div className="widget-answer hint">{t('widget.wentOn')}</div>}
      {live && streaming && !answering && <div className="hint">{t('widget.later')}</div>}
    </div>
  )
}

function FormField({ field, value, readOnly, onChange }: { field: WidgetField; value: unknown; readOnly: boolean; onChange: (v: unknown) => void }) {
  const id = `wf-${field.name}`
  const label = (
    <label htmlFor={id}>
      {field.label || field.name}
      {field.required && <span className="widget-required"> *</span>}
    </label>
  )
  const common = { id, disabled: readOnly, 'data-testid': `widget-field-${field.name}` }
  switch (field.type) {
    case 'boolean':
      return (
        <div className="widget-field widget-field-check">
          <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} {...common} />
          {label}
        </div>
      )
    case 'textarea':
      return (
        <div className="widget-field">
          {label}
          <textarea className="input" rows={3} value={String(value ?? '')} onChange={(e) => onChange(e.target.value)} {...common} />
        </div>
      )
    case 'select':
      return (
        <div className="widget-field">
          {label}
          <select className="input" value={String(value ?? '')} onChange={(e) => onChange(e.target.value)} {...common}>
            <option value="">{t('widget.choose')}</option>
            {(field.options ?? []).map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      )
    default:
      return (
        <div className="widget-field">
          {label}
          <input className="input" type={field.type === 'number' ? 'number' : 'text'} value={String(value ?? '')} onChange={(e) => onChange(e.target.value)} {...common} />
        </div>
      )
  }
}
