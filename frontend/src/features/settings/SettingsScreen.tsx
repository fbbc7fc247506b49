import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { Settings } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { Modal } from '../../components/Modal'
import { useStore, useStores } from '../../stores'
import { crossFieldErrors, type SettingsDraft } from './form'
import { isFormTab, settingsTabs, type SettingsTabDef } from './tabs'
import './settings.css'
import { useTranslation } from '../../i18n'
import { backendText } from '../../i18n/backend'

const clone = (s: Settings): Settings => JSON.parse(JSON.stringify(s)) as Settings

/** How long typing pauses before a text field is saved; other controls
 * (choices, boxes) save at once. */
export const typingDelayMs = 400

/** Whether the focus is in a field that takes typed text. */
function typing(): boolean {
  const el = document.activeElement
  return el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && !['checkbox', 'radio'].includes(el.type))
}

/** Settings (reachable from every screen): a list of pages beside the page
 * shown, in a dialog whose size does not depend on the page. The pages that
 * edit settings.json (settingsTabs with `edits`) share one draft, saved as
 * it is edited (text when typing pauses) while every field is valid, with
 * "Saved" beside the field; the others act on their own. Fields set by
 * environment variables are read-only. */
export function SettingsScreen() {
  const { t } = useTranslation()
  const { settings, setup } = useStores()
  const view = useStore(settings, (s) => s.view)
  const loaded = useStore(settings, (s) => s.loaded)
  const error = useStore(settings, (s) => s.error)
  const tabId = useStore(settings, (s) => s.tab)
  const saving = useStore(settings, (s) => s.saving)
  const saved = useStore(settings, (s) => s.saved)

  const [form, setForm] = useState<Settings | null>(() => (view ? clone(view.settings) : null))
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  // Edits not saved yet, and the field edited last (where "Saved" shows).
  const pending = useRef(false)
  const [editedPath, setEditedPath] = useState<string | null>(null)
  // settings read or saved: the form shows them (not over edits made since)
  useEffect(() => {
    if (view && !pending.current) setForm(clone(view.settings))
  }, [view])
  // what runs on this computer, for the General page's offers
  useEffect(() => {
    void setup.actions.detect()
  }, [setup])

  const overridden = useMemo(() => new Map((view?.overrides ?? []).map((o) => [o.field, o.variable])), [view])
  const edit = useCallback(
    (fn: (s: Settings) => void) => {
      setForm((f) => {
        if (!f) return f
        const next = clone(f)
        fn(next)
        return next
      })
      pending.current = true
      delay.current = typing() ? typingDelayMs : 0
      setEditedPath(document.activeElement?.closest('[data-field]')?.getAttribute('data-field') ?? null)
      settings.actions.markDirty()
    },
    [settings],
  )
  const delay = useRef(0)
  const setFieldError = useCallback((path: string, msg: string | null) => {
    setFieldErrors((e) => {
      if ((e[path] ?? null) === msg) return e
      const next = { ...e }
      if (msg === null) delete next[path]
      else next[path] = msg
      return next
    })
  }, [])
  const errors = useMemo(() => ({ ...(form ? crossFieldErrors(form) : {}), ...fieldErrors }), [form, fieldErrors])
  const savedPath = saved && !pending.current ? editedPath : null
  const draft: SettingsDraft | null = useMemo(
    () => (form ? { form, edit, overridden, errors, setFieldError, savedPath } : null),
    [form, edit, overridden, errors, setFieldError, savedPath],
  )
  const wrong = Object.keys(errors)
  const save = useCallback(
    (s: Settings) => {
      pending.current = false
      void settings.actions.save(s)
    },
    [settings],
  )
  // Saved as edited: once every field is valid, after a pause in typing;
  // what is still waiting is saved when the dialog closes.
  const latest = useRef<{ form: Settings | null; ok: boolean }>({ form: null, ok: false })
  latest.current = { form, ok: wrong.length === 0 }
  useEffect(() => {
    if (!pending.current || !form || wrong.length > 0 || saving) return
    const id = setTimeout(() => save(form), delay.current)
    return () => clearTimeout(id)
  }, [form, wrong.length, saving, save])
  useEffect(
    () => () => {
      const { form: f, ok } = latest.current
      if (pending.current && f && ok) save(f)
    },
    [save],
  )

  const tab = settingsTabs.find((p) => p.id === tabId) ?? settingsTabs[0]
  const panel = useRef<HTMLDivElement>(null)
  useEffect(() => {
    panel.current?.scrollTo?.({ top: 0 })
  }, [tab.id])
  const tabWrong = (p: SettingsTabDef) => !!p.edits && wrong.some((w) => p.edits!.some((prefix) => w.startsWith(prefix)))

  const footer = (
    <div className="settings-footer" data-testid="settings-footer">
      <span className="settings-footer-note">
        {wrong.length > 0 ? (
          <span className="settings-footer-wrong" data-testid="settings-wrong">
            {t('settings.wrong', { count: wrong.length })}
          </span>
        ) : saving ? (
          <span className="hint" data-testid="settings-saving">
            {t('settings.saving')}
          </span>
        ) : saved ? (
          <span className="settings-saved" data-testid="settings-saved" role="status">
            {t('settings.savedAll')}
          </span>
        ) : (
          <span className="hint" title={view?.path}>
            {t('settings.autosave')}
          </span>
        )}
      </span>
      <button type="button" className="btn" onClick={settings.actions.hide} data-testid="settings-cancel">
        {t('common.close')}
      </button>
    </div>
  )

  return (
    <Modal title={t('settings.title')} onClose={settings.actions.hide} wide className="settings-dialog" testId="settings-screen" footer={footer}>
      <div className="settings-layout">
        <nav className="settings-nav" role="tablist" aria-orientation="vertical" aria-label={t('settings.pages')}>
          {settingsTabs.map((p) => (
            <button
              key={p.id}
              type="button"
              role="tab"
              aria-selected={p.id === tab.id}
              className={`settings-tab ${p.id === tab.id ? 'is-active' : ''}`}
              onClick={() => settings.actions.setTab(p.id)}
              data-testid={`settings-tab-${p.id}`}
            >
              {t(`settings.tab.${p.id}`)}
              {tabWrong(p) && <span className="settings-tab-wrong" aria-label={t('settings.tabWrong')} data-testid={`settings-tab-wrong-${p.id}`} />}
            </button>
          ))}
        </nav>
        <div ref={panel} className="settings-panel" role="tabpanel" aria-label={t(`settings.tab.${tab.id}`)} data-testid={`settings-panel-${tab.id}`}>
          {/* The pages of the form stay mounted (hidden), so what is typed in
              one, valid or not, is still there when it is shown again. */}
          <form
            className="settings-form"
            hidden={!tab.edits}
            onSubmit={(e) => {
              e.preventDefault()
              if (form && wrong.length === 0 && pending.current) save(form)
            }}
            data-testid="settings-form"
          >
            {error && <ErrorBanner error={error} onDismiss={settings.actions.dismissError} />}
            {view && view.warnings?.length > 0 && (
              <div className="settings-warnings" role="status" data-testid="settings-warnings">
                <p>{t('settings.warnings')}</p>
                <ul>
                  {view.warnings.map((w) => (
                    <li key={w.field}>
                      <span className="mono">{w.field}</span> {backendText(w)}
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {!loaded && !view && <p className="hint">{t('common.loading')}</p>}
            {draft &&
              view &&
              settingsTabs.filter(isFormTab).map((p) => (
                <div key={p.id} className="settings-page" hidden={p.id !== tab.id} data-testid={`settings-page-${p.id}`}>
                  <p.Component draft={draft} view={view} />
                </div>
              ))}
          </form>
          {!tab.edits && <tab.Component />}
        </div>
      </div>
    </Modal>
  )
}
