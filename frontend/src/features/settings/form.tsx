import { useEffect, useState, type ReactNode } from 'react'
import type { Settings, SettingsView } from '../../bridge'
import { formatPercent, type Parsed } from '../../lib/units'
import { t, Trans } from '../../i18n'

/** The settings being edited, shared by the pages that edit settings.json
 * (one draft, one Save, whichever page is shown). */
export interface SettingsDraft {
  form: Settings
  edit(fn: (s: Settings) => void): void
  /** Fields set by environment variables (read-only here): path → variable. */
  overridden: Map<string, string>
  /** What is wrong with a field, by its JSON path. */
  errors: Record<string, string>
  setFieldError(path: string, error: string | null): void
  /** The field whose edit was saved last ("Saved" shows beside it). */
  savedPath?: string | null
}

/** What a page that edits settings.json receives: the shared draft (saved
 * by the screen's Save) and the settings as read. */
export interface FormTabProps {
  draft: SettingsDraft
  view: SettingsView
}

/** Errors that involve two fields, on the field to change. */
export function crossFieldErrors(s: Settings): Record<string, string> {
  const out: Record<string, string> = {}
  const c = s.context
  if (c.targetAfterCompression >= c.triggerThreshold) {
    out['context.targetAfterCompression'] = t('settings.err.belowTrigger', { value: formatPercent(c.triggerThreshold) })
  }
  if (c.tokenBudget > 0 && c.reserveForResponse >= c.tokenBudget) {
    out['context.reserveForResponse'] = t('settings.err.belowBudget')
  }
  return out
}

/** A labelled field with its help, its error, or the variable that sets it. */
export function Field({
  draft,
  path,
  label,
  help,
  wide = false,
  children,
}: {
  draft: SettingsDraft
  path: string
  label: string
  help?: ReactNode
  /** Across the whole row of a grid. */
  wide?: boolean
  children: ReactNode
}) {
  const error = draft.errors[path]
  const variable = draft.overridden.get(path)
  return (
    <div className={`settings-field ${wide ? 'settings-field-wide' : ''} ${error ? 'has-error' : ''}`} data-field={path}>
      <label htmlFor={`set-${path}`}>
        {label}
        {draft.savedPath === path && !error && (
          <span className="settings-field-saved" role="status" data-testid={`saved-${path}`}>
            {t('settings.fieldSaved')}
          </span>
        )}
      </label>
      {children}
      {error ? (
        <span className="settings-error" role="alert" data-testid={`error-${path}`}>
          {error}
        </span>
      ) : variable ? (
        <span className="settings-override" data-testid={`override-${path}`}>
          <Trans i18nKey="settings.override" values={{ variable }} components={{ code: <code /> }} />
        </span>
      ) : help ? (
        <span className="hint">{help}</span>
      ) : null}
    </div>
  )
}

/** Fields that rarely need changing, folded under "Advanced"; open while
 * one of them (by path prefix) is wrong. */
export function Advanced({ draft, paths, testId, children }: { draft: SettingsDraft; paths: string[]; testId?: string; children: ReactNode }) {
  const wrong = Object.keys(draft.errors).some((k) => paths.some((p) => k.startsWith(p)))
  return (
    <details className="settings-advanced" open={wrong || undefined} data-testid={testId}>
      <summary>
        {t('settings.advanced')} <span className="hint">{t('settings.advancedHint')}</span>
      </summary>
      {children}
    </details>
  )
}

/** A text field of settings.json. */
export function TextInput({
  draft,
  path,
  value,
  set,
  ...extra
}: {
  draft: SettingsDraft
  path: string
  value: string
  set: (s: Settings, v: string) => void
} & Omit<React.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  return (
    <input
      id={`set-${path}`}
      className="input"
      value={value}
      readOnly={draft.overridden.has(path)}
      onChange={(e) => draft.edit((s) => set(s, e.target.value))}
      data-testid={`set-${path}`}
      {...extra}
    />
  )
}

/** A number shown and typed in the unit people read it in (512 KB, 80 %,
 * 2 min): what is typed is kept as typed until it reads as a valid value,
 * which then goes into the draft; the field says what is wrong meanwhile,
 * and shows the value in its usual form when it loses the focus. */
export function UnitInput({
  draft,
  path,
  value,
  set,
  format,
  parse,
  suffix,
  placeholder,
}: {
  draft: SettingsDraft
  path: string
  value: number
  set: (s: Settings, v: number) => void
  format: (v: number) => string
  parse: (text: string) => Parsed
  /** A unit shown after the field ("tokens"). */
  suffix?: string
  placeholder?: string
}) {
  const [text, setText] = useState(() => format(value))
  // A value changed elsewhere (settings read again, saved) is shown as it is.
  useEffect(() => {
    setText((t) => {
      const p = parse(t)
      return p.ok && p.value === value ? t : format(value)
    })
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value])
  const readOnly = draft.overridden.has(path)
  const input = (
    <input
      id={`set-${path}`}
      className="input"
      value={text}
      readOnly={readOnly}
      placeholder={placeholder}
      spellCheck={false}
      autoComplete="off"
      aria-invalid={!!draft.errors[path]}
      onChange={(e) => {
        const t = e.target.value
        setText(t)
        const p = parse(t)
        if (p.ok) {
          draft.setFieldError(path, null)
          draft.edit((s) => set(s, p.value))
        } else {
          draft.setFieldError(path, p.error)
        }
      }}
      onBlur={() => {
        const p = parse(text)
        if (p.ok) setText(format(p.value))
      }}
      data-testid={`set-${path}`}
      data-value={value}
    />
  )
  if (!suffix) return input
  return (
    <div className="settings-unit">
      {input}
      <span className="settings-unit-suffix">{suffix}</span>
    </div>
  )
}
