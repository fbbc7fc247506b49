import { useCallback, useEffect, useRef } from 'react'
import { BridgeError, type SkillItem } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { useStore, useStores } from '../../stores'
import { parseSkillCommand } from './skillCommand'
import './skills.css'
import { useTranslation } from '../../i18n'

/** The skills the user may pick: available ones that do not ask to be left
 * to the model, by name. */
export function pickable(items: SkillItem[] | undefined): SkillItem[] {
  return (items ?? []).filter((s) => s.status === 'available' && !s.modelOnly)
}

/** Runs a skill command typed in the composer: 'done' when it was one and
 * the text can go, 'keep' when it was one that failed (the text stays to be
 * corrected; the error says why), null for an ordinary message. */
export function useSkillCommand(): (text: string) => Promise<'done' | 'keep' | null> {
  const { skills } = useStores()
  return useCallback(
    async (text: string) => {
      const cmd = parseSkillCommand(text)
      switch (cmd?.kind) {
        case undefined:
          return null
        case 'picker':
          skills.actions.setPicker(true)
          return 'done'
        case 'invalid':
          skills.actions.refuse(new BridgeError('E_USAGE', cmd.message))
          return 'keep'
        case 'activate':
          return (await skills.actions.activate(cmd.name)) ? 'done' : 'keep'
        case 'deactivate':
          return (await skills.actions.deactivate(cmd.name)) ? 'done' : 'keep'
      }
    },
    [skills],
  )
}

/** Above the message input: the skills active in the conversation as chips
 * (click one to deactivate it), the Skills button that opens the picker,
 * and what went wrong with the last skill command. */
export function ComposerSkills({ conversationId, disabled }: { conversationId: string | null; disabled: boolean }) {
  const { t } = useTranslation()
  const { skills, settings } = useStores()
  const active = useStore(skills, (s) => s.active)
  const view = useStore(skills, (s) => s.view)
  const picker = useStore(skills, (s) => s.picker)
  const changing = useStore(skills, (s) => s.changing)
  const error = useStore(skills, (s) => s.commandError)

  useEffect(() => skills.actions.start(), [skills])
  useEffect(() => {
    void skills.actions.load()
  }, [skills])
  useEffect(() => {
    void skills.actions.open(conversationId)
  }, [skills, conversationId])

  const choices = pickable(view?.skills)
  if (!conversationId || (choices.length === 0 && active.length === 0 && !error)) return null
  return (
    <div className="composer-skills" data-testid="composer-skills">
      {error && <ErrorBanner error={error} onDismiss={skills.actions.dismissCommandError} />}
      <div className="composer-skills-row">
        <button
          type="button"
          className={`skill-picker-btn ${picker ? 'is-open' : ''}`}
          aria-haspopup="menu"
          aria-expanded={picker}
          onClick={() => skills.actions.setPicker(!picker)}
          title={t('composerSkills.title')}
          data-testid="skill-picker-button"
        >
          <span aria-hidden="true">✦</span> {t('composerSkills.button')}
        </button>
        {active.map((a) => (
          <button
            key={a.name}
            type="button"
            className={`skill-chip ${a.missing ? 'is-missing' : ''}`}
            disabled={disabled || changing === a.name}
            onClick={() => void skills.actions.deactivate(a.name)}
            title={`${t('composerSkills.active', { name: a.name })}${a.description ? `: ${a.description}` : ''}${a.missing ? t('composerSkills.missing') : ''}${t('composerSkills.clickOff')}`}
            aria-label={t('composerSkills.off', { name: a.name })}
            data-testid="skill-chip"
            data-skill={a.name}
          >
            <span className="skill-chip-name">{a.name}</span>
            <span className="skill-chip-x" aria-hidden="true">
              ×
            </span>
          </button>
        ))}
        {picker && <SkillPicker choices={choices} activeNames={active.map((a) => a.name)} disabled={disabled} onManage={() => settings.actions.show('skills')} />}
      </div>
    </div>
  )
}

/** The picker: every skill the user may activate, active ones checked
 * (choosing one of those deactivates it). Escape or a click elsewhere
 * closes it. */
function SkillPicker({ choices, activeNames, disabled, onManage }: { choices: SkillItem[]; activeNames: string[]; disabled: boolean; onManage: () => void }) {
  const { t } = useTranslation()
  const { skills } = useStores()
  const changing = useStore(skills, (s) => s.changing)
  const ref = useRef<HTMLDivElement>(null)

  useEffect(() => {
    ref.current?.querySelector<HTMLButtonElement>('button')?.focus()
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node | null
      if (ref.current && target && !ref.current.contains(target) && !(target instanceof Element && target.closest('[data-testid="skill-picker-button"]'))) skills.actions.setPicker(false)
    }
    document.addEventListener('mousedown', onDown)
    return () => document.removeEventListener('mousedown', onDown)
  }, [skills])

  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation()
      skills.actions.setPicker(false)
      return
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return
    e.preventDefault()
    const items = [...(ref.current?.querySelectorAll<HTMLButtonElement>('button.skill-option') ?? [])]
    const i = items.indexOf(document.activeElement as HTMLButtonElement)
    items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus()
  }

  return (
    <div className="skill-picker" role="menu" aria-label={t('composerSkills.button')} ref={ref} onKeyDown={onKey} data-testid="skill-picker">
      {choices.length === 0 ? (
        <p className="hint skill-picker-empty">{t('composerSkills.none')}</p>
      ) : (
        <ul>
          {choices.map((s) => {
            const on = activeNames.includes(s.name)
            return (
              <li key={s.name}>
                <button
                  type="button"
                  role="menuitemcheckbox"
                  aria-checked={on}
                  className={`skill-option ${on ? 'is-active' : ''}`}
                  disabled={disabled || changing !== null}
                  onClick={() => void (on ? skills.actions.deactivate(s.name) : skills.actions.activate(s.name))}
                  data-testid="skill-option"
                  data-skill={s.name}
                >
                  <span className="skill-option-check" aria-hidden="true">
                    {on ? '✓' : ''}
                  </span>
                  <span className="skill-option-text">
                    <span className="skill-option-name">{s.name}</span>
                    <span className="skill-option-desc">{s.description}</span>
                  </span>
                  <span className="badge skill-source">{s.source}</span>
                </button>
              </li>
            )
          })}
        </ul>
      )}
      <button type="button" className="skill-picker-manage" onClick={onManage} data-testid="skill-picker-manage">
        {t('composerSkills.manage')}
      </button>
    </div>
  )
}
