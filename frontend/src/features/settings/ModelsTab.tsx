import { useEffect, useState } from 'react'
import type { Settings } from '../../bridge'
import { t, useTranslation } from '../../i18n'
import { Field, type FormTabProps } from './form'

type Endpoint = NonNullable<Settings['llm']['endpoints']>[number]
type Price = NonNullable<Settings['llm']['prices']>[string]

const shapes: { id: string; label: () => string; hint: () => string }[] = [
  { id: 'auto', label: () => t('settings.models.shapes.auto'), hint: () => t('settings.models.shapes.autoHint') },
  { id: 'standard', label: () => t('settings.models.shapes.standard'), hint: () => t('settings.models.shapes.standardHint') },
  { id: 'alternating', label: () => t('settings.models.shapes.alternating'), hint: () => t('settings.models.shapes.alternatingHint') },
  { id: 'alternating-no-system', label: () => t('settings.models.shapes.noSystem'), hint: () => t('settings.models.shapes.noSystemHint') },
]

const efforts: { id: string; label: () => string }[] = [
  { id: '', label: () => t('settings.models.efforts.default') },
  { id: 'minimal', label: () => t('settings.models.efforts.minimal') },
  { id: 'low', label: () => t('settings.models.efforts.low') },
  { id: 'medium', label: () => t('settings.models.efforts.medium') },
  { id: 'high', label: () => t('settings.models.efforts.high') },
]

/** A price field: a number of money units per million tokens, kept as typed
 * until it reads as one. */
function PriceInput({ value, set, label, testId }: { value: number | undefined; set: (v: number) => void; label: string; testId: string }) {
  const [text, setText] = useState(value ? String(value) : '')
  const [bad, setBad] = useState(false)
  return (
    <input
      className="input settings-price"
      inputMode="decimal"
      value={text}
      aria-label={label}
      aria-invalid={bad}
      placeholder="0"
      onChange={(e) => {
        const t = e.target.value
        setText(t)
        const n = t.trim() === '' ? 0 : Number(t.replace(',', '.'))
        const ok = Number.isFinite(n) && n >= 0
        setBad(!ok)
        if (ok) set(n)
      }}
      data-testid={testId}
    />
  )
}

const parseModels = (t: string) => t.split(',').map((m) => m.trim()).filter((m) => m !== '')

/** A list of model names typed with commas between them: the text stays as
 * typed (a trailing comma included) while the list follows it. */
function ModelList({ value, set, testId }: { value: string[]; set: (v: string[]) => void; testId: string }) {
  const [text, setText] = useState(value.join(', '))
  const joined = value.join(', ')
  // A list changed elsewhere (a row above removed, settings read again) is shown as it is.
  useEffect(() => {
    setText((t) => (parseModels(t).join(', ') === joined ? t : joined))
  }, [joined])
  return (
    <input
      className="input"
      value={text}
      onChange={(e) => {
        setText(e.target.value)
        set(parseModels(e.target.value))
      }}
      onBlur={() => setText(value.join(', '))}
      placeholder={'qwen3:8b'}
      spellCheck={false}
      data-testid={testId}
    />
  )
}

/** Settings → Models: more servers a conversation may choose in the
 * composer, the request shape for strict chat templates, the reasoning
 * effort, and prices for costs. */
export function ModelsTab({ draft }: FormTabProps) {
  const { t } = useTranslation()
  const l = draft.form.llm
  const endpoints = l.endpoints ?? []
  const prices = l.prices ?? {}
  const [newPrice, setNewPrice] = useState('')
  const editEndpoint = (i: number, fn: (e: Endpoint) => void) =>
    draft.edit((s) => {
      const list = [...(s.llm.endpoints ?? [])]
      const e = { ...list[i] }
      fn(e)
      list[i] = e
      s.llm.endpoints = list
    })
  const editPrice = (model: string, fn: (p: Price) => void) =>
    draft.edit((s) => {
      const all = { ...(s.llm.prices ?? {}) }
      const p = { ...(all[model] ?? { input: 0, output: 0 }) }
      fn(p)
      all[model] = p
      s.llm.prices = all
    })
  const addPrice = () => {
    const m = newPrice.trim()
    if (!m || prices[m]) return
    editPrice(m, () => {})
    setNewPrice('')
  }
  const shape = shapes.find((s) => s.id === (l.requestShape || 'auto')) ?? shapes[0]

  return (
    <>
      <section className="settings-section">
        <h3>{t('settings.models.servers')}</h3>
        <p className="hint">{t('settings.models.serversHint')}</p>
        {endpoints.length === 0 && <p className="hint" data-testid="endpoints-empty">{t('settings.models.none')}</p>}
        {endpoints.map((e, i) => (
          <div className="settings-endpoint" key={i} data-testid="endpoint-row">
            <div className="settings-grid">
              <Field draft={draft} path={`llm.endpoints[${i}].name`} label={t('settings.models.name')}>
                <input className="input" value={e.name} onChange={(ev) => editEndpoint(i, (x) => (x.name = ev.target.value))} placeholder={'lab'} spellCheck={false} data-testid={`endpoint-name-${i}`} />
              </Field>
              <Field draft={draft} path={`llm.endpoints[${i}].baseUrl`} label={t('settings.gen.baseUrl')}>
                <input className="input" value={e.baseUrl} onChange={(ev) => editEndpoint(i, (x) => (x.baseUrl = ev.target.value))} placeholder={'http://127.0.0.1:8000/v1'} spellCheck={false} data-testid={`endpoint-url-${i}`} />
              </Field>
              <Field draft={draft} path={`llm.endpoints[${i}].apiKey`} label={t('settings.gen.apiKey')} help={t('settings.models.apiKeyHelp')}>
                <input
                  className="input"
                  type="password"
                  autoComplete="off"
                  value={e.apiKey ?? ''}
                  onChange={(ev) => editEndpoint(i, (x) => (x.apiKey = ev.target.value))}
                  onFocus={(ev) => ev.target.select()}
                  placeholder={t('settings.gen.apiKeyPlaceholder')}
                  data-testid={`endpoint-key-${i}`}
                />
              </Field>
              <Field draft={draft} path={`llm.endpoints[${i}].models`} label={t('settings.models.models')} help={t('settings.models.modelsHelp')}>
                <ModelList value={e.models ?? []} set={(models) => editEndpoint(i, (x) => (x.models = models))} testId={`endpoint-models-${i}`} />
              </Field>
            </div>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => draft.edit((s) => (s.llm.endpoints = (s.llm.endpoints ?? []).filter((_, j) => j !== i)))}
              data-testid={`endpoint-remove-${i}`}
            >
              {t('settings.models.removeServer')}
            </button>
          </div>
        ))}
        <button
          type="button"
          className="btn"
          onClick={() => draft.edit((s) => (s.llm.endpoints = [...(s.llm.endpoints ?? []), { name: '', baseUrl: '' }]))}
          data-testid="endpoint-add"
        >
          {t('settings.models.addServer')}
        </button>
      </section>

      <section className="settings-section">
        <h3>{t('settings.models.requests')}</h3>
        <div className="settings-grid">
          <Field draft={draft} path="llm.requestShape" label={t('settings.models.shape')} help={shape.hint()}>
            <select id="set-llm.requestShape" className="input" value={l.requestShape || 'auto'} onChange={(e) => draft.edit((s) => (s.llm.requestShape = e.target.value === 'auto' ? '' : e.target.value))} data-testid="set-llm.requestShape">
              {shapes.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label()}
                </option>
              ))}
            </select>
          </Field>
          <Field draft={draft} path="llm.reasoningEffort" label={t('settings.models.effort')} help={t('settings.models.effortHelp')}>
            <select id="set-llm.reasoningEffort" className="input" value={l.reasoningEffort ?? ''} onChange={(e) => draft.edit((s) => (s.llm.reasoningEffort = e.target.value))} data-testid="set-llm.reasoningEffort">
              {efforts.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.label()}
                </option>
              ))}
            </select>
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>{t('settings.models.prices')}</h3>
        <p className="hint">{t('settings.models.pricesHint')}</p>
        <Field draft={draft} path="llm.currency" label={t('settings.models.currency')}>
          <input id="set-llm.currency" className="input settings-currency" value={l.currency ?? ''} placeholder={'USD'} onChange={(e) => draft.edit((s) => (s.llm.currency = e.target.value))} data-testid="set-llm.currency" />
        </Field>
        {Object.keys(prices).length > 0 && (
          <table className="settings-prices" data-testid="prices">
            <thead>
              <tr>
                <th scope="col">{t('settings.models.col.model')}</th>
                <th scope="col">{t('settings.models.col.input')}</th>
                <th scope="col">{t('settings.models.col.cached')}</th>
                <th scope="col">{t('settings.models.col.output')}</th>
                <th scope="col">
                  <span className="sr-only">{t('common.remove')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {Object.keys(prices)
                .sort()
                .map((m) => (
                  <tr key={m} data-testid={`price-${m}`}>
                    <th scope="row">{m}</th>
                    <td>
                      <PriceInput value={prices[m].input} set={(v) => editPrice(m, (p) => (p.input = v))} label={t('settings.models.inputPrice', { model: m })} testId={`price-input-${m}`} />
                    </td>
                    <td>
                      <PriceInput value={prices[m].cachedInput} set={(v) => editPrice(m, (p) => (p.cachedInput = v))} label={t('settings.models.cachedPrice', { model: m })} testId={`price-cached-${m}`} />
                    </td>
                    <td>
                      <PriceInput value={prices[m].output} set={(v) => editPrice(m, (p) => (p.output = v))} label={t('settings.models.outputPrice', { model: m })} testId={`price-output-${m}`} />
                    </td>
                    <td>
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={t('settings.models.removePrice', { model: m })}
                        onClick={() =>
                          draft.edit((s) => {
                            const all = { ...(s.llm.prices ?? {}) }
                            delete all[m]
                            s.llm.prices = all
                          })
                        }
                      >
                        ✕
                      </button>
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        )}
        <div className="settings-price-add">
          <input
            className="input"
            value={newPrice}
            onChange={(e) => setNewPrice(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault()
                addPrice()
              }
            }}
            placeholder="gpt-4o-mini"
            aria-label={t('settings.models.modelToPrice')}
            spellCheck={false}
            data-testid="price-new"
          />
          <button type="button" className="btn" onClick={addPrice} disabled={!newPrice.trim() || !!prices[newPrice.trim()]} data-testid="price-add">
            {t('settings.models.addPrice')}
          </button>
        </div>
      </section>
    </>
  )
}
