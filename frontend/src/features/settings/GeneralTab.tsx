import type { LocalServer } from '../../bridge'
import { describeLocalServer, proposedModel } from '../../lib/localServers'
import { formatSeconds, parseSeconds } from '../../lib/units'
import { useStore, useStores, type TextSize, type Theme } from '../../stores'
import { Field, TextInput, UnitInput, type FormTabProps, type SettingsDraft } from './form'

const themes: { id: Theme; label: string; hint: string }[] = [
  { id: 'system', label: 'System', hint: 'Light or dark as the desktop is, following its changes' },
  { id: 'light', label: 'Light', hint: 'Always light' },
  { id: 'dark', label: 'Dark', hint: 'Always dark' },
]

/** Settings → General: the LLM endpoint (with the servers found on this
 * computer, Test connection and the models the endpoint serves) and the
 * theme, which applies at once. */
export function GeneralTab({ draft }: FormTabProps) {
  const { settings, setup } = useStores()
  const testing = useStore(settings, (s) => s.testing)
  const test = useStore(settings, (s) => s.test)
  const theme = useStore(settings, (s) => s.theme)
  const servers = useStore(setup, (s) => s.servers)
  const f = draft.form
  const modelFixed = draft.overridden.has('llm.model')
  const models = test?.models ?? []
  const offers = (servers ?? []).filter((s) => s.baseUrl !== f.llm.baseUrl && !draft.overridden.has('llm.baseUrl'))

  return (
    <>
      <section className="settings-section">
        <h3>Model</h3>
        <p className="hint">Any OpenAI-compatible endpoint: OpenAI, Ollama, LM Studio, vLLM, or a hosted service.</p>
        {offers.map((s) => (
          <LocalOffer key={s.baseUrl} server={s} draft={draft} />
        ))}
        <Field draft={draft} path="llm.baseUrl" label="Base URL">
          <TextInput draft={draft} path="llm.baseUrl" value={f.llm.baseUrl} set={(s, v) => (s.llm.baseUrl = v)} placeholder="http://127.0.0.1:11434/v1" spellCheck={false} />
        </Field>
        <div className="settings-grid">
          <Field draft={draft} path="llm.apiKey" label="API key" help="Kept only in settings.json, readable by you alone; shown masked.">
            <TextInput
              draft={draft}
              path="llm.apiKey"
              value={f.llm.apiKey}
              set={(s, v) => (s.llm.apiKey = v)}
              type="password"
              autoComplete="off"
              placeholder="none (local servers)"
              onFocus={(e) => e.target.select()}
            />
          </Field>
          <Field draft={draft} path="llm.timeoutSeconds" label="Timeout" help="For a whole answer, tool calls included: 90 s, 2 min.">
            <UnitInput draft={draft} path="llm.timeoutSeconds" value={f.llm.timeoutSeconds} set={(s, v) => (s.llm.timeoutSeconds = v)} format={formatSeconds} parse={(t) => parseSeconds(t)} />
          </Field>
        </div>
        <div className="settings-test">
          <button type="button" className="btn" disabled={testing} onClick={() => void settings.actions.testConnection(f)} data-testid="settings-test">
            {testing ? 'Testing…' : 'Test connection'}
          </button>
          {test && (
            <span className={`test-result ${test.ok ? 'is-ok' : 'is-fail'}`} data-testid="settings-test-result" data-ok={test.ok} role="status">
              {test.ok ? '✓ ' : '✗ '}
              {test.message}
            </span>
          )}
        </div>
        <Field draft={draft} path="llm.model" label="Model" help={models.length > 0 && !modelFixed ? undefined : 'Test connection lists the models the endpoint serves.'}>
          <TextInput draft={draft} path="llm.model" value={f.llm.model} set={(s, v) => (s.llm.model = v)} placeholder="gpt-4o-mini" spellCheck={false} list={models.length > 0 ? 'settings-models' : undefined} />
        </Field>
        {models.length > 0 && (
          <datalist id="settings-models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        )}
        {models.length > 0 && !modelFixed && (
          <div className="settings-models" data-testid="settings-models">
            <label htmlFor="settings-model-pick">{models.length === 1 ? 'The endpoint serves one model' : `The endpoint serves ${models.length} models`}</label>
            <select
              id="settings-model-pick"
              className="input"
              value={models.includes(f.llm.model) ? f.llm.model : ''}
              onChange={(e) => e.target.value && draft.edit((s) => (s.llm.model = e.target.value))}
              data-testid="settings-model-pick"
            >
              {!models.includes(f.llm.model) && <option value="">Choose a model…</option>}
              {models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
        )}
      </section>

      <section className="settings-section">
        <h3>Appearance</h3>
        <div className="theme-choice" role="radiogroup" aria-label="Theme">
          {themes.map((t) => (
            <label key={t.id} className={`theme-option ${theme === t.id ? 'is-active' : ''}`} title={t.hint}>
              <input
                type="radio"
                name="theme"
                value={t.id}
                checked={f.theme === t.id}
                onChange={() => {
                  draft.edit((s) => (s.theme = t.id))
                  settings.actions.previewTheme(t.id)
                }}
                data-testid={`set-theme-${t.id}`}
              />
              {t.label}
            </label>
          ))}
        </div>
        <span className="hint">{themes.find((t) => t.id === f.theme)?.hint}</span>
        <TextSizeChoice />
      </section>
    </>
  )
}

const sizeLabels: Record<TextSize, string> = { small: 'Small', default: 'Default', large: 'Large', larger: 'Larger' }

/** The size of the answers' text: applies at once and is kept for this
 * window, like the zoom (Ctrl/Cmd + = − 0), which the hint mentions. */
function TextSizeChoice() {
  const { display } = useStores()
  const size = useStore(display, (s) => s.textSize)
  const zoom = useStore(display, (s) => s.zoom)
  return (
    <>
      <h4 className="settings-subhead" id="text-size-label">
        Text size of answers
      </h4>
      <div className="theme-choice" role="radiogroup" aria-labelledby="text-size-label">
        {(Object.keys(sizeLabels) as TextSize[]).map((t) => (
          <label key={t} className={`theme-option ${size === t ? 'is-active' : ''}`}>
            <input type="radio" name="text-size" value={t} checked={size === t} onChange={() => display.actions.setTextSize(t)} data-testid={`set-text-size-${t}`} />
            {sizeLabels[t]}
          </label>
        ))}
      </div>
      <span className="hint" data-testid="zoom-hint">
        Zoom: {Math.round(zoom * 100)} % — Ctrl + = and Ctrl + − change it, Ctrl + 0 puts it back. Both apply at once.
      </span>
    </>
  )
}

/** A server found on this computer, offered in words; Use puts it in the form. */
function LocalOffer({ server, draft }: { server: LocalServer; draft: SettingsDraft }) {
  const model = proposedModel(server, draft.form.llm.model)
  return (
    <div className="settings-offer" data-testid="settings-local-offer" data-base-url={server.baseUrl}>
      <span>
        {describeLocalServer(server)}.{' '}
        <span className="mono hint">{server.baseUrl}</span>
      </span>
      <button
        type="button"
        className="btn btn-small"
        onClick={() =>
          draft.edit((s) => {
            s.llm.baseUrl = server.baseUrl
            if (model && !draft.overridden.has('llm.model')) s.llm.model = model
          })
        }
        data-testid="settings-local-use"
      >
        Use {server.name}
      </button>
    </div>
  )
}
