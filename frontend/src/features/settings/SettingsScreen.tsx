import { useEffect, useMemo, useState, type ReactNode } from 'react'
import type { Settings, SettingsView } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { Modal } from '../../components/Modal'
import { useStore, useStores, type Theme } from '../../stores'
import { McpPanel } from '../mcp/McpPanel'
import { PackagesPanel } from '../packages/PackagesPanel'
import { SkillsPanel } from '../skills/SkillsPanel'
import './settings.css'

const clone = (s: Settings): Settings => JSON.parse(JSON.stringify(s)) as Settings

/** Settings (reachable from every screen): the LLM endpoint with Test
 * Connection, context budgets, tool policy, engine limits and the theme,
 * which applies at once; and the installed packages. Fields set by
 * environment variables are shown read-only. */
export function SettingsScreen() {
  const { settings } = useStores()
  const view = useStore(settings, (s) => s.view)
  const loaded = useStore(settings, (s) => s.loaded)
  const error = useStore(settings, (s) => s.error)
  const tab = useStore(settings, (s) => s.tab)
  return (
    <Modal title="Settings" onClose={settings.actions.hide} wide testId="settings-screen">
      <div className="settings-tabs" role="tablist" aria-label="Settings pages">
        {(
          [
            ['general', 'General'],
            ['packages', 'Packages'],
            ['mcp', 'MCP'],
            ['skills', 'Skills'],
          ] as const
        ).map(([id, label]) => (
          <button key={id} type="button" role="tab" aria-selected={tab === id} className={`settings-tab ${tab === id ? 'is-active' : ''}`} onClick={() => settings.actions.setTab(id)} data-testid={`settings-tab-${id}`}>
            {label}
          </button>
        ))}
      </div>
      {tab === 'skills' ? (
        <SkillsPanel />
      ) : tab === 'packages' ? (
        <PackagesPanel />
      ) : tab === 'mcp' ? (
        <McpPanel />
      ) : (
        <>
          {error && <ErrorBanner error={error} onDismiss={settings.actions.dismissError} />}
          {!loaded && !view && <p className="hint">Loading…</p>}
          {view && <SettingsForm key={view.path} view={view} />}
        </>
      )}
    </Modal>
  )
}

function SettingsForm({ view }: { view: SettingsView }) {
  const { settings } = useStores()
  const saving = useStore(settings, (s) => s.saving)
  const saved = useStore(settings, (s) => s.saved)
  const testing = useStore(settings, (s) => s.testing)
  const test = useStore(settings, (s) => s.test)
  const theme = useStore(settings, (s) => s.theme)
  const [form, setForm] = useState<Settings>(() => clone(view.settings))
  useEffect(() => setForm(clone(view.settings)), [view])

  const overridden = useMemo(() => new Map(view.overrides.map((o) => [o.field, o.variable])), [view.overrides])
  const edit = (fn: (s: Settings) => void) => {
    setForm((f) => {
      const next = clone(f)
      fn(next)
      return next
    })
    settings.actions.markDirty()
  }
  const num = (v: string) => (v.trim() === '' ? 0 : Number(v))

  const field = (path: string, label: string, input: ReactNode, help?: string) => (
    <div className="settings-field" key={path}>
      <label htmlFor={`set-${path}`}>{label}</label>
      {input}
      {overridden.has(path) ? (
        <span className="settings-override" data-testid={`override-${path}`}>
          Set by the environment variable <code>{overridden.get(path)}</code> (read-only here)
        </span>
      ) : help ? (
        <span className="hint">{help}</span>
      ) : null}
    </div>
  )
  const text = (path: string, value: string, set: (s: Settings, v: string) => void, extra: Record<string, unknown> = {}) => (
    <input
      id={`set-${path}`}
      className="input"
      value={value}
      readOnly={overridden.has(path)}
      onChange={(e) => edit((s) => set(s, e.target.value))}
      data-testid={`set-${path}`}
      {...extra}
    />
  )
  const number = (path: string, value: number, set: (s: Settings, v: number) => void, step = 1) => (
    <input
      id={`set-${path}`}
      className="input input-number"
      type="number"
      step={step}
      value={Number.isFinite(value) ? value : ''}
      readOnly={overridden.has(path)}
      onChange={(e) => edit((s) => set(s, num(e.target.value)))}
      data-testid={`set-${path}`}
    />
  )

  return (
    <form
      className="settings-form"
      onSubmit={(e) => {
        e.preventDefault()
        void settings.actions.save(form)
      }}
      data-testid="settings-form"
    >
      <section className="settings-section">
        <h3>LLM provider</h3>
        <p className="hint">Any OpenAI-compatible endpoint (OpenAI, Ollama, LM Studio, vLLM…).</p>
        {field('llm.baseUrl', 'Base URL', text('llm.baseUrl', form.llm.baseUrl, (s, v) => (s.llm.baseUrl = v), { placeholder: 'http://127.0.0.1:11434/v1' }))}
        {field('llm.model', 'Model', text('llm.model', form.llm.model, (s, v) => (s.llm.model = v), { placeholder: 'gpt-4o-mini' }))}
        {field(
          'llm.apiKey',
          'API key',
          text('llm.apiKey', form.llm.apiKey, (s, v) => (s.llm.apiKey = v), {
            type: 'password',
            autoComplete: 'off',
            placeholder: 'none (local servers)',
            onFocus: (e: React.FocusEvent<HTMLInputElement>) => e.target.select(),
          }),
          'Stored only in settings.json (mode 0600). The saved key is shown masked; type a new one to replace it.',
        )}
        {field('llm.timeoutSeconds', 'Timeout (seconds)', number('llm.timeoutSeconds', form.llm.timeoutSeconds, (s, v) => (s.llm.timeoutSeconds = v)), 'For a whole answer, tool calls included.')}
        <div className="settings-test">
          <button type="button" className="btn" disabled={testing} onClick={() => void settings.actions.testConnection(form)} data-testid="settings-test">
            {testing ? 'Testing…' : 'Test connection'}
          </button>
          {test && (
            <span className={`test-result ${test.ok ? 'is-ok' : 'is-fail'}`} data-testid="settings-test-result" data-ok={test.ok} role="status">
              {test.ok ? '✓ ' : '✗ '}
              {test.message}
            </span>
          )}
        </div>
      </section>

      <section className="settings-section">
        <h3>Context</h3>
        <div className="settings-grid">
          {field('context.tokenBudget', 'Token budget', number('context.tokenBudget', form.context.tokenBudget, (s, v) => (s.context.tokenBudget = v)), "The model's context window.")}
          {field('context.reserveForResponse', 'Reserved for the reply', number('context.reserveForResponse', form.context.reserveForResponse, (s, v) => (s.context.reserveForResponse = v)))}
          {field('context.triggerThreshold', 'Compress above (0–1)', number('context.triggerThreshold', form.context.triggerThreshold, (s, v) => (s.context.triggerThreshold = v), 0.05))}
          {field('context.targetAfterCompression', 'Compress down to (0–1)', number('context.targetAfterCompression', form.context.targetAfterCompression, (s, v) => (s.context.targetAfterCompression = v), 0.05))}
          {field('context.maxMessages', 'Max messages per request', number('context.maxMessages', form.context.maxMessages, (s, v) => (s.context.maxMessages = v)))}
          {field('context.maxChars', 'Max characters per request', number('context.maxChars', form.context.maxChars, (s, v) => (s.context.maxChars = v)))}
          {field(
            'context.compressionStrategy',
            'Compression',
            <select
              id="set-context.compressionStrategy"
              className="input"
              value={form.context.compressionStrategy}
              onChange={(e) => edit((s) => (s.context.compressionStrategy = e.target.value))}
              data-testid="set-context.compressionStrategy"
            >
              <option value="key-messages">Keep key messages</option>
              <option value="llm-summary">Summarise with the LLM</option>
            </select>,
          )}
        </div>
      </section>

      <section className="settings-section">
        <h3>Tools</h3>
        <label className="settings-check">
          <input type="checkbox" checked={form.tools.fs.enabled} onChange={(e) => edit((s) => (s.tools.fs.enabled = e.target.checked))} data-testid="set-tools.fs.enabled" />
          File tools (read, list, search, write inside the project folder)
        </label>
        <div className="settings-grid">
          {field('tools.fs.maxReadBytes', 'Max bytes per read', number('tools.fs.maxReadBytes', form.tools.fs.maxReadBytes, (s, v) => (s.tools.fs.maxReadBytes = v)))}
          {field('tools.fs.maxWriteBytes', 'Max bytes per write', number('tools.fs.maxWriteBytes', form.tools.fs.maxWriteBytes, (s, v) => (s.tools.fs.maxWriteBytes = v)))}
          {field('engine.maxTurns', 'Max model calls per message', number('engine.maxTurns', form.engine.maxTurns, (s, v) => (s.engine.maxTurns = v)))}
          {field(
            'engine.maxToolCallsPerMessage',
            'Max tool calls per model answer',
            number('engine.maxToolCallsPerMessage', form.engine.maxToolCallsPerMessage, (s, v) => (s.engine.maxToolCallsPerMessage = v)),
            'Calls beyond it are answered with an error, not run.',
          )}
        </div>
      </section>

      <section className="settings-section">
        <h3>Appearance</h3>
        <div className="theme-choice" role="radiogroup" aria-label="Theme">
          {(['light', 'dark'] as Theme[]).map((t) => (
            <label key={t} className={`theme-option ${theme === t ? 'is-active' : ''}`}>
              <input
                type="radio"
                name="theme"
                value={t}
                checked={form.theme === t}
                onChange={() => {
                  edit((s) => (s.theme = t))
                  settings.actions.previewTheme(t)
                }}
                data-testid={`set-theme-${t}`}
              />
              {t === 'light' ? 'Light' : 'Dark'}
            </label>
          ))}
        </div>
      </section>

      <footer className="settings-footer">
        <span className="hint mono">{view.path}</span>
        {saved && (
          <span className="settings-saved" data-testid="settings-saved" role="status">
            Saved
          </span>
        )}
        <button type="button" className="btn" onClick={settings.actions.hide} data-testid="settings-cancel">
          Close
        </button>
        <button type="submit" className="btn btn-primary" disabled={saving} data-testid="settings-save">
          {saving ? 'Saving…' : 'Save'}
        </button>
      </footer>
    </form>
  )
}
