import type { LocalServer } from '../../bridge'
import { describeLocalServer, proposedModel } from '../../lib/localServers'
import { formatSeconds, parseSeconds } from '../../lib/units'
import { languages, resolveLanguage, type LanguageChoice } from '../../i18n'
import { useStore, useStores, type TextSize, type Theme } from '../../stores'
import { Field, TextInput, UnitInput, type FormTabProps, type SettingsDraft } from './form'
import { useTranslation } from '../../i18n'
import { backendText } from '../../i18n/backend'

const themes: Theme[] = ['system', 'light', 'dark']

/** Settings → General: the LLM endpoint (with the servers found on this
 * computer, Test connection and the models the endpoint serves) and the
 * appearance (theme, text size, language), which applies at once. */
export function GeneralTab({ draft }: FormTabProps) {
  const { t } = useTranslation()
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
        <h3>{t('settings.gen.model')}</h3>
        <p className="hint">{t('settings.gen.modelHint')}</p>
        {offers.map((s) => (
          <LocalOffer key={s.baseUrl} server={s} draft={draft} />
        ))}
        <Field draft={draft} path="llm.baseUrl" label={t('settings.gen.baseUrl')}>
          <TextInput draft={draft} path="llm.baseUrl" value={f.llm.baseUrl} set={(s, v) => (s.llm.baseUrl = v)} placeholder={'http://127.0.0.1:11434/v1'} spellCheck={false} />
        </Field>
        <div className="settings-grid">
          <Field draft={draft} path="llm.apiKey" label={t('settings.gen.apiKey')} help={t('settings.gen.apiKeyHelp')}>
            <TextInput
              draft={draft}
              path="llm.apiKey"
              value={f.llm.apiKey}
              set={(s, v) => (s.llm.apiKey = v)}
              type="password"
              autoComplete="off"
              placeholder={t('settings.gen.apiKeyPlaceholder')}
              onFocus={(e) => e.target.select()}
            />
          </Field>
          <Field draft={draft} path="llm.timeoutSeconds" label={t('settings.gen.timeout')} help={t('settings.gen.timeoutHelp')}>
            <UnitInput draft={draft} path="llm.timeoutSeconds" value={f.llm.timeoutSeconds} set={(s, v) => (s.llm.timeoutSeconds = v)} format={formatSeconds} parse={(v) => parseSeconds(v)} />
          </Field>
        </div>
        <div className="settings-test">
          <button type="button" className="btn" disabled={testing} onClick={() => void settings.actions.testConnection(f)} data-testid="settings-test">
            {testing ? t('settings.gen.testing') : t('settings.gen.test')}
          </button>
          {test && (
            <span className={`test-result ${test.ok ? 'is-ok' : 'is-fail'}`} data-testid="settings-test-result" data-ok={test.ok} role="status">
              {test.ok ? '✓ ' : '✗ '}
              {backendText(test)}
            </span>
          )}
        </div>
        <Field draft={draft} path="llm.model" label={t('settings.gen.model')} help={models.length > 0 && !modelFixed ? undefined : t('settings.gen.modelHelp')}>
          <TextInput draft={draft} path="llm.model" value={f.llm.model} set={(s, v) => (s.llm.model = v)} placeholder={'gpt-4o-mini'} spellCheck={false} list={models.length > 0 ? 'settings-models' : undefined} />
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
            <label htmlFor="settings-model-pick">{t('settings.gen.serves', { count: models.length })}</label>
            <select
              id="settings-model-pick"
              className="input"
              value={models.includes(f.llm.model) ? f.llm.model : ''}
              onChange={(e) => e.target.value && draft.edit((s) => (s.llm.model = e.target.value))}
              data-testid="settings-model-pick"
            >
              {!models.includes(f.llm.model) && <option value="">{t('settings.gen.choose')}</option>}
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
        <h3>{t('settings.gen.appearance')}</h3>
        <div className="theme-choice" role="radiogroup" aria-label={t('settings.gen.theme')}>
          {themes.map((id) => (
            <label key={id} className={`theme-option ${theme === id ? 'is-active' : ''}`} title={t(`settings.theme.${id}Hint`)}>
              <input
                type="radio"
                name="theme"
                value={id}
                checked={f.theme === id}
                onChange={() => {
                  draft.edit((s) => (s.theme = id))
                  settings.actions.previewTheme(id)
                }}
                data-testid={`set-theme-${id}`}
              />
              {t(`settings.theme.${id}`)}
            </label>
          ))}
        </div>
        <span className="hint">{themes.includes(f.theme as Theme) ? t(`settings.theme.${f.theme}Hint`) : ''}</span>
        <TextSizeChoice />
        <LanguageChoiceField />
        <NotifyChoice />
      </section>
    </>
  )
}

const sizes: TextSize[] = ['small', 'default', 'large', 'larger']

/** The size of the answers' text: applies at once and is kept for this
 * window, like the zoom (Ctrl/Cmd + = − 0), which the hint mentions. */
function TextSizeChoice() {
  const { t } = useTranslation()
  const { display } = useStores()
  const size = useStore(display, (s) => s.textSize)
  const zoom = useStore(display, (s) => s.zoom)
  return (
    <>
      <h4 className="settings-subhead" id="text-size-label">
        {t('settings.size.title')}
      </h4>
      <div className="theme-choice" role="radiogroup" aria-labelledby="text-size-label">
        {sizes.map((id) => (
          <label key={id} className={`theme-option ${size === id ? 'is-active' : ''}`}>
            <input type="radio" name="text-size" value={id} checked={size === id} onChange={() => display.actions.setTextSize(id)} data-testid={`set-text-size-${id}`} />
            {t(`settings.size.${id}`)}
          </label>
        ))}
      </div>
      <span className="hint" data-testid="zoom-hint">
        {t('settings.size.zoom', { zoom: Math.round(zoom * 100) })}
      </span>
    </>
  )
}

/** The language of the interface: the system's (named in brackets) or a
 * fixed one. Applies at once and is kept for this window, like the text
 * size. */
function LanguageChoiceField() {
  const { t } = useTranslation()
  const { display } = useStores()
  const choice = useStore(display, (s) => s.language)
  const options: { id: LanguageChoice; label: string }[] = [
    { id: 'system', label: t('settings.lang.system', { language: t(`language.${resolveLanguage('system')}`) }) },
    ...languages.map((l) => ({ id: l, label: t(`language.${l}`) })),
  ]
  return (
    <>
      <h4 className="settings-subhead" id="language-label">
        {t('settings.lang.title')}
      </h4>
      <div className="theme-choice" role="radiogroup" aria-labelledby="language-label" data-testid="language-choice">
        {options.map((o) => (
          <label key={o.id} className={`theme-option ${choice === o.id ? 'is-active' : ''}`}>
            <input type="radio" name="language" value={o.id} checked={choice === o.id} onChange={() => display.actions.setLanguage(o.id)} data-testid={`set-language-${o.id}`} />
            {o.label}
          </label>
        ))}
      </div>
      <span className="hint">{t('settings.lang.hint')}</span>
    </>
  )
}

/** Desktop notifications when work finishes in the background: applies at
 * once and is kept for this window. */
function NotifyChoice() {
  const { t } = useTranslation()
  const { display } = useStores()
  const on = useStore(display, (s) => s.notify)
  return (
    <>
      <h4 className="settings-subhead">{t('notify.setting')}</h4>
      <label className="settings-check">
        <input type="checkbox" checked={on} onChange={(e) => display.actions.setNotify(e.target.checked)} data-testid="set-notify" />
        {t('notify.settingHelp')}
      </label>
    </>
  )
}

/** A server found on this computer, offered in words; Use puts it in the form. */
function LocalOffer({ server, draft }: { server: LocalServer; draft: SettingsDraft }) {
  const { t } = useTranslation()
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
        {t('settings.gen.use', { name: server.name })}
      </button>
    </div>
  )
}
