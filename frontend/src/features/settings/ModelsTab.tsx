import { useEffect, useState } from 'react'
import type { Settings } from '../../bridge'
import { Field, type FormTabProps } from './form'

type Endpoint = NonNullable<Settings['llm']['endpoints']>[number]
type Price = NonNullable<Settings['llm']['prices']>[string]

const shapes: { id: string; label: string; hint: string }[] = [
  { id: 'auto', label: 'Automatic', hint: "Sent as it is built; a model whose chat template refuses that (it says so in its error) gets the strict shape from then on." },
  { id: 'standard', label: 'As built', hint: 'Several system messages and consecutive messages of one role, as OpenAI takes them.' },
  { id: 'alternating', label: 'Strict turns', hint: 'One system message, then user and assistant turns strictly alternating (Mistral, Llama 2 templates).' },
  { id: 'alternating-no-system', label: 'Strict turns, no system role', hint: 'Strict turns, with the system text at the start of the first user message (Gemma templates).' },
]

const efforts: { id: string; label: string }[] = [
  { id: '', label: "The server's default" },
  { id: 'minimal', label: 'Minimal' },
  { id: 'low', label: 'Low' },
  { id: 'medium', label: 'Medium' },
  { id: 'high', label: 'High' },
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
      placeholder="qwen3:8b"
      spellCheck={false}
      data-testid={testId}
    />
  )
}

/** Settings → Models: more servers a conversation may choose in the
 * composer, the request shape for strict chat templates, the reasoning
 * effort, and prices for costs. */
export function ModelsTab({ draft }: FormTabProps) {
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
        <h3>More servers</h3>
        <p className="hint">Servers besides the one in General. A conversation chooses one of their models with the model chip beside Send.</p>
        {endpoints.length === 0 && <p className="hint" data-testid="endpoints-empty">None yet.</p>}
        {endpoints.map((e, i) => (
          <div className="settings-endpoint" key={i} data-testid="endpoint-row">
            <div className="settings-grid">
              <Field draft={draft} path={`llm.endpoints[${i}].name`} label="Name">
                <input className="input" value={e.name} onChange={(ev) => editEndpoint(i, (x) => (x.name = ev.target.value))} placeholder="lab" spellCheck={false} data-testid={`endpoint-name-${i}`} />
              </Field>
              <Field draft={draft} path={`llm.endpoints[${i}].baseUrl`} label="Base URL">
                <input className="input" value={e.baseUrl} onChange={(ev) => editEndpoint(i, (x) => (x.baseUrl = ev.target.value))} placeholder="http://127.0.0.1:8000/v1" spellCheck={false} data-testid={`endpoint-url-${i}`} />
              </Field>
              <Field draft={draft} path={`llm.endpoints[${i}].apiKey`} label="API key" help="Kept only in settings.json; shown masked.">
                <input
                  className="input"
                  type="password"
                  autoComplete="off"
                  value={e.apiKey ?? ''}
                  onChange={(ev) => editEndpoint(i, (x) => (x.apiKey = ev.target.value))}
                  onFocus={(ev) => ev.target.select()}
                  placeholder="none (local servers)"
                  data-testid={`endpoint-key-${i}`}
                />
              </Field>
              <Field draft={draft} path={`llm.endpoints[${i}].models`} label="Models" help="Separated by commas; the first is its default. The server's own list is offered too.">
                <ModelList value={e.models ?? []} set={(models) => editEndpoint(i, (x) => (x.models = models))} testId={`endpoint-models-${i}`} />
              </Field>
            </div>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => draft.edit((s) => (s.llm.endpoints = (s.llm.endpoints ?? []).filter((_, j) => j !== i)))}
              data-testid={`endpoint-remove-${i}`}
            >
              Remove this server
            </button>
          </div>
        ))}
        <button
          type="button"
          className="btn"
          onClick={() => draft.edit((s) => (s.llm.endpoints = [...(s.llm.endpoints ?? []), { name: '', baseUrl: '' }]))}
          data-testid="endpoint-add"
        >
          Add a server
        </button>
      </section>

      <section className="settings-section">
        <h3>Requests</h3>
        <div className="settings-grid">
          <Field draft={draft} path="llm.requestShape" label="Message shape" help={shape.hint}>
            <select id="set-llm.requestShape" className="input" value={l.requestShape || 'auto'} onChange={(e) => draft.edit((s) => (s.llm.requestShape = e.target.value === 'auto' ? '' : e.target.value))} data-testid="set-llm.requestShape">
              {shapes.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label}
                </option>
              ))}
            </select>
          </Field>
          <Field draft={draft} path="llm.reasoningEffort" label="Reasoning effort" help="How long reasoning models think before they answer; a server that does not take it is not sent it again.">
            <select id="set-llm.reasoningEffort" className="input" value={l.reasoningEffort ?? ''} onChange={(e) => draft.edit((s) => (s.llm.reasoningEffort = e.target.value))} data-testid="set-llm.reasoningEffort">
              {efforts.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>Prices</h3>
        <p className="hint">What each model costs per million tokens, for the costs shown beside the context meter and by crewagent usage.</p>
        <Field draft={draft} path="llm.currency" label="Currency">
          <input id="set-llm.currency" className="input settings-currency" value={l.currency ?? ''} placeholder="USD" onChange={(e) => draft.edit((s) => (s.llm.currency = e.target.value))} data-testid="set-llm.currency" />
        </Field>
        {Object.keys(prices).length > 0 && (
          <table className="settings-prices" data-testid="prices">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Input</th>
                <th scope="col">Cached input</th>
                <th scope="col">Output</th>
                <th scope="col">
                  <span className="sr-only">Remove</span>
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
                      <PriceInput value={prices[m].input} set={(v) => editPrice(m, (p) => (p.input = v))} label={`Input price of ${m}`} testId={`price-input-${m}`} />
                    </td>
                    <td>
                      <PriceInput value={prices[m].cachedInput} set={(v) => editPrice(m, (p) => (p.cachedInput = v))} label={`Cached input price of ${m}`} testId={`price-cached-${m}`} />
                    </td>
                    <td>
                      <PriceInput value={prices[m].output} set={(v) => editPrice(m, (p) => (p.output = v))} label={`Output price of ${m}`} testId={`price-output-${m}`} />
                    </td>
                    <td>
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={`Remove the price of ${m}`}
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
            aria-label="Model to price"
            spellCheck={false}
            data-testid="price-new"
          />
          <button type="button" className="btn" onClick={addPrice} disabled={!newPrice.trim() || !!prices[newPrice.trim()]} data-testid="price-add">
            Add a price
          </button>
        </div>
      </section>
    </>
  )
}
